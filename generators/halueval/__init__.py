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

Modules: ``prompts`` (sampling and filtering requests), ``source`` (source records), ``sampling`` (the two
steps and the rows), ``card``.
"""

from __future__ import annotations

from typing import Any

import datasets

from hallu_metrics.benchmarks.halueval import TASKS
from hallubench.core.backends import ModelClient
from hallubench_generators.common.protocol import sent
from hallubench_generators.common.publishing import CardInfo
from hallubench_generators.halueval.card import card_for
from hallubench_generators.halueval.prompts import filter_request, sampling_request
from hallubench_generators.halueval.sampling import PATTERN_MODES, SCHEMAS, Settings, generate
from hallubench_generators.halueval.source import read_source

HELP = "Generate HaluEval qa/dialogue/summarization samples (sampling-then-filtering)"
CLIENT_OPTION = "generator"  # the sampling model
GENERATED_TASKS = ("qa", "dialogue", "summarization")
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


def sent_prompts() -> dict[str, Any]:
    """Per task, both schemas' sampling requests (every pattern offered; ``--pattern-mode single`` sends one of
    the same methods) and the filtering request, on a placeholder record with default settings."""
    def requests(task: str) -> dict[str, Any]:
        spec = TASKS[task]
        record = {field: f"{{{field}}}" for field in spec.columns}
        settings = Settings(task, n=1, seed=0)
        return {**{schema: sent(sampling_request(spec, record, schema, spec.patterns, settings)) for schema in SCHEMAS},
                "filter": sent(filter_request(spec, record, "{candidate 1}", "{candidate 2}"))}

    return {task: requests(task) for task in GENERATED_TASKS}


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
    from hallubench.core.backends import CallCache, backend_spec, make_client

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
