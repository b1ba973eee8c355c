"""The ConfigurableTask of every hallubench benchmark. Its metric list comes from the registry; its
filter judges all responses of the task at once (each item's chain streamed under the judges' bounded
pools) and hands one judged record per doc, as a JSON string, to ``process_results``. The records,
raw judge replies included, land in lm-eval's samples log as ``filtered_resps`` (lm-eval stringifies
filtered responses, so JSON keeps them machine-readable). The task config's metadata records the
judge specs and the exact test set (source + content fingerprint), so results JSON name both."""

from __future__ import annotations

import json
import sys
from typing import Any

from lm_eval.api.filter import Filter, FilterEnsemble
from lm_eval.api.task import ConfigurableTask
from lm_eval.filters.selection import TakeFirstFilter

from hallu_metrics.contract import Benchmark
from hallu_metrics.judges import DEFAULT_JUDGE, JudgeSet, failed_verdicts, judge_kind
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import benchmark_for_task
from hallubench.provenance import dataset_fingerprint
from hallubench.report import unreadable_banner
from lm_eval_tasks.settings import task_setting

FILTER_NAME = "judged"
EMBEDDED_NOTE = "rule (embedded offline stand-in, not the paper's LLM judge)"


class JudgeFilter(Filter):
    """Runs a benchmark's judging chain over every (response, doc) pair of the task."""

    def __init__(self, benchmark: Benchmark, specs: dict[str, str], task: str, settings: dict | None = None):
        self.benchmark, self.specs, self.task, self.settings = benchmark, specs, task, settings or {}

    def apply(self, resps, docs) -> list[str]:
        if self.specs.get("judge") == "none" and self.benchmark.judge_roles:
            return [json.dumps({"response": r, "outcome": "unjudged", "judge": "none"}) for r in resps]
        judges = JudgeSet(self.specs, settings=self.settings)
        try:
            records = judge_responses(self.benchmark, list(resps), list(docs), judges, desc=f"judge {self.task}")
            stats = judges.report()
        finally:
            judges.close()
        failed = len(failed_verdicts(records))
        share, items = self.benchmark.unreadable_items(records, list(docs))
        if failed or items:
            advice = (
                f"The model's responses are kept: re-judge them with `hallubench score --task {self.task} --samples "
                f"<samples_{self.task}_*.jsonl> ...` (--retry-unparseable re-asks unreadable replies). calls={stats}"
            )
            metric = self.benchmark.unreadable_metric or "judge_unparseable_rate"
            print(unreadable_banner(self.task, metric, share, items, len(records), failed, advice),
                  file=sys.stderr)
        return [json.dumps(r, ensure_ascii=False) for r in records]


def judge_specs(benchmark: Benchmark, metadata: dict[str, Any], task: str) -> dict[str, str]:
    """Role -> judge spec from ``--metadata``/env; the embedded ``rule`` judge (announced) when none is given."""
    specs: dict[str, str] = {}
    for role in benchmark.judge_roles:
        spec, source = task_setting(metadata, role, task)
        if spec is not None:
            judge_kind(spec)  # fail fast on a bad spec, before the model runs
            specs[role] = spec
    if benchmark.judge_roles and "judge" not in specs:
        note = EMBEDDED_NOTE if benchmark.default_judge == DEFAULT_JUDGE else benchmark.default_judge
        print(f"[hallubench] {task}: no judge given (--metadata judge=SPEC); judge: {note}", file=sys.stderr)
        specs["judge"] = benchmark.default_judge
    return specs or {"judge": "none"}


class RecordMetrics:
    """lm-eval ``process_results``: the per-sample metric values of one judged record."""

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark
        self.__name__ = f"{benchmark.name}.sample_metrics"

    def __call__(self, doc: dict, results: list) -> dict[str, float | None]:
        return dict(self.benchmark.sample_metrics(json.loads(results[0]), doc))


class JudgedTask(ConfigurableTask):
    """Metric list from the registry, the judging filter, and provenance in the task metadata."""

    def __init__(self, config: dict[str, Any]):
        config = {k: v for k, v in config.items() if k != "class"}
        benchmark = benchmark_for_task(config["task"])
        config["dataset_kwargs"] = {"task": config["task"], **(config.get("dataset_kwargs") or {})}
        config["metric_list"] = benchmark.lm_eval_metric_list()
        config["process_results"] = RecordMetrics(benchmark)
        super().__init__(config=config)
        metadata = self.config.metadata if self.config.metadata is not None else {}
        self.config.metadata = metadata
        specs = judge_specs(benchmark, metadata, config["task"])
        judges = JudgeSet(specs)
        metadata["hallubench_judges"] = judges.public_specs()
        if specs.get("judge") == DEFAULT_JUDGE and benchmark.judge_roles:
            metadata["hallubench_judge_note"] = EMBEDDED_NOTE
        location, source = task_setting(metadata, "dataset", config["task"])
        metadata["hallubench_dataset"] = {
            "location": location or "official download",
            "from": source if location else "default",
            "revision": metadata.get("dataset_revision") or "unpinned",
            "fingerprint": dataset_fingerprint(self.dataset["test"]),
        }
        judge_filter = JudgeFilter(benchmark, specs, config["task"], settings=metadata)
        self._filters = [FilterEnsemble(name=FILTER_NAME, filters=[TakeFirstFilter, lambda: judge_filter])]
