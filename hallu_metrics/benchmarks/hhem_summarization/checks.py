"""HHEM summarization's checks: P(consistent) of (document, summary) from a classifier scorer (HHEM-2.1-Open by
default; an LLM judge answers the shared faithfulness rubric instead), and the leaderboard's validity rule for a
summary."""

from __future__ import annotations

import re

from hallu_metrics.judges.base import Check
from hallu_metrics.scorers import HHEM_MODEL_ID
from hallubench.core.errors import HallubenchError

NAME = "hhem_summarization"
MIN_WORDS = 5  # leaderboard: a valid summary has at least 5 (whitespace-separated) words
# HHEM-2.1-Open reads the whole (document, summary) pair, as its own predict() does (T5's relative positions need no
# fixed length). 4096 tokens hold every leaderboard document with its summary and the template (the longest pair
# measured 2,330-2,592 tokens with stand-in tokenizers; 2048 cut 1-4 of them, docs/hhem_summarization.md); a longer
# document of another data set is windowed (score = max over windows), never cut, and every record says how much of
# its pair the scorer saw (``scorer_input``).
DEFAULT_SCORER_SPEC = f"hhem:model={HHEM_MODEL_ID},kind=hhem-2.1,window=sliding,max_length=4096"

# Replies that decline the task instead of summarising (checked at the start of the reply).
_REFUSAL = re.compile(
    r"^\W*(?:I(?:'m| am) sorry|sorry\b|I apologi[sz]e|I (?:cannot|can't|can not|won't|am unable to|'m unable to|"
    r"am not able to|'m not able to)\b|as an AI\b|unfortunately,? I\b)",
    re.IGNORECASE,
)


def word_count(summary: str) -> int:
    return len(summary.split())


def is_valid_summary(summary: str) -> bool:
    """The leaderboard's rule (at least 5 words), plus: a refusal is not a summary."""
    text = summary.replace("\u2019", "'").strip()
    return word_count(text) >= MIN_WORDS and not _REFUSAL.match(text)


def _no_rule(item: dict) -> float:
    raise HallubenchError(f"{NAME} has no rule judge: use judge=hhem:..., nli:... or an LLM spec with the rubric")


# P(consistent) of (document, summary) from a classifier scorer.
CONSISTENCY = Check(name="summary_consistency", fields=("reference", "hypothesis"),
                    pair=lambda item: (item["reference"], item["hypothesis"]),
                    rule=_no_rule)
