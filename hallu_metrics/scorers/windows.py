"""Token arithmetic of the reference sliding window (Jing et al., "On A Scale From 1 to 5", section 3.2).

A classifier sees ``prefix + premise slice + middle + hypothesis + suffix`` (the template: ``[CLS] ... [SEP]
... [SEP]`` for a cross-encoder, HHEM-2.1's prompt for T5). The premise (reference) is cut into segments so
that every window fits ``max_length``; each segment after the first is preceded by the last ``overlap``
tokens before it; the hypothesis is never segmented. Plain truncation keeps the first window only.
Pure Python: no tokenizer or model here, so every boundary can be tested exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hallubench.core.errors import HallubenchError


@dataclass(frozen=True)
class Window:
    """One model input: token ids and their token-type (segment) ids, same length."""

    ids: tuple[int, ...]
    type_ids: tuple[int, ...]


@dataclass(frozen=True)
class PairLayout:
    """Where a premise and a hypothesis go in a model input, with the template's own tokens and types."""

    prefix: tuple[int, ...]
    middle: tuple[int, ...]
    suffix: tuple[int, ...]
    prefix_types: tuple[int, ...]
    middle_types: tuple[int, ...]
    suffix_types: tuple[int, ...]
    premise_type: int = 0
    hypothesis_type: int = 0

    @property
    def overhead(self) -> int:
        """Template tokens in every window."""
        return len(self.prefix) + len(self.middle) + len(self.suffix)

    def build(self, premise: Sequence[int], hypothesis: Sequence[int]) -> Window:
        ids = (*self.prefix, *premise, *self.middle, *hypothesis, *self.suffix)
        types = (
            *self.prefix_types,
            *[self.premise_type] * len(premise),
            *self.middle_types,
            *[self.hypothesis_type] * len(hypothesis),
            *self.suffix_types,
        )
        return Window(ids, types)


def min_premise_room(overlap: int) -> int:
    """Premise tokens a window must hold: twice the overlap, so at least half of every later window is new."""
    return max(2 * overlap, 1)


def segment_bounds(n_tokens: int, room: int, overlap: int) -> list[tuple[int, int]]:
    """Premise slices ``[start, end)`` of the sliding windows, overlap included.

    The first segment is ``[0, room)``; each later one adds ``room - overlap`` new tokens after the previous
    end and is preceded by the ``overlap`` tokens before it. Every slice has at most ``room`` tokens and their
    union is ``[0, n_tokens)``. A premise that fits (or is empty) gives one slice.
    """
    if n_tokens <= room:
        return [(0, n_tokens)]
    if room <= overlap:
        raise ValueError(f"a window of {room} premise tokens cannot advance with an overlap of {overlap}")
    bounds = [(0, room)]
    end = room
    while end < n_tokens:
        new_end = min(end + room - overlap, n_tokens)
        bounds.append((end - overlap, new_end))
        end = new_end
    return bounds


@dataclass(frozen=True)
class Coverage:
    """How much of a pair its windows show the model: premise and hypothesis tokens, and how many of each some
    window holds. ``cut`` means a token of either is seen by no window (plain truncation of a long premise, or a
    hypothesis too long for the window); several windows over a whole premise are not a cut."""

    windows: int
    premise_tokens: int
    premise_scored: int
    hypothesis_tokens: int
    hypothesis_scored: int

    @property
    def cut(self) -> bool:
        return self.premise_scored < self.premise_tokens or self.hypothesis_scored < self.hypothesis_tokens

    def to_dict(self) -> dict[str, int | bool]:
        return {"windows": self.windows, "premise_tokens": self.premise_tokens, "premise_scored": self.premise_scored,
                "hypothesis_tokens": self.hypothesis_tokens, "hypothesis_scored": self.hypothesis_scored,
                "cut": self.cut}


def plan_bounds(n_premise: int, n_hypothesis: int, layout: PairLayout, max_length: int, overlap: int,
                sliding: bool) -> tuple[list[tuple[int, int]], int]:
    """The premise slices of a pair's windows and how many hypothesis tokens each window keeps.

    The hypothesis is kept whole unless it leaves the premise fewer than ``min_premise_room(overlap)`` tokens
    (or the whole premise, if shorter); then its end is cut just enough to leave that room.
    """
    needed = min(min_premise_room(overlap), n_premise)
    room = max_length - layout.overhead - n_hypothesis
    kept = n_hypothesis
    if room < needed:
        kept = max_length - layout.overhead - needed
        room = needed
    bounds = segment_bounds(n_premise, room, overlap) if sliding else [(0, min(room, n_premise))]
    return bounds, kept


def coverage(n_premise: int, n_hypothesis: int, layout: PairLayout, max_length: int, overlap: int,
             sliding: bool) -> Coverage:
    """The :class:`Coverage` of a pair of ``n_premise`` and ``n_hypothesis`` tokens."""
    bounds, kept = plan_bounds(n_premise, n_hypothesis, layout, max_length, overlap, sliding)
    return Coverage(len(bounds), n_premise, bounds[-1][1], n_hypothesis, kept)


def plan_windows(
    premise: Sequence[int],
    hypothesis: Sequence[int],
    layout: PairLayout,
    max_length: int,
    overlap: int,
    sliding: bool,
) -> tuple[list[Window], bool]:
    """The windows scoring one pair (:func:`plan_bounds`), and whether its hypothesis had to be cut."""
    bounds, kept = plan_bounds(len(premise), len(hypothesis), layout, max_length, overlap, sliding)
    return [layout.build(premise[start:end], hypothesis[:kept]) for start, end in bounds], kept < len(hypothesis)


def check_fits(layout: PairLayout, max_length: int, overlap: int) -> None:
    """Reject a ``max_length`` that leaves no room for a premise and a one-token hypothesis."""
    smallest = layout.overhead + min_premise_room(overlap) + 1
    if max_length < smallest:
        raise HallubenchError(
            f"max_length={max_length} is too small: the template takes {layout.overhead} tokens and overlap="
            f"{overlap} needs {min_premise_room(overlap)} premise tokens (use max_length >= {smallest})"
        )
