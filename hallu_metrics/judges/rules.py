"""Rule-based judging: published phrase-based abstention detection and normalised gold-answer
matching. Deterministic, offline, instant; the embedded default judge."""

from __future__ import annotations

import re
import string
import unicodedata
from typing import Sequence

from hallubench.errors import HallubenchError
from hallu_metrics.judges.base import Check, Verdict

# Abstention phrases of WildHallucinations (Zhao et al., 2024, Appendix B), which extends
# FActScore's list: a response containing any of them (case-sensitive) abstains.
ABSTENTION_PHRASES: tuple[str, ...] = (
    "I'm unable", "I apologize", "couldn't find any information", "don't have any information",
    "provide more", "couldn't find much information", "I could not find any information",
    "The search results do not provide", "There is no information", "There are no search results",
    "there are no provided search results", "not provided in the search results",
    "is not mentioned in the provided search results", "There seems to be a mistake in the question",
    "Not sources found", "No sources found", "Try a more general question", "I'm sorry", "I am sorry",
    "I couldn't find", "I could not find", "I am unable to find", "I was unable to find",
    "I am unable to provide", "I cannot provide", "I don't have any information",
    "I do not have any information", "I don't have enough information", "I need more information",
    "I am not certain", "I am not familiar with", "I am not currently familiar with", "I am uncertain",
    "Could you please", "could you please", "there is no publicly available information",
)


def contains_abstention_phrase(response: str) -> bool:
    """WildHallucinations' rule; curly apostrophes are straightened first."""
    text = response.replace("\u2019", "'")
    return any(phrase in text for phrase in ABSTENTION_PHRASES)


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NUMBER = re.compile(r"-?\d[\d,]*\.?\d*")


def normalize_answer(text: str) -> str:
    """SQuAD-style normalisation: accents, case, punctuation, articles, whitespace."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = "".join(" " if ch in string.punctuation else ch for ch in text)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _numbers(text: str) -> list[float]:
    values = []
    for token in _NUMBER.findall(text):
        try:
            values.append(float(token.replace(",", "")))
        except ValueError:
            continue
    return values


def matches_gold(response: str, gold: str) -> bool:
    """True when the normalised gold answer occurs in the response as whole words, when every
    content word of the gold answer does, or (numeric gold) when the response states the number,
    possibly more precisely (a value that rounds to the gold value counts)."""
    norm_gold, norm_resp = normalize_answer(gold), normalize_answer(response)
    if not norm_gold:
        return False
    if f" {norm_gold} " in f" {norm_resp} ":
        return True
    gold_numbers = _numbers(gold)
    if gold_numbers and len(gold_numbers) == 1 and not re.sub(r"[\d,.\s-]", "", gold).strip():
        target = gold_numbers[0]
        decimals = len(gold.split(".")[1]) if "." in gold else 0
        return any(round(v, decimals) == target for v in _numbers(response))
    gold_words, resp_words = set(norm_gold.split()), set(norm_resp.split())
    return len(gold_words) > 1 and gold_words <= resp_words


class RuleJudge:
    """Runs each check's ``rule``; a check without a published rule is an error, not a guess."""

    spec = "rule"

    def run(self, check: Check, items: Sequence[dict], desc: str = "") -> list[Verdict]:
        if check.rule is None:
            raise HallubenchError(f"the rule judge has no method for {check.name!r}: use an LLM judge spec")
        return [Verdict(check.rule(item), "ok", "rule") for item in items]

    def report(self) -> dict[str, int]:
        return {"calls": 0, "cached": 0, "failed": 0}
