"""Checks that a generated PreciseWikiQA item is usable (HalluLens 3.1.2 asks for a question answerable
from the reference alone, self-contained, with a single short answer). Applied to every writer's output,
LLM or offline; each returns a rejection reason for the dataset card, or None."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset({
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or", "as", "is", "was",
    "are", "were", "be", "been", "do", "does", "did", "what", "which", "who", "whom", "whose", "when", "where",
    "why", "how", "that", "this", "these", "those", "it", "its", "his", "her", "their", "he", "she", "they", "them",
    "him", "name", "called", "known", "term", "year"
})
_SOURCE_WORDS = re.compile(
    r"\b(?:excerpts?|passages?|(?:the|this|given|provided|above|following) (?:text|article|document|reference|"
    r"section|paragraph|page|context)|your|mentioned above|described above|the author)\b",
    re.IGNORECASE,
)
_DEMONSTRATIVE = re.compile(r"(?:^|\s)(?:this|these|those)\b|^(?:This|These|Those)\b")
_PRONOUN = re.compile(r"\b(?:he|she|it|they|him|her|his|its|their|them)\b", re.IGNORECASE)


def normalize(text: str) -> str:
    """Case-folded words without accents, punctuation or possessive 's, digit groups joined ("1,565" -> "1565")."""
    text = re.sub(r"['’]s\b", "", unicodedata.normalize("NFKD", text.casefold()))
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"(?<=\d)[,\u00a0 ](?=\d{3}\b)", "", text)
    return " ".join(_WORD.findall(text))


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    """Stemmed words of ``text`` other than function words."""
    return {_stem(w) for w in normalize(text).split() if w not in _STOP}


def answer_in_reference(answer: str, reference: str) -> bool:
    """The answer is a span of the reference (normalised), or each of its content words occurs there."""
    norm_answer, norm_reference = normalize(answer), normalize(reference)
    if norm_answer and f" {norm_answer} " in f" {norm_reference} ":
        return True
    words = content_words(answer)
    return bool(words) and words <= content_words(reference)


def repeats_question(question: str, answer: str) -> bool:
    """The answer adds nothing to the question: all its content words are the question's own words."""
    return content_words(answer) <= content_words(question)


def unresolved_reference(question: str) -> bool:
    """The question leans on text the reader does not have: "this excerpt", "the text", a bare
    demonstrative, or a pronoun before any name, number or capitalised word that could be its antecedent."""
    if _SOURCE_WORDS.search(question) or _DEMONSTRATIVE.search(question):
        return True
    pronoun = _PRONOUN.search(question)
    if pronoun is None:
        return False
    before = question[: pronoun.start()].split()[1:]
    return not any(word[:1].isupper() or word[:1].isdigit() for word in before)


def names_subject(question: str, answer: str, title: str) -> bool:
    """The question names the page it asks about, or asks for the page's name."""
    title_words = content_words(re.sub(r"\s*\(.*?\)", "", title))
    return bool(title_words & content_words(question)) or title_words <= content_words(answer)


def rejection_reason(question: str, answer: str, title: str, reference: str) -> str | None:
    """The first failed check, named as in the dataset card's rejection report, or None."""
    if unresolved_reference(question):
        return "not_self_contained"
    if not names_subject(question, answer, title):
        return "subject_not_named"
    if repeats_question(question, answer):
        return "answer_repeats_question"
    if not answer_in_reference(answer, reference):
        return "answer_not_in_reference"
    return None
