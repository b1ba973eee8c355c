"""A ConfigurableTask whose filter judges all responses of the task at once (batched, concurrent,
cached) and hands one judged record per doc, as a JSON string, to ``process_results``; the
records, raw judge replies included, land in lm-eval's samples log as ``filtered_resps``
(lm-eval stringifies filtered responses, so JSON keeps them machine-readable)."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

from lm_eval.api.filter import Filter, FilterEnsemble
from lm_eval.api.task import ConfigurableTask
from lm_eval.filters.selection import TakeFirstFilter

from hallu_metrics.judges import DEFAULT_JUDGE, failed_verdicts, make_judge
from hallu_metrics.registry import BENCHMARKS
from lm_eval_tasks.settings import task_setting

FILTER_NAME = "judged"


class JudgeFilter(Filter):
    """Runs a benchmark's judging pipeline over every (response, doc) pair of the task."""

    def __init__(self, pipeline: Callable, judge_spec: str, task: str):
        self.pipeline, self.judge_spec, self.task = pipeline, judge_spec, task

    def apply(self, resps, docs) -> list[str]:
        if self.judge_spec == "none":
            return [json.dumps({"response": r, "outcome": "unjudged", "judge": "none"}) for r in resps]
        judge = make_judge(self.judge_spec)
        records = self.pipeline(list(resps), list(docs), judge)
        stats = judge.report()
        failed = len(failed_verdicts(records))
        if failed:
            print(
                f"[hallubench] {self.task}: {failed} judge calls failed after retries and count as unjudged; "
                f"re-judge later with `hallubench score` (samples are kept). calls={stats}",
                file=sys.stderr,
            )
        return [json.dumps(r, ensure_ascii=False) for r in records]


class JudgedTask(ConfigurableTask):
    """Reads ``judge`` from ``--metadata`` / env and installs the judging filter."""

    def __init__(self, config: dict[str, Any]):
        config = {k: v for k, v in config.items() if k != "class"}
        super().__init__(config=config)
        metadata = self.config.metadata or {}
        task = self.config.task
        spec, source = task_setting(metadata, "judge", task)
        if spec is None:
            print(f"[hallubench] {task}: no judge given ({source}); using the embedded default {DEFAULT_JUDGE!r}", file=sys.stderr)
            spec = DEFAULT_JUDGE
        if spec != "none":
            make_judge(spec)  # fail fast on a bad spec, before the model runs
        pipeline = BENCHMARKS[metadata["hallubench_benchmark"]].judge_responses
        judge_filter = JudgeFilter(pipeline, spec, task)
        self._filters = [FilterEnsemble(name=FILTER_NAME, filters=[TakeFirstFilter, lambda: judge_filter])]
