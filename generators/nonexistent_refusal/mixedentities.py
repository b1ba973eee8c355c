"""MixedEntities test-set generator (HalluLens 3.3): non-existent species made by swapping in a
sibling genus (keeping the epithet), and non-existent medicines made from word pools per
(name length, position) of real medicine names. Every candidate that exists in its source is rejected. No LLM."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any

import datasets

from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import seeded_rng
from hallubench_generators.common.publishing import CardInfo, generation_date
from hallubench_generators.nonexistent_refusal import prompts as request_templates
from hallubench_generators.nonexistent_refusal.medicines import MedicineNames, load_drug_ner, load_kaggle
from hallubench_generators.nonexistent_refusal.prompts import render_prompt
from hallubench_generators.nonexistent_refusal.taxonomy import (
    TAXON_DOMAINS,
    ItisTaxonomy,
    NcbiTaxonomy,
    Taxonomy,
)

HELP = "Generate a MixedEntities test set (HalluLens 3.3)"
CLIENT_OPTION = None  # no model calls
DOMAINS = (*TAXON_DOMAINS, "medicine")
TYPE_WORDS = {"animal": "animal", "plant": "plant", "bacteria": "bacterium", "medicine": "medicine"}
DRAWS_PER_NAME = 200  # attempts allowed per requested name before reporting a shortfall

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "name": datasets.Value("string"),
        "domain": datasets.Value("string"),
        "type": datasets.Value("string"),
        "prompt": datasets.Value("string"),
        "template_id": datasets.Value("int32"),
        "source_name": datasets.Value("string"),
    }
)


@dataclass
class Report:
    """Counts for the dataset card, per domain."""

    requested: int = 0
    accepted: Counter = field(default_factory=Counter)
    draws: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)  # keys: (domain, reason)


def mix_species(taxonomy: Taxonomy, domain: str, rng: random.Random) -> tuple[str, str] | str:
    """One attempt: (new name, real species it came from), or the reason the attempt failed."""
    species = rng.choice(taxonomy.species())
    if taxonomy.domain(species) != domain:
        return "other_domain"
    siblings = taxonomy.sibling_genera(species)
    if not siblings:
        return "no_sibling_genus"
    name = f"{rng.choice(siblings)} {species.split()[1]}"
    return "exists" if taxonomy.exists(name) else (name, species)


def mix_medicine(medicines: MedicineNames, rng: random.Random) -> tuple[str, str] | str:
    """One attempt: fill each word position of a random real name from the pool of that (length,
    position); reject real names, words of real names and brand stems (any case)."""
    shape = rng.choice(medicines.shapes)
    name = " ".join(rng.choice(medicines.pools[(len(shape), i)]) for i in range(len(shape)))
    if medicines.exists(name):
        return "exists"
    return "real_word_or_stem" if medicines.is_reserved(name) else (name, " ".join(shape))


def generate_domain(
    domain: str, n: int, attempt: Callable[[random.Random], tuple[str, str] | str], seed: int, report: Report
) -> list[dict]:
    """``n`` distinct new names for one domain, each with a seeded prompt template."""
    rng = seeded_rng(seed, "mixedentities", domain)
    seen: set[str] = set()
    rows: list[dict] = []
    while len(rows) < n and report.draws[domain] < DRAWS_PER_NAME * n:
        report.draws[domain] += 1
        result = attempt(rng)
        if isinstance(result, str):
            report.rejected[(domain, result)] += 1
            continue
        name, source_name = result
        if name.lower() in seen:
            report.rejected[(domain, "duplicate")] += 1
            continue
        seen.add(name.lower())
        template_id, prompt = render_prompt(rng, f"the {TYPE_WORDS[domain]} {name}")
        rows.append(
            {
                "id": f"mixedentities-{domain}-{len(rows):05d}",
                "name": name,
                "domain": domain,
                "type": TYPE_WORDS[domain],
                "prompt": prompt,
                "template_id": template_id,
                "source_name": source_name,
            }
        )
    report.accepted[domain] = len(rows)
    return rows


def generate(
    domains: list[str],
    n_per_domain: int,
    seed: int,
    taxonomy: Callable[[], Taxonomy],
    medicines: Callable[[], MedicineNames],
    allow_shortfall: bool = False,
) -> tuple[list[dict], Report]:
    """All domains in the given order; sources are loaded only when a domain needs them."""
    report = Report(requested=n_per_domain)
    rows: list[dict] = []
    for domain in domains:
        attempt = (
            partial(mix_medicine, medicines()) if domain == "medicine" else partial(mix_species, taxonomy(), domain)
        )
        rows.extend(generate_domain(domain, n_per_domain, attempt, seed, report))
    short = {d: report.accepted[d] for d in domains if report.accepted[d] < n_per_domain}
    if short and not allow_shortfall:
        raise HallubenchError(
            f"mixedentities: only {short} of {n_per_domain} names per domain after {DRAWS_PER_NAME} draws per name; "
            "use a larger source or --allow-shortfall"
        )
    return rows, report


def parse_domains(text: str) -> list[str]:
    domains = [d.strip() for d in text.split(",") if d.strip()]
    unknown = [d for d in domains if d not in DOMAINS]
    if unknown or not domains or len(set(domains)) != len(domains):
        raise HallubenchError(f"--domains: expected distinct values among {', '.join(DOMAINS)}, got {text!r}")
    return domains


def sent_prompts() -> dict[str, Any]:
    """No model calls: the prompt templates written into the set."""
    return {"templates": list(request_templates.TEMPLATES)}


def add_arguments(parser) -> None:
    parser.add_argument("--n-per-domain", type=int, required=True, help="names per domain (paper: 2000)")
    parser.add_argument("--domains", default=",".join(DOMAINS), help=f"comma-separated subset of {','.join(DOMAINS)}")
    parser.add_argument(
        "--itis-db",
        type=Path,
        help="ITIS SQLite database (the paper's source); default: offline NCBI Taxonomy (taxoniq)",
    )
    parser.add_argument(
        "--medicine-csv",
        type=Path,
        help="Kaggle 250k medicines CSV (the paper's source); default: drug-named-entity-recognition's dictionary",
    )
    parser.add_argument(
        "--allow-shortfall", action="store_true", help="write a smaller set (reported in the card) instead of failing"
    )


def run(args, client: None = None) -> tuple[list[dict], CardInfo]:
    if args.n_per_domain < 1:
        raise HallubenchError("--n-per-domain must be at least 1")
    domains = parse_domains(args.domains)
    taxonomy = cache(lambda: ItisTaxonomy(args.itis_db) if args.itis_db else NcbiTaxonomy())
    medicines = cache(lambda: load_kaggle(args.medicine_csv) if args.medicine_csv else load_drug_ner())
    rows, report = generate(domains, args.n_per_domain, args.seed, taxonomy, medicines, args.allow_shortfall)
    sources = ([taxonomy().source] if set(domains) & set(TAXON_DOMAINS) else []) + (
        [medicines().source] if "medicine" in domains else []
    )
    return rows, card_for(domains, args.seed, report, sources)


def card_for(domains: list[str], seed: int, report: Report, sources: list[str]) -> CardInfo:
    counts = "\n".join(
        f"| {d} | {report.accepted[d]} | {report.draws[d]} | "
        + ", ".join(f"{reason}: {k}" for (dom, reason), k in sorted(report.rejected.items()) if dom == d)
        + " |"
        for d in domains
    )
    return CardInfo(
        pretty_name="HalluLens MixedEntities (hallubench)",
        license="cc0-1.0",
        task_categories=["question-answering"],
        summary=(
            "Requests about non-existent animals, plants, bacteria and medicines (HalluLens, Bang et al. 2025, "
            "section 3.3). A model should say it does not know the entity; believing in it is a false acceptance."
        ),
        sections={
            "Provenance": (
                f"Generated {generation_date()} by `hallubench generate mixedentities` with seed {seed}.\n\n"
                "Sources: " + "; ".join(sources) + ".\n\n"
                "Species: a random two-word species of the domain's kingdom; its genus is replaced by a sibling genus "
                "(same parent taxon, with children, no hybrids) and the epithet kept. Medicines: a random real name's "
                "word count (<= 3) is filled position by position from words seen at that position in real names "
                "of that length. A candidate that exists in the source (any case), is a word of a real name or a "
                "brand stem (a real name's first words), or repeats an earlier one is rejected."
            ),
            "Counts": f"Requested per domain: {report.requested}.\n\n| domain | kept | draws | rejected "
                f"|\n|---|---|---|---|\n{counts}",
            "Columns": "id, name, domain, type, prompt, template_id (0-9), source_name (the real name it was "
                "built from).",
        },
    )
