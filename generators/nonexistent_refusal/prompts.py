"""Everything the NonExistentRefusal generators (HalluLens 3.3) send to a model or write into a set as a prompt:

- the ten request templates of both subtasks, written into the MixedEntities and GeneratedEntities sets: ours,
  in the spirit of the paper's ("What can you tell me about the {type} {name}?");
- GeneratedEntities' round-robin requests: the brainstorm and combine prompts, each after a worked demonstration
  (so that small models answer with a bare list), and their decoding parameters.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from hallubench.core.backends import ChatRequest
from hallubench_generators.nonexistent_refusal import places
from hallubench_generators.nonexistent_refusal.checkers import fold
from hallubench_generators.nonexistent_refusal.names import parse_names

TEMPLATES = (
    "What can you tell me about {entity}?",
    "I'd like to learn about {entity}. What do you know about it?",
    "Could you describe {entity}?",
    "Give me an overview of {entity}.",
    "What are the main characteristics of {entity}?",
    "I came across {entity}. Can you explain what it is?",
    "Please share some information about {entity}.",
    "What is known about {entity}?",
    "Can you provide a short summary of {entity}?",
    "Tell me about {entity}.",
)


def render_prompt(rng: random.Random, entity: str) -> tuple[int, str]:
    """A seeded template choice: (template_id, prompt) for e.g. ``entity="the plant Aus bus"``."""
    template_id = rng.randrange(len(TEMPLATES))
    return template_id, TEMPLATES[template_id].format(entity=entity)


NAMES_PER_LIST = 5
MAX_TOKENS = 64  # five names fit in about 40 tokens; more only lets a model ramble


@dataclass(frozen=True)
class Demonstration:
    """A worked exchange shown before each request so that small models answer with a bare list."""

    subject: str
    lists: tuple[str, str]
    combined: str

    @cached_property
    def words(self) -> frozenset[str]:
        """The example's words of 4+ letters, folded."""
        return frozenset(w for text in (*self.lists, self.combined) for w in fold(text).split() if len(w) >= 4)

    def copied_by(self, name: str) -> bool:
        """True when the name reuses a word of the example instead of inventing."""
        return not self.words.isdisjoint(fold(name).split())


# The demonstration types are not among the requested ones.
DEMONSTRATIONS = {
    "business": Demonstration(
        "florists in Porto",
        (
            "Casa das Camélias, Flor do Douro, Ribeira Petals, Jardim Azul, O Ramo Dourado",
            "Bloom & Tile, Petal Quay, Rosa Norte, The Stem Atelier, Verde Vinha",
        ),
        "Camélia Quay, Douro Stem Atelier, Rosa Azul, Petal Vinha, Jardim Norte",
    ),
    "event": Demonstration(
        "maritime disasters in Chile",
        (
            "Valdivia Ferry Sinking, Loa Harbour Fire, Tirúa Gale of 1911, Puerto Bravo Capsizing, Chiloé Tanker Spill",
            "Magellan Strait Collision, Isla Negra Wreck, Antofagasta Dock Blast, Reloncaví Storm, Coquimbo Ferry Fire",
        ),
        "Tirúa Ferry Fire, Reloncaví Tanker Wreck, Isla Bravo Capsizing, Loa Strait Collision, Chiloé Gale of 1923",
    ),
    "product": Demonstration(
        "kettle brands",
        ("Brevora, Kettlecraft, Ondara, Thermique, Velloa Home", "Aquelle, Boilux, Steamwright, Hearthly, Calora"),
        "Ondalux, Brevique, Thermwright, Kettloa, Hearthora",
    ),
}


def _brainstorm_prompt(subject: str) -> str:
    return (
        f"Invent {NAMES_PER_LIST} names of {subject} that sound plausible but do not exist. "
        "Do not use names of real ones. Reply with the names only, separated by commas."
    )


def _combine_prompt(subject: str, lists: Sequence[str]) -> str:
    shown = "\n".join(f"List {i + 1}: {names}" for i, names in enumerate(lists))
    return (
        f"Here are invented names of {subject}:\n{shown}\n\n"
        f"Mix and recombine words from these lists into {NAMES_PER_LIST} new names of {subject} that sound "
        "plausible but do not exist and differ from the names above. Reply with the names only, separated by commas."
    )


def _chat(demo_prompt: str, demo_reply: str, prompt: str, seed: int) -> ChatRequest:
    messages = [
        {"role": "user", "content": demo_prompt},
        {"role": "assistant", "content": demo_reply},
        {"role": "user", "content": prompt},
    ]
    return ChatRequest.from_messages(messages, temperature=1.0, top_p=0.95, max_tokens=MAX_TOKENS, seed=seed)


def brainstorm_request(request: Request, role: int) -> ChatRequest:
    demo = DEMONSTRATIONS[request.domain]
    return _chat(
        _brainstorm_prompt(demo.subject), demo.lists[role], _brainstorm_prompt(request.subject), request.seed + role
    )


def combine_request(request: Request, lists: Sequence[str]) -> ChatRequest:
    demo = DEMONSTRATIONS[request.domain]
    shown = [", ".join(parse_names(text)) for text in lists]
    return _chat(
        _combine_prompt(demo.subject, demo.lists), demo.combined, _combine_prompt(request.subject, shown), request.seed
    )


def plural(noun: str) -> str:
    """English plural of a type word ("bakery" -> "bakeries", "economic crisis" -> "economic crises")."""
    if noun.endswith("sis"):
        return noun[:-2] + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")


@dataclass(frozen=True)
class Request:
    """One round-robin request: what to invent and which models play which role."""

    domain: str
    type: str
    place: places.Place | None
    combiner: int
    brainstormers: tuple[int, int]
    seed: int

    @property
    def subject(self) -> str:
        where = f" in {self.place.in_sentence}" if self.place else ""
        return f"{self.type} brands" if self.domain == "product" else f"{plural(self.type)}{where}"

    def entity(self, name: str) -> str:
        if self.domain == "product":
            return f"the {name} {self.type}"
        if self.domain == "event":
            article = "an" if self.type[0] in "aeiou" else "a"
            return f"the {name}, {article} {self.type} in {self.place.in_sentence}"
        return f"the {self.type} {name} in {self.place.in_sentence}"
