"""Reading the lists of invented names GeneratedEntities' models reply with: bullets, numbering and quotes removed,
repeats and fragments of the reply's prose dropped."""

from __future__ import annotations

import re

from hallubench_generators.nonexistent_refusal.checkers import fold

MAX_NAME_WORDS = 6
LEADING_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "by",
        "for",
        "i",
        "in",
        "it",
        "of",
        "or",
        "so",
        "this",
        "these",
        "those",
        "to",
        "we",
        "with",
        "you",
    ]
)
INSTRUCTION_WORDS = frozenset(
    [
        "invent",
        "invented",
        "name",
        "names",
        "list",
        "lists",
        "plausible",
        "exist",
        "exists",
        "existing",
        "recombine",
        "recombined",
        "combined",
        "here",
        "sure",
        "following",
        "updated",
        "text",
        "example",
        "examples",
        "note",
    ]
)


def parse_names(text: str) -> list[str]:
    """Names from a comma/newline separated list: bullets, numbering and quotes removed, repeats and
    non-names (see ``looks_like_name``) dropped."""
    names: dict[str, str] = {}  # folded -> first spelling
    for item in re.split(r"[,\n;]", text):
        name = re.sub(r"^\s*(?:[-*\u2022]|\d+[.)])\s*", "", item).strip().strip("\"'\u201c\u201d*").strip().rstrip(".")
        if looks_like_name(name):
            names.setdefault(fold(name), name)
    return list(names.values())


def looks_like_name(text: str) -> bool:
    """A proper name rather than a fragment of the reply's prose: 1 to ``MAX_NAME_WORDS`` words, an
    upper-case letter, no colon, not opening with a function word ("In the text") and no word of the
    instructions ("Here is the updated list:", "Invent 6")."""
    words = fold(text).split()
    return (
        0 < len(words) <= MAX_NAME_WORDS
        and any(ch.isupper() for ch in text)
        and ":" not in text
        and words[0] not in LEADING_FUNCTION_WORDS
        and not INSTRUCTION_WORDS.intersection(words)
    )
