"""Seeded randomness, one helper for the whole project: every random choice (which articles a generator picks, a
shuffle, a rewrite, the seed of a sampled model request, HaluEval's draw of the judged text) derives from the run's
seed and the name of the decision (its scope), so the same seed and the same cached model replies give the same
data set, byte for byte.

A scope is the run seed and any parts naming the decision (``seeded_rng(seed, "section", title)``), joined with
``:``: ``"0:section:Ada Lovelace"``. ``random.Random`` seeds itself from such a string with SHA-512 (seed version 2),
so a stream depends neither on ``PYTHONHASHSEED`` nor on the platform, nor on how many other decisions were drawn
before it: adding a decision leaves every other stream as it was. Streams of different scopes are independent."""

from __future__ import annotations

import hashlib
import random


def scope_key(seed: int | str, *parts: object) -> str:
    """The text naming one decision: the seed and the parts, joined with ``:``."""
    return ":".join(map(str, (seed, *parts)))


def seeded_rng(seed: int | str, *parts: object) -> random.Random:
    """The random stream of one decision, derived from (seed, parts). ``seed`` is the run's seed, or a fixed word for a
    draw that depends on content only (HaluEval's order of two candidate texts)."""
    return random.Random(scope_key(seed, *parts))


def derived_seed(seed: int | str, *parts: object) -> int:
    """A 32-bit integer for one decision (e.g. the sampling seed sent with a model request): the first four bytes of
    the SHA-256 of ``scope_key(seed, *parts)``, big-endian."""
    return int.from_bytes(hashlib.sha256(scope_key(seed, *parts).encode()).digest()[:4], "big")
