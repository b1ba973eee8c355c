"""Candidate evidence pages for one LongWiki claim (HalluLens 3.2.2 "Reference Evidence Selection").

Candidates are the page the question was generated from, plus store pages whose title contains a named entity
of the question and itself appears (ignoring case) in the claim or the question, plus pages titled exactly as
an entity. The reference finds them by scanning every title with ``LIKE '%entity%'`` and then filtering; here
the same pages are found by exact, case-insensitive index lookups of the stretches of claim/question text that
cover an entity occurrence (a title that contains the entity and appears in the text is such a stretch). One
deliberate difference: a title must start and end on word boundaries of the text, so the page "Ali" is not
picked because the claim says "Alice".
"""

from __future__ import annotations

import re

from hallu_metrics.longform.entities import NER
from hallu_metrics.longform.knowledge import KnowledgeStore

MAX_TITLE_TOKENS = 16  # longest title looked for, in word/punctuation tokens
_TOKEN = re.compile(r"\w+|[^\w\s]")


def spans_covering(text: str, entity: str, max_tokens: int = MAX_TITLE_TOKENS) -> list[str]:
    """Every stretch of ``text`` that starts and ends at token boundaries, spans at most ``max_tokens``
    tokens and covers an occurrence of ``entity`` (matched ignoring case), shortest first."""
    tokens = [match.span() for match in _TOKEN.finditer(text)]
    found: dict[str, None] = {}
    if not entity.strip():
        return []
    for occurrence in re.finditer(re.escape(entity.strip()), text, re.IGNORECASE):
        first = max(i for i, (start, _) in enumerate(tokens) if start <= occurrence.start())
        last = min(i for i, (_, end) in enumerate(tokens) if end >= occurrence.end())
        if last - first + 1 > max_tokens:
            continue
        spans = [
            (j - i, tokens[i][0], tokens[j][1])
            for i in range(max(0, last - max_tokens + 1), first + 1)
            for j in range(last, min(len(tokens), i + max_tokens))
        ]
        for _, start, end in sorted(spans):
            found[text[start:end]] = None
    return list(found)


def candidate_titles(store: KnowledgeStore, question: str, claim: str, source_title: str, ner: NER) -> list[str]:
    """The source page first (even when the store lacks it: retrieval skips missing pages), then pages
    named by the question's entities, entity by entity."""
    titles = [source_title]
    for entity in ner(question):
        names = [entity, *spans_covering(claim, entity), *spans_covering(question, entity)]
        titles.extend(store.find_titles(names))
    return list(dict.fromkeys(titles))
