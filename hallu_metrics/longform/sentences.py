"""Sentences of a long-form answer and the snippets claim extraction reads (HalluLens 3.2.2, VeriScore).

Sentences come from segtok's rule-based ``split_single`` (what HalluLens' LongWiki code uses). Each sentence
of at least ``MIN_SENTENCE_CHARS`` characters becomes one claim-extraction unit whose snippet is up to 3
preceding sentences, the sentence itself between VeriScore's ``<SOS>``/``<EOS>`` markers, and 1 following
sentence. Shorter sentences (list numbers, stray fragments) are not extracted but stay in other snippets'
context, as in the reference. Marks a response itself contains (``<SOS>``, ``< eos >``, full-width or zero-width
disguised) are removed from the snippet, so that only the extracted sentence is marked.

A response cut at the token limit ends inside a sentence. Its unfinished last fragment is not a claim the model
made (LongWiki on the embedded default: "Kalining" was extracted and judged false), so ``finished_sentences``
sets it apart: a response is cut when its last sentence does not end with sentence-final punctuation (``.``, ``!``,
``?``, ``…`` or their full-width forms, optionally followed by closing quotes, brackets or markdown emphasis). The
rule reads the text only, since lm-eval's samples do not log how many tokens a reply used or why it stopped; a
reply that stopped on its own without final punctuation loses its last fragment too, never more than that.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from segtok.segmenter import split_single

from hallu_metrics.judges.prompts import without_delimiters

MIN_SENTENCE_CHARS = 5
# Size limits of a judged long-form response: about 20 times the longest answer the papers' generation settings
# allow (1,024 tokens, some 50 sentences); past them a response is not judged (outcome ``too_long``), since every
# sentence costs judge calls and a 50 MB reply would run for hours.
MAX_RESPONSE_CHARS = 100_000
MAX_SENTENCES = 400
KEPT_CHARS = 1_000  # of a too-long response, kept in its record
CONTEXT_BEFORE = 3
CONTEXT_AFTER = 1
START_MARK, END_MARK = "<SOS>", "<EOS>"
_SENTENCE_MARK = re.compile(r"<\s*/?\s*[SE]OS\s*>", re.IGNORECASE)
_FINISHED = re.compile(r"[.!?\u2026\u3002\uff01\uff1f][\"'\u201d\u2019\u00bb)\]*_]*$")


@dataclass(frozen=True)
class Snippet:
    """One sentence to extract claims from, in context; ``index`` is its position in the sentence list."""

    index: int
    sentence: str
    text: str

    @property
    def marked_sentence(self) -> str:
        return mark(self.sentence)


def mark(sentence: str) -> str:
    return f"{START_MARK}{sentence}{END_MARK}"


def _unmarked(sentence: str) -> str:
    return without_delimiters(sentence, _SENTENCE_MARK)


def sentences_within_limits(text: str) -> tuple[list[str], dict[str, int] | None]:
    """(the sentences of a response, None) within both size limits; else ([], what it exceeds with the limit). A
    response over the character limit is not split at all."""
    if len(text) > MAX_RESPONSE_CHARS:
        return [], {"chars": len(text), "max_chars": MAX_RESPONSE_CHARS}
    sentences = split_sentences(text)
    if len(sentences) > MAX_SENTENCES:
        return [], {"sentences": len(sentences), "max_sentences": MAX_SENTENCES}
    return sentences, None


def split_sentences(text: str) -> list[str]:
    """The non-empty sentences of ``text``, stripped."""
    return [stripped for sentence in split_single(text) if (stripped := sentence.strip())]


def finished_sentences(sentences: list[str]) -> tuple[list[str], str | None]:
    """(the sentences claims may come from, the unfinished last fragment of a cut response or None): the last
    sentence is an unfinished fragment when it does not end with sentence-final punctuation."""
    if sentences and not _FINISHED.search(sentences[-1]):
        return sentences[:-1], sentences[-1]
    return sentences, None


def cut_mark(fragment: str | None) -> dict[str, Any]:
    """A judged record's mark of a cut response: ``cut``, and the ``cut_fragment`` that yielded no claim."""
    return {"cut": True, "cut_fragment": fragment} if fragment is not None else {"cut": False}


def cut_responses(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many judged records were cut responses (their unfinished last fragment yielded no claim)."""
    return {"cut_responses": sum(1 for r in records if r.get("cut"))}


def snippets(sentences: list[str]) -> list[Snippet]:
    """A snippet per sentence of at least ``MIN_SENTENCE_CHARS`` characters, in order."""
    out = []
    for i, sentence in enumerate(sentences):
        if len(sentence) < MIN_SENTENCE_CHARS:
            continue
        before = [_unmarked(s) for s in sentences[max(0, i - CONTEXT_BEFORE) : i]]
        after = [_unmarked(s) for s in sentences[i + 1 : i + 1 + CONTEXT_AFTER]]
        out.append(Snippet(i, sentence, " ".join([*before, mark(_unmarked(sentence)), *after])))
    return out
