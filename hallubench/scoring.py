"""``hallubench score``: judge saved lm-eval samples (also ``--predict_only`` output) without
re-running the model, and report overall and per-bin metrics."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from hallubench.errors import HallubenchError
from hallu_metrics.judges import failed_verdicts, make_judge
from hallu_metrics.registry import BENCHMARKS


def read_samples(path: Path, task: str) -> tuple[list[dict], list[str]]:
    """Docs and raw model responses from an lm-eval ``samples_<task>_*.jsonl`` file."""
    if task not in BENCHMARKS:
        raise HallubenchError(f"unknown task {task!r} (known: {', '.join(sorted(BENCHMARKS))})")
    if not path.is_file():
        raise HallubenchError(f"samples file not found: {path}")
    required = BENCHMARKS[task].required_columns
    docs, responses = [], []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                sample = json.loads(line)
                doc, response = sample["doc"], sample["resps"][0][0]
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                raise HallubenchError(f"{path}:{number} is not an lm-eval sample line ({type(exc).__name__})") from exc
            missing = [c for c in required if c not in doc]
            if missing:
                raise HallubenchError(f"{path} is not a {task} samples file: its docs lack {missing}")
            docs.append(doc)
            responses.append(response if isinstance(response, str) else str(response))
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
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(_json_safe(payload), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def score(task: str, samples: Path, judge_spec: str) -> tuple[dict[str, Any], list[dict]]:
    """Judge every sample; raises if any judge call failed (finished calls stay cached)."""
    docs, responses = read_samples(samples, task)
    judge = make_judge(judge_spec)
    benchmark = BENCHMARKS[task]
    records = benchmark.judge_responses(responses, docs, judge)
    failed = failed_verdicts(records)
    if failed:
        raise HallubenchError(
            f"{len(failed)} judge calls to {judge.spec} failed after retries (finished calls are cached; re-run to resume): {failed[0]}"
        )
    result = {"task": task, **benchmark.summarize(records, docs)}
    result.update(judge=judge.spec, judge_calls=judge.report(), samples=str(samples))
    return result, records
