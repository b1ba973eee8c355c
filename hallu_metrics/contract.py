"""The benchmark contract: what every benchmark declares once, in its metrics module, and what the
registry, the lm-eval tasks, ``hallubench score``, reports and plots read from it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, Union

from hallu_metrics.stats import Value, breakdown_rows, describe, summarize_values

if TYPE_CHECKING:
    import datasets

    from hallu_metrics.judges.base import Check
    from hallu_metrics.judges.judge_set import JudgeSet

MetricKind = Literal["rate", "score", "count"]
# The metric that holds a benchmark's unreadable share, under this one name in every benchmark: items whose judge
# verdict could not be read or whose judge call failed. Such an item counts toward no other metric (each is computed
# over readable verdicts only).
UNREADABLE_METRIC = "judge_unparseable_rate"
BreakdownKind = Literal["ordered", "category"]

# A test-set column's type as a declaration writes it, so that declaring a benchmark does not import ``datasets``
# (its import is most of a `hallubench score` start-up): a dtype name ("string", "int32", "float64"), a one-element
# list for a list of that type, a dict for a struct. ``Benchmark.columns`` builds the ``datasets.Features``.
ColumnType = Union[str, list["ColumnType"], dict[str, "ColumnType"]]

# An item's judging chain: (doc, model response, judges) -> a JSON-able record.
JudgeItem = Callable[[dict, str, "JudgeSet"], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Metric:
    """One reported number. A ``rate`` is a share in [0, 1] (shown in percent), a ``score`` a mean on
    ``scale``, a ``count`` a mean count. ``conditional`` metrics leave out samples whose value is None
    (e.g. the hallucination rate among answers that were not refusals). ``higher_is_better`` is None for a
    descriptive number with no better direction (lengths, fact counts, a scorer's mean score): lm-eval's table
    then shows no arrow."""

    name: str
    kind: MetricKind
    higher_is_better: bool | None
    description: str
    scale: tuple[float, float] = (0.0, 1.0)
    conditional: bool = False
    proportion: bool = True  # a rate whose per-item values are 0/1 (so a Wilson interval); False: a mean of fractions


@dataclass(frozen=True)
class Breakdown:
    """A per-sample key that splits the results: ordered (difficulty bins, levels) or a category. ``order`` lists
    the values of an ordered breakdown whose order is not numeric (e.g. place tiers high, mid, low)."""

    key: str
    kind: BreakdownKind
    label: str
    of_doc: Callable[[dict], Any] | None = None  # default: ``doc.get(key)``
    order: tuple[str, ...] = ()

    def value(self, doc: dict) -> Any:
        return self.of_doc(doc) if self.of_doc else doc.get(self.key)

    def sort_key(self, value: str) -> tuple:
        """Declared values in their declared order, then numbers in numeric order, then words; the groups of
        samples without a key (``MISSING_GROUPS``) last."""
        if value in MISSING_GROUPS:
            return (1, 0, 2, 0.0, value)
        declared = self.order.index(value) if value in self.order else len(self.order)
        try:
            return (0, declared, 0, float(value), value)
        except ValueError:
            return (0, declared, 1, 0.0, value)


MISSING_GROUPS = ("none", "unbinned")  # breakdown rows of samples without a key


def unreadable_share(items: str = "samples", over: str = "N", note: str = "", conditional: bool = False,
                     proportion: bool = True) -> Metric:
    """The ``UNREADABLE_METRIC`` declaration, worded once for every benchmark: ``items`` are what one verdict is
    about, ``over`` the denominator, ``note`` what else leaves an item without a verdict (e.g. no judge)."""
    return Metric(UNREADABLE_METRIC, "rate", False,
                  f"{items} without a readable judge verdict (unreadable reply or failed call{note}) / {over}",
                  conditional=conditional, proportion=proportion)


Runtime = Literal["fast", "slow"]


@dataclass(frozen=True)
class About:
    """What a benchmark is and needs, machine-readable (as inspect_evals' eval.yaml); CI and the embedded default
    select tasks by it. The version is each task YAML's own ``metadata.version`` (lm-eval's), not repeated here.

    ``network``: the paper's protocol fetches data or evidence at run time (downloads, web pages); ``gpu``: a run is
    impractical without one; ``weights``: it needs model weights besides the model under test (a classifier judge,
    embeddings); ``judge``: its paper's numbers need an LLM judge (the embedded rule judge is a stand-in);
    ``runtime``: its embedded smoke run on CPU takes seconds (fast) or minutes (slow); ``offline``: the embedded
    default runs it with nothing outside the installed wheels (a set generated offline, shipped weights only)."""

    paper_title: str
    paper_url: str | None  # arXiv abstract page or the paper's own page; None where the repository records none
    section: str  # where the paper defines what is measured, as in ``Benchmark.paper``
    network: bool
    gpu: bool
    weights: bool
    judge: bool
    runtime: Runtime
    offline: bool


@dataclass(frozen=True)
class Benchmark:
    """Everything a benchmark is, declared once.

    ``column_types`` are the test set's columns (``columns``: as ``datasets.Features``; the generator's Features extend
    them); ``doc_columns`` the
    columns of an lm-eval doc when the task's loader transforms rows into docs (HaluEval). ``judge_item``
    is the per-item judging chain; ``sample_metrics`` turns one judged record into per-sample values.
    """

    name: str
    family: str  # folder under lm_eval_tasks/ holding its YAML and README
    paper: str  # citation key + section, e.g. "HalluLens section 3.1"
    column_types: Mapping[str, ColumnType]
    metrics: tuple[Metric, ...]
    judge_item: JudgeItem
    sample_metrics: Callable[[dict[str, Any], dict], Mapping[str, Value]]
    breakdowns: tuple[Breakdown, ...] = ()
    headline: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()  # lm-eval task names served (variants); default: (name,)
    # its generator module under hallubench_generators (`package.module` where a package holds several; `hallubench
    # generate NAME` with NAME the last part); None = data comes from elsewhere
    generator: str | None = None
    evaluate_module: str | None = None
    judge_roles: tuple[str, ...] = ("judge",)  # --metadata keys naming judge specs
    checks: tuple[Check, ...] = ()  # every check judge_item may ask; results hash their prompts (judges.fingerprint)
    # what reads the model under test's own replies where no judge runs (a judge's replies are read by check.parse);
    # each reader has a reply corpus under tests/reply_corpora
    answer_readers: tuple[Callable[..., Any], ...] = ()
    default_judge: str = "rule"  # the judge spec used when none is given (announced when it is the embedded rule)
    doc_columns: tuple[str, ...] = ()
    to_docs: Callable[[datasets.Dataset, Mapping[str, Any]], datasets.Dataset] | None = None
    read_official: Callable[[str | None], list[dict[str, Any]]] | None = None  # official files / download
    options: Mapping[str, Any] = field(default_factory=dict)  # run settings it reads, with defaults (settings.py)
    rule_label: str = "embedded offline rule judge, not the paper's LLM judge"  # what its ``rule`` judge is
    data_aliases: tuple[str, ...] = ()  # older --metadata keys naming the data (e.g. halueval_data)
    extra_summary: Callable[[Sequence[dict], Sequence[dict]], dict[str, Any]] | None = None
    run_warnings: Callable[[Sequence[dict]], list[str]] | None = None  # lines about a whole judged run (empty evidence)
    outcomes: tuple[str, ...] = ()  # values of the record's "outcome", counted in results
    nullable: tuple[str, ...] = ()  # doc columns that may be null (e.g. difficulty of an unbinned set)
    about: About | None = None  # required of every registered benchmark (tests/test_contract.py)

    @cached_property
    def columns(self) -> datasets.Features:
        """The test set's columns as ``datasets.Features`` (``datasets`` imported on first use)."""
        return features(self.column_types)

    @property
    def generator_name(self) -> str | None:
        """The name ``hallubench generate`` knows its generator by (the module's last part)."""
        return self.generator.rpartition(".")[2] if self.generator else None

    @property
    def task_names(self) -> tuple[str, ...]:
        return self.tasks or (self.name,)

    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.metrics)

    @property
    def headline_metrics(self) -> tuple[str, ...]:
        """The printed metrics: the declared headline, always followed by the unreadable share when not in it."""
        names = self.headline or self.metric_names
        extra = self.unreadable_metric
        return names if extra is None or extra in names else (*names, extra)

    @property
    def unreadable_metric(self) -> str | None:
        """The metric holding the share of items without a readable judge verdict (unparseable reply or failed
        call); None when no judge runs (the model's own replies are read: an unreadable reply is the model's
        failure and each metric scores it as the paper does)."""
        if not self.judge_roles:
            return None
        return UNREADABLE_METRIC if UNREADABLE_METRIC in self.metric_names else None

    def unreadable_items(self, records: Sequence[dict], docs: Sequence[dict]) -> tuple[float | None, int]:
        """(the unreadable share as ``summarize`` reports it, items with any unreadable verdict); (None, 0) when
        the benchmark has no judge."""
        name = self.unreadable_metric
        if name is None:
            return None, 0
        values = [self.sample_metrics(r, d).get(name) for r, d in zip(records, docs)]
        share = describe(values)[0]
        return share, sum(1 for v in values if v)

    def metric(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)

    @property
    def required_doc_columns(self) -> tuple[str, ...]:
        return self.doc_columns or tuple(self.column_types)

    def lm_eval_metric_list(self) -> list[dict[str, Any]]:
        """``metric_list`` for lm-eval: ``mean`` (closed-form stderr) unless samples may not count."""
        from hallu_metrics.stats import mean_of_counted

        return [
            {
                "metric": m.name,
                "aggregation": mean_of_counted if m.conditional else "mean",
                "higher_is_better": m.higher_is_better,
            }
            for m in self.metrics
        ]

    def summarize(self, records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
        """The result shape shared by every benchmark: top-level metrics with ``stderr`` and ``counted``,
        ``counts`` of outcomes, and ``breakdowns: {key: [rows]}`` (each row: value, n, metrics, stderr)."""
        per_sample = [dict(self.sample_metrics(r, d)) for r, d in zip(records, docs)]
        names = self.metric_names
        result = summarize_values(per_sample, names)
        if self.outcomes:
            result["counts"] = {o: sum(1 for r in records if r.get("outcome") == o) for o in self.outcomes}
        result["breakdowns"] = {}
        for breakdown in self.breakdowns:
            keys = [breakdown.value(d) for d in docs]
            if all(k is None for k in keys):
                continue
            result["breakdowns"][breakdown.key] = breakdown_rows(per_sample, keys, names, order=breakdown.sort_key)
        if self.extra_summary:
            result.update(self.extra_summary(records, docs))
        return result

    def metric_kinds(self) -> dict[str, dict[str, Any]]:
        """What each metric is, for results files and report formatting."""
        return {
            m.name: {
                "kind": m.kind,
                "scale": list(m.scale),
                "higher_is_better": m.higher_is_better,
                "description": m.description,
            }
            for m in self.metrics
        }


def unreadable_banner(task: str, metric: str, share: float | None, items: int, n: int, failed: int,
                      advice: str) -> str:
    """The stderr banner announcing judge verdicts that cannot be used: unparseable replies and failed calls."""
    bar = "!" * 78
    failures = f"; {failed} JUDGE VERDICTS FAILED after retries" if failed else ""
    share_text = "n/a" if share is None else f"{share:.1%}"
    return (
        f"\n{bar}\n[hallubench] {task}: {items} of {n} items have UNREADABLE or failed judge verdicts ({metric} "
        f"{share_text}{failures}).\n[hallubench] They count toward no other metric: every other number is over "
        f"readable verdicts only.\n[hallubench] {advice}\n{bar}\n"
    )


def features(column_types: Mapping[str, ColumnType]) -> datasets.Features:
    """``datasets.Features`` of declared column types (see ``ColumnType``)."""
    import datasets

    def feature(kind: ColumnType) -> Any:
        if isinstance(kind, str):
            return datasets.Value(kind)
        if isinstance(kind, list):
            (item,) = kind
            return datasets.List(feature(item))
        return {name: feature(inner) for name, inner in kind.items()}

    return datasets.Features({name: feature(kind) for name, kind in column_types.items()})
