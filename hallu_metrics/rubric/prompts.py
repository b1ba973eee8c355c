"""The rubric prompt of Jing et al., "On A Scale From 1 to 5" (section 3.3, Appendix A.1, Table 6): the rubric text
(``hallu_metrics/data/faithfulness_rubric.md`` by default, or a user's file), the two output formats and the
messages a judge (or, as one prompt, the model under test) is sent."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from hallu_metrics.judges.prompts import DATA_NOTICE, data_block
from hallubench.core.backends.base import Message
from hallubench.core.errors import HallubenchError

DEFAULT_RUBRIC = Path(__file__).resolve().parents[1] / "data" / "faithfulness_rubric.md"

OUTPUT_FORMATS = {
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
            f"Grade the summary against the source with the rubric. {OUTPUT_FORMATS[reasoning]}")
    return [{"role": "system", "content": f"{rubric}\n\n{DATA_NOTICE}"}, {"role": "user", "content": user}]


def rubric_prompt(reference: str, hypothesis: str, rubric: str, reasoning: bool = True) -> str:
    """The same prompt as one text, for a model under test that gets a single prompt (lm-eval docs)."""
    return "\n\n".join(m["content"] for m in rubric_messages(reference, hypothesis, rubric, reasoning))
