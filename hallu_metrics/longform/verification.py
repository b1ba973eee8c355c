"""Claim verification against retrieved evidence (HalluLens 3.2.2 "Claim Verification", VeriScore style): a
claim is Supported when everything it states is supported by the passages and nothing in them contradicts it,
otherwise Unsupported (the paper counts claims the passages cannot verify as hallucinations).
``{"is_supported": true|false}``. Prompt wording and worked examples are this project's own.

The rule judge's answer (``rule``) is an OFFLINE STAND-IN (:func:`supported_by_overlap`), measured against
hand labels in docs/benchmarks.md.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.parsing import parse_json_bool
from hallu_metrics.judges.prompts import DATA_NOTICE, data_block
from hallu_metrics.longform.overlap import overlap_verdict, supported_by_overlap

_SYSTEM = (
    "You check one claim against evidence passages (from Wikipedia or from web pages about the topic).\n"
    "The claim is SUPPORTED when the passages state or directly imply everything in it (names, numbers, dates, "
    "places, relations) and nothing in them contradicts it. It is NOT supported when any part of it is "
    "contradicted by the passages, or is simply not found in them: use only the passages, not what you know "
    "yourself. Differences of wording, rounding or spelling do not matter.\n"
    'Reply with JSON only: {"is_supported": true} or {"is_supported": false}.\n'
    f"{DATA_NOTICE}"
)

# Worked examples written for this project: (evidence passages as (title, text), claim, supported).
_EXAMPLES: list[tuple[list[tuple[str, str]], str, bool]] = [
    (
        [("Lake Baikal", "Lake Baikal is a rift lake in Siberia, Russia. With a maximum depth of 1,642 m it is the "
          "deepest lake in the world, and it holds about 23% of the world's fresh surface water.")],
        "Lake Baikal, in Russia, is the world's deepest lake.",
        True,
    ),
    (
        [("Lake Baikal", "Lake Baikal is a rift lake in Siberia, Russia. With a maximum depth of 1,642 m it is the "
          "deepest lake in the world, and it holds about 23% of the world's fresh surface water.")],
        "Lake Baikal holds about half of the world's fresh surface water.",
        False,
    ),
    (
        [("Grace Hopper", "Grace Hopper was an American computer scientist and United States Navy rear admiral. "
          "She was a pioneer of computer programming and led the team that developed the FLOW-MATIC language.")],
        "Grace Hopper was born in New York City.",
        False,
    ),
]


def _evidence(passages: Sequence[dict]) -> str:
    if not passages:
        return "(no passages were found)"
    return "\n".join(
        data_block(f"passage {i}", f"Title: {p['title']}\n{p['text']}") for i, p in enumerate(passages, start=1)
    )


_SHOTS = "\n\n".join(  # rendered once: every verification call sends the same worked examples
    f"{_evidence([{'title': t, 'text': x} for t, x in passages])}\n{data_block('claim', claim)}\n"
    f"Judgement: {json.dumps({'is_supported': label})}"
    for passages, claim, label in _EXAMPLES
)


def _messages(item: dict) -> list[dict[str, str]]:
    prompt = (
        f"Examples:\n\n{_SHOTS}\n\nNow judge this claim.\n{_evidence(item['passages'])}\n"
        f"{data_block('claim', item['claim'])}\nJudgement:"
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}]


VERIFICATION = Check(
    name="verification",
    fields=("claim", "passages"),
    messages=_messages,
    parse=lambda text: parse_json_bool(text, "is_supported"),
    reminder='Answer with exactly {"is_supported": true} or {"is_supported": false}.',
    structured=structured.boolean("is_supported"),
    rule=lambda item: supported_by_overlap(item["claim"], [p["text"] for p in item["passages"]]),
    why=lambda item: overlap_verdict(item["claim"], [p["text"] for p in item["passages"]])[1],
    max_tokens=32,
)
