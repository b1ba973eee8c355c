"""The run settings LongWiki reads (hallu_metrics/settings.py): the evidence store, its retrieval, and K of recall@K
(unset: the doc's k from the task's dataset_kwargs, else DEFAULT_K)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hallu_metrics.settings import option
from hallubench.core.errors import HallubenchError

TASK = "longwiki"
DEFAULT_K = 32
OPTIONS = {"knowledge": None, "embedder": "minilm", "retrieval": "embedding", "longwiki_k": None}


def evidence_settings(settings: Mapping[str, Any]) -> tuple[str, str, str]:
    """(knowledge store, embedder spec, retrieval method) from the run's settings: ``--metadata knowledge=PATH``
    (or ``$HALLUBENCH_KNOWLEDGE``, ``hallubench score --knowledge``), optional ``embedder`` (default ``minilm``;
    the paper's ``sentence-transformers/gtr-t5-large``) and ``retrieval`` (``embedding``, or FActScore's
    ``bm25``)."""
    knowledge = option(settings, "knowledge", TASK)
    if knowledge is None:
        raise HallubenchError(
            f"{TASK} needs a knowledge store for evidence: pass --knowledge PATH to hallubench score, "
            "--metadata knowledge=PATH to lm_eval, or set $HALLUBENCH_KNOWLEDGE (build one with: hallubench knowledge "
            "build)"
        )
    return str(knowledge), str(option(settings, "embedder", TASK, OPTIONS["embedder"])), str(
        option(settings, "retrieval", TASK, OPTIONS["retrieval"]))


def claim_k(doc: Mapping[str, Any], settings: Mapping[str, Any]) -> int:
    """K of recall@K: ``--metadata longwiki_k`` (or ``$HALLUBENCH_LONGWIKI_K``), else the doc's ``k`` (set from
    the task's ``dataset_kwargs: {k: ...}``), else 32 as in the paper."""
    value = option(settings, "longwiki_k", TASK)
    if value is None:
        value = doc.get("k") if doc.get("k") is not None else DEFAULT_K
    try:
        k = int(value)
    except (TypeError, ValueError):
        raise HallubenchError(f"longwiki_k must be a whole number, got {value!r}") from None
    if k < 1:
        raise HallubenchError(f"longwiki_k must be at least 1, got {k}")
    return k
