"""OFFLINE STAND-IN claim verifier: lexical support of a claim by its retrieved passages.

Not the paper's method (HalluLens verifies claims with Llama-3.1-405B); a rule for machines without a capable
LLM, measured against hand labels in docs/benchmarks.md. A claim counts as supported when, in the passages
taken together,
- every number of the claim occurs (digit groups joined, "1,200" = "1200"),
- every name of the claim occurs (capitalised words not at the start of the claim, lower-cased),
- at least ``MIN_COVERAGE`` of its content words occur (case-folded, accents and a plural "s" removed).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

MIN_COVERAGE = 0.6

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_STOP = frozenset(
    "a an the of in on at to for from by with and or but as is was are were be been being has have had do does did "
    "it its this that these those he she they his her their them him which who whom whose what when where why how "
    "also not no there than then so such into onto over under about after before during between while can could "
    "would should will may might must one many much more most some any all each other both very well known "
    "including include includes".split()
)


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    """Case-folded, accent-free, singular words of ``text`` other than function words."""
    return {_stem(w) for w in _TOKEN.findall(_fold(text)) if w not in _STOP and not w.isdigit()}


def numbers(text: str) -> set[str]:
    """Numbers of ``text`` with digit-group commas removed ("1,200" -> "1200"; "3.5" stays)."""
    return {re.sub(r",(?=\d{3}\b)", "", n).rstrip(".,") for n in _NUMBER.findall(text)}


def names(text: str) -> set[str]:
    """Capitalised words after the first word, folded: a cheap stand-in for the claim's named entities."""
    words = _TOKEN.findall(text)
    return {_stem(_fold(w)) for w in words[1:] if w[:1].isupper() and _fold(w) not in _STOP}


def supported_by_overlap(claim: str, passages: Sequence[str]) -> bool:
    """OFFLINE STAND-IN verdict for one claim (see the module docstring); no passages = not supported."""
    if not passages:
        return False
    evidence = " ".join(passages)
    evidence_words = content_words(evidence)
    claim_words = content_words(claim)
    if not claim_words:
        return False
    if not numbers(claim) <= numbers(evidence) or not names(claim) <= evidence_words:
        return False
    return len(claim_words & evidence_words) / len(claim_words) >= MIN_COVERAGE
