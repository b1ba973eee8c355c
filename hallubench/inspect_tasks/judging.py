"""The Inspect scorer and metrics of a hallubench task. The scorer runs the benchmark's judging chain
(``Benchmark.judge_item``, through ``pipeline.judge_one``) on each sample as soon as its response is generated, every
sample of the run sharing one ``JudgeSet`` (one call cache, the judges' bounded pools), so judging streams beside
generation. A score's value is the sample's metric values (``Benchmark.sample_metrics``); its metadata the judged
record with the run's settings, as lm-eval's samples log holds it, so ``hallubench score`` reads and re-judges the
log. The metrics are ``hallu_metrics.stats.summarize_values`` over those values: each metric with its standard
error (``<metric>_stderr``), the unreadable share among them; a metric no item counts toward is left out (n/a)."""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, ScoreReducer, Target, metric, score_reducer, scorer
from inspect_ai.solver import TaskState

from hallu_metrics.contract import Benchmark
from hallu_metrics.judges.accounting import AccountedJudgeSet
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.pipeline import judge_one
from hallu_metrics.settings import RunSettings
from hallu_metrics.stats import describe, summarize_values
from hallubench.inspect_tasks import RECORD_KEY


class RunJudges:
    """The judges of one task run, built when the first sample is judged (on the eval's event loop) and closed when
    the run's task is dropped or the process ends."""

    def __init__(self, specs: Mapping[str, str], settings: RunSettings):
        self.specs, self.settings = dict(specs), settings
        self._judges: JudgeSet | None = None

    def get(self) -> JudgeSet:
        if self._judges is None:
            self._judges = AccountedJudgeSet(self.specs, settings=self.settings)
            weakref.finalize(self, self._judges.close)
        return self._judges


def _defined(value: Any) -> bool:
    return isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value))


def hallubench_metrics(benchmark: Benchmark) -> Metric:
    """Every metric of ``benchmark`` and its standard error, as ``hallubench score`` computes them."""

    @metric(name=f"{benchmark.name}_metrics")
    def metrics() -> Metric:
        def compute(scores: list[SampleScore]) -> dict[str, float]:
            values = [s.score.value if isinstance(s.score.value, Mapping) else {} for s in scores]
            summary = summarize_values(values, benchmark.metric_names)
            found: dict[str, float] = {}
            for name in benchmark.metric_names:
                if _defined(summary[name]):
                    found[name] = float(summary[name])
                    if _defined(summary["stderr"][name]):
                        found[f"{name}_stderr"] = float(summary["stderr"][name])
            return found

        return compute

    return metrics()


@score_reducer(name="hallubench_epoch_mean")
def epoch_mean() -> ScoreReducer:
    """A sample's scores over epochs as one: each metric's mean over the epochs it is defined in (None in none: a
    conditional metric's undefined value is no 0, as Inspect's ``mean`` reducer would make it); the first epoch's
    record."""

    def reduce(scores: list[Score]) -> Score:
        values = [s.value for s in scores if isinstance(s.value, Mapping)]
        keys = dict.fromkeys(key for value in values for key in value)
        first = scores[0]
        return Score(value={key: describe([value.get(key) for value in values])[0] for key in keys},
                     answer=first.answer, explanation=first.explanation, metadata=first.metadata)

    return reduce


def record_score(benchmark: Benchmark, doc: dict, response: str, record: dict, settings: Mapping[str, Any]) -> Score:
    """A sample's score: its metric values, the response, the outcome, and the judged record with the run's
    ``settings`` (as recorded) in its metadata."""
    return Score(value=dict(benchmark.sample_metrics(record, doc)), answer=response,
                 explanation=str(record.get("outcome", "")), metadata={RECORD_KEY: {**record, "settings": settings}})


def judge_scorer(benchmark: Benchmark, task: str, specs: Mapping[str, str], settings: RunSettings) -> Scorer:
    """The scorer of ``task``: each sample's judged record (unjudged with ``judge=none``) and its metric values."""
    judges = RunJudges(specs, settings)
    recorded = settings.record()
    unjudged = specs.get("judge") == "none" and bool(benchmark.judge_roles)

    @scorer(metrics=[hallubench_metrics(benchmark)], name=f"{task}_judge")
    def judged() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            doc, response = dict(state.metadata), state.output.completion
            record = ({"response": response, "outcome": "unjudged", "judge": "none"} if unjudged
                      else await judge_one(benchmark, doc, response, judges.get()))
            return record_score(benchmark, doc, response, record, recorded)

        return score

    return judged()
