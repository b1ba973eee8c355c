"""ANAH-v2's offline rule stand-ins for the three turns (judge ``rule``) and their reasons (``why``): content-unit
overlap between the answer sentence and the reference document; a rule never answers "contradictory"."""

from __future__ import annotations

import re

from hallu_metrics.benchmarks.anah.prompts import NO_REFERENCE
from hallu_metrics.benchmarks.anah.readers import split_answer

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


def _listed(units: set[str], shown: int = 5) -> str:
    """Some units of a set, sorted, quoted: ``"eiffel", "tower", ... (7 in all)``."""
    first = ", ".join(f'"{u}"' for u in sorted(units)[:shown])
    return first if len(units) <= shown else f"{first}, ... ({len(units)} in all)"


def facts_reason(item: dict) -> str:
    """Why ``rule_facts`` said so: the sentence's content units, or that it has none."""
    units = content_units(item["sentence"], item["language"])
    if not units:
        return "no content unit: only stop words and conversational fillers, so no facts"
    return f"content units {_listed(units)}: states facts"


def _reference_choice(item: dict) -> tuple[int, list[tuple[int, int, str]]]:
    """The overlap a document sentence needs and every (shared units, position, sentence) of the document."""
    language, units = item["language"], content_units(item["sentence"], item["language"])
    scored = [(len(units & content_units(s, language)), i, s)
              for i, s in enumerate(split_answer(item["document"], language))]
    return (1 if len(units) < 3 else 2), scored


def _best_points(need: int, scored: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The (up to ``MAX_POINTS``) best-overlapping sentences with at least ``need`` shared units, in document order."""
    best = sorted((x for x in scored if x[0] >= need), key=lambda x: (-x[0], x[1]))[:MAX_POINTS]
    return sorted(best, key=lambda x: x[1])


def rule_reference(item: dict) -> str:
    """Up to 3 document sentences sharing the most content units with the answer sentence (at least 2, or 1 for a
    sentence with fewer than 3 units), in document order; none -> :data:`NO_REFERENCE`."""
    return " <SEP> ".join(s for _, _, s in _best_points(*_reference_choice(item))) or NO_REFERENCE


def reference_reason(item: dict) -> str:
    """Why ``rule_reference`` chose its points: each chosen document sentence (numbered from 1) with the content
    units it shares, or the best overlap found when none reached the minimum."""
    need, scored = _reference_choice(item)
    points = _best_points(need, scored)
    if not points:
        most = max((shared for shared, _, _ in scored), default=0)
        return (f"no document sentence shares {need} content unit{'s' * (need > 1)} with the sentence (most shared: "
                f"{most} of {len(scored)} sentences)")
    chosen = ", ".join(f"{i + 1} ({shared} shared)" for shared, i, _ in points)
    return (f"chose document sentence{'s' * (len(points) > 1)} {chosen} of {len(scored)}: the most content units "
            f"shared with the sentence (at least {need})")


def _hallucination_support(item: dict) -> tuple[set[str], float]:
    """The sentence's numbers missing from the reference points and the share of its content units found there."""
    language, sentence, points = item["language"], item["sentence"], item["reference"]
    units = content_units(sentence, language)
    missing = set(_NUMBER.findall(sentence)) - set(_NUMBER.findall(points))
    return missing, len(units & content_units(points, language)) / len(units) if units else 1.0


def rule_hallucination(item: dict) -> str:
    """"ok" when every number of the sentence and at least half of its content units occur in the reference points,
    else "unverifiable". A rule cannot tell a contradiction from missing support: it never answers
    "contradictory"."""
    missing, coverage = _hallucination_support(item)
    return "ok" if not missing and coverage >= MIN_COVERAGE else "unverifiable"


def hallucination_reason(item: dict) -> str:
    """Why ``rule_hallucination`` said so: the share of the sentence's content units found in the reference points
    against :data:`MIN_COVERAGE`, and the numbers they lack."""
    if not content_units(item["sentence"], item["language"]):
        return "the sentence has no content unit: nothing to verify"
    missing, coverage = _hallucination_support(item)
    numbers = "; every number found" if _NUMBER.search(item["sentence"]) else ""
    lacks = f"; lacks numbers {', '.join(sorted(missing))}" if missing else numbers
    return f"the reference points hold {coverage:.2f} of the sentence's content units (needs {MIN_COVERAGE}){lacks}"
