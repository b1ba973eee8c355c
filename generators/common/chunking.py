"""Section-aware chunking of GoodWiki markdown into reference passages (HalluLens 3.1.2: "we chunk the
page into sections and randomly select one section").

HalluLens' code splits at ``##`` headings, packs sentences into chunks of at most 500 tokens and merges a
short piece into the previous chunk, which can push that chunk past 500. Here the bounds hold: the
article's sentences are cut into consecutive chunks of at most ``max_tokens`` (a single longer sentence is
its own chunk), choosing among such cuts the one that (1) leaves the fewest tokens missing below
``min_tokens``, then (2) crosses the fewest headings inside a chunk, then (3) has the fewest chunks. So
chunks follow sections where the bounds allow and a short section joins a neighbour, as in the reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from segtok.segmenter import split_single

_TOKEN = re.compile(r"\w+|[^\w\s]")
_HEADING = re.compile(r"#{2,}\s")


def count_tokens(text: str) -> int:
    """Words and punctuation marks: a tokenizer-free stand-in for subword tokens (about 0.8x a
    Llama-3 token count on English prose)."""
    return len(_TOKEN.findall(text))


@dataclass(frozen=True)
class _Unit:
    """A sentence (or a heading line) with where it starts."""

    text: str
    tokens: int
    new_paragraph: bool
    new_section: bool


def split_sentences(text: str) -> list[str]:
    """Sentences of a plain-text paragraph (segtok, as HalluLens' LongWiki uses)."""
    return [s.strip() for s in split_single(text) if s.strip()]


def _units(markdown: str) -> list[_Unit]:
    units: list[_Unit] = []
    for line in markdown.splitlines():
        line = line.strip()
        if not line:
            continue
        heading = bool(_HEADING.match(line))
        for i, sentence in enumerate([line] if heading else split_sentences(line)):
            units.append(_Unit(sentence, count_tokens(sentence), i == 0, heading))
    return units


def _best_cuts(units: list[_Unit], min_tokens: int, max_tokens: int) -> list[int]:
    """Chunk start indices of the cheapest partition (see the module docstring), by dynamic programming
    over chunk ends; a chunk only grows while it stays within ``max_tokens``."""
    prefix = [0]
    for unit in units:
        prefix.append(prefix[-1] + unit.tokens)
    inf = (float("inf"),)
    best: list[tuple] = [(0, 0, 0)] + [inf] * len(units)
    start_of = [0] * (len(units) + 1)
    for end in range(1, len(units) + 1):
        crossings = 0
        for start in range(end - 1, -1, -1):
            size = prefix[end] - prefix[start]
            if size > max_tokens and start < end - 1:
                break
            shortfall, heads, count = best[start]
            cost = (shortfall + max(0, min_tokens - size), heads + crossings, count + 1)
            if cost < best[end]:
                best[end], start_of[end] = cost, start
            crossings += units[start].new_section
    cuts, end = [], len(units)
    while end > 0:
        end = start_of[end]
        cuts.append(end)
    return cuts[::-1]


def _join(units: list[_Unit]) -> str:
    text = units[0].text
    for unit in units[1:]:
        text += ("\n" if unit.new_paragraph else " ") + unit.text
    return text


def chunk_article(markdown: str, min_tokens: int = 200, max_tokens: int = 500) -> list[str]:
    """Reference chunks of one article (see the module docstring); the last chunk is dropped when there are
    more than two (it is usually see-also / references, as in HalluLens). An article shorter than
    ``min_tokens`` is one chunk."""
    units = _units(markdown)
    if not units:
        return []
    cuts = _best_cuts(units, min_tokens, max_tokens)
    chunks = [_join(units[a:b]) for a, b in zip(cuts, cuts[1:] + [len(units)])]
    return chunks[:-1] if len(chunks) > 2 else chunks
