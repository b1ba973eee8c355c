"""hallubench's metrics as Hugging Face ``evaluate`` modules (``hallu_metrics/benchmarks/<benchmark>/<name>/<name>.py``,
each inside the package of the benchmark it serves)::

    import evaluate
    from hallu_metrics.evaluate_metrics import module_path
    far = evaluate.load(module_path("hallulens_nonexistent_refusal"))
    far.compute(outcomes=["believed", "not_believed"], domains=["animal", "plant"], place_tiers=["", ""])

The modules are thin wrappers over the plain functions the lm-eval hooks and ``hallubench score`` use,
so numbers agree everywhere; inputs are judged outcomes (judging is done by ``hallu_metrics.judges``),
except HaluEval, whose inputs are the recogniser's raw replies.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import evaluate

    from hallu_metrics.contract import Benchmark

PACKAGE_DIR = Path(__file__).resolve().parent
HALLULENS_CITATION = (
    "@article{bang2025hallulens, title={HalluLens: LLM Hallucination Benchmark}, "
    "author={Bang, Yejin and others}, journal={arXiv preprint arXiv:2504.17550}, year={2025}}"
)


def _module_dirs() -> dict[str, Path]:
    """name -> folder, for every ``<package>/<name>/<name>.py`` below ``hallu_metrics`` (a benchmark's or a shared
    layer's)."""
    found = (*PACKAGE_DIR.glob("*/*/*.py"), *PACKAGE_DIR.glob("benchmarks/*/*/*.py"))
    return {p.parent.name: p.parent for p in found if p.stem == p.parent.name}


def module_names() -> list[str]:
    return sorted(_module_dirs())


def module_path(name: str) -> str:
    """The folder to pass to ``evaluate.load`` for one of :func:`module_names`."""
    if name not in module_names():
        raise ValueError(f"unknown hallubench evaluate module {name!r} (known: {', '.join(module_names())})")
    return str(_module_dirs()[name])


def metric_info(description: str, inputs: str, citation: str, columns: dict[str, str]) -> evaluate.MetricInfo:
    """MetricInfo with one input column per entry of ``columns`` (name -> datasets value type)."""
    import datasets  # only the evaluate modules build their info; listing them imports neither library
    import evaluate

    features = datasets.Features({name: datasets.Value(kind) for name, kind in columns.items()})
    return evaluate.MetricInfo(description=description, citation=citation, inputs_description=inputs, features=features)


def check_outcomes(benchmark: Benchmark, outcomes: Sequence[str], name: str = "outcomes") -> None:
    """Refuse outcomes the benchmark does not define (e.g. "Correct" for "correct"): guessing would give numbers."""
    unknown = sorted({str(o) for o in outcomes} - set(benchmark.outcomes))
    if unknown:
        raise ValueError(f"{name}: unknown value(s) {unknown} (expected one of: {', '.join(benchmark.outcomes)})")


def check_counts(name: str, values: Sequence[Any], low: int = 0, at_most: Sequence[Any] | None = None,
                 at_most_name: str = "") -> None:
    """Refuse counts that are not whole numbers >= ``low`` (and <= the matching ``at_most`` value when given)."""
    limits = at_most if at_most is not None else [None] * len(values)
    for i, (value, limit) in enumerate(zip(values, limits)):
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name}[{i}] = {value!r}: expected a whole number >= {low}")
        if limit is not None and value > limit:
            raise ValueError(f"{name}[{i}] = {value} exceeds {at_most_name}[{i}] = {limit}")


def check_range(name: str, values: Sequence[Any], low: float, high: float) -> None:
    """Refuse numbers outside [low, high] (None is allowed: no value)."""
    for i, value in enumerate(values):
        if value is not None and not (isinstance(value, (int, float)) and low <= value <= high):
            raise ValueError(f"{name}[{i}] = {value!r}: expected a number in [{low:g}, {high:g}] or None")
