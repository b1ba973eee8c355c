"""What an lm-eval task YAML (``lm_eval_tasks/<family>/<task>.yaml``, its ``include:`` chain merged) says about a
task that an Inspect task needs too: the prompt template (``doc_to_text``), the target (``doc_to_target``), the
generation settings and the ``dataset_kwargs`` its loader reads. The YAML files are read as data (their
``!function`` hooks are not imported); templates are rendered by lm-eval's own ``apply_template``, so an Inspect
sample's prompt is the text lm-eval sends."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hallubench.core.errors import HallubenchError
from hallubench_tasks import TASKS_DIR


class _TaskYamlLoader(yaml.SafeLoader):
    """lm-eval's task YAML: ``!function module.name`` read as its text."""


_TaskYamlLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def _read(path: Path) -> dict[str, Any]:
    """One YAML file with its ``include:`` chain merged (the including file's keys win, as in lm-eval)."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_TaskYamlLoader) or {}
    include = data.pop("include", None)
    return {**_read((path.parent / include).resolve()), **data} if include else data


@functools.cache
def task_yamls() -> dict[str, dict[str, Any]]:
    """Task name -> its merged YAML config, for every task YAML under the lm-eval tasks folder."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(TASKS_DIR.rglob("*.yaml")):
        config = _read(path)
        if isinstance(config.get("task"), str) and "group" not in config:
            found[config["task"]] = config
    return found


@dataclass(frozen=True)
class TaskConfig:
    """The parts of an lm-eval task config an Inspect task uses."""

    task: str
    doc_to_text: str
    doc_to_target: str
    max_tokens: int
    temperature: float
    dataset_kwargs: dict[str, Any] = field(default_factory=dict)
    version: Any = None

    def prompt(self, doc: dict) -> str:
        """The prompt lm-eval builds for ``doc`` (zero-shot, no description)."""
        from lm_eval.utils import apply_template

        return apply_template(self.doc_to_text, doc)

    def target(self, doc: dict) -> str:
        from lm_eval.utils import apply_template

        return apply_template(self.doc_to_target, doc) if self.doc_to_target else ""


def task_config(task: str) -> TaskConfig:
    """The config of lm-eval task ``task``; one line when no YAML declares it."""
    config = task_yamls().get(task)
    if config is None:
        raise HallubenchError(f"no lm-eval task YAML declares task {task!r} under {TASKS_DIR}")
    generation = config.get("generation_kwargs") or {}
    return TaskConfig(
        task=task,
        doc_to_text=str(config["doc_to_text"]),
        doc_to_target=str(config.get("doc_to_target") or ""),
        max_tokens=int(generation.get("max_gen_toks", 256)),
        temperature=float(generation.get("temperature", 0.0)),
        dataset_kwargs=dict(config.get("dataset_kwargs") or {}),
        version=(config.get("metadata") or {}).get("version"),
    )
