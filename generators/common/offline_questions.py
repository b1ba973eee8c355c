"""Offline PreciseWikiQA question writer: template questions built from the wording of a Wikipedia
reference, for machines without a capable LLM (the embedded default runs on 2 CPU cores, where
SmolLM2-135M cannot write usable questions). An easier stand-in for HalluLens' LLM-written questions
(section 3.1.2), documented in docs/precisewikiqa.md. Three templates:

- ``title``: the lead's defining sentence "<Title> is/was the|a ... ." becomes "What is the name of the ...?"
  (or "What is the term for a ...?" for a common noun); the answer is the title as the reference spells it.
  An "a/an" definition of a named thing must carry a number or an ordinal/superlative, so that it singles
  the page out ("a German filmmaker" does not).
- ``year``: "<Title or He/She/It> was <participle> ... in <year>" becomes "In what year was <Title> <participle> ...?".
- ``place``: "<Title or He/She/It> was born / is located in <Place>" becomes "Where was <Title> born?" /
  "Where is <Title> located?".

Every question passes :func:`hallubench_generators.common.question_checks.rejection_reason`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from hallubench_generators.common.chunking import split_sentences
from hallubench_generators.common.question_checks import content_words, rejection_reason

MAX_DEFINITION_WORDS = 40
MIN_TERM_DEFINITION_WORDS = 8
MAX_YEAR_CLAUSE_WORDS = 8
_ORDINAL_OR_SUPERLATIVE = re.compile(
    r"\d|\b(?:only|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|sole|"
    r"\w+-most|most|least|largest|smallest|longest|highest|oldest|earliest|biggest|tallest|deepest|"
    r"brightest|closest|nearest|heaviest|lightest|fastest|greatest)\b"
)
_COPULA = re.compile(r"\s(?:is|was|are|were)\s+(?P<predicate>.+)$")
_DETERMINER = re.compile(r"^(?:the|a|an|any)\s")
_CLAUSE_WORD = re.compile(r"\b(?:who|whose|which|that|has|had|have)\b")
_PRONOUN_SUBJECT = re.compile(r"^(?:He|She|It)$")
_PARTICIPLE = (
    r"(?:first |originally |officially |formally )?(?P<participle>[a-z]+(?:ed|en|wn|rn|lt|ht|ld|de|ne|un|ng))"
)
_YEAR = re.compile(
    rf"^(?P<subject>[^,;]+?) (?P<aux>was|were) {_PARTICIPLE}(?P<rest>(?: [^,;()\d]+?)?) in (?P<year>\d{{4}})\b"
)
_PLACE = re.compile(
    r"^(?P<subject>[^,;]+?) (?P<verb>was born|is located|was located|is situated) in "
    r"(?P<place>(?:the )?[A-Z][\w'’.-]*(?:,? (?:[A-Z][\w'’.-]*|of|de|del|the))*)"
)
_NOT_PARTICIPLES = frozenset({"being", "often", "even", "then", "seen"})
_NAME_PARTICLES = frozenset({
    "of", "the", "de", "van", "von", "der", "den", "la", "le", "du", "da", "di", "del", "y", "al", "bin", "ibn",
    "'t", "and", "in", "on", "for", "upon"
})
_NAMING_PREDICATE = re.compile(r"^the (?:\w+ )?(?:name|term|word)\b")


@dataclass(frozen=True)
class WrittenQuestion:
    """One template question with its answer (a span of the reference) and the template's name."""

    question: str
    answer: str
    kind: str


def _plain_title(title: str) -> str:
    return re.sub(r"\s*\(.*?\)\s*$", "", title).strip()


def _subject_span(sentence: str, title: str) -> re.Match | None:
    """The title where the sentence starts with it (after an optional article)."""
    return re.match(rf"(?:(?:The|A|An)\s+)?({re.escape(title)})\b", sentence, re.IGNORECASE)


def _is_common_noun(match: re.Match) -> bool:
    """A definition of a term ("A herbivore is ...", "Social norm is ...") rather than of a named thing
    ("Vega is ...", "Charles the Fat was ...")."""
    first, *others = match.group(1).split()
    lowered = [w for w in others if w.split("-")[-1][:1].islower() and w not in _NAME_PARTICLES]
    return (match.start(1) > 0 and first[:1].islower()) or bool(lowered)


def title_question(sentence: str, title: str) -> WrittenQuestion | None:
    """The ``title`` template on the reference's first sentence."""
    match = _subject_span(sentence, title)
    if match is None:
        return None
    tail = sentence[match.end():]
    copula = _COPULA.search(tail)
    if copula is None:
        return None
    gap, predicate = tail[: copula.start()], copula.group("predicate").rstrip(" .")
    if len(gap.split()) > 12 or _CLAUSE_WORD.search(gap) or not _DETERMINER.match(predicate):
        return None
    words = len(predicate.split())
    if words > MAX_DEFINITION_WORDS or "one of" in predicate or ";" in predicate or _NAMING_PREDICATE.match(predicate):
        return None
    determiner, rest = predicate.split(" ", 1)
    if _is_common_noun(match):
        if determiner != "the" and words < MIN_TERM_DEFINITION_WORDS:
            return None
        question = f"What is the term for {predicate}?"
    elif determiner == "the" or _ORDINAL_OR_SUPERLATIVE.search(rest):
        question = f"What is the name of the {rest}?"
    else:
        return None
    if content_words(match.group(1)) & content_words(question):
        return None  # the question would give part of the name away
    return WrittenQuestion(question, match.group(1), "title")


def _lead_name(match: re.Match) -> str:
    """How the lead names its subject, for use inside a question ("the Sokoto Caliphate", "Vega")."""
    spelled, common = match.group(1), _is_common_noun(match)
    if common:
        spelled = spelled[:1].lower() + spelled[1:]
    return f"the {spelled}" if common or match.start(1) > 0 else spelled


def _named_subject(subject: str, title: str, lead_name: str | None) -> str | None:
    """How the question names the page: the sentence's own subject when it is the title (or a
    capitalised word of it), the lead's name for He/She/It once the lead has opened with the title."""
    if _PRONOUN_SUBJECT.match(subject):
        return lead_name
    bare = re.sub(r"^The\s+", "", subject)
    if bare.casefold() == title.casefold() or (bare in title.split() and bare[:1].isupper() and len(bare) > 3):
        return re.sub(r"^The\s+", "the ", subject)
    return None


def year_question(sentence: str, title: str, lead_name: str | None) -> WrittenQuestion | None:
    """The ``year`` template on one sentence."""
    match = _YEAR.match(sentence)
    if match is None or match.group("participle") in _NOT_PARTICIPLES:
        return None
    subject = _named_subject(match.group("subject"), title, lead_name)
    rest = match.group("rest")
    if subject is None or len(rest.split()) > MAX_YEAR_CLAUSE_WORDS:
        return None
    question = f"In what year {match.group('aux')} {subject} {match.group('participle')}{rest}?"
    return WrittenQuestion(question, match.group("year"), "year")


def place_question(sentence: str, title: str, lead_name: str | None) -> WrittenQuestion | None:
    """The ``place`` template on one sentence."""
    match = _PLACE.match(sentence)
    if match is None:
        return None
    subject = _named_subject(match.group("subject"), title, lead_name)
    if subject is None:
        return None
    aux, participle = match.group("verb").split()
    question = f"Where {aux} {subject} {participle}?"
    return WrittenQuestion(question, match.group("place").rstrip(",. "), "place")


def write_questions(title: str, reference: str) -> list[WrittenQuestion]:
    """Every template question the reference supports that passes the usability checks."""
    title = _plain_title(title)
    sentences = split_sentences(" ".join(reference.split()))
    if not sentences:
        return []
    found: list[WrittenQuestion | None] = [title_question(sentences[0], title)]
    lead = _subject_span(sentences[0], title)
    lead_name = _lead_name(lead) if lead else None
    for sentence in sentences:
        found.append(year_question(sentence, title, lead_name))
        found.append(place_question(sentence, title, lead_name))
    return [q for q in found if q and rejection_reason(q.question, q.answer, title, reference) is None]


def pick_question(title: str, reference: str, rng: random.Random) -> WrittenQuestion | None:
    """One of the reference's template questions, drawn with ``rng``; None when it supports none."""
    questions = write_questions(title, reference)
    return rng.choice(questions) if questions else None
