"""Claim extraction for long-form factuality (HalluLens 3.2.2 "Claim Extraction", VeriScore style).

Each sentence of a response is read in its snippet (up to 3 sentences before it, the sentence between
``<SOS>``/``<EOS>``, 1 after: ``hallu_metrics.longform.sentences.snippets``) and broken into self-contained,
verifiable claims, one per line starting with "- ", or the no-claims marker. Claims are then de-duplicated per
response. The prompt wording and worked examples are this project's own; the structure and outputs follow
VeriScore's (Song et al., 2024) as HalluLens uses it.

The rule judge's answer (``rule``) is an OFFLINE STAND-IN for machines without a capable LLM: the marked
sentence itself is the one claim, unless it is a question or has no content word (its reason, ``why``, says which).
It does not split compound sentences, resolve pronouns or drop opinions, so claim counts are per sentence and not
comparable with an LLM extractor's.
"""

from __future__ import annotations

import re
import unicodedata

from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.parsing import read_list
from hallu_metrics.judges.prompts import DATA_NOTICE, data_block

NO_CLAIMS = "No verifiable claims."

_SYSTEM = (
    "You break one sentence of a chatbot's answer into the verifiable facts it states.\n"
    "The sentence to work on is marked <SOS> ... <EOS> inside a snippet of the answer; the other sentences of "
    "the snippet are context only: use them to know who or what the sentence talks about, never extract facts "
    "that only they state.\n"
    "Rules:\n"
    "- Each claim is one atomic fact that could be checked against an encyclopedia: a person, place, thing, "
    "event, date, number or relation.\n"
    "- Each claim stands alone: replace pronouns and vague references (he, it, the band, this war) with the "
    "names they refer to.\n"
    "- Leave out what cannot be checked: opinions, feelings, advice, hedges, speculation, hypotheticals, "
    "stories, and statements about the conversation itself.\n"
    "- Keep the sentence's own wording where possible and add nothing it does not say.\n"
    f'Reply with one claim per line, each line starting with "- ". If the sentence states no verifiable fact, '
    f"reply with exactly: {NO_CLAIMS}\n"
    f"{DATA_NOTICE}"
)

# Worked examples written for this project: (question, snippet, claims).
_EXAMPLES: list[tuple[str, str, list[str]]] = [
    (
        "What is the history of the Erie Canal?",
        "The Erie Canal is a waterway in New York State. <SOS>It opened in 1825 and connected the Hudson River to "
        "Lake Erie, cutting freight costs dramatically.<EOS> Towns along its route grew quickly.",
        [
            "The Erie Canal opened in 1825.",
            "The Erie Canal connected the Hudson River to Lake Erie.",
            "The Erie Canal cut freight costs dramatically.",
        ],
    ),
    (
        "Tell me about the painter Berthe Morisot.",
        "Berthe Morisot was a French painter. She exhibited with the Impressionists. <SOS>Honestly, her work is "
        "among the most beautiful of the nineteenth century, and I think everyone should see it.<EOS>",
        [],
    ),
    (
        "How did Mount Pinatubo's 1991 eruption affect the climate?",
        "Mount Pinatubo is a volcano on the island of Luzon. <SOS>Its eruption in June 1991 released about 15 "
        "million tonnes of sulfur dioxide, which lowered global temperatures by roughly 0.5 °C over the next two "
        "years.<EOS> Scientists studied the event closely.",
        [
            "Mount Pinatubo erupted in June 1991.",
            "The 1991 eruption of Mount Pinatubo released about 15 million tonnes of sulfur dioxide.",
            "The sulfur dioxide from the 1991 eruption of Mount Pinatubo lowered global temperatures by roughly "
            "0.5 °C over the next two years.",
        ],
    ),
    (
        "What can you tell me about the Treaty of Tordesillas?",
        "The Treaty of Tordesillas was signed in 1494. <SOS>If the treaty had not been signed, Spain and Portugal "
        "might have gone to war.<EOS> It divided newly found lands outside Europe.",
        [],
    ),
]


def _render_claims(claims: list[str]) -> str:
    return "\n".join(f"- {claim}" for claim in claims) if claims else NO_CLAIMS


_SHOTS = "\n\n".join(  # rendered once: every extraction call sends the same worked examples
    f"{data_block('question', q)}\n{data_block('snippet', s)}\nClaims:\n{_render_claims(c)}" for q, s, c in _EXAMPLES
)


def _messages(item: dict) -> list[dict[str, str]]:
    prompt = (
        f"Examples:\n\n{_SHOTS}\n\nNow the real snippet. Extract the claims of the marked sentence only.\n"
        f"{data_block('question', item['question'])}\n{data_block('snippet', item['snippet'])}\nClaims:"
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}]


_NO_CLAIMS = re.compile(r"\bno (?:verifiable |available |checkable )?(?:claims?|facts?)\b", re.IGNORECASE)


def parse_claims(text: str) -> list[str] | None:
    """The claims of an extractor reply, read by the shared list reader (``judges.parsing.read_list``): its list
    lines ("- ", "* ", "1. ") kept verbatim (outer whitespace aside) or a JSON list, reasoning blocks and quoted
    material left out, only the lists under a "Claims:" heading when there is one, never an analysis list or
    an echoed data-block marker; ``[]`` for the no-claims marker (also VeriScore's "No available facts", "- None",
    "Verifiable claims: none"); None when the reply has neither (unreadable)."""
    return read_list(text, lambda reply: _NO_CLAIMS.search(reply) is not None)


_WORD = re.compile(r"[^\W\d_]{3,}|\d+")


def _no_claim(sentence: str) -> str | None:
    """Why the stand-in extracts no claim from ``sentence``; None when the sentence is its claim."""
    if sentence.endswith("?"):
        return "a question (it ends with '?'): no claim"
    if not _WORD.search(sentence):
        return "no word of 3+ letters and no number: no claim"
    return None


def sentence_claim(item: dict) -> list[str]:
    """OFFLINE STAND-IN extractor: the marked sentence is one claim; a question or a sentence without a
    word of 3+ letters or a number gives none."""
    sentence = item["sentence"].strip()
    return [] if _no_claim(sentence) else [sentence]


def sentence_claim_reason(item: dict) -> str:
    """Why ``sentence_claim`` extracted what it did: what kept the sentence from being a claim, or its words."""
    sentence = item["sentence"].strip()
    words = _WORD.findall(sentence)
    return _no_claim(sentence) or f"the whole sentence is one claim ({len(words)} words of 3+ letters or numbers)"


CLAIM_EXTRACTION = Check(
    name="claim_extraction",
    fields=("question", "snippet", "sentence"),
    messages=_messages,
    parse=parse_claims,
    reminder=f'List the claims of the marked sentence, one per line starting with "- ", or reply exactly {NO_CLAIMS}',
    rule=sentence_claim,
    why=sentence_claim_reason,
    structured=structured.text_list("claims", NO_CLAIMS),
    max_tokens=512,
)


def claim_key(claim: str) -> str:
    """What two claims must share to be duplicates: the text case-folded, NFKC-normalised, with runs of
    whitespace collapsed and final punctuation removed."""
    text = " ".join(unicodedata.normalize("NFKC", claim).casefold().split())
    return text.rstrip(" .;:!")


def dedupe_claims(claims: list[str]) -> list[str]:
    """Claims of one response without repeats (first occurrence kept, in order), as VeriScore de-duplicates
    the claims of a generation."""
    seen: dict[str, str] = {}
    for claim in claims:
        seen.setdefault(claim_key(claim), claim)
    return list(seen.values())
