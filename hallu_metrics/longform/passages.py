"""Evidence passages: fixed-length windows of a page (HalluLens 3.2.2 "Reference Evidence Selection").

The paper divides each selected page into passages of 256 tokens; FActScore, whose database HalluLens uses,
counts RoBERTa tokens and fills each window to the limit regardless of sentence boundaries. Here pages we cut
ourselves (``hallubench knowledge build``, web pages for WildHallucinations) are cut into windows of
``PASSAGE_WORDS`` whitespace-separated words, which keeps the cut independent of any model's tokenizer (so
cached passage embeddings stay valid across embedders). 187 words ~= 256 tokens: on the 32 GoodWiki sample
articles all-MiniLM-L6-v2's WordPiece tokenizer yields 1.37 tokens per word, and RoBERTa's BPE is similar.
Passages read from a FActScore database keep FActScore's own cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PASSAGE_WORDS = 187

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Passage:
    """One evidence passage: the page it comes from, its text, and its position in that page."""

    title: str
    text: str
    index: int

    def embedding_input(self) -> str:
        """What gets embedded for ranking: page title + passage (HalluLens 3.2.2)."""
        return f"{self.title} {self.text}"


def cut_passages(text: str, words: int = PASSAGE_WORDS) -> list[str]:
    """Cut ``text`` into consecutive windows of ``words`` words, keeping the original spacing inside each."""
    if words < 1:
        raise ValueError("words per passage must be at least 1")
    spans = [match.span() for match in _WORD.finditer(text)]
    return [text[spans[i][0] : spans[min(i + words, len(spans)) - 1][1]] for i in range(0, len(spans), words)]


def page_passages(title: str, texts: list[str]) -> list[Passage]:
    """Number a page's passage texts, dropping empty ones (indices keep their stored positions)."""
    return [Passage(title, text.strip(), i) for i, text in enumerate(texts) if text.strip()]
