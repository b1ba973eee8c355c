"""LongWiki's docs for lm-eval: the test set plus the K of recall@K each doc is judged with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hallu_metrics.benchmarks.longwiki.options import TASK, claim_k, evidence_settings
from hallu_metrics.longform.knowledge import KnowledgeStore
from hallu_metrics.settings import task_setting

if TYPE_CHECKING:
    import datasets


def with_k(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """lm-eval docs: the test set plus ``k`` (``--metadata longwiki_k``, else ``dataset_kwargs: {k: ...}``, else
    32), so that a samples log re-scores with the same K. Checks at task load, before the model runs, that the
    knowledge store opens (unless judging is off with ``judge: none``)."""
    if task_setting(options, "judge", TASK)[0] != "none":
        knowledge = evidence_settings(options)[0]
        KnowledgeStore.open(knowledge, progress=False).close()
    k = claim_k({"k": options.get("k")}, options)
    return rows.map(lambda _: {"k": k}) if "k" not in rows.column_names else rows
