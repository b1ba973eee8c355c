"""GeneratedEntities test-set generator (HalluLens 3.3): plausible but non-existent businesses
(type x city), events (type x country) and product brands, invented by a round robin over
several generator models, then filtered through an existence checker.

Requests cycle through seeded (type, place) combinations, alternating over the three place tiers;
``--pools paper`` (default) is the paper's configuration (6 business, 6 event and 25 product types;
90 cities and 90 countries, 20 sampled per tier), ``--pools large`` the larger GeoNames pools.
For each request, with models M0..Mk-1 and combiner Mi (i = request index mod k),
the next two models in rotation brainstorm comma-separated lists of invented names and the
combiner mixes them into a new list; only the combiner's names are kept. Every name the checker
finds to exist, and every repeat, is dropped and counted in the card. The requests and their
demonstrations are in ``prompts``, the reader of the replies' name lists in ``names``."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets

from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import derived_seed, seeded_rng
from hallubench_generators.common.protocol import sent
from hallubench_generators.common.publishing import CardInfo, generation_date
from hallubench_generators.common.quota_fill import rejection_summary
from hallubench_generators.nonexistent_refusal import places
from hallubench_generators.nonexistent_refusal import prompts as request_templates
from hallubench_generators.nonexistent_refusal.checkers import (
    BRAVE_URL,
    BraveChecker,
    ExistenceChecker,
    OfflineChecker,
    fold,
)
from hallubench_generators.nonexistent_refusal.names import parse_names
from hallubench_generators.nonexistent_refusal.prompts import (
    DEMONSTRATIONS,
    NAMES_PER_LIST,
    Request,
    brainstorm_request,
    combine_request,
    render_prompt,
)

HELP = "Generate a GeneratedEntities test set (HalluLens 3.3)"
CLIENT_OPTION = "generators"
MIN_GENERATORS = 3
MAX_IDLE_WAVES = 3  # waves in a row without a new name before reporting a shortfall

# The paper (3.3.2) uses 6 business and 6 event types and names some; the authors' code lists 5 of each
# (the first five here) and the 25 product types. The sixth business and event types are ours.
PAPER_TYPES = {
    "business": ("restaurant", "bar", "bookstore", "cafe", "museum", "hotel"),
    "event": ("war", "natural disaster", "scientific discovery", "sport event", "pandemic", "economic crisis"),
    "product": (
        "headphone",
        "watch",
        "camera",
        "shoe",
        "game",
        "glasses",
        "speaker",
        "keyboard",
        "chair",
        "table",
        "printer",
        "pen",
        "guitar",
        "piano",
        "bike",
        "drone",
        "coffee maker",
        "projector",
        "bag",
        "air conditioner",
        "bread",
        "microwave",
        "vacuum cleaner",
        "sewing machine",
        "router",
    ),
}
LARGE_TYPES = {
    **PAPER_TYPES,
    "business": (*PAPER_TYPES["business"], "bakery", "art gallery", "theater", "brewery"),
    "event": (*PAPER_TYPES["event"], "music festival", "political scandal", "revolution", "peace treaty"),
}
TYPES = {"paper": PAPER_TYPES, "large": LARGE_TYPES}

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "name": datasets.Value("string"),
        "type": datasets.Value("string"),
        "domain": datasets.Value("string"),
        "place": datasets.Value("string"),
        "place_tier": datasets.Value("string"),
        "prompt": datasets.Value("string"),
        "template_id": datasets.Value("int32"),
        "combiner": datasets.Value("string"),
        "brainstormers": datasets.Sequence(datasets.Value("string")),
    }
)


@dataclass
class Report:
    """Counts for the dataset card."""

    requested: dict[str, int] = field(default_factory=dict)
    accepted: Counter = field(default_factory=Counter)
    requests: Counter = field(default_factory=Counter)
    proposed: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # keys: (domain, reason)
    pools: str = "paper"
    place_tiers: dict[str, dict[str, list[places.Place]]] = field(default_factory=dict)  # domain -> tier -> places used


def sent_prompts() -> dict[str, Any]:
    """Per domain, both brainstorm requests and the combine request for a placeholder type and place; the types
    asked about; the prompt templates written into the set."""
    def requests(domain: str) -> dict[str, Any]:
        place = None if domain == "product" else places.Place("{place}", "{tier}", country=domain == "event")
        request = Request(domain, "{type}", place, combiner=0, brainstormers=(1, 2), seed=0)
        return {"brainstorm": [sent(brainstorm_request(request, role)) for role in (0, 1)],
                "combine": sent(combine_request(request, ["{Brainstormed One}", "{Brainstormed Two}"]))}

    return {"requests": {domain: requests(domain) for domain in DEMONSTRATIONS}, "types": TYPES,
            "templates": list(request_templates.TEMPLATES)}


def _by_client(clients: Sequence[ModelClient]) -> list[tuple[ModelClient, set[int]]]:
    """Distinct client objects with the round-robin positions they fill (one spec given several
    times is one client, so its calls go out in one batch)."""
    groups: dict[int, tuple[ModelClient, set[int]]] = {}
    for position, client in enumerate(clients):
        groups.setdefault(id(client), (client, set()))[1].add(position)
    return list(groups.values())


def run_round_robin(requests: Sequence[Request], clients: Sequence[ModelClient]) -> list[list[str]]:
    """Brainstorm then combine for every request, one batch per client and step; the combiners'
    names per request."""
    lists: dict[tuple[int, int], str] = {}
    for client, positions in _by_client(clients):
        jobs = [(i, role) for i, r in enumerate(requests) for role, b in enumerate(r.brainstormers) if b in positions]
        replies = client.complete_or_raise(
            [brainstorm_request(requests[i], role) for i, role in jobs], desc=f"brainstorm ({client.public_spec})"
        )
        lists.update(zip(jobs, replies))
    combined: dict[int, str] = {}
    for client, positions in _by_client(clients):
        jobs = [i for i, r in enumerate(requests) if r.combiner in positions]
        chats = [combine_request(requests[i], [lists[(i, role)] for role in (0, 1)]) for i in jobs]
        combined.update(zip(jobs, client.complete_or_raise(chats, desc=f"combine ({client.public_spec})")))
    return [parse_names(combined[i]) for i in range(len(requests))]


Combination = tuple[str, places.Place | None]  # (type, place) of one request


def combinations(
    domain: str, types: Sequence[str], tiers: dict[str, list[places.Place]] | None, seed: int
) -> list[Combination]:
    """The paper's seed combinations (type x place) in a seeded order that alternates over the tiers
    (high, mid, low, high, ...); product types alone for products."""

    def shuffled(items: list[Combination], part: str) -> list[Combination]:
        seeded_rng(seed, "generatedentities", "combinations", domain, part).shuffle(items)
        return items

    if not tiers:
        return shuffled([(t, None) for t in types], "types")
    streams = [shuffled([(t, p) for t in types for p in tiers[tier]], tier) for tier in places.TIERS]
    return [s[j] for j in range(max(map(len, streams))) for s in streams if j < len(s)]


def plan_requests(
    domain: str, count: int, start: int, n_models: int, seed: int, combos: Sequence[Combination]
) -> list[Request]:
    """``count`` requests numbered from ``start``: request i takes combination i (cycling) and model
    i mod k as its combiner."""
    requests = []
    for i in range(start, start + count):
        type_, place = combos[i % len(combos)]
        combiner = i % n_models
        brainstormers = ((combiner + 1) % n_models, (combiner + 2) % n_models)
        request_seed = derived_seed(seed, "generatedentities", domain, i)
        requests.append(Request(domain, type_, place, combiner, brainstormers, request_seed))
    return requests


def interleave(requests: Sequence[Request], names: Sequence[list[str]]) -> list[tuple[Request, str]]:
    """(request, name) pairs, first names of every request first, so every combiner gets kept."""
    longest = max((len(n) for n in names), default=0)
    return [(r, n[j]) for j in range(longest) for r, n in zip(requests, names) if j < len(n)]


def wave_size(missing: int, n_models: int) -> int:
    """Requests for one wave: enough lists for the missing names, a multiple of the model count
    so that every model combines equally often."""
    lists = -(-missing // NAMES_PER_LIST)
    return n_models * -(-lists // n_models)


@dataclass
class Run:
    """One generation: waves of requests over all unfinished domains at once (one brainstorm and one
    combine batch per client and wave), until every domain has its names or stalls."""

    counts: dict[str, int]
    clients: Sequence[ModelClient]
    checker: ExistenceChecker
    seed: int
    report: Report
    rows: dict[str, list[dict]] = field(default_factory=dict)
    idle: Counter = field(default_factory=Counter)  # waves in a row without a new name, per domain
    seen: set[str] = field(default_factory=set)

    def unfinished(self) -> list[str]:
        return [d for d, n in self.counts.items() if len(self.rows[d]) < n and self.idle[d] < MAX_IDLE_WAVES]

    def wave(self, combos: dict[str, list[Combination]]) -> None:
        domains = self.unfinished()
        requests: list[Request] = []
        for domain in domains:
            missing = self.counts[domain] - len(self.rows[domain])
            size, start = wave_size(missing, len(self.clients)), self.report.requests[domain]
            planned = plan_requests(domain, size, start, len(self.clients), self.seed, combos[domain])
            self.report.requests[domain] += len(planned)
            requests.extend(planned)
        names = run_round_robin(requests, self.clients)
        for domain in domains:
            before = len(self.rows[domain])
            mine = [i for i, r in enumerate(requests) if r.domain == domain]
            self.keep(domain, interleave([requests[i] for i in mine], [names[i] for i in mine]))
            self.idle[domain] = 0 if len(self.rows[domain]) > before else self.idle[domain] + 1

    def keep(self, domain: str, candidates: list[tuple[Request, str]]) -> None:
        """Add the new, unknown names up to the quota; count every dropped one by reason."""
        rows = self.rows[domain]
        self.report.proposed[domain] += len(candidates)
        exists = self.checker.existing([(name, r.type) for r, name in candidates])
        for (request, name), found in zip(candidates, exists):
            reason = (
                "exists"
                if found
                else "copies_example"
                if DEMONSTRATIONS[domain].copied_by(name)
                else "duplicate"
                if fold(name) in self.seen
                else "quota_full"
                if len(rows) >= self.counts[domain]
                else None
            )
            if reason:
                self.report.dropped[(domain, reason)] += 1
                continue
            self.seen.add(fold(name))
            rows.append(make_row(domain, len(rows), request, name, self.clients, self.seed))


def make_row(domain: str, index: int, request: Request, name: str, clients: Sequence[ModelClient], seed: int) -> dict:
    template_id, prompt = render_prompt(
        seeded_rng(seed, "generatedentities", "prompt", domain, index), request.entity(name)
    )
    return {
        "id": f"generatedentities-{domain}-{index:05d}",
        "name": name,
        "type": request.type,
        "domain": domain,
        "place": request.place.name if request.place else "",
        "place_tier": request.place.tier if request.place else "",
        "prompt": prompt,
        "template_id": template_id,
        "combiner": clients[request.combiner].public_spec,
        "brainstormers": [clients[b].public_spec for b in request.brainstormers],
    }


def same_model_note(generators: Sequence[str]) -> str | None:
    """A caveat when fewer distinct models than the paper's three play the round robin."""
    distinct = len(set(generators))
    if distinct >= MIN_GENERATORS:
        return None
    return f"only {distinct} distinct generator model(s); the paper mixes names from {MIN_GENERATORS} different models"


def generate(
    counts: dict[str, int],
    clients: Sequence[ModelClient],
    checker: ExistenceChecker,
    seed: int,
    allow_shortfall: bool = False,
    pools: str = "paper",
) -> tuple[list[dict], Report]:
    """Names per domain with the types and places of ``pools`` (``paper`` or ``large``)."""
    if pools not in TYPES:
        raise HallubenchError(f"pools must be one of {', '.join(TYPES)}, not {pools!r}")
    if len(clients) < MIN_GENERATORS:
        raise HallubenchError(f"generatedentities needs at least {MIN_GENERATORS} --generators (got {len(clients)})")
    note = same_model_note([c.public_spec for c in clients])
    if note:
        print(f"[hallubench] warning: {note}", file=sys.stderr)
    counts = {d: n for d, n in counts.items() if n > 0}
    report = Report(requested=dict(counts), pools=pools)
    report.place_tiers = {d: places.for_domain(d, pools, seed) for d in counts if d != "product"}
    combos = {d: combinations(d, TYPES[pools][d], report.place_tiers.get(d), seed) for d in counts}
    run = Run(counts, clients, checker, seed, report, rows={d: [] for d in counts})
    while run.unfinished():
        run.wave(combos)
    report.accepted.update({d: len(rows) for d, rows in run.rows.items()})
    short = {d: report.accepted[d] for d, n in counts.items() if report.accepted[d] < n}
    if counts and not sum(report.accepted.values()):
        dropped = Counter({reason: n for (_, reason), n in report.dropped.items()})
        raise HallubenchError(f"generatedentities: no name was accepted ({rejection_summary(dropped)}); nothing was "
                              "written")
    if short and not allow_shortfall:
        raise HallubenchError(
            f"generatedentities: only {short} of {counts} names were kept; see the drop counts, or use "
            "--allow-shortfall"
        )
    return [row for rows in run.rows.values() for row in rows], report


def add_arguments(parser) -> None:
    parser.add_argument("--n-business", type=int, default=0, help="business names (paper: 300 per set)")
    parser.add_argument("--n-event", type=int, default=0, help="event names (paper: 300 per set)")
    parser.add_argument("--n-product", type=int, default=0, help="product brand names (paper: 50 per set)")
    parser.add_argument(
        "--generators",
        nargs="+",
        required=True,
        metavar="SPEC",
        help=f">= {MIN_GENERATORS} backend specs for the round robin",
    )
    parser.add_argument(
        "--checker",
        choices=("offline", "brave"),
        default="offline",
        help="existence check: known-name lists, or Brave web search ($BRAVE_API_KEY)",
    )
    parser.add_argument(
        "--known-names",
        type=Path,
        nargs="*",
        default=[],
        help="extra known-name files (one per line) for the offline checker",
    )
    parser.add_argument("--brave-url", default=BRAVE_URL, help="Brave Search API endpoint")
    parser.add_argument(
        "--allow-shortfall", action="store_true", help="write a smaller set (reported in the card) instead of failing"
    )
    parser.add_argument(
        "--pools",
        choices=tuple(TYPES),
        default="paper",
        help="types and places: paper (default: 6 business, 6 event, 25 product types; the paper's 90 cities and 90 "
        f"countries in 3 tiers, {places.PAPER_SAMPLE_PER_TIER} sampled per tier) or large (10 + 10 + 25 types; "
        "all GeoNames cities >= 100k inhabitants and all countries, in frequency thirds)",
    )


def make_checker(args) -> ExistenceChecker:
    return BraveChecker(args.brave_url) if args.checker == "brave" else OfflineChecker(args.known_names)


def run(args, clients: list[ModelClient]) -> tuple[list[dict], CardInfo]:
    counts = {"business": args.n_business, "event": args.n_event, "product": args.n_product}
    if min(counts.values()) < 0 or not any(counts.values()):
        raise HallubenchError("give at least one positive --n-business / --n-event / --n-product")
    checker = make_checker(args)
    rows, report = generate(counts, clients, checker, args.seed, args.allow_shortfall, args.pools)
    return rows, card_for(args.seed, report, [c.public_spec for c in clients], checker.source)


def configuration(report: Report) -> str:
    """The card's account of the types and places used."""
    types = TYPES[report.pools]
    text = (
        f"Configuration: `--pools {report.pools}`"
        + (" (the paper's)" if report.pools == "paper" else " (larger than the paper's)")
        + ". Types: "
        + "; ".join(f"{d} ({len(types[d])}): {', '.join(types[d])}" for d in report.requested)
        + f".\n\nPlaces: {places.SOURCES[report.pools]}. Businesses use cities, events use countries, "
        "products have none."
    )
    if report.pools == "paper":
        text += "".join(
            f"\n- {d}, {tier}: {', '.join(p.name for p in chosen)}"
            for d, tiers in report.place_tiers.items()
            for tier, chosen in tiers.items()
        )
    return text


def card_for(seed: int, report: Report, generators: list[str], checker: str) -> CardInfo:
    note = same_model_note(generators)
    same_model = f" Note: {note}." if note else ""
    lines = "\n".join(
        f"| {d} | {n} | {report.accepted[d]} | {report.requests[d]} | {report.proposed[d]} | "
        + ", ".join(f"{reason}: {k}" for (dom, reason), k in sorted(report.dropped.items()) if dom == d)
        + " |"
        for d, n in report.requested.items()
    )
    return CardInfo(
        pretty_name="HalluLens GeneratedEntities (hallubench)",
        license="cc-by-4.0",
        task_categories=["question-answering"],
        summary=(
            "Requests about invented businesses, events and product brands (HalluLens, Bang et al. 2025, section 3.3). "
            "A model should say it does not know the entity; believing in it is a false acceptance."
        ),
        sections={
            "Provenance": (
                f"Generated {generation_date()} by `hallubench generate generatedentities` with seed {seed}.\n\n"
                f"Generators (round robin): {', '.join(generators)}. Each request's combiner mixes two other models' "
                f"brainstormed lists; only the combiner's names are kept.{same_model}\n\nExistence check: "
                f"{checker}.\n\n"
                + configuration(report)
            ),
            "Counts": (
                "| domain | requested | kept | requests | names proposed | dropped |\n|---|---|---|---|---|---|\n"
                + lines
            ),
            "Columns": "id, name, type, domain, place, place_tier (high/mid/low; empty for products), prompt, "
                "template_id, combiner, brainstormers.",
        },
    )
