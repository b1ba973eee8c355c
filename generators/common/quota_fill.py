"""Filling per-bin quotas from seeded page pools, shared by the page-based question generators (PreciseWikiQA,
HalluLens 3.1.2; LongWiki, 3.2.2): draw waves of pages, write and check a question for each, keep the first
unique ones per bin, and top up from further pages until every quota is met or the pools run dry."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TypeVar

from hallubench.core.errors import HallubenchError

C = TypeVar("C")
Bin = Hashable  # a difficulty bin / level, or None for an unbinned set
MIN_ACCEPTANCE = 0.1  # the lowest acceptance rate a wave is oversampled for


@dataclass
class PageQuestionSettings:
    """Generation parameters common to the page-based generators (HalluLens samples its question writer at
    temperature 0.7, top_p 0.9)."""

    n: int
    seed: int
    min_tokens: int
    max_tokens: int
    question_temperature: float = 0.7
    question_top_p: float = 0.9
    allow_shortfall: bool = False


@dataclass
class QuotaReport:
    """Counts per bin for the dataset card: quota, pages tried, items accepted; rejections by reason."""

    quotas: dict[Bin, int] = field(default_factory=dict)
    tried: Counter = field(default_factory=Counter)
    accepted: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)


def fill_quotas(
    pools: dict[Bin, list[C]],
    report: QuotaReport,
    write_wave: Callable[[list[C]], list[tuple[C, str]]],
    bin_of: Callable[[C], Bin],
) -> dict[Bin, list[C]]:
    """Accepted candidates per bin of ``report.quotas``, in acceptance order.

    Each wave takes, per bin still short, the next ``ceil(missing / rate)`` pages of its pool (``rate`` = the
    acceptance rate so far, 0.5 before the first wave, at least ``MIN_ACCEPTANCE``), so the result depends only
    on the pools' seeded order and the (cached) model replies. ``write_wave`` returns the candidates that passed
    its checks with their de-duplication key (rejections go to ``report.rejected``); a key seen before is a
    ``duplicate_question``. ``report.tried`` and ``report.accepted`` are filled in."""
    accepted: dict[Bin, list[C]] = {bin_: [] for bin_ in report.quotas}
    cursor = dict.fromkeys(report.quotas, 0)
    seen: set[str] = set()
    while True:
        tried, kept = sum(report.tried.values()), sum(len(items) for items in accepted.values())
        rate = max(kept / tried, MIN_ACCEPTANCE) if tried else 0.5
        wave: list[C] = []
        for bin_, quota in report.quotas.items():
            missing = quota - len(accepted[bin_])
            if missing > 0:
                take = pools.get(bin_, [])[cursor[bin_] : cursor[bin_] + math.ceil(missing / rate)]
                cursor[bin_] += len(take)
                wave.extend(take)
        if not wave:
            break
        for cand in wave:
            report.tried[bin_of(cand)] += 1
        for cand, key in write_wave(wave):
            if key in seen:
                report.rejected["duplicate_question"] += 1
            elif len(accepted[bin_of(cand)]) < report.quotas[bin_of(cand)]:
                seen.add(key)
                accepted[bin_of(cand)].append(cand)
    report.accepted.update({bin_: len(items) for bin_, items in accepted.items()})
    return accepted


def rejection_summary(rejected: Counter) -> str:
    """``reason: count`` pairs, most frequent first (what a user needs when nothing was accepted)."""
    if not rejected:
        return "no candidate was rejected either: the source gave nothing to try"
    return "rejections: " + ", ".join(f"{reason} {count}" for reason, count in rejected.most_common())


def check_shortfall(report: QuotaReport, settings: PageQuestionSettings, label: Callable[[Bin], str],
                    unit: str) -> None:
    """Stop with one line naming each bin short of its quota, unless ``--allow-shortfall`` was given (the card
    then reports the counts)."""
    short = {bin_: report.accepted[bin_] for bin_, quota in report.quotas.items() if report.accepted[bin_] < quota}
    if report.quotas and not sum(report.accepted.values()):
        raise HallubenchError(f"no item was accepted ({rejection_summary(report.rejected)}); nothing was written")
    if short and not settings.allow_shortfall:
        detail = ", ".join(f"{label(bin_)}: {got}/{report.quotas[bin_]}" for bin_, got in short.items())
        raise HallubenchError(
            f"the source ran out of usable pages before every {unit} met its quota ({detail}); add pages, lower --n "
            "or pass --allow-shortfall"
        )
