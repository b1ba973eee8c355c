"""The rubric judge of Jing et al., "On A Scale From 1 to 5" (section 3.3, Appendix A.1, Table 6).

The rubric (four aspects, 1-5 scale) is a user-editable text file, ``hallu_metrics/data/faithfulness_rubric.md``
by default: the paper recommends tailoring it per use case (sections 4.1, A.4). Two output formats, as the
paper compares (section 4.2): ``{"reasoning": ..., "score": n}`` and score only (``_so``). A score outside
1-5, not a whole number, or missing is unparseable: counted, never clipped or guessed.
"""

from __future__ import annotations

from dataclasses import replace

from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.parsing import parse_score
from hallu_metrics.rubric.baseline import baseline_reason, baseline_rule
from hallu_metrics.rubric.prompts import OUTPUT_FORMATS, load_rubric, rubric_messages
from hallu_metrics.scorers.classifier import score_to_likert

LOW, HIGH = 1, 5
REASONING_TOKENS, SCORE_ONLY_TOKENS = 256, 16  # greedy generation budgets of the two formats


def parse_rubric_score(text: str) -> int | None:
    """The 1-5 score a reply concludes with (``judges.parsing.parse_score``); None when out of range, on another
    scale ("4/10", "4 out of 10"), fractional, missing or contradictory."""
    return parse_score(text, LOW, HIGH)


def rubric_check(rubric: str, reasoning: bool = True) -> Check:
    """The rubric question for any LLM judge; items carry ``reference`` and ``hypothesis``."""
    return Check(
        name="faithfulness_rubric" if reasoning else "faithfulness_rubric_so",
        fields=("reference", "hypothesis"),
        messages=lambda item: rubric_messages(item["reference"], item["hypothesis"], rubric, reasoning),
        parse=parse_rubric_score,
        reminder=f"Answer again in the required format. {OUTPUT_FORMATS[reasoning]}",
        max_tokens=REASONING_TOKENS if reasoning else SCORE_ONLY_TOKENS,
        structured=structured.reasoned_integer("score", LOW, HIGH) if reasoning else structured.integer(
            "score", LOW, HIGH),
    )


def faithfulness_check(rubric: str | None = None) -> Check:
    """One question every judge kind answers on the 1-5 scale: an LLM through the rubric, a classifier
    scorer (``hhem:``/``nli:``) through P(consistent) of (reference, hypothesis) mapped by
    ``score_to_likert`` (1 + 4p, the paper's section 4 rescaling), the ``rule`` judge through the
    paper's baseline composite (section 3.4), its reason the three metrics behind it."""
    return replace(
        rubric_check(rubric or load_rubric()),
        name="faithfulness",
        pair=lambda item: (item["reference"], item["hypothesis"]),
        from_probability=score_to_likert,
        rule=baseline_rule,
        why=baseline_reason,
    )


# The reusable 1-5 check (items: ``reference``, ``hypothesis``) that every judge kind answers.
RUBRIC = faithfulness_check()
