"""The rubric judge of Jing et al., "On A Scale From 1 to 5" (section 3.3, Appendix A.1, Table 6).

The rubric (four aspects, 1-5 scale) is a user-editable text file, ``hallu_metrics/data/faithfulness_rubric.md``
by default: the paper recommends tailoring it per use case (sections 4.1, A.4). Two output formats, as the
paper compares (section 4.2): ``{"reasoning": ..., "score": n}`` and score only (``_so``). A score outside
1-5, not a whole number, or missing is unparseable: counted, never clipped or guessed.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from hallu_metrics.faithfulness.baseline import baseline_rule
from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.parsing import parse_score
from hallu_metrics.judges.prompts import DATA_NOTICE, data_block
from hallu_metrics.scorers.classifier import score_to_likert
from hallubench.backends.base import Message
from hallubench.errors import HallubenchError

DEFAULT_RUBRIC = Path(__file__).resolve().parents[1] / "data" / "faithfulness_rubric.md"
LOW, HIGH = 1, 5
REASONING_TOKENS, SCORE_ONLY_TOKENS = 256, 16  # greedy generation budgets of the two formats

_OUTPUT = {
    True: ('Reply with one JSON object and nothing else, with two keys: "reasoning" (a short explanation of which '
           'statements of the summary the source supports or not) and "score" (a whole number from 1 to 5), in '
           'this shape: {"reasoning": "...", "score": N}'),
    False: ('Reply with one JSON object and nothing else, with the single key "score" (a whole number from 1 to '
            '5), in this shape: {"score": N}'),
}


@lru_cache(maxsize=8)
def load_rubric(path: str | None = None) -> str:
    """The rubric text of ``path`` (default: the paper's rubric shipped with the package)."""
    target = Path(path).expanduser() if path else DEFAULT_RUBRIC
    try:
        text = target.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise HallubenchError(f"rubric file {target} cannot be read ({type(exc).__name__})") from exc
    if not text:
        raise HallubenchError(f"rubric file {target} is empty")
    return text


def rubric_messages(reference: str, hypothesis: str, rubric: str, reasoning: bool = True) -> list[Message]:
    """System turn: the rubric and the data notice; user turn: summary and source as data blocks, then the
    output format (Table 6's structure: summary snippet, source snippet, output instruction)."""
    user = (f"{data_block('summary', hypothesis)}\n\n{data_block('source', reference)}\n\n"
            f"Grade the summary against the source with the rubric. {_OUTPUT[reasoning]}")
    return [{"role": "system", "content": f"{rubric}\n\n{DATA_NOTICE}"}, {"role": "user", "content": user}]


def rubric_prompt(reference: str, hypothesis: str, rubric: str, reasoning: bool = True) -> str:
    """The same prompt as one text, for a model under test that gets a single prompt (lm-eval docs)."""
    return "\n\n".join(m["content"] for m in rubric_messages(reference, hypothesis, rubric, reasoning))


def parse_rubric_score(text: str) -> int | None:
    """The 1-5 score of a reply; None when out of range, fractional, missing or contradictory."""
    return parse_score(text, LOW, HIGH)


def rubric_check(rubric: str, reasoning: bool = True) -> Check:
    """The rubric question for any LLM judge; items carry ``reference`` and ``hypothesis``."""
    return Check(
        name="faithfulness_rubric" if reasoning else "faithfulness_rubric_so",
        messages=lambda item: rubric_messages(item["reference"], item["hypothesis"], rubric, reasoning),
        parse=parse_rubric_score,
        reminder=f"Answer again in the required format. {_OUTPUT[reasoning]}",
        max_tokens=REASONING_TOKENS if reasoning else SCORE_ONLY_TOKENS,
        structured=structured.reasoned_integer("score", LOW, HIGH) if reasoning else structured.integer(
            "score", LOW, HIGH),
    )


def faithfulness_check(rubric: str | None = None) -> Check:
    """One question every judge kind answers on the 1-5 scale: an LLM through the rubric, a classifier
    scorer (``hhem:``/``nli:``) through P(consistent) of (reference, hypothesis) mapped by
    ``score_to_likert`` (1 + 4p, the paper's section 4 rescaling), the ``rule`` judge through the
    paper's baseline composite (section 3.4)."""
    return replace(
        rubric_check(rubric or load_rubric()),
        name="faithfulness",
        pair=lambda item: (item["reference"], item["hypothesis"]),
        from_probability=score_to_likert,
        rule=baseline_rule,
    )
