"""Window arithmetic of the reference sliding window (Jing et al. section 3.2), on token ids, with no model."""

from __future__ import annotations

import itertools
import math

import pytest

from hallu_metrics.scorers.classifier import WindowedPairScorer
from hallu_metrics.scorers.windows import PairLayout, Window, min_premise_room, plan_windows, segment_bounds
from hallubench.core.errors import HallubenchError

# [CLS]=101 premise [SEP]=102 hypothesis [SEP]=102, token types 0 then 1, as a BERT-style cross-encoder.
CROSS = PairLayout(prefix=(101,), middle=(102,), suffix=(102,), prefix_types=(0,), middle_types=(0,),
                   suffix_types=(1,), premise_type=0, hypothesis_type=1)


def premise_part(window: Window, n_hypothesis: int, layout: PairLayout = CROSS) -> list[int]:
    """The premise tokens inside a window built with ``layout``."""
    end = len(window.ids) - len(layout.middle) - n_hypothesis - len(layout.suffix)
    return list(window.ids[len(layout.prefix): end])


def test_segment_bounds_exact_example():
    """A 100-token premise in 40-token windows with 8 tokens of overlap: segments start 8 tokens before the
    previous end and add 32 new tokens; the last one is shorter."""
    assert segment_bounds(100, 40, 8) == [(0, 40), (32, 72), (64, 100)]
    assert segment_bounds(10, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert segment_bounds(40, 40, 8) == [(0, 40)]
    assert segment_bounds(0, 40, 8) == [(0, 0)]


@pytest.mark.parametrize("n", [1, 39, 40, 41, 72, 73, 500, 2048])
@pytest.mark.parametrize("room,overlap", [(40, 8), (40, 0), (64, 32), (452, 32), (5, 4)])
def test_segment_bounds_cover_every_token_once_plus_overlap(n, room, overlap):
    """For any premise length: every window fits, each later window starts exactly ``overlap`` tokens before
    the previous end, the new parts tile [0, n) in order (no token lost or repeated) and the count is minimal."""
    bounds = segment_bounds(n, room, overlap)
    assert all(0 < end - start <= room for start, end in bounds)
    assert bounds[0][0] == 0 and bounds[-1][1] == n
    for (_, previous_end), (start, _) in itertools.pairwise(bounds):
        assert start == previous_end - overlap
    new_parts = [list(range(start if k == 0 else start + overlap, end)) for k, (start, end) in enumerate(bounds)]
    assert [t for part in new_parts for t in part] == list(range(n))
    expected = 1 if n <= room else 1 + math.ceil((n - room) / (room - overlap))
    assert len(bounds) == expected


def test_segment_bounds_refuses_an_overlap_that_cannot_advance():
    """A window no larger than the overlap would never move forward."""
    with pytest.raises(ValueError):
        segment_bounds(100, 8, 8)


def test_plan_windows_accounts_for_template_and_keeps_hypothesis_whole():
    """Each window is [CLS] slice [SEP] hypothesis [SEP], fills max_length exactly while premise remains, repeats
    the last 32 premise tokens of the previous window, and carries the whole hypothesis with its token types."""
    premise, hypothesis = list(range(1000, 1500)), list(range(7, 27))
    windows, cut = plan_windows(premise, hypothesis, CROSS, max_length=128, overlap=32, sliding=True)
    room = 128 - 3 - 20
    assert not cut
    assert len(windows) == 1 + math.ceil((500 - room) / (room - 32))
    parts = [premise_part(w, 20) for w in windows]
    for window, part in zip(windows, parts):
        assert window.ids == (101, *part, 102, *hypothesis, 102)
        assert window.type_ids == (0,) * (len(part) + 2) + (1,) * 21
        assert len(window.ids) <= 128
    assert all(len(w.ids) == 128 for w in windows[:-1])
    for previous, part in itertools.pairwise(parts):
        assert part[:32] == previous[-32:]
    assert parts[0] + [t for part in parts[1:] for t in part[32:]] == premise


def test_plan_windows_truncate_mode_keeps_the_first_window_only():
    """Plain truncation scores the hypothesis against the beginning of the premise that fits, nothing else."""
    premise, hypothesis = list(range(1000, 1500)), list(range(7, 27))
    windows, cut = plan_windows(premise, hypothesis, CROSS, max_length=128, overlap=32, sliding=False)
    assert not cut and len(windows) == 1
    assert premise_part(windows[0], 20) == premise[: 128 - 3 - 20]


def test_short_pair_is_one_window_identical_to_plain_encoding():
    """A pair that fits gives one window, the same in both modes: the template around both texts, unchanged."""
    for sliding in (True, False):
        windows, cut = plan_windows([5, 6, 7], [8, 9], CROSS, max_length=512, overlap=32, sliding=sliding)
        assert windows == [Window((101, 5, 6, 7, 102, 8, 9, 102), (0, 0, 0, 0, 0, 1, 1, 1))] and not cut


def test_too_long_hypothesis_is_cut_at_its_end_to_leave_twice_the_overlap():
    """A hypothesis that leaves the premise fewer than 2 x overlap tokens loses its end, just enough to leave
    exactly that room; a short premise only needs its own length."""
    hypothesis = list(range(10_000, 10_200))
    windows, cut = plan_windows(list(range(300)), hypothesis, CROSS, max_length=128, overlap=32, sliding=True)
    kept = 128 - 3 - min_premise_room(32)
    assert cut
    for window in windows:
        assert window.ids[-kept - 1: -1] == tuple(hypothesis[:kept]) and len(window.ids) <= 128
    windows, cut = plan_windows([1, 2, 3], hypothesis, CROSS, max_length=128, overlap=32, sliding=True)
    assert cut and windows[0].ids[:5] == (101, 1, 2, 3, 102) and len(windows[0].ids) == 128
    windows, cut = plan_windows([], list(range(125)), CROSS, max_length=128, overlap=32, sliding=True)
    assert not cut and len(windows[0].ids) == 128


class RecordingModel:
    """A fake WindowModel: the score of a window is the largest 'score token' (ids >= 900) it holds / 1000,
    and every batch it is given is recorded."""

    def __init__(self) -> None:
        self.batches: list[list[Window]] = []

    def probabilities(self, windows):
        self.batches.append(list(windows))
        return [max((t for t in w.ids if 900 <= t < 1000), default=0) / 1000 for w in windows]


def word_ids(texts: list[str]) -> list[list[int]]:
    """Whitespace 'tokenizer': every word is an integer token id."""
    return [[int(word) for word in text.split()] for text in texts]


def test_scorer_takes_the_max_over_windows_and_batches_all_windows_together():
    """A token only in the last segment decides the pair's score (max aggregation); plain truncation never sees
    it; windows of all pairs go to the model in batches of batch_size, longest first."""
    model = RecordingModel()
    scorer = WindowedPairScorer(identity="fake", encode=word_ids, layout=CROSS, model=model, max_length=64,
                                overlap=8, sliding=True, batch_size=3)
    long_premise = " ".join(["1"] * 150 + ["950"] + ["1"] * 10)
    pairs = [(long_premise, "2 3"), ("1 910 1", "2"), ("1 1", "920")]
    assert scorer.score(pairs) == [0.95, 0.91, 0.92]
    seen = [w for batch in model.batches for w in batch]
    assert len(seen) == 1 + math.ceil((161 - (64 - 3 - 2)) / (59 - 8)) + 2
    assert all(len(batch) <= 3 for batch in model.batches)
    assert [len(w.ids) for w in seen] == sorted((len(w.ids) for w in seen), reverse=True)
    truncating = WindowedPairScorer(identity="fake", encode=word_ids, layout=CROSS, model=RecordingModel(),
                                    max_length=64, overlap=8, sliding=False, batch_size=3)
    assert truncating.score(pairs) == [0.0, 0.91, 0.92]


def test_scorer_refuses_a_max_length_without_room():
    """max_length must hold the template, 2 x overlap premise tokens and one hypothesis token."""
    with pytest.raises(HallubenchError, match="max_length=66 is too small"):
        WindowedPairScorer(identity="fake", encode=word_ids, layout=CROSS, model=RecordingModel(), max_length=66,
                           overlap=32)
    WindowedPairScorer(identity="fake", encode=word_ids, layout=CROSS, model=RecordingModel(), max_length=68,
                       overlap=32)


def test_scorer_with_no_pairs_calls_no_model():
    """Scoring nothing returns nothing and runs no batch."""
    model = RecordingModel()
    scorer = WindowedPairScorer(identity="fake", encode=word_ids, layout=CROSS, model=model, max_length=64, overlap=8)
    assert scorer.score([]) == [] and model.batches == []
