"""The HaluEval dataset card: provenance, sampling parameters and the pattern / schema / selection counts."""

from __future__ import annotations

from collections import Counter

from hallu_metrics.benchmarks.halueval import TASKS
from hallubench_generators.common.publishing import CardInfo, generation_date
from hallubench_generators.halueval.sampling import Settings


def card_for(
    rows: list[dict], settings: Settings, source: str, generator: str, judge: str, license: str = "mit"
) -> CardInfo:
    """Provenance, parameters and the pattern / schema / selection counts."""
    columns = ("pattern", "schema", "selected_by") if settings.pattern_mode == "single" else ("schema", "selected_by")
    counts = "\n".join(
        f"- {column}: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r[column] for r in rows).items()))
        for column in columns
    )
    patterns = (
        "all of the task's patterns offered, the model picks one (the paper's instruction); `pattern` is empty"
        if settings.pattern_mode == "all"
        else "one seeded pattern per candidate (recorded in `pattern`)"
    )
    return CardInfo(
        pretty_name=f"HaluEval {settings.task} (hallubench sampling-then-filtering set)",
        license=license,
        task_categories=["text-classification"],
        summary=(
            f"Hallucinated {TASKS[settings.task].unit}s made by HaluEval's sampling-then-filtering procedure "
            "(Li et al., 2023, section 2.1). Evaluate with "
            f"`--tasks halueval_{settings.task} --metadata '{{\"dataset\": DIR}}'`."
        ),
        sections={
            "Generation": (
                f"- source: {source}\n- generator: `{generator}`\n- filter judge: `{judge}`\n- seed: {settings.seed}\n"
                f"- requested: {settings.n}, written: {len(rows)} (pairs without any usable candidate are dropped)\n"
                f"- sampling: temperature {settings.temperature}, top_p 1.0, max {settings.max_tokens} tokens; "
                "filter greedy\n"
                f"- patterns (`--pattern-mode {settings.pattern_mode}`): {patterns}\n"
                f"- date: {generation_date()}"
            ),
            "Counts": counts,
            "Columns": (
                f"The official columns {', '.join(f'`{c}`' for c in TASKS[settings.task].columns)}, plus "
                "`source_index` "
                "(line in the source), `pattern` (single mode) and `schema` of the kept candidate, `selected_by` "
                "(filter, filter_unparsed_first_shown, only_valid_candidate) and `rejected_candidate`."
            ),
        },
    )
