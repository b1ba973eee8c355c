"""FaithEval's prompts (Ming et al., 2024; HalluLens section 4.3): the keyword tasks (the instruction naming the
keyword, with the published keyword lists the replies are matched against) and the counterfactual multiple choice."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KeywordTask:
    """A FaithEval task answered by a keyword: the instruction naming it and the published keyword lists."""

    name: str
    instruction: str
    strict: tuple[str, ...]
    lenient: tuple[str, ...]


# Keyword lists as published in FaithEval's evaluation code (README quick start).
UNANSWERABLE = KeywordTask(
    "unanswerable",
    "If the context does not provide the answer, reply 'unknown'.",
    strict=("unknown",),
    lenient=("unknown", "no answer", "no information", "not", "unclear"),
)
INCONSISTENT = KeywordTask(
    "inconsistent",
    "If the context gives conflicting information or more than one answer, reply 'conflict'.",
    strict=("conflict",),
    lenient=("conflict", "multiple answers", "disagreement", "inconsistent", "contradictory", "contradiction",
             "inconsistency", "two answers", "2 answers", "conflicting"),
)
KEYWORD_TASKS = {t.name: t for t in (UNANSWERABLE, INCONSISTENT)}

# The paper's prompt structure (a retrieval QA expert, the exact answer only, the task's instruction, context,
# question, "Answer:"), in this project's words.
_HEAD = ("You are an expert at answering questions from retrieved documents. Reply with the exact answer only, "
         "without explanation or extra information.")
COUNTERFACTUAL_INSTRUCTION = "Choose the option that the context supports and reply with its letter."


def keyword_prompt(task: KeywordTask, context: str, question: str) -> str:
    return f"{_HEAD}\n{task.instruction}\nContext: {context}\nQuestion: {question}\nAnswer:"


def choice_prompt(context: str, question: str, labels: list[str], texts: list[str]) -> str:
    options = "\n".join(f"{label}. {text}" for label, text in zip(labels, texts))
    return f"{_HEAD}\n{COUNTERFACTUAL_INSTRUCTION}\nContext: {context}\nQuestion: {question}\n{options}\nAnswer:"
