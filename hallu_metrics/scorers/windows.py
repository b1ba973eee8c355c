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

from hallubench.errors import HallubenchError


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


def plan_windows(
    premise: Sequence[int],
    hypothesis: Sequence[int],
    layout: PairLayout,
    max_length: int,
    overlap: int,
    sliding: bool,
) -> tuple[list[Window], bool]:
    """The windows scoring one pair, and whether its hypothesis had to be cut.

    The hypothesis is kept whole unless it leaves the premise fewer than ``min_premise_room(overlap)`` tokens
    (or the whole premise, if shorter); then its end is cut just enough to leave that room.
    """
    needed = min(min_premise_room(overlap), len(premise))
    room = max_length - layout.overhead - len(hypothesis)
    cut = room < needed
    if cut:
        hypothesis = hypothesis[: max_length - layout.overhead - needed]
        room = needed
    bounds = segment_bounds(len(premise), room, overlap) if sliding else [(0, min(room, len(premise)))]
    return [layout.build(premise[start:end], hypothesis) for start, end in bounds], cut


def check_fits(layout: PairLayout, max_length: int, overlap: int) -> None:
    """Reject a ``max_length`` that leaves no room for a premise and a one-token hypothesis."""
    smallest = layout.overhead + min_premise_room(overlap) + 1
    if max_length < smallest:
        raise HallubenchError(
            f"max_length={max_length} is too small: the template takes {layout.overhead} tokens and overlap="
            f"{overlap} needs {min_premise_room(overlap)} premise tokens (use max_length >= {smallest})"
        )
