"""ANAH-v2's checks: the three turns of the annotator's conversation read by the project's readers (``FACTS``,
``REFERENCE``, ``HALLUCINATION``), and the same turns read verbatim for the official eval.py replay (``*_REPLY``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hallu_metrics.benchmarks.anah.prompts import (
    NO_REFERENCE,
    facts_messages,
    hallucination_messages,
    reference_messages,
)
from hallu_metrics.benchmarks.anah.readers import (
    parse_facts,
    parse_hallucination,
    parse_reference,
    reference_passages,
    verbatim,
)
from hallu_metrics.benchmarks.anah.rules import (
    facts_reason,
    hallucination_reason,
    reference_reason,
    rule_facts,
    rule_hallucination,
    rule_reference,
)
from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check

HALLUCINATION_TAGS = ("<No Hallucination>", "<Contradictory>", "<Unverifiable>")  # turn 3 answers
ITEM = ("question", "document", "language", "sentence")  # each turn adds the earlier replies
FACTS = Check(name="anah_facts", fields=ITEM, messages=facts_messages, parse=parse_facts,
              reminder="Reply with exactly <Facts Present> or <No Facts>.", rule=rule_facts, why=facts_reason,
              max_tokens=16,
              structured=structured.label("answer", ("<Facts Present>", "<No Facts>"), as_text=str))
REFERENCE = Check(name="anah_reference", fields=(*ITEM, "facts_reply"), messages=reference_messages,
                  parse=parse_reference,
                  reminder=f"List the relevant reference information separated by <SEP>, or reply {NO_REFERENCE}.",
                  rule=rule_reference, why=reference_reason, max_tokens=512,
                  structured=structured.text_field("reference", NO_REFERENCE),
                  listed=reference_passages)
HALLUCINATION = Check(name="anah_hallucination", fields=(*ITEM, "facts_reply", "reference_reply", "reference"),
                      messages=hallucination_messages,
                      parse=parse_hallucination, reminder="Reply with exactly one of <No Hallucination>, "
                      "<Contradictory> or <Unverifiable>.", rule=rule_hallucination, why=hallucination_reason,
                      max_tokens=16,
                      structured=structured.label("answer", HALLUCINATION_TAGS, as_text=str))


def _tag(rule: Any, tags: Mapping[Any, str]) -> Any:
    return lambda item: tags[rule(item)]


# The same three turns (same names, prompts, schemas and token limits, so the same cached requests) read verbatim:
# the judge's first reply of each turn, never re-asked, for the official replay.
FACTS_REPLY = replace(FACTS, parse=verbatim, rule=_tag(rule_facts, {True: "<Facts Present>", False: "<No Facts>"}))
REFERENCE_REPLY = replace(REFERENCE, parse=verbatim)
HALLUCINATION_REPLY = replace(HALLUCINATION, parse=verbatim, rule=_tag(rule_hallucination, {
    "ok": "<No Hallucination>", "contradictory": "<Contradictory>", "unverifiable": "<Unverifiable>"}))
