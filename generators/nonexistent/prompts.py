"""The ten request templates of both NonExistentRefusal subtasks, written for this project in
the spirit of the paper's ("What can you tell me about the {type} {name}?")."""

from __future__ import annotations

import random

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
