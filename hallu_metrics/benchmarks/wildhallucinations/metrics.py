"""WildHallucinations' metrics (section 4): WildFActScore, WildFActScore-Strict, response rate, facts per response,
FActScore's length penalty, the Wikipedia / non-Wikipedia and rarity breakdowns, and the count of cut responses."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from hallu_metrics.longform.sentences import cut_responses

LENGTH_PENALTY_GAMMA = 10  # FActScore's length penalty (Min et al., 2023, section 4.3)
OUTCOMES = ("abstained", "all_supported", "some_unsupported", "no_facts", "unjudged", "too_long")
WIKIPEDIA_DOMAIN = "wikipedia.org"


def is_wikipedia_url(url: str) -> bool:
    """True for wikipedia.org and its language subdomains (en.wikipedia.org, en.m.wikipedia.org, ...)."""
    try:
        host = (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    return host == WIKIPEDIA_DOMAIN or host.endswith(f".{WIKIPEDIA_DOMAIN}")


def wiki_group(doc: Mapping[str, Any]) -> str:
    """``wiki`` when any knowledge page's URL is on wikipedia.org (section 5: entities "that have Wikipedia
    pages" as part of their knowledge source), else ``non-wiki``."""
    return "wiki" if any(is_wikipedia_url(str(page.get("url") or "")) for page in doc.get("info") or []) else "non-wiki"


def rarity_bin(doc: Mapping[str, Any]) -> int | None:
    """Order of magnitude of the entity's perplexity, floor(log10(ppl)) (section 5: 0 = most frequent);
    None when the set has no perplexity for it."""
    perplexity = doc.get("perplexity")
    if not isinstance(perplexity, (int, float)) or not math.isfinite(perplexity) or perplexity <= 0:
        return None
    return max(0, math.floor(math.log10(perplexity)))


def length_penalty(n_facts: int, gamma: int = LENGTH_PENALTY_GAMMA) -> float:
    """FActScore's penalty for short responses: 1 above ``gamma`` facts, else exp(1 - gamma / n)."""
    return 1.0 if n_facts > gamma else math.exp(1 - gamma / n_facts)


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per-sample values (None = does not count) from the record's ``outcome``, ``n_facts`` and ``n_supported``.
    A response without facts counts as responding, is left out of WildFActScore (as FActScore skips it) and scores
    0 on WildFActScore-Strict (nothing in it was verified). An unjudged response (any unreadable or failed verdict)
    counts only in ``judge_unparseable_rate``, whatever its other verdicts said; a response over the size limits
    (``too_long``) counts in none."""
    result = record["outcome"]
    if result in ("unjudged", "too_long"):
        return {"response_rate": None, "judge_unparseable_rate": float(result == "unjudged"), "wildfactscore": None,
                "wildfactscore_strict": None, "facts_per_response": None, "facts_per_response_reference": None,
                "wildfactscore_length_penalized": None}
    abstained = result == "abstained"
    n_facts = int(record.get("n_facts") or 0)
    score = record["n_supported"] / n_facts if n_facts else None
    return {
        "response_rate": float(not abstained),
        "judge_unparseable_rate": 0.0,
        "wildfactscore": score,
        "wildfactscore_strict": float(result == "all_supported"),
        "facts_per_response": None if abstained else float(n_facts),
        "facts_per_response_reference": float(n_facts) if not abstained and n_facts else None,
        "wildfactscore_length_penalized": None if score is None else score * length_penalty(n_facts),
    }


def cut_summary(records: Sequence[Mapping[str, Any]], docs: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Run-wide: responses cut at the token limit (their unfinished last fragment yielded no fact)."""
    return cut_responses(records)
