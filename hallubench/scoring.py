"""``hallubench score``: judge saved lm-eval samples (also ``--predict_only`` output) without
re-running the model, and report overall metrics and breakdowns in the shared result shape."""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hallu_metrics.contract import Benchmark
from hallu_metrics.judges import JudgeSet, failed_verdicts
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import benchmark_for_task
from hallubench.errors import HallubenchError
from hallubench.outputs import write_text_atomic
from hallubench.provenance import prompts_hash, software

RESULT_SCHEMA_VERSION = 2


def _sample_line(path: Path, number: int, line: str, benchmark: Benchmark) -> tuple[dict, str]:
    try:
        sample = json.loads(line)
        doc, response = sample["doc"], sample["resps"][0][0]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise HallubenchError(f"{path}:{number} is not an lm-eval sample line ({type(exc).__name__})") from exc
    if not isinstance(doc, dict):
        raise HallubenchError(f"{path}:{number}: 'doc' is not an object")
    missing = [c for c in benchmark.required_doc_columns if c not in doc]
    if missing:
        raise HallubenchError(f"{path} is not a {benchmark.name} samples file: its docs lack {missing}")
    nulls = [c for c in benchmark.required_doc_columns if doc[c] is None and c not in benchmark.nullable]
    if nulls:
        raise HallubenchError(f"{path}:{number}: doc fields {nulls} are null")
    return doc, response if isinstance(response, str) else json.dumps(response)


def read_samples(path: Path, task: str) -> tuple[list[dict], list[str]]:
    """Docs and raw model responses from an lm-eval ``samples_<task>_*.jsonl`` file."""
    benchmark = benchmark_for_task(task)
    if not path.is_file():
        raise HallubenchError(f"samples file not found: {path}")
    docs, responses = [], []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    doc, response = _sample_line(path, number, line, benchmark)
                    docs.append(doc)
                    responses.append(response)
    except UnicodeDecodeError as exc:
        raise HallubenchError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    if not docs:
        raise HallubenchError(f"{path} holds no samples")
    return docs, responses


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def write_json_atomic(path: Path, payload: Any) -> None:
    """Write JSON through a temporary file in the same folder (removed on any failure)."""
    write_text_atomic(path, json.dumps(_json_safe(payload), indent=2, ensure_ascii=False) + "\n")


def score(
    task: str,
    samples: Path,
    judge_specs: Mapping[str, str],
    retry_unparseable: bool = False,
    settings: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], list[dict]]:
    """Judge every sample (failed verdicts stay unjudged and are counted in ``judge_failed``); ``settings``
    reach the judging chain (e.g. ``knowledge``: LongWiki's evidence store). ``unreadable`` in the result names
    the benchmark's unreadable-share metric, its value and how many items have an unreadable or failed verdict."""
    benchmark = benchmark_for_task(task)
    docs, responses = read_samples(samples, task)
    judges = JudgeSet(dict(judge_specs), retry_unparseable=retry_unparseable, settings=settings)
    try:
        records = judge_responses(benchmark, responses, docs, judges, desc=f"judge {task}")
        calls = judges.report()
    finally:
        judges.close()
    share, items = benchmark.unreadable_items(records, docs)
    result = {
        "schema_version": RESULT_SCHEMA_VERSION,
        "task": task,
        "benchmark": benchmark.name,
        **benchmark.summarize(records, docs),
        "judge_failed": len(failed_verdicts(records)),
        "unreadable": {"metric": benchmark.unreadable_metric, "share": share, "items": items},
        "metric_kinds": benchmark.metric_kinds(),
        "judges": judges.public_specs() if benchmark.judge_roles else {},
        "judge_calls": calls,
        "samples": str(samples),
        "provenance": {
            "software": software(),
            "judge_prompts_hash": prompts_hash([inspect.getsource(inspect.getmodule(benchmark.judge_item))]),
        },
    }
    return result, records
