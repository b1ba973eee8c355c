"""hallubench's metrics as Hugging Face ``evaluate`` modules (``hallu_metrics/evaluate_modules/<name>``)::

    import evaluate
    from hallu_metrics.evaluate_metrics import module_path
    far = evaluate.load(module_path("hallulens_nonexistent_refusal"))
    far.compute(outcomes=["believed", "not_believed"], domains=["animal", "plant"], place_tiers=["", ""])

The modules are thin wrappers over the plain functions the lm-eval hooks and ``hallubench score`` use,
so numbers agree everywhere; inputs are judged outcomes (judging is done by ``hallu_metrics.judges``),
except HaluEval, whose inputs are the recogniser's raw replies.
"""

from __future__ import annotations

from pathlib import Path

import datasets
import evaluate

MODULES_DIR = Path(__file__).resolve().parent / "evaluate_modules"
HALLULENS_CITATION = (
    "@article{bang2025hallulens, title={HalluLens: LLM Hallucination Benchmark}, "
    "author={Bang, Yejin and others}, journal={arXiv preprint arXiv:2504.17550}, year={2025}}"
)


def module_names() -> list[str]:
    return sorted(p.name for p in MODULES_DIR.iterdir() if (p / f"{p.name}.py").is_file())


def module_path(name: str) -> str:
    """The folder to pass to ``evaluate.load`` for one of :func:`module_names`."""
    if name not in module_names():
        raise ValueError(f"unknown hallubench evaluate module {name!r} (known: {', '.join(module_names())})")
    return str(MODULES_DIR / name)


def metric_info(description: str, inputs: str, citation: str, columns: dict[str, str]) -> evaluate.MetricInfo:
    """MetricInfo with one input column per entry of ``columns`` (name -> datasets value type)."""
    features = datasets.Features({name: datasets.Value(kind) for name, kind in columns.items()})
    return evaluate.MetricInfo(description=description, citation=citation, inputs_description=inputs, features=features)
