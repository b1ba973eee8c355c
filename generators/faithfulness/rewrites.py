"""Hallucinated rewrites of single sentences, made once per (pair, sentence, kind): by the LLM (the paper's method,
requests in ``prompts``) or by the documented rules of ``rules`` (the offline stand-in)."""

from __future__ import annotations

from hallu_metrics.longform.sentences import split_sentences
from hallubench.core.backends import ModelClient
from hallubench.core.seeding import seeded_rng
from hallubench_generators.faithfulness.prompts import rewrite_request
from hallubench_generators.faithfulness.rules import (
    Rewrite,
    donor_sentences,
    entities,
    extrinsic_rewrite,
    intrinsic_rewrite,
)
from hallubench_generators.faithfulness.source import Pair

KINDS = ("intrinsic", "extrinsic")


def clean_rewrite(text: str, sentence: str) -> str | None:
    """The first non-empty line without a ``REWRITE:`` label or quotes; None when empty or unchanged."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    line = lines[0].removeprefix("REWRITE:").strip().strip('"').strip()
    return line if line and line != sentence.strip() else None


class Rewriter:
    """Hallucinated rewrites of sentences, by LLM or by rules, made once per (pair, sentence, kind)."""

    def __init__(self, mode: str, seed: int, pairs: list[Pair], client: ModelClient | None = None,
                 outside: list[str] | None = None):
        self.mode, self.seed, self.client = mode, seed, client
        self.done: dict[tuple[int, int, str], Rewrite | None] = {}
        self.documents = {p.index: p.reference for p in pairs}
        self._outside = outside
        self._pool: list[tuple[str, str]] | None = None

    def prepare(self, keys: list[tuple[Pair, int, str]]) -> None:
        """Rewrite every (pair, sentence index, kind) not done yet (LLM calls batched)."""
        todo = list({(p.index, i, k): (p, i, k) for p, i, k in keys if (p.index, i, k) not in self.done}.values())
        if self.mode == "llm":
            requests = [rewrite_request(p.sentences[i], k) for p, i, k in todo]
            replies = self.client.complete_or_raise(requests, desc="faithfulness rewrites") if todo else []
            for (p, i, k), reply in zip(todo, replies):
                text = clean_rewrite(reply, p.sentences[i])
                self.done[(p.index, i, k)] = Rewrite(text, "llm", "") if text else None
            return
        for p, i, k in todo:
            self.done[(p.index, i, k)] = self._rule(p, i, k)

    def get(self, pair: Pair, index: int, kind: str) -> Rewrite | None:
        return self.done[(pair.index, index, kind)]

    def _rule(self, pair: Pair, index: int, kind: str) -> Rewrite | None:
        rng = seeded_rng(self.seed, "rewrite", pair.index, index, kind)
        sentence = pair.sentences[index]
        if kind == "intrinsic":
            return intrinsic_rewrite(sentence, rng, pair.reference, self.entity_pool())
        donors = self.outside_sentences(pair.index)
        return extrinsic_rewrite(sentence, rng.choice(donors)) if donors else None

    def entity_pool(self) -> list[tuple[str, str]]:
        """(text, label) of the named entities of a seeded sample of 50 source documents (fallback
        replacements when a document has no other entity of the same type)."""
        if self._pool is None:
            docs = sorted(self.documents.items())
            sample = seeded_rng(self.seed, "entity-pool").sample(docs, min(50, len(docs)))
            self._pool = sorted({(t, lab) for _, doc in sample for t, lab, *_ in entities(doc[:2000])})
        return self._pool

    def outside_sentences(self, index: int) -> list[str]:
        """Donor sentences of a document unrelated to pair ``index``: one seeded other document of the source
        (or of ``--outside``) that shares no named entity with the pair's reference."""
        documents = self._outside or [doc for i, doc in sorted(self.documents.items()) if i != index]
        if not documents:
            return []
        rng = seeded_rng(self.seed, "outside", index)
        own = {t for t, *_ in entities(self.documents[index][:2000])}
        for document in rng.sample(documents, min(10, len(documents))):
            donors = donor_sentences(split_sentences(document))
            if donors and not any(name in document for name in own):
                return donors
        return []
