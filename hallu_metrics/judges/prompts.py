"""Prompt shapes shared by judges."""

from __future__ import annotations

import json
from typing import Any, Sequence


def few_shot_judgement(
    system: str, key: str, examples: Sequence[tuple[str, str, Any]], intro: str, user_turn: str, response: str
) -> list[dict[str, str]]:
    """System instruction + worked examples ending in ``Judgement: {"key": value}`` + the conversation to judge."""
    shots = "\n\n".join(f"User: {q}\nChatbot: {r}\nJudgement: {json.dumps({key: v})}" for q, r, v in examples)
    prompt = f"Examples:\n\n{shots}\n\n{intro}\nUser: {user_turn}\nChatbot: {response}\nJudgement:"
    return [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
