"""Difficulty bins from WikiRank harmonic centrality (two parallel line files: titles and scores).

Edges are the deciles of the scores of the pages actually matched in the source (not hard-coded),
bin 0 = least central = hardest. Pages without a score are left out of the bins and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import seeded_rng
from hallubench_generators.common.articles import Article

T = TypeVar("T")


def _local(path_or_url: str) -> Path:
    if path_or_url.startswith(("http://", "https://")):
        from datasets.utils.file_utils import cached_path

        try:
            return Path(cached_path(path_or_url))
        except Exception as exc:
            raise HallubenchError(f"cannot download {path_or_url}: {exc}") from exc
    path = Path(path_or_url).expanduser()
    if not path.is_file():
        raise HallubenchError(f"centrality file not found: {path}")
    return path


def normalize_title(title: str) -> str:
    return title.replace("_", " ").strip()


def load_centrality(titles: str, scores: str) -> dict[str, float]:
    """Title -> harmonic centrality from WikiRank's parallel ``.titles`` / ``-h.txt`` files."""
    with _local(titles).open(encoding="utf-8") as t, _local(scores).open(encoding="utf-8") as s:
        title_lines, score_lines = t.read().splitlines(), s.read().splitlines()
    if len(title_lines) != len(score_lines):
        raise HallubenchError(
            f"centrality files differ in length ({len(title_lines)} titles vs {len(score_lines)} scores)"
        )
    table: dict[str, float] = {}
    for number, (title, score) in enumerate(zip(title_lines, score_lines), start=1):
        try:
            table[normalize_title(title)] = float(score)
        except ValueError as exc:
            raise HallubenchError(f"{scores}: line {number} is not a number: {score!r}") from exc
    return table


@dataclass(frozen=True)
class Binning:
    """Bin per title (absent = unmatched), the decile edges and the score per title."""

    bins: dict[str, int]
    scores: dict[str, float]
    edges: list[float]
    unmatched: list[str]


def bin_by_centrality(titles: list[str], centrality: dict[str, float], n_bins: int = 10) -> Binning:
    matched = {t: centrality[normalize_title(t)] for t in titles if normalize_title(t) in centrality}
    unmatched = [t for t in titles if t not in matched]
    if len(matched) < n_bins:
        raise HallubenchError(f"only {len(matched)} source pages have a centrality score; need at least {n_bins}")
    values = np.array(list(matched.values()))
    edges = np.quantile(values, np.arange(1, n_bins) / n_bins).tolist()
    bins = {t: int(np.searchsorted(edges, score, side="right")) for t, score in matched.items()}
    return Binning(bins, matched, edges, unmatched)


def binned_pools(
    articles: Iterable[Article],
    binning: Binning | None,
    seed: int,
    make: Callable[[Article, int | None, float | None], T],
    keep: Callable[[int], bool] = lambda bin_: True,
) -> dict[int | None, list[T]]:
    """Candidates per difficulty bin (bin None when the set is not binned), in a seeded order that does not
    depend on the source's order: pages sorted by (title, pageid), then shuffled per bin. Pages outside the
    binning, or in bins ``keep`` rejects, are left out."""
    pools: dict[int | None, list[T]] = {}
    for article in sorted(articles, key=lambda a: (a.title, a.pageid or 0)):
        if binning is None:
            pools.setdefault(None, []).append(make(article, None, None))
        elif article.title in binning.bins and keep(binning.bins[article.title]):
            bin_ = binning.bins[article.title]
            pools.setdefault(bin_, []).append(make(article, bin_, binning.scores[article.title]))
    for bin_, pool in pools.items():
        seeded_rng(seed, "pool", bin_).shuffle(pool)
    return pools


def split_quota(n: int, bins: list[int | None]) -> dict[int | None, int]:
    """``n`` items spread over ``bins`` as evenly as possible, the first bins taking the remainder."""
    base, extra = divmod(n, len(bins))
    return {bin_: base + (1 if i < extra else 0) for i, bin_ in enumerate(bins)}
