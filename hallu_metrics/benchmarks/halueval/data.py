"""HaluEval's judged items: one or both texts of each pair record (the paper's seeded draw, or both), or one per
human-labelled record, with the recognition prompt; the lm-eval docs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hallu_metrics.benchmarks.halueval.prompts import NO, TASKS, YES, TaskSpec, recognition_prompt
from hallubench.core.seeding import seeded_rng

if TYPE_CHECKING:
    import datasets

PAIRINGS = ("draw", "both")  # paper: one of the two answers drawn per record; variant: both judged
DRAW_SEED = 0  # the official evaluation draws unseeded; we seed it (docs/halueval.md)


def build_items(
    task: str,
    records: Iterable[dict[str, Any]],
    variant: str = "standard",
    pairing: str = "draw",
    seed: int = DRAW_SEED,
) -> list[dict[str, Any]]:
    """Judged items. Pair records (qa/dialogue/summarization): with ``pairing="draw"`` (the paper's
    protocol) one of the right / hallucinated texts is drawn per record under ``seed``; with
    ``"both"`` both are judged (gold No and Yes). ``general``: one item per human-labelled record.
    Keys: id, label, candidate, pattern, prompt."""
    spec = TASKS[task]
    if variant not in spec.variants():
        raise ValueError(f"halueval_{task} has no {variant!r} variant (has {', '.join(spec.variants())})")
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {PAIRINGS}, not {pairing!r}")
    items = []
    for index, record in enumerate(records):
        judged = _judged(spec, record)
        if pairing == "draw" and len(judged) == 2:
            judged = [judged[seeded_rng(seed, task, index).random() < 0.5]]
        for label, candidate, other in judged:
            items.append(
                {
                    "id": f"{task}-{index}-{label.lower()}",
                    "label": label,
                    "candidate": candidate,
                    "pattern": str(record.get("pattern") or ""),
                    "prompt": recognition_prompt(
                        spec, record, candidate, variant, other if variant == "contrast" else None
                    ),
                }
            )
    return items


def _judged(spec: TaskSpec, record: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(gold label, judged text, its counterpart) for one record."""
    if spec.label_field:
        label = str(record[spec.label_field]).strip().lower()
        if label not in ("yes", "no"):
            raise ValueError(f"{spec.name}: hallucination label {record[spec.label_field]!r} is neither yes nor no")
        return [(label.capitalize(), record[spec.right], "")]
    right, hallucinated = record[spec.right], record[spec.hallucinated]
    return [(NO, right, hallucinated), (YES, hallucinated, right)]


def items_of(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """lm-eval docs from a HaluEval set's rows (``dataset_kwargs``: halueval_task, halueval_variant,
    halueval_pairing, halueval_seed)."""
    import datasets
    items = build_items(
        options["halueval_task"],
        rows.to_list(),
        options.get("halueval_variant", "standard"),
        options.get("halueval_pairing", "draw"),
        int(options.get("halueval_seed", DRAW_SEED)),
    )
    return datasets.Dataset.from_list(items)
