"""Section-aware chunking of GoodWiki markdown into reference passages (HalluLens 3.1)."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+|[^\w\s]")
_SECTION = re.compile(r"\n(?=#{2,}\s)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])|\n+")


def count_tokens(text: str) -> int:
    """Words and punctuation marks: a tokenizer-free stand-in for subword tokens (about 0.8x a
    Llama-3 token count on English prose)."""
    return len(_TOKEN.findall(text))


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def chunk_article(markdown: str, min_tokens: int = 200, max_tokens: int = 500) -> list[str]:
    """Split at ``##`` headings, pack sentences into chunks of at most ``max_tokens``, merge a chunk
    into its neighbour while either is shorter than ``min_tokens``, and drop the last chunk when there are more
    than two (it is usually references / see-also). An article shorter than ``min_tokens`` is one chunk."""
    pieces: list[str] = []
    for section in _SECTION.split(markdown):
        current: list[str] = []
        size = 0
        for sentence in split_sentences(section):
            tokens = count_tokens(sentence)
            if current and size + tokens > max_tokens:
                pieces.append(" ".join(current))
                current, size = [], 0
            current.append(sentence)
            size += tokens
        if current:
            pieces.append(" ".join(current))
    chunks: list[str] = []
    for piece in pieces:
        if chunks and min(count_tokens(piece), count_tokens(chunks[-1])) < min_tokens:
            chunks[-1] = f"{chunks[-1]}\n{piece}"
        else:
            chunks.append(piece)
    if len(chunks) > 2:
        chunks = chunks[:-1]
    return chunks
