"""What the HaluEval generator sends (Li et al., 2023, section 2.1; Tables 2, 11 and 12): the sampling instruction
in its two schemas (one-pass, conversational) and the filtering request whose demonstrations contrast the right
text with a hallucinated one, messages and decoding parameters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hallu_metrics.benchmarks.halueval import Pattern, TaskSpec, with_article
from hallubench.core.backends import ChatRequest


@dataclass(frozen=True)
class Settings:
    """Sampling parameters (the paper: temperature 1, top_p 1, 256 tokens, all patterns shown)."""

    task: str
    n: int
    seed: int
    temperature: float = 1.0
    max_tokens: int = 256
    pattern_mode: str = "all"

# The paper's sampling instructions limit the hallucinated text to about 5 more words than the right one
# for QA (Table 2) and summarization (Table 12); the dialogue instruction (Table 11) has no such rule.
LENGTH_RULE_TASKS = frozenset({"qa", "summarization"})


def _show(spec: TaskSpec, record: dict) -> str:
    return "\n".join(f"#{label}#: {record[field]}" for field, label in spec.context)


def _intention(spec: TaskSpec, patterns: Sequence[Pattern]) -> str:
    inputs = ", ".join(label.lower() for _, label in spec.context)
    how = "the method described below" if len(patterns) == 1 else "one of the methods described below, your choice"
    article = "an" if spec.unit[0] in "aeiou" else "a"
    return (
        f"You write hallucinated {spec.unit}s for a benchmark. Given the {inputs} and the right {spec.unit}, "
        f"write {article} {spec.unit} that sounds plausible but is factually wrong, using {how}."
    )


def _method(spec: TaskSpec, pattern: Pattern, number: int | None = None) -> str:
    unit = spec.unit.capitalize()
    demo = pattern.demo
    return (
        f"Method{f' {number}' if number else ''}: {pattern.produce}\nExample:\n{_show(spec, demo)}\n"
        f"#Right {unit}#: {demo[spec.right]}\n#Hallucinated {unit}#: {demo[spec.hallucinated]}"
    )


def _test_input(spec: TaskSpec, record: dict) -> str:
    unit = spec.unit.capitalize()
    length = ", at most about five words longer than the right one," if spec.name in LENGTH_RULE_TASKS else ""
    return (
        f"Make the {spec.unit} as convincingly hallucinated as you can{length} and reply with the hallucinated "
        f"{spec.unit} only.\n\n{_show(spec, record)}\n#Right {unit}#: {record[spec.right]}\n#Hallucinated {unit}#:"
    )


def sampling_messages(spec: TaskSpec, record: dict, schema: str, patterns: Sequence[Pattern]) -> list[dict[str, str]]:
    """One user message (one-pass), or the same parts taught turn by turn, each method in its own
    acknowledged turn (conversational). Several ``patterns`` are offered as alternatives ("or")."""
    numbered = len(patterns) > 1
    methods = [_method(spec, p, i if numbered else None) for i, p in enumerate(patterns, 1)]
    if schema == "one-pass":
        return [
            {
                "role": "user",
                "content": "\n\n".join(
                    [_intention(spec, patterns), "\n\nor\n\n".join(methods), _test_input(spec, record)]
                ),
            }
        ]
    messages = [
        {"role": "user", "content": _intention(spec, patterns)},
        {"role": "assistant", "content": "Understood. How should I write it?"},
    ]
    for i, method in enumerate(methods, 1):
        messages.append({"role": "user", "content": method})
        more = "Please give me the input." if i == len(methods) else "What else can I use?"
        messages.append({"role": "assistant", "content": f"Got it, I can use that method. {more}"})
    return messages + [{"role": "user", "content": _test_input(spec, record)}]


def filter_messages(spec: TaskSpec, record: dict, first: str, second: str) -> list[dict[str, str]]:
    """Choose the better of two candidates; the demonstrations show the right text winning."""
    unit = spec.unit.capitalize()
    demos = "\n\n".join(
        f"{_show(spec, p.demo)}\n#{unit} 1#: {p.demo[spec.right]}\n#{unit} 2#: {p.demo[spec.hallucinated]}\n"
        f"#Your Choice#: The best {spec.unit} is {unit} 1."
        for p in spec.patterns
    )
    prompt = (
        f"You are {with_article(spec.role)}. Given the input and two {spec.unit}s, pick the {spec.unit} that is "
        f"correct and free of invented or non-factual information. Examples:\n\n{demos}\n\nIf both are wrong, pick "
        f"the better one; if they are the same, pick either. You MUST pick {unit} 1 or {unit} 2.\n\n"
        f"{_show(spec, record)}\n"
        f"#{unit} 1#: {first}\n#{unit} 2#: {second}\n#Your Choice#:"
    )
    return [{"role": "user", "content": prompt}]


def sampling_request(spec: TaskSpec, record: dict, schema: str, patterns: Sequence[Pattern], settings: Settings,
                     seed: int | None = None) -> ChatRequest:
    """One sampling request (the paper's temperature, top_p 1 and token budget by default)."""
    messages = sampling_messages(spec, record, schema, patterns)
    return ChatRequest.from_messages(messages, temperature=settings.temperature, top_p=1.0,
                                     max_tokens=settings.max_tokens, seed=seed)


def filter_request(spec: TaskSpec, record: dict, first: str, second: str) -> ChatRequest:
    """The greedy filtering request."""
    return ChatRequest.from_messages(filter_messages(spec, record, first, second), temperature=0.0, max_tokens=32)
