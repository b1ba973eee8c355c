"""The Hub's benchmark declaration of a released test set: ``eval.yaml`` at the dataset repo's root
(https://huggingface.co/docs/hub/eval-results, "Eval.yaml specification"). One Hub task (one leaderboard) per
lm-eval task and headline metric, since a leaderboard ranks one value; results name it as ``dataset.task_id``.

Required by the Hub: ``name``, ``description``, ``evaluation_framework`` (one of the identifiers the Hub lists;
hallubench's tasks run in Inspect, so ``inspect-ai``) and ``tasks[].id``; with ``inspect-ai`` also each task's
``field_spec``, ``solvers`` and ``scorers``. Inspect builds only its own scorers from those, so the scorer named here
(hallubench's judge chain) runs through ``inspect eval hallubench/<task>``, not ``inspect eval hf/<repo>``. What
hallubench adds (the pinned revision, the fingerprints results record, how to run each task) sits in one top-level
``hallubench`` key, outside the task entries (Inspect refuses unknown task keys)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml

from hallu_metrics.contract import UNREADABLE_METRIC, Benchmark, Metric
from hallu_metrics.registry import TASKS

EVAL_YAML = "eval.yaml"
HUB_DOCS = "https://huggingface.co/docs/hub/eval-results"
FRAMEWORK = "inspect-ai"
INPUT_COLUMNS = ("prompt", "question", "source", "document")  # the column a task shows the model, first present
TARGET_COLUMNS = ("answer", "answerKey", "possible_answers", "reference")  # the reference answer, first present


class _Dumper(yaml.SafeDumper):
    """YAML with multi-line text as literal blocks and no wrapped lines (commands stay copyable)."""


_Dumper.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None))


def leaderboard_metrics(task: str) -> list[Metric]:
    """The metrics of ``task`` that get a leaderboard: its headline metrics but the unreadable share (a quality
    check of the judging, reported beside every value, not a ranking)."""
    benchmark = TASKS[task]
    return [benchmark.metric(name) for name in benchmark.headline_metrics if name != UNREADABLE_METRIC]


def leaderboard_id(task: str, metric: str) -> str:
    """The Hub task id of one leaderboard: ``<lm-eval task>.<metric>`` (no ``/``: Inspect reads ``hf/REPO/ID``)."""
    return f"{task}.{metric}"


def pin_metadata(repo_id: str, revision: str) -> str:
    """The lm-eval / ``hallubench eval`` flag that loads this release and nothing newer (JSON, so that the revision
    stays a string)."""
    return f"--metadata '{json.dumps({'dataset': repo_id, 'dataset_revision': revision})}'"


def run_commands(task: str, repo_id: str, revision: str) -> dict[str, str]:
    """How to evaluate a model on ``task`` of exactly this release, in lm-eval and in Inspect."""
    return {
        "lm_eval": f"hallubench eval --model ... --tasks {task} {pin_metadata(repo_id, revision)}",
        "inspect": f"inspect eval hallubench/{task} -T dataset={repo_id} -T dataset_revision={revision} --model ...",
    }


def _first_column(benchmark: Benchmark, names: tuple[str, ...]) -> str | None:
    return next((name for name in names if name in benchmark.column_types), None)


def _hub_task(task: str, metric: Metric) -> dict[str, Any]:
    """One ``tasks[]`` entry: the set's only config and split, the column the model's prompt is made of, one
    generation, and hallubench's judge chain as the scorer (named as the Inspect task's scorer, ``<task>_judge``)."""
    benchmark = TASKS[task]
    target = _first_column(benchmark, TARGET_COLUMNS)
    return {
        "id": leaderboard_id(task, metric.name),
        "config": "default",
        "split": "test",
        "field_spec": {"input": _first_column(benchmark, INPUT_COLUMNS) or next(iter(benchmark.column_types)),
                       "target": target or "literal:"},  # literal: the task has no reference answer
        "solvers": [{"name": "generate"}],
        "scorers": [{"name": f"{task}_judge", "args": {"metric": metric.name, "judge": benchmark.default_judge}}],
    }


def _direction(metric: Metric) -> str:
    return {True: "higher is better", False: "lower is better", None: "descriptive"}[metric.higher_is_better]


def eval_yaml(card_metadata: Mapping[str, Any], summary: str, repo_id: str, revision: str, version: str) -> str:
    """The ``eval.yaml`` of a release: ``card_metadata`` is the set card's front matter (its ``pretty_name`` and
    the ``hallubench`` fingerprints by task), ``revision`` the commit whose data the release holds."""
    fingerprints = card_metadata.get("hallubench") or {}
    by_task: Mapping[str, str] = fingerprints.get("results_fingerprint") or {}
    tasks = [task for task in by_task if task in TASKS]
    leaderboards = {task: leaderboard_metrics(task) for task in tasks}
    lines = [f"- {leaderboard_id(task, m.name)}: {m.description} ({_direction(m)})"
             for task, metrics in leaderboards.items() for m in metrics]
    description = (f"{summary.strip()}\n\nOne leaderboard per task and metric; values as hallubench records them "
                   "(rates as fractions):\n" + "\n".join(lines) + f"\n\nRun with hallubench {version} on revision "
                   f"{revision} (the `hallubench` key below gives each task's lm-eval and Inspect command).")
    document = {
        "name": card_metadata.get("pretty_name") or repo_id,
        "description": description,
        "evaluation_framework": FRAMEWORK,
        "tasks": [_hub_task(task, metric) for task, metrics in leaderboards.items() for metric in metrics],
        "hallubench": {
            "version": version,
            "dataset": repo_id,
            "revision": revision,
            "rows_fingerprint": fingerprints.get("rows_fingerprint"),
            "tasks": {task: {"fingerprint": by_task[task], "metrics": [m.name for m in leaderboards[task]],
                             "run": run_commands(task, repo_id, revision)} for task in tasks},
        },
    }
    return f"# {HUB_DOCS}\n" + yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=4096)
