"""Every request the WildHallucinations generator sends (Zhao et al., 2024): the extractor's proper-noun listing and
the verifier's proper-noun and ambiguity questions (section 2.1), and the single-label category question over the
20 domains of Table 2 (section 2.2). All greedy."""

from __future__ import annotations

from hallubench.core.backends import ChatRequest
from hallubench_generators.wildhallucinations.categories import CATEGORIES
from hallubench_generators.wildhallucinations.conversations import UserTurn


def _user(prompt: str, max_tokens: int) -> ChatRequest:
    return ChatRequest.from_messages([{"role": "user", "content": prompt}], temperature=0.0, max_tokens=max_tokens)


def extract_request(turn: UserTurn) -> ChatRequest:
    prompt = (
        "List every proper noun in the user message below: names of specific people, places, organisations, "
        "products, software, works, events, species and other named things. Leave out common nouns, generic "
        "concepts and words that are only capitalised because they start a sentence. Copy each name as it is "
        "written in the message.\n"
        'Reply with a JSON array of strings only, for example ["Ada Lovelace", "Lake Baikal"], or [] if there '
        f"are none.\n\nUser message:\n\"\"\"\n{turn.text}\n\"\"\""
    )
    return _user(prompt, 256)


def verify_request(entity: str) -> ChatRequest:
    prompt = (
        f"Is \"{entity}\" a proper noun, the name of one specific person, place, organisation, product, work, "
        "event, species or other individual thing, rather than a common noun, a generic concept, a description "
        "or a placeholder? Answer Yes or No."
    )
    return _user(prompt, 8)


def ambiguity_request(entity: str) -> ChatRequest:
    prompt = (
        f"Taken on its own, without any context, can the name \"{entity}\" refer to several different well-known "
        "things (for example \"Mercury\": a planet, a chemical element and a god)? Answer Yes if it has several "
        "meanings, No if it clearly identifies one thing."
    )
    return _user(prompt, 8)


def category_request(entity: str) -> ChatRequest:
    """Ask for the one closest category (the paper: if several fit, the closest match)."""
    listing = "\n".join(f"- {name}" for name in CATEGORIES)
    prompt = (
        f"Which one of these domains does the entity \"{entity}\" belong to?\n{listing}\n\n"
        "If several domains fit, choose the closest one. Reply with the domain name exactly as written above "
        "and nothing else."
    )
    return ChatRequest.from_messages([{"role": "user", "content": prompt}], temperature=0.0, max_tokens=16)
