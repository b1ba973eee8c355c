"""Sampling then filtering (HaluEval section 2.1): two schemas each write one hallucinated candidate per seeded
source record; a judge picks the more plausible of the two (shown in seeded order); the winners become rows in the
official schema plus provenance columns."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hallu_metrics.benchmarks.halueval import TASKS, Pattern, TaskSpec
from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import seeded_rng
from hallubench_generators.halueval.prompts import Settings, filter_request, sampling_request

SCHEMAS = ("one-pass", "conversational")
PATTERN_MODES = ("all", "single")


@dataclass
class Sample:
    """One candidate written by one schema for one source example; ``pattern`` is None when the
    model chose among all patterns."""

    index: int
    schema: str
    pattern: Pattern | None
    text: str = ""


_LABEL = re.compile(r"^\s*(?:#?hallucinated\s+\w+#?\s*:)?\s*", re.IGNORECASE)


def clean_candidate(text: str, right: str) -> str:
    """The first paragraph without a leading field label or quotes; empty if it repeats the right text."""
    paragraph = _LABEL.sub("", text.strip()).split("\n\n")[0].strip().strip("\"'` ")
    return "" if paragraph.casefold() == right.strip().casefold() else paragraph


def parse_choice(text: str, unit: str) -> int | None:
    """1 or 2 from "The best answer is Answer 2."; None when both or neither are named."""
    found = set(re.findall(rf"\b{unit}\s*([12])\b", text, re.IGNORECASE))
    if len(found) != 1:
        found = set(re.findall(r"\b([12])\b", text))
    return int(found.pop()) if len(found) == 1 else None


def choose_sources(records: list[dict], settings: Settings) -> list[int]:
    """A seeded choice of ``n`` distinct source indices, in file order."""
    if not 1 <= settings.n <= len(records):
        raise HallubenchError(f"--n must be between 1 and the {len(records)} source records")
    return sorted(seeded_rng(settings.seed, settings.task, "sources").sample(range(len(records)), settings.n))


def _pattern(spec: TaskSpec, settings: Settings, index: int, schema: str) -> Pattern | None:
    """The seeded pattern of one sample in ``single`` mode; None (all patterns offered) in ``all`` mode."""
    if settings.pattern_mode == "all":
        return None
    return seeded_rng(settings.seed, spec.name, index, schema, "pattern").choice(spec.patterns)


def sample(
    records: list[dict], indices: list[int], client: ModelClient, spec: TaskSpec, settings: Settings
) -> list[Sample]:
    """Both schemas for every chosen record, in one batch."""
    samples = [Sample(i, schema, _pattern(spec, settings, i, schema)) for i in indices for schema in SCHEMAS]
    texts = client.complete_or_raise(
        [
            sampling_request(spec, records[s.index], s.schema, [s.pattern] if s.pattern else spec.patterns, settings,
                             seeded_rng(settings.seed, spec.name, s.index, s.schema, "sampling").getrandbits(31))
            for s in samples
        ],
        desc="halueval: sampling",
    )
    for s, text in zip(samples, texts):
        s.text = clean_candidate(text, records[s.index][spec.right])
    return samples


Decision = tuple[Sample, Sample, str]  # winner, loser, how the winner was selected


def filter_pairs(
    records: list[dict], pairs: list[tuple[Sample, Sample]], client: ModelClient, spec: TaskSpec, settings: Settings
) -> dict[int, Decision]:
    """Filter step, per source index: the judge picks between the two candidates shown in seeded order
    (an unreadable verdict keeps the first shown); a pair with one empty candidate keeps the other."""
    contested = [
        (a, b) if seeded_rng(settings.seed, spec.name, a.index, "order").random() < 0.5 else (b, a)
        for a, b in pairs
        if a.text and b.text
    ]
    choices = client.complete_or_raise(
        [filter_request(spec, records[a.index], a.text, b.text) for a, b in contested], desc="halueval: filtering"
    )
    decided: dict[int, Decision] = {}
    for (first, second), text in zip(contested, choices):
        choice = parse_choice(text, spec.unit)
        if choice is None:
            decided[first.index] = (first, second, "filter_unparsed_first_shown")
        else:
            decided[first.index] = (first, second, "filter") if choice == 1 else (second, first, "filter")
    for a, b in pairs:
        if not (a.text and b.text) and (a.text or b.text):
            winner, loser = (a, b) if a.text else (b, a)
            decided[a.index] = (winner, loser, "only_valid_candidate")
    return decided


def select(
    records: list[dict], pairs: list[tuple[Sample, Sample]], client: ModelClient, spec: TaskSpec, settings: Settings
) -> list[dict]:
    """Rows of the candidates that win the filter step, in source order."""
    decided = filter_pairs(records, pairs, client, spec, settings)
    return [_row(records[i], spec, *decided[i]) for i in sorted(decided)]


def _row(record: dict, spec: TaskSpec, winner: Sample, loser: Sample, selected_by: str) -> dict:
    return {
        **{c: str(record[c]) for c in spec.columns if c != spec.hallucinated},
        spec.hallucinated: winner.text,
        "source_index": winner.index,
        "pattern": winner.pattern.name if winner.pattern else "",
        "schema": winner.schema,
        "selected_by": selected_by,
        "rejected_candidate": loser.text,
    }


def generate(records: list[dict], generator: ModelClient, judge: ModelClient, settings: Settings) -> list[dict]:
    """Sampling then filtering for ``n`` seeded source records; pairs with no usable candidate are dropped."""
    if settings.pattern_mode not in PATTERN_MODES:
        raise HallubenchError(f"pattern mode must be one of {', '.join(PATTERN_MODES)}, not {settings.pattern_mode!r}")
    spec = TASKS[settings.task]
    samples = sample(records, choose_sources(records, settings), generator, spec, settings)
    rows = select(records, list(zip(samples[::2], samples[1::2])), judge, spec, settings)
    if not rows:
        raise HallubenchError("no source example got a usable hallucinated candidate; check the generator's replies")
    return rows
