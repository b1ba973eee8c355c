"""The faithfulness test sets' columns (``hallubench generate faithfulness``) and the lm-eval docs of
``faithfulness_rubric`` (the rows with the rubric prompt)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hallu_metrics.rubric.prompts import load_rubric, rubric_prompt
from hallu_metrics.settings import task_setting
from hallubench.core.errors import HallubenchError

if TYPE_CHECKING:
    import datasets

COLUMN_TYPES = {
    "id": "string",
    "reference": "string",
    "hypothesis": "string",
    "type": "string",
    "hallucinated_share": "float64",
    "expected_score": "float64",
    "progression_kind": "string",
}


def rubric_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """lm-eval docs: the rows plus the rubric ``prompt`` (``--metadata rubric=PATH`` swaps the rubric;
    ``dataset_kwargs: faithfulness_output`` picks ``reasoning`` or ``score_only``)."""
    output = options.get("faithfulness_output", "reasoning")
    if output not in ("reasoning", "score_only"):
        raise HallubenchError(f"faithfulness_output must be reasoning or score_only, not {output!r}")
    path, _ = task_setting(options, "rubric", str(options.get("task", "")))
    rubric = load_rubric(path)
    prompts = [rubric_prompt(r["reference"], r["hypothesis"], rubric, output == "reasoning") for r in rows]
    return rows.add_column("prompt", prompts)
