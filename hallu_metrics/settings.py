"""One run's settings (``RunSettings``), resolved once per task and recorded whole, so that a samples log
re-scores with exactly the settings of the run that wrote it.

A setting is one of: ``dataset`` / ``dataset_revision`` (and a benchmark's older data keys), a judge spec per role
(``judge``, ``judge_claims``, ...), or an option the benchmark declares (``Benchmark.options``: LongWiki's
``knowledge``, ``retrieval``, ``embedder``, ``longwiki_k``; WildHallucinations' ``top_k``; ...). Precedence, first
found wins:

1. a flag of the command (``hallubench score --knowledge``, ``--judge``, ``--judge-role``, ``--set KEY=VALUE``);
2. what the run states: lm-eval's ``--metadata <key>_<task>``, then ``<key>``, then the task YAML's
   ``dataset_kwargs``; on re-scoring, the settings recorded in the samples log (a judged record's ``settings``);
3. the environment: ``$HALLUBENCH_<KEY>_<TASK>``, then ``$HALLUBENCH_<KEY>``;
4. the benchmark's default.

Recorded settings hold judge specs in their public form (``JudgeSet.public_specs``: no secrets)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hallu_metrics.contract import Benchmark

DATA_KEYS = ("dataset", "dataset_revision")


def task_setting(metadata: Mapping[str, Any], key: str, task: str) -> tuple[str | None, str]:
    """The value for ``key`` from ``--metadata`` (``<key>_<task>`` before ``<key>``) or the environment
    (``$HALLUBENCH_<KEY>_<TASK>`` before ``$HALLUBENCH_<KEY>``), and where it came from (for messages)."""
    for name in (f"{key}_{task}", key):
        value = metadata.get(name)
        if value not in (None, ""):
            return str(value), f"--metadata {name}"
    for name in (f"HALLUBENCH_{key.upper()}_{task.upper()}", f"HALLUBENCH_{key.upper()}"):
        value = os.environ.get(name)
        if value:
            return value, f"${name}"
    return None, f"--metadata {key} (or ${'HALLUBENCH_' + key.upper()})"


@dataclass(frozen=True)
class RunSettings(Mapping[str, Any]):
    """A task's resolved settings (a read-only mapping) and where each came from."""

    task: str
    values: Mapping[str, Any]
    sources: Mapping[str, str] = field(default_factory=dict)
    judge_roles: tuple[str, ...] = ()

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def source(self, key: str) -> str:
        """Where ``key``'s value came from (a flag, ``--metadata``, the samples log, an env var, the default)."""
        return self.sources.get(key, "default")

    def record(self) -> dict[str, Any]:
        """The settings as recorded in results, samples and result.json: judge specs in their public form
        (no secrets), every other value as resolved."""
        from hallu_metrics.judges.kinds import public_spec

        return {key: public_spec(value) if key in self.judge_roles and value and self.source(key) != "samples log"
                else value for key, value in sorted(self.values.items())}


def setting_keys(benchmark: Benchmark) -> tuple[str, ...]:
    """Every key a run of ``benchmark`` resolves: data, a judge spec per role, the benchmark's own options."""
    return (*DATA_KEYS, *benchmark.data_aliases, *benchmark.judge_roles, *benchmark.options)


def resolve_settings(
    benchmark: Benchmark,
    task: str,
    stated: Mapping[str, Any],
    *,
    flags: Mapping[str, Any] | None = None,
    recorded: Mapping[str, Any] | None = None,
) -> RunSettings:
    """``benchmark``'s settings for ``task`` by the precedence above: ``flags`` (a command's options), ``stated``
    (lm-eval's metadata and dataset_kwargs), ``recorded`` (from a samples log), the environment, the default."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    defaults = {**benchmark.options, **({"judge": benchmark.default_judge} if benchmark.judge_roles else {})}
    for key in setting_keys(benchmark):
        value, source = _first(key, task, flags or {}, stated, recorded or {})
        if value is None:
            value, source = defaults.get(key), source if source == "samples log" else "default"
        values[key], sources[key] = value, source
    return RunSettings(task, values, sources, benchmark.judge_roles)


def _first(key: str, task: str, flags: Mapping[str, Any], stated: Mapping[str, Any],
           recorded: Mapping[str, Any]) -> tuple[Any, str]:
    if flags.get(key) not in (None, ""):
        return flags[key], "flag"
    for name in (f"{key}_{task}", key):
        if stated.get(name) not in (None, ""):
            return stated[name], f"--metadata {name}"
    if key in recorded:  # recorded unset (None) stays unset: the environment never changes a recorded run
        return recorded[key], "samples log"
    for name in (f"HALLUBENCH_{key.upper()}_{task.upper()}", f"HALLUBENCH_{key.upper()}"):
        if os.environ.get(name):
            return os.environ[name], f"${name}"
    return None, "default"


def option(settings: Mapping[str, Any], key: str, task: str, default: Any = None) -> Any:
    """One setting as the judging chain reads it: from resolved ``RunSettings`` as resolved; from a plain mapping
    (a caller that resolved nothing, e.g. a test set's load options) by ``task_setting``."""
    value = settings.get(key) if isinstance(settings, RunSettings) else task_setting(settings, key, task)[0]
    return default if value in (None, "") else value
