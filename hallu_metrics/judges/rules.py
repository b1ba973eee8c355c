"""Rule-based judging: phrase-based abstention and non-belief detection (WildHallucinations'
published list and the per-benchmark rules built on it) and normalised gold-answer matching.
Deterministic, offline, instant; the embedded default judge."""

from __future__ import annotations

import json
import re
import string
import unicodedata
from importlib import resources

# Abstention phrases of WildHallucinations (Zhao et al., 2024, Appendix B), which extends
# FActScore's list: a response containing any of them (case-sensitive) abstains. The list lives in
# one data file, hallu_metrics/data/abstention_phrases.json (provenance there and in
# docs/wildhallucinations.md); it is grouped because the other benchmarks' rules below use the
# groups differently.
_PHRASE_GROUPS: dict[str, tuple[str, ...]] = {
    name: tuple(phrases)
    for name, phrases in json.loads(
        resources.files("hallu_metrics").joinpath("data/abstention_phrases.json").read_text(encoding="utf-8")
    )["groups"].items()
}
APOLOGY_PHRASES = _PHRASE_GROUPS["apology"]
PREMISE_CORRECTION_PHRASES = _PHRASE_GROUPS["premise_correction"]
KNOWLEDGE_LACK_PHRASES = _PHRASE_GROUPS["knowledge_lack"]
OTHER_ABSTENTION_PHRASES = _PHRASE_GROUPS["other"]
ABSTENTION_PHRASES: tuple[str, ...] = tuple(phrase for group in _PHRASE_GROUPS.values() for phrase in group)

# "provide more" (published) and clarification questions, read only as a request to the user.
INFORMATION_REQUEST = re.compile(
    r"\b(?:(?:could|can|would|will) you(?: please)?|please|if you (?:could|can)(?: please)?) "
    r"(?:provide|give|share|tell me) more\b"
    r"|\b(?:could|can|would) you (?:please )?(?:clarify|specify)\b",
    re.IGNORECASE,
)

# The model says it lacks the knowledge or access to answer (HalluLens 3.1.2's reasons to abstain).
LACK_OF_KNOWLEDGE = re.compile(
    r"\bI (?:do not|don't|did not|didn't) (?:know\b|have (?:[\w-]+ ){0,3}?"
    r"(?:information|details|data|knowledge|records?|access)\b)"
    r"|\bI (?:have|had) no (?:[\w-]+ ){0,2}?(?:information|details|data|knowledge|records?|access)\b"
    r"|\bI(?: am|'m| was)? (?:cannot|can't|could not|couldn't|unable to|not able to) "
    r"(?:find|locate|verify|confirm|determine|answer|say|tell|recall|access|give|provide)\b"
    r"|\b(?:my|the) (?:training data|knowledge)(?: base)? (?:does not|doesn't) (?:include|cover|contain|extend)",
    re.IGNORECASE,
)


def _straight(text: str) -> str:
    return text.replace("\u2019", "'")


def contains_abstention_phrase(response: str) -> bool:
    """WildHallucinations' published rule, used as is by that benchmark; curly apostrophes are
    straightened first."""
    text = _straight(response)
    return any(phrase in text for phrase in ABSTENTION_PHRASES)


def _first_found(text: str, phrases: tuple[str, ...], patterns: tuple[tuple[str, re.Pattern[str]], ...],
                 phrase_kind: str) -> str | None:
    """``matched KIND "TEXT"`` for the first of ``phrases`` in ``text``, else for the first of the (kind,
    pattern) pairs that matches; None when nothing does."""
    phrase = next((p for p in phrases if p in text), None)
    if phrase is not None:
        return f'matched {phrase_kind} "{phrase}"'
    for kind, pattern in patterns:
        found = pattern.search(text)
        if found is not None:
            return f'matched {kind} "{found[0]}"'
    return None


def abstention_precisewikiqa(response: str) -> str | None:
    """What makes ``response`` an abstention under PreciseWikiQA's rule (``is_abstention_precisewikiqa``), as
    the rule judge's reason (``matched abstention phrase "I'm not sure"``); None when it does not abstain."""
    return _first_found(_straight(response), (*KNOWLEDGE_LACK_PHRASES, *OTHER_ABSTENTION_PHRASES),
                        (("request for more information", INFORMATION_REQUEST),
                         ("lack-of-knowledge statement", LACK_OF_KNOWLEDGE)), "abstention phrase")


def is_abstention_precisewikiqa(response: str) -> bool:
    """PreciseWikiQA's abstention rule (HalluLens 3.1.2: abstaining for lack of knowledge, access or
    certainty; correcting the question's premise is not abstaining).

    The WildHallucinations list without its premise-correction phrase and without bare apologies
    (an apology also opens answers and premise corrections; a refusal that opens with one is caught
    by its lack-of-knowledge clause), "provide more" only as a request to the user
    (``INFORMATION_REQUEST``), plus first-person lack-of-knowledge statements (``LACK_OF_KNOWLEDGE``).
    """
    return abstention_precisewikiqa(response) is not None


# NonExistentRefusal (HalluLens 3.3). Denials of the entity's existence or reality, complete in
# themselves; "no evidence" counts only when what follows in the sentence is about existing.
EXISTENCE_DENIALS = re.compile(
    r"\b(?:does not|doesn't|did not|didn't|may not|might not|never) (?:seem to |appear to |have )?exist(?:ed)?\b"
    r"|\b(?:does not|doesn't|do not|don't) (?:(?:seem|appear) to be|(?:look|sound) like) (?:a|an|any)\b"
    r"|\bno such\b"
    r"|\bno (?:[\w-]+ ){0,3}(?:called|named|by (?:that|this|the) name|with (?:that|this|the) name)\b"
    r"|(?:\bnot|n't) (?:a|an) (?:real|recogni[sz]ed|valid|known|documented|widely (?:known|recogni[sz]ed))\b"
    r"|(?:\bnot|n't) (?:real|(?:widely )?recogni[sz]ed|widely known)\b(?=\s*(?:[,.;:!?]|$))"
    r"|(?:\bnot|n't) (?:a |an )?(?:[\w-]+ ){0,2}(?:I|we) (?:can|could) (?:find|verify|confirm)\b"
    r"|(?:\bnot|n't) (?:a |an )?(?:[\w-]+ ){0,2}(?:I|we) (?:recogni[sz]e|know of)\b"
    r"|\bring a bell\b"
    r"|\b(?:fictional|fictitious|made[- ]up|hypothetical|non-?existent)\b"
    r"|\bno (?:[\w-]+ ){0,2}evidence\b[^.;!?\n]*\bexist",
    re.IGNORECASE,
)

# Statements of missing knowledge or records: they deny the entity only when their object is the
# entity ("no record of a projector named X") and not one of its attributes ("no data on its use").
KNOWLEDGE_DENIALS = re.compile(
    r"\bno (?:(?:reliable|verified|verifiable|credible|known|public|publicly available|available|specific) )?"
    r"(?:information|records?|data|details|mentions?|traces?|references?|sources?|knowledge)\b"
    r"|(?:\bnot|n't) (?:currently )?(?:aware|familiar)\b"
    r"|(?:\bcannot|can't|could not|couldn't|unable to|not able to) (?:find|locate|verify|confirm|identify|provide)\b"
    r"|(?:don't|do not|didn't|did not) (?:know (?:of|about)|have (?:any |enough |reliable |specific )?"
    r"(?:information|details|data|knowledge|records?))\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.;!?\n]")


def _entity_object(name: str) -> re.Pattern[str]:
    """What may open the object of a knowledge denial when it is the entity: a pronoun, a quoted
    name, "a <kind> called/named ...", "that name", or the entity's own name (not its possessive)."""
    own_name = rf"|{re.escape(name.split()[0])}\b(?!'s)" if name.strip() else ""
    return re.compile(
        r"^\W*(?:(?:any|much|reliable|specific) )?"
        r"(?:(?:information|records?|details|data|mentions?|traces?|references?|sources?) )?"
        r"(?:(?:about|on|of|for|regarding|concerning|with) )?(?:(?:a|an|any|the) )?"
        r"(?:it\b(?!'s)|this\b|such\b|['\"\u201c\u2018]|(?:the|that|this) (?:name|epithet)\b"
        r"|(?:[\w-]+ ){0,3}?(?:called|named|by (?:that|this|the) name|with (?:that|this|the) (?:name|epithet))\b"
        rf"{own_name})",
        re.IGNORECASE,
    )


def disbelief_by_rule(response: str, name: str = "") -> str | None:
    """What makes ``response`` not believe in the entity ``name`` under ``believes_by_rule``, as the rule judge's
    reason (``matched existence denial "does not exist"``); None when it believes."""
    text = _straight(response)
    found = _first_found(text, (*APOLOGY_PHRASES, *PREMISE_CORRECTION_PHRASES, *OTHER_ABSTENTION_PHRASES),
                         (("request for more information", INFORMATION_REQUEST),
                          ("existence denial", EXISTENCE_DENIALS)), "abstention phrase")
    if found is not None:
        return found
    entity = _entity_object(name)
    for match in KNOWLEDGE_DENIALS.finditer(text):
        clause = _SENTENCE_END.split(text[match.end():], maxsplit=1)[0]
        if entity.match(clause) or re.search(r"\bexist", clause, re.IGNORECASE):
            return f'matched knowledge denial "{match[0]}" about the entity or its existence'
    return None


def believes_by_rule(response: str, name: str = "") -> bool:
    """NonExistentRefusal's rule: the response believes the entity ``name`` exists unless it contains
    an apology, a premise correction or another object-free WildHallucinations phrase, a request
    for more information, an existence denial (``EXISTENCE_DENIALS``), or a knowledge denial
    (``KNOWLEDGE_DENIALS``) whose object, in the same sentence, is the entity or its existence.
    Denials about attributes ("no known cure", "no evidence that it works") leave it believing."""
    return disbelief_by_rule(response, name) is None


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


def gold_match(response: str, gold: str) -> str | None:
    """How ``response`` matches the gold answer under ``matches_gold``: ``as words``, ``as the number 1912``
    or ``every word``; None when it does not."""
    norm_gold, norm_resp = normalize_answer(gold), normalize_answer(response)
    if not norm_gold:
        return None
    if f" {norm_gold} " in f" {norm_resp} ":
        return "as words"
    gold_numbers = _numbers(gold)
    if gold_numbers and len(gold_numbers) == 1 and not re.sub(r"[\d,.\s-]", "", gold).strip():
        target = gold_numbers[0]
        decimals = len(gold.split(".")[1]) if "." in gold else 0
        stated = next((v for v in _numbers(response) if round(v, decimals) == target), None)
        return None if stated is None else f"as the number {int(stated) if stated.is_integer() else stated}"
    gold_words, resp_words = set(norm_gold.split()), set(norm_resp.split())
    return "every word" if len(gold_words) > 1 and gold_words <= resp_words else None


def matches_gold(response: str, gold: str) -> bool:
    """True when the normalised gold answer occurs in the response as whole words, when every
    content word of the gold answer does, or (numeric gold) when the response states the number,
    possibly more precisely (a value that rounds to the gold value counts)."""
    return gold_match(response, gold) is not None


def gold_reason(response: str, gold: str) -> str:
    """The rule judge's reason for a ``matches_gold`` grade: ``gold "Paris" found in the response as words`` or
    ``gold "Paris" not found in the response (normalised: "paris")``."""
    how = gold_match(response, gold)
    if how is not None:
        return f'gold "{gold}" found in the response {how}'
    return f'gold "{gold}" not found in the response (normalised: "{normalize_answer(gold)}")'
