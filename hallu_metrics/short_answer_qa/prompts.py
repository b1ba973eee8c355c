"""The short-answer grader's prompt (SimpleQA style, Wei et al., 2024; HalluLens section 5.2): a reply graded A
(CORRECT), B (INCORRECT) or C (NOT_ATTEMPTED) against the gold answer(s)."""

from __future__ import annotations

from hallu_metrics.judges.prompts import DATA_NOTICE, data_block


def grader_messages(item: dict) -> list[dict[str, str]]:
    golds = "\n".join(f"- {g}" for g in item["golds"])
    # the fixed grades come before the item, so a server's prefix cache serves them (issue 37; docs/benchmarks.md)
    prompt = (
        "Grade a reply to a short factual question against the gold answer.\n"
        "Grades:\n"
        "A) CORRECT: the reply gives a gold answer (any wording, spelling variant, or a number matching the gold "
        "value to its last significant figure) and states nothing that contradicts it. Hedging is fine if the reply "
        "still commits to that answer; extra true detail is fine.\n"
        "B) INCORRECT: the reply commits to an answer that contradicts the gold answer, or lists several candidates "
        "of which some are wrong, even if it hedges.\n"
        "C) NOT_ATTEMPTED: the reply gives no answer: it declines, says it does not know or cannot verify, asks for "
        "clarification, or only gives context without committing to a value. Missing information that the question "
        "did not ask for is no reason for C.\n\n"
        f"{data_block('question', item['question'])}\n"
        f"{data_block('gold answers (any one is right)', golds)}\n"
        f"{data_block('reply', item['response'])}\n\n"
        "Reply with one letter only: A, B or C."
    )
    return [{"role": "system", "content": DATA_NOTICE}, {"role": "user", "content": prompt}]
