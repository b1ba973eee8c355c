"""HaluEval sampling-then-filtering generator (Li et al., 2023, section 2.1).

For each chosen source example (knowledge/question/right answer, dialogue, or document/summary):
1. sampling: two schemas each write one hallucinated candidate: *one-pass* (the whole instruction in
   one message) and *conversational* (the instruction taught over several turns, each acknowledged,
   then the test input). As in the paper (Table 2), the instruction lists every hallucination pattern
   of the task with its demonstration and the model picks one (``pattern_mode="all"``); the variant
   ``"single"`` shows one seeded pattern and records it;
2. filtering: a judge, whose demonstrations contrast the right text with a hallucinated one, is
   shown the two candidates (in seeded order) and picks the more plausible one.
Sources in another schema are read through a field-to-column mapping (``--source-columns``).
Rows use the official file schema plus provenance columns.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import datasets

from hallu_metrics.halueval import TASKS, Pattern, TaskSpec, with_article
from hallubench.backends import ChatRequest, ModelClient
from hallubench.errors import HallubenchError
from hallubench.seeding import seeded_rng
from hallubench_generators.protocol import sent
from hallubench_generators.publishing import CardInfo, generation_date

CLIENT_OPTION = "generator"  # the sampling model
GENERATED_TASKS = ("qa", "dialogue", "summarization")
SCHEMAS = ("one-pass", "conversational")
PATTERN_MODES = ("all", "single")
# The paper's sampling instructions limit the hallucinated text to about 5 more words than the right one
# for QA (Table 2) and summarization (Table 12); the dialogue instruction (Table 11) has no such rule.
LENGTH_RULE_TASKS = frozenset({"qa", "summarization"})
_STRING = datasets.Value("string")
_EXTRA = {
    "source_index": datasets.Value("int64"),
    "pattern": _STRING,
    "schema": _STRING,
    "selected_by": _STRING,
    "rejected_candidate": _STRING,
}
# One Features per benchmark: the official columns of the --task, plus provenance of the kept candidate.
FEATURES = {
    f"halueval_{name}": datasets.Features({**{c: _STRING for c in TASKS[name].columns}, **_EXTRA})
    for name in ("qa", "dialogue", "summarization")
}


@dataclass(frozen=True)
class Settings:
    """Sampling parameters (the paper: temperature 1, top_p 1, 256 tokens, all patterns shown)."""

    task: str
    n: int
    seed: int
    temperature: float = 1.0
    max_tokens: int = 256
    pattern_mode: str = "all"


@dataclass
class Sample:
    """One candidate written by one schema for one source example; ``pattern`` is None when the
    model chose among all patterns."""

    index: int
    schema: str
    pattern: Pattern | None
    text: str = ""


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


def prompts() -> dict[str, Any]:
    """Per task, both schemas' sampling requests (every pattern offered; ``--pattern-mode single`` sends one of
    the same methods) and the filtering request, on a placeholder record with default settings."""
    def requests(task: str) -> dict[str, Any]:
        spec = TASKS[task]
        record = {field: f"{{{field}}}" for field in spec.columns}
        settings = Settings(task, n=1, seed=0)
        return {**{schema: sent(sampling_request(spec, record, schema, spec.patterns, settings)) for schema in SCHEMAS},
                "filter": sent(filter_request(spec, record, "{candidate 1}", "{candidate 2}"))}

    return {task: requests(task) for task in GENERATED_TASKS}


_LABEL = re.compile(r"^\s*(?:#?hallucinated\s+\w+#?\s*:)?\s*", re.IGNORECASE)


def clean_candidate(text: str, right: str) -> str:
    """The first paragraph without a leading field label or quotes; empty if it repeats the right text."""
    paragraph = _LABEL.sub("", text.strip()).split("\n\n")[0].strip().strip("\"'` ")
    return "" if paragraph.casefold() == right.strip().casefold() else paragraph


def parse_choice(text: str, unit: str) -> int | None:
    """1 or 2 from "The best answer is Answer 2."; None when both or neither are named."""
    found = set(re.findall(rf"\b{unit}\s*([12])\b", text, re.IGNORECASE))
    if len(found) != 1:
        found = set(re.findall(r"\b([12])\b", text))
    return int(found.pop()) if len(found) == 1 else None


def source_fields(spec: TaskSpec) -> tuple[str, ...]:
    """What the generator reads from a source record: the context fields and the right text."""
    return tuple(field for field, _ in spec.context) + (spec.right,)


def parse_source_columns(text: str | None, spec: TaskSpec) -> dict[str, str]:
    """``FIELD=COLUMN,...`` -> {official field: source column}; a field not named reads its own column."""
    fields = source_fields(spec)
    mapping = {field: field for field in fields}
    for item in filter(str.strip, (text or "").split(",")):
        field, equals, column = (part.strip() for part in item.partition("="))
        if not (equals and field and column):
            raise HallubenchError(f"--source-columns: {item.strip()!r} is not FIELD=COLUMN")
        if field not in fields:
            raise HallubenchError(
                f"--source-columns: {field!r} is not a {spec.name} source field (fields: {', '.join(fields)}; "
                f"{spec.hallucinated} is regenerated)"
            )
        mapping[field] = column
    return mapping


def read_source(task: str, source: str, columns: str | None) -> list[dict[str, str]]:
    """Source records with the official field names: an official-format file or folder, ``official``
    (the GitHub file), or any JSON-lines / JSON-array file whose columns ``columns`` maps."""
    from hallubench.sources.halueval import official_file, read_json_records

    spec = TASKS[task]
    mapping = parse_source_columns(columns, spec)
    path = official_file(task, None if source == "official" else source)
    records = read_json_records(path)
    for number, record in enumerate(records, 1):
        for field, column in mapping.items():
            if record.get(column) is None:
                raise HallubenchError(
                    f"{path}: record {number} has no column {column!r} for {field} (it has: {', '.join(record)}); "
                    "map the fields with --source-columns FIELD=COLUMN,..."
                )
    return [{field: str(record[column]) for field, column in mapping.items()} for record in records]


def choose_sources(records: list[dict], settings: Settings) -> list[int]:
    """A seeded choice of ``n`` distinct source indices, in file order."""
    if not 1 <= settings.n <= len(records):
        raise HallubenchError(f"--n must be between 1 and the {len(records)} source records")
    return sorted(seeded_rng(settings.seed, settings.task, "sources").sample(range(len(records)), settings.n))


def _pattern(spec: TaskSpec, settings: Settings, index: int, schema: str) -> Pattern | None:
    """The seeded pattern of one sample in ``single`` mode; None (all patterns offered) in ``all`` mode."""
    if settings.pattern_mode == "all":
        return None
    return seeded_rng(settings.seed, spec.name, index, schema, "pattern").choice(spec.patterns)


def sample(
    records: list[dict], indices: list[int], client: ModelClient, spec: TaskSpec, settings: Settings
) -> list[Sample]:
    """Both schemas for every chosen record, in one batch."""
    samples = [Sample(i, schema, _pattern(spec, settings, i, schema)) for i in indices for schema in SCHEMAS]
    texts = client.complete_or_raise(
        [
            sampling_request(spec, records[s.index], s.schema, [s.pattern] if s.pattern else spec.patterns, settings,
                             seeded_rng(settings.seed, spec.name, s.index, s.schema, "sampling").getrandbits(31))
            for s in samples
        ],
        desc="halueval: sampling",
    )
    for s, text in zip(samples, texts):
        s.text = clean_candidate(text, records[s.index][spec.right])
    return samples


Decision = tuple[Sample, Sample, str]  # winner, loser, how the winner was selected


def filter_pairs(
    records: list[dict], pairs: list[tuple[Sample, Sample]], client: ModelClient, spec: TaskSpec, settings: Settings
) -> dict[int, Decision]:
    """Filter step, per source index: the judge picks between the two candidates shown in seeded order
    (an unreadable verdict keeps the first shown); a pair with one empty candidate keeps the other."""
    contested = [
        (a, b) if seeded_rng(settings.seed, spec.name, a.index, "order").random() < 0.5 else (b, a)
        for a, b in pairs
        if a.text and b.text
    ]
    choices = client.complete_or_raise(
        [filter_request(spec, records[a.index], a.text, b.text) for a, b in contested], desc="halueval: filtering"
    )
    decided: dict[int, Decision] = {}
    for (first, second), text in zip(contested, choices):
        choice = parse_choice(text, spec.unit)
        if choice is None:
            decided[first.index] = (first, second, "filter_unparsed_first_shown")
        else:
            decided[first.index] = (first, second, "filter") if choice == 1 else (second, first, "filter")
    for a, b in pairs:
        if not (a.text and b.text) and (a.text or b.text):
            winner, loser = (a, b) if a.text else (b, a)
            decided[a.index] = (winner, loser, "only_valid_candidate")
    return decided


def select(
    records: list[dict], pairs: list[tuple[Sample, Sample]], client: ModelClient, spec: TaskSpec, settings: Settings
) -> list[dict]:
    """Rows of the candidates that win the filter step, in source order."""
    decided = filter_pairs(records, pairs, client, spec, settings)
    return [_row(records[i], spec, *decided[i]) for i in sorted(decided)]


def _row(record: dict, spec: TaskSpec, winner: Sample, loser: Sample, selected_by: str) -> dict:
    return {
        **{c: str(record[c]) for c in spec.columns if c != spec.hallucinated},
        spec.hallucinated: winner.text,
        "source_index": winner.index,
        "pattern": winner.pattern.name if winner.pattern else "",
        "schema": winner.schema,
        "selected_by": selected_by,
        "rejected_candidate": loser.text,
    }


def generate(records: list[dict], generator: ModelClient, judge: ModelClient, settings: Settings) -> list[dict]:
    """Sampling then filtering for ``n`` seeded source records; pairs with no usable candidate are dropped."""
    if settings.pattern_mode not in PATTERN_MODES:
        raise HallubenchError(f"pattern mode must be one of {', '.join(PATTERN_MODES)}, not {settings.pattern_mode!r}")
    spec = TASKS[settings.task]
    samples = sample(records, choose_sources(records, settings), generator, spec, settings)
    rows = select(records, list(zip(samples[::2], samples[1::2])), judge, spec, settings)
    if not rows:
        raise HallubenchError("no source example got a usable hallucinated candidate; check the generator's replies")
    return rows


def card_for(
    rows: list[dict], settings: Settings, source: str, generator: str, judge: str, license: str = "mit"
) -> CardInfo:
    """Provenance, parameters and the pattern / schema / selection counts."""
    columns = ("pattern", "schema", "selected_by") if settings.pattern_mode == "single" else ("schema", "selected_by")
    counts = "\n".join(
        f"- {column}: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r[column] for r in rows).items()))
        for column in columns
    )
    patterns = (
        "all of the task's patterns offered, the model picks one (the paper's instruction); `pattern` is empty"
        if settings.pattern_mode == "all"
        else "one seeded pattern per candidate (recorded in `pattern`)"
    )
    return CardInfo(
        pretty_name=f"HaluEval {settings.task} (hallubench sampling-then-filtering set)",
        license=license,
        task_categories=["text-classification"],
        summary=(
            f"Hallucinated {TASKS[settings.task].unit}s made by HaluEval's sampling-then-filtering procedure "
            "(Li et al., 2023, section 2.1). Evaluate with "
            f"`--tasks halueval_{settings.task} --metadata '{{\"dataset\": DIR}}'`."
        ),
        sections={
            "Generation": (
                f"- source: {source}\n- generator: `{generator}`\n- filter judge: `{judge}`\n- seed: {settings.seed}\n"
                f"- requested: {settings.n}, written: {len(rows)} (pairs without any usable candidate are dropped)\n"
                f"- sampling: temperature {settings.temperature}, top_p 1.0, max {settings.max_tokens} tokens; "
                "filter greedy\n"
                f"- patterns (`--pattern-mode {settings.pattern_mode}`): {patterns}\n"
                f"- date: {generation_date()}"
            ),
            "Counts": counts,
            "Columns": (
                f"The official columns {', '.join(f'`{c}`' for c in TASKS[settings.task].columns)}, plus "
                "`source_index` "
                "(line in the source), `pattern` (single mode) and `schema` of the kept candidate, `selected_by` "
                "(filter, filter_unparsed_first_shown, only_valid_candidate) and `rejected_candidate`."
            ),
        },
    )


def add_arguments(parser) -> None:
    parser.add_argument("--task", required=True, choices=GENERATED_TASKS)
    parser.add_argument(
        "--source",
        required=True,
        help="JSON-lines (or JSON-array) file, a folder holding the official <task>_data*.json, or 'official' "
            "for the GitHub file (see docs/halueval.md)",
    )
    parser.add_argument(
        "--source-columns",
        metavar="FIELD=COLUMN,...",
        help="read official fields from other source columns, e.g. right_summary=deepseek_r1_summary,document=source "
        "(fields: the task's context fields and right text; unnamed fields use their own name)",
    )
    parser.add_argument("--generator", required=True, help="backend spec of the sampling model")
    parser.add_argument("--filter-judge", help="backend spec of the filtering judge (default: the generator)")
    parser.add_argument("--n", type=int, required=True, help="source examples to use (one output row each, at most)")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument(
        "--pattern-mode",
        choices=PATTERN_MODES,
        default="all",
        help="all: the instruction lists every hallucination pattern and the model picks one (the paper's); "
        "single: one seeded pattern per candidate, recorded in the `pattern` column",
    )
    parser.add_argument(
        "--license",
        default="mit",
        help="license id for the card: mit (HaluEval's data) by default; "
        "set the source's own for foreign sources, e.g. apache-2.0 for the Vectara documents",
    )


def run(args, client: ModelClient) -> tuple[list[dict], CardInfo]:
    from hallubench.backends import CallCache, backend_spec, make_client

    settings = Settings(
        task=args.task,
        n=args.n,
        seed=args.seed,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        pattern_mode=args.pattern_mode,
    )
    records = read_source(args.task, args.source, args.source_columns)
    judge = make_client(backend_spec(args.filter_judge), CallCache(args.cache)) if args.filter_judge else client
    try:
        rows = generate(records, client, judge, settings)
    finally:
        if judge is not client:
            judge.report()
    source = args.source + (f" (columns: {args.source_columns})" if args.source_columns else "")
    return rows, card_for(rows, settings, source, client.public_spec, judge.public_spec, args.license)
