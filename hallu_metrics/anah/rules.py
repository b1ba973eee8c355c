"""ANAH-v2's offline rule stand-ins for the three turns (judge ``rule``): content-unit overlap between the answer
sentence and the reference document; a rule never answers "contradictory"."""

from __future__ import annotations

import re

from hallu_metrics.anah.prompts import NO_REFERENCE
from hallu_metrics.anah.readers import split_answer

_CJK = re.compile(r"[\u4e00-\u9fff]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
MIN_COVERAGE = 0.5  # rule: share of a sentence's content units found in the reference points for "ok"
MAX_POINTS = 3  # rule: reference sentences kept as points
# Conversational words that carry no fact ("Sure!", "I hope this helps.", "Thanks for asking."), besides stop words.
_FILLER = frozenset({"sure", "certainly", "hope", "helps", "help", "helpful", "thanks", "thank", "glad", "happy",
                     "course", "okay", "ok", "great", "asking", "sorry", "let", "know", "feel", "free"})


def content_units(text: str, language: str) -> set[str]:
    """Content units: English words that are neither spaCy stop words nor conversational fillers (numbers
    included); Chinese character bigrams and numbers."""
    if language == "zh":
        return {run[i:i + 2] for run in _CJK.findall(text) for i in range(max(len(run) - 1, 1))} | set(
            _NUMBER.findall(text))
    words = re.findall(r"\w+", text.lower())
    from spacy.lang.en.stop_words import STOP_WORDS  # spaCy loads in seconds: only when a rule reads text

    return {w for w in words if w not in STOP_WORDS and w not in _FILLER and (len(w) > 1 or w.isdigit())}


def rule_facts(item: dict) -> bool:
    """A sentence without content units ("Sure!", "I hope this helps.") states no facts."""
    return bool(content_units(item["sentence"], item["language"]))


def rule_reference(item: dict) -> str:
    """Up to 3 document sentences sharing the most content units with the answer sentence (at least 2, or 1 for a
    sentence with fewer than 3 units), in document order; none -> :data:`NO_REFERENCE`."""
    language, units = item["language"], content_units(item["sentence"], item["language"])
    need = 1 if len(units) < 3 else 2
    scored = [(len(units & content_units(s, language)), i, s)
              for i, s in enumerate(split_answer(item["document"], language))]
    best = sorted((x for x in scored if x[0] >= need), key=lambda x: (-x[0], x[1]))[:MAX_POINTS]
    return " <SEP> ".join(s for _, _, s in sorted(best, key=lambda x: x[1])) or NO_REFERENCE


def rule_hallucination(item: dict) -> str:
    """"ok" when every number of the sentence and at least half of its content units occur in the reference points,
    else "unverifiable". A rule cannot tell a contradiction from missing support: it never answers
    "contradictory"."""
    language, sentence, points = item["language"], item["sentence"], item["reference"]
    units = content_units(sentence, language)
    numbers_supported = set(_NUMBER.findall(sentence)) <= set(_NUMBER.findall(points))
    coverage = len(units & content_units(points, language)) / len(units) if units else 1.0
    return "ok" if numbers_supported and coverage >= MIN_COVERAGE else "unverifiable"
