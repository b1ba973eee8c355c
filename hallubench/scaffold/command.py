"""The ``new-benchmark`` subcommand: refuse a taken or malformed name, plan, write, and say what to edit next."""

from __future__ import annotations

from pathlib import Path

from hallubench.core.errors import HallubenchError

MAX_PAPER = 100  # a citation that fits one code line of the declaration
NEXT_STEPS = (
    "the columns, metrics and breakdowns in {package}/__init__.py and metrics.py",
    "the judging chain in {package}/chain.py and the checks and prompts it asks (judged)",
    "the labelled set and its provenance under {package}/labels/, and the reply corpus in tests/reply_corpora/",
    "the paper, citation and task section in lm_eval_tasks/{family}/README.md, and docs/{name}.md",
    "the metric-path case {name}_case in tests/test_metric_paths.py, to cover the real chain's branches",
)


def repository_root() -> Path:
    """The checkout holding this ``hallubench`` package: the scaffold writes source files, not an installed copy."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file() or not (root / "hallu_metrics" / "registry.py").is_file():
        raise HallubenchError(f"new-benchmark writes into a source checkout, and {root} is none: run it from an "
                              "editable install (pip install -e .) or with PYTHONPATH set to the checkout")
    return root
