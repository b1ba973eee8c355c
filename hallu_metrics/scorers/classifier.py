"""Classifier scorers: P(hypothesis is consistent with premise) for many pairs, windowed and batched.

The windowing follows Jing et al., "On A Scale From 1 to 5", section 3.2: the reference is segmented, the
hypothesis is scored against every segment and the pair's score is the maximum over its segments.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from tqdm.auto import tqdm

from hallu_metrics.scorers.windows import Coverage, PairLayout, Window, check_fits, coverage, plan_windows
from hallubench.core.errors import HallubenchError

logger = logging.getLogger(__name__)

# A pair the layout is checked on after loading: tokenizing it whole must equal tokenizing it in pieces.
PROBE_PAIR = ("The hotel is 200 m from the beach; breakfast costs 12 EUR.", "Breakfast is free.")


class ClassifierScorer(Protocol):
    """Scores (premise/reference, hypothesis) pairs with P(consistent) in [0, 1]."""

    identity: str  # model id + revision (or local content hash) + windowing mode: part of cache keys

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...


class WindowModel(Protocol):
    """The model side of a scorer: P(consistent) for each of a batch of windows."""

    def probabilities(self, windows: Sequence[Window]) -> list[float]: ...


def score_to_likert(p: float) -> float:
    """Map P(consistent) linearly from [0, 1] onto the 1-5 faithfulness scale (1 + 4p), as the paper's
    section 4 rescales HHEM scores for comparison with rubric scores."""
    if not 0.0 <= p <= 1.0:
        raise HallubenchError(f"a classifier score must lie in [0, 1], got {p}")
    return 1.0 + 4.0 * p


class WindowedPairScorer:
    """A ``ClassifierScorer``: tokenizes pairs, plans their windows, runs every window of every pair in
    length-sorted batches of ``batch_size`` and keeps each pair's maximum (sliding) or only window (truncate)."""

    def __init__(
        self,
        *,
        identity: str,
        encode: Callable[[list[str]], list[list[int]]],
        layout: PairLayout,
        model: WindowModel,
        max_length: int,
        overlap: int = 32,
        sliding: bool = True,
        batch_size: int = 8,
    ) -> None:
        check_fits(layout, max_length, overlap)
        self.identity = identity
        self.layout = layout
        self.model = model
        self.max_length = max_length
        self.overlap = overlap
        self.sliding = sliding
        self.batch_size = batch_size
        self._encode = encode

    def _tokens(self, pairs: Sequence[tuple[str, str]]) -> tuple[list[list[int]], list[list[int]]]:
        return self._encode([premise for premise, _ in pairs]), self._encode([hypothesis for _, hypothesis in pairs])

    def windows(self, pairs: Sequence[tuple[str, str]]) -> tuple[list[list[Window]], int]:
        """Each pair's windows, and how many hypotheses had to be cut to fit."""
        planned = [
            plan_windows(p, h, self.layout, self.max_length, self.overlap, self.sliding)
            for p, h in zip(*self._tokens(pairs))
        ]
        return [windows for windows, _ in planned], sum(cut for _, cut in planned)

    def coverage(self, pairs: Sequence[tuple[str, str]]) -> list[Coverage]:
        """How much of each pair its windows show the model (tokenization only, no model call)."""
        return [coverage(len(p), len(h), self.layout, self.max_length, self.overlap, self.sliding)
                for p, h in zip(*self._tokens(pairs))]

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        premises, hypotheses = self._tokens(pairs)
        per_pair = [plan_windows(p, h, self.layout, self.max_length, self.overlap, self.sliding)[0]
                    for p, h in zip(premises, hypotheses)]
        covered = [coverage(len(p), len(h), self.layout, self.max_length, self.overlap, self.sliding)
                   for p, h in zip(premises, hypotheses)]
        hypotheses_cut = sum(c.hypothesis_scored < c.hypothesis_tokens for c in covered)
        premises_cut = sum(c.premise_scored < c.premise_tokens for c in covered)
        if hypotheses_cut:
            logger.warning(
                "%d of %d hypotheses were cut at their end: with the template they leave no room for the reference "
                "in max_length=%d tokens", hypotheses_cut, len(pairs), self.max_length,
            )
        if premises_cut:
            logger.warning("%d of %d references were cut at their end (window=truncate, max_length=%d tokens); "
                           "window=sliding scores all of them", premises_cut, len(pairs), self.max_length)
        flat = [(owner, window) for owner, windows in enumerate(per_pair) for window in windows]
        probabilities = self._run([window for _, window in flat])
        best = [0.0] * len(pairs)
        for (owner, _), p in zip(flat, probabilities):
            best[owner] = max(best[owner], p)
        return best

    def _run(self, windows: list[Window]) -> list[float]:
        """Probabilities in input order; batches hold windows of similar length to limit padding."""
        order = sorted(range(len(windows)), key=lambda k: len(windows[k].ids), reverse=True)
        out = [0.0] * len(windows)
        with tqdm(total=len(windows), desc="classifier windows", unit="window", leave=False) as bar:
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                for k, p in zip(chunk, self.model.probabilities([windows[k] for k in chunk]), strict=True):
                    out[k] = p
                bar.update(len(chunk))
        return out


class TorchPairModel:
    """A ``WindowModel`` over a transformers module: right-pads a batch, masks the padding and maps the
    logits to P(consistent) with ``head``."""

    def __init__(self, module: Any, head: Callable[[Any], Any], device: str, pad_id: int, token_types: bool):
        self.module = module.to(device).eval()
        self.head = head
        self.device = device
        self.pad_id = pad_id
        self.token_types = token_types

    def probabilities(self, windows: Sequence[Window]) -> list[float]:
        import torch

        width = max(len(w.ids) for w in windows)
        ids = torch.full((len(windows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        types = torch.zeros_like(ids)
        for row, window in enumerate(windows):
            n = len(window.ids)
            ids[row, :n] = torch.tensor(window.ids)
            types[row, :n] = torch.tensor(window.type_ids)
            mask[row, :n] = 1  # from lengths, not from ids: HHEM-2.1's prompt starts with a real <pad> token
        inputs = {"input_ids": ids, "attention_mask": mask}
        if self.token_types:
            inputs["token_type_ids"] = types
        with torch.inference_mode():
            logits = self.module(**{k: v.to(self.device) for k, v in inputs.items()}).logits
        return self.head(logits).float().cpu().tolist()


def layout_from_tokenizer(tokenizer: Any, encode_pair: Callable[[str, str], dict]) -> PairLayout:
    """Read the template around a pair from the tokenizer itself: ``encode_pair`` (the model's own way of
    encoding a whole pair) is applied to two unknown-token markers, and the tokens around them are the template.
    The result is then checked on ``PROBE_PAIR``: encoding it whole must equal encoding it in pieces."""
    marker, marker_id = tokenizer.unk_token, tokenizer.unk_token_id
    if marker is None:
        raise HallubenchError("the classifier's tokenizer has no unknown token to locate the pair template with")
    encoded = encode_pair(marker, marker)
    ids = list(encoded["input_ids"])
    types = list(encoded.get("token_type_ids") or [0] * len(ids))
    where = [k for k, token in enumerate(ids) if token == marker_id]
    if len(where) != 2:
        raise HallubenchError(f"cannot locate the pair template: the unknown token occurs {len(where)} times, not 2")
    i, j = where
    layout = PairLayout(
        prefix=tuple(ids[:i]),
        middle=tuple(ids[i + 1 : j]),
        suffix=tuple(ids[j + 1 :]),
        prefix_types=tuple(types[:i]),
        middle_types=tuple(types[i + 1 : j]),
        suffix_types=tuple(types[j + 1 :]),
        premise_type=types[i],
        hypothesis_type=types[j],
    )
    premise, hypothesis = (tokenizer(text, add_special_tokens=False)["input_ids"] for text in PROBE_PAIR)
    if list(layout.build(premise, hypothesis).ids) != list(encode_pair(*PROBE_PAIR)["input_ids"]):
        raise HallubenchError("the classifier's tokenizer does not encode a pair as its pieces: cannot window it")
    return layout
