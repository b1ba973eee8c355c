"""OFFLINE STAND-IN claim verifier: lexical support of a claim by one of its retrieved passages.

Not the paper's method (HalluLens verifies claims with Llama-3.1-405B); a rule for machines without a capable
LLM, measured against hand labels in docs/benchmarks.md (benchmarks/longwiki_verify_agreement.py). A claim
counts as supported when ONE passage holds
- every number of the claim (digit groups joined, "1,200" = "1200"; number words "one" to "twenty" count as
  numbers, so "twelve planets" is not supported by "seven planets"),
- every name of the claim (capitalised words after its first word),
- at least ``MIN_COVERAGE`` of the claim's content words (case-folded, accents, possessive "'s" and a plural
  "s" removed, function words left out).
Requiring one passage (not the five together) keeps a name from one page and a year from another from
supporting a claim. It cannot see negation, antonyms ("less" / "more massive") or a wrong relation between
words that all occur: those claims pass.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

MIN_COVERAGE = 0.7

_TOKEN = re.compile(r"[^\W_]+")
_POSSESSIVE = re.compile(r"['’]s\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
_STOP = frozenset(
    "a an the of in on at to for from by with and or but as is was are were be been being has have had do does did "
    "it its this that these those he she they his her their them him which who whom whose what when where why how "
    "also not no there than then so such into onto over under about after before during between while can could "
    "would should will may might must many much more most some any all each other both very well known "
    "including include includes".split()
)


def _words(text: str) -> list[str]:
    """Case-folded, accent-free words without possessive "'s"."""
    folded = unicodedata.normalize("NFKD", _POSSESSIVE.sub("", text).casefold())
    return _TOKEN.findall("".join(c for c in folded if not unicodedata.combining(c)))


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    """Singular words of ``text`` other than function words, digits and number words."""
    return {_stem(w) for w in _words(text) if w not in _STOP and not w.isdigit() and w not in _NUMBER_WORDS}


def numbers(text: str) -> set[str]:
    """Numbers of ``text`` ("1,200" -> "1200"; "3.5" stays) plus number words as digits ("seven" -> "7")."""
    found = {re.sub(r",(?=\d{3}\b)", "", n).rstrip(".,") for n in _NUMBER.findall(text)}
    return found | {_NUMBER_WORDS[w] for w in _words(text) if w in _NUMBER_WORDS}


def names(text: str) -> set[str]:
    """Capitalised words after the first word, as content words: a cheap stand-in for named entities."""
    raw = _TOKEN.findall(_POSSESSIVE.sub("", text))[1:]
    return content_words(" ".join(w for w in raw if w[:1].isupper()))


def overlap_verdict(claim: str, passages: Sequence[str]) -> tuple[bool, str]:
    """``supported_by_overlap``'s verdict with its reason, for the rule judge: the passage (numbered from 1, as the
    LLM judge's prompt numbers them) that supports the claim and its word coverage, else the best-covering passage
    and what it lacks."""
    words, claim_numbers, claim_names = content_words(claim), numbers(claim), names(claim)
    if not words:
        return False, "the claim has no content word"
    best: tuple[float, int, str] | None = None  # (coverage, passage number, what it lacks)
    for number, passage in enumerate(passages, start=1):
        evidence = content_words(passage)
        coverage = len(words & evidence) / len(words)
        lacking = [f"{kind} {', '.join(sorted(missing))}" for kind, missing in (
            ("numbers", claim_numbers - numbers(passage)), ("names", claim_names - evidence)) if missing]
        if not lacking and coverage >= MIN_COVERAGE:
            return True, (f"passage {number} covers {coverage:.2f} >= {MIN_COVERAGE} of the claim's content words, "
                          "with its numbers and names")
        if best is None or coverage > best[0]:
            best = (coverage, number, "; lacks " + "; ".join(lacking) if lacking else "")
    if best is None:
        return False, "no evidence passage"
    coverage, number, lacks = best
    return False, (f"best passage {number} covers {coverage:.2f} of the claim's content words "
                   f"(needs {MIN_COVERAGE}){lacks}")


def supported_by_overlap(claim: str, passages: Sequence[str]) -> bool:
    """OFFLINE STAND-IN verdict for one claim (see the module docstring); no passages = not supported."""
    return overlap_verdict(claim, passages)[0]
