"""The offline prompt writer (``--question-writer offline``, no LLM): a prompt about the page and the section's
heading, or for a lead about the page and the defining phrase of its first sentence."""

from __future__ import annotations

import re

from hallubench_generators.common.chunking import split_sentences

_DEFINITION = re.compile(r"\s(?:is|was|are|were)\s+(?P<predicate>(?:the|a|an)\s[^,;()]+)")
_HEADING = re.compile(r"^#{2,}\s*(?P<heading>.+?)\s*$", re.MULTILINE)
MAX_DEFINITION_WORDS = 14


def offline_prompt(title: str, lead: str, section: str) -> str:
    """The offline writer's prompt: the page and the section's first heading ('Tell me about Manhattan, in
    particular "History".'), or for a lead the page with the defining phrase of its first sentence when short
    ("Tell me about Sirius, the brightest star in the night sky."), else the page alone."""
    heading = _HEADING.search(section)
    if heading:
        return f'Tell me about {title}, in particular "{heading.group("heading")}".'
    first = split_sentences(" ".join(lead.split()))[:1]
    match = _DEFINITION.search(first[0]) if first else None
    predicate = match.group("predicate").rstrip(" .") if match else ""
    if not predicate or len(predicate.split()) > MAX_DEFINITION_WORDS:
        return f"Tell me about {title}."
    if predicate.split()[0] in ("a", "an"):
        predicate = "the " + predicate.split(" ", 1)[1]
    return f"Tell me about {title}, {predicate}."
