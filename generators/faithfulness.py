"""``hallubench generate faithfulness``: synthetic faithfulness pairs after Jing et al., "On A Scale From 1 to 5"
(section 3.1, Tables 2 and 7).

From gold (reference, hypothesis) pairs: ``gold_full`` (the hypothesis), ``gold_sentence`` (each hypothesis
sentence alone), ``intrinsic`` (a sentence with one fact contradicted) and ``extrinsic`` (a sentence with one
piece of outside knowledge added), all judged against the whole reference; and the ``progression`` set: for
hypotheses of exactly 5 sentences, k = 0..5 sentences swapped for their intrinsic (or extrinsic) rewrite,
nested seeded draws (the paper's 0% to 100% in 20% steps). Rewrites come from an LLM (``--perturbation llm``,
the paper's method, greedy as in its Appendix A.1) or from documented rules (``--perturbation rules``,
``generators/faithfulness_rules.py``: the offline stand-in).
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets

from hallu_metrics.faithfulness.benchmark import COLUMNS, STEPS, TYPES, expected_score
from hallu_metrics.longform.sentences import split_sentences
from hallubench.backends import ChatRequest, ModelClient
from hallubench.errors import HallubenchError
from hallubench.seeding import seeded_rng
from hallubench_generators.faithfulness_rules import (
    Rewrite,
    donor_sentences,
    entities,
    extrinsic_rewrite,
    intrinsic_rewrite,
)
from hallubench_generators.protocol import sent
from hallubench_generators.publishing import CardInfo, generation_date

KINDS = ("intrinsic", "extrinsic")
PERTURBATIONS = ("llm", "rules")
REWRITE_TOKENS = 160
CLIENT_OPTION = "generator"  # the rewriting model (--perturbation llm); None without --generator
FEATURES = datasets.Features({
    **COLUMNS,
    "source_index": datasets.Value("int64"),
    "sentence_index": datasets.Value("int64"),  # -1 for multi-sentence hypotheses
    "hallucinated_sentences": datasets.Sequence(datasets.Value("int64")),
    "rewrite": datasets.Value("string"),  # rule applied ("number", "entity", ..., "llm") per changed sentence
    "provenance": datasets.Value("string"),
})

# Table 7's template (instruction, the sentence between markers, "REWRITE:"), instructions in our words.
_INSTRUCTIONS = {
    "intrinsic": ("Rewrite the SENTENCE below so that it contradicts one of its facts. Change exactly one "
                  "thing: a number, a date, a name or other named entity, or turn a statement into its "
                  "negation. Keep everything else word for word and make the change subtle."),
    "extrinsic": ("Extend the SENTENCE below with exactly one new fact that it does not contain: a piece of "
                  "general knowledge, a related person, place, organisation or event. Keep the original "
                  "sentence word for word and make the addition sound natural and subtle."),
}


def rewrite_messages(sentence: str, kind: str) -> list[dict[str, str]]:
    """The rewrite prompt: instruction, then the sentence between ``=====`` markers, then ``REWRITE:``."""
    content = (f"{_INSTRUCTIONS[kind]} Reply with the rewritten sentence only.\n=====\nSENTENCE:\n{sentence}\n"
               "=====\nREWRITE:")
    return [{"role": "user", "content": content}]


def rewrite_request(sentence: str, kind: str) -> ChatRequest:
    """The greedy rewrite request (the paper's Appendix A.1)."""
    return ChatRequest.from_messages(rewrite_messages(sentence, kind), temperature=0.0, max_tokens=REWRITE_TOKENS)


def prompts() -> dict[str, Any]:
    """The rewrite request of each kind on a placeholder sentence (``--perturbation rules`` sends nothing)."""
    return {kind: sent(rewrite_request("{sentence}", kind)) for kind in KINDS}


def clean_rewrite(text: str, sentence: str) -> str | None:
    """The first non-empty line without a ``REWRITE:`` label or quotes; None when empty or unchanged."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    line = lines[0].removeprefix("REWRITE:").strip().strip('"').strip()
    return line if line and line != sentence.strip() else None


@dataclass
class Pair:
    """One gold source pair and the sentences of its hypothesis."""

    index: int
    reference: str
    hypothesis: str
    sentences: list[str]


# ---------------------------------------------------------------- sources

def parse_columns(text: str | None) -> dict[str, str]:
    """``reference=COL,hypothesis=COL`` -> mapping (fields not named read their own column)."""
    mapping = {"reference": "reference", "hypothesis": "hypothesis"}
    for item in filter(None, (text or "").split(",")):
        field, equals, column = (part.strip() for part in item.partition("="))
        if not equals or field not in mapping or not column:
            raise HallubenchError(f"--source-columns: {item.strip()!r} is not reference=COLUMN or hypothesis=COLUMN")
        mapping[field] = column
    return mapping


def read_table(location: str, revision: str | None = None) -> datasets.Dataset:
    """A JSON-lines/JSON-array/parquet/CSV file, a ``save_to_disk`` folder or a Hub id (``test`` split, else the
    first split)."""
    from hallubench.sources.json_records import read_json_records

    path = Path(location).expanduser()
    try:
        if path.is_file() and path.suffix in (".json", ".jsonl"):
            return datasets.Dataset.from_list(read_json_records(path))
        if path.is_file() and path.suffix in (".parquet", ".csv"):
            return datasets.load_dataset(path.suffix[1:], data_files=str(path), split="train")
        if path.is_dir():
            loaded = datasets.load_from_disk(str(path))
        elif location.count("/") == 1 and not location.startswith((".", "/", "~")):
            loaded = datasets.load_dataset(location, revision=revision)
        else:
            raise HallubenchError(f"--source {location}: no such file, folder or Hub id")
    except HallubenchError:
        raise
    except Exception as exc:  # datasets raises many types for unreadable sources
        raise HallubenchError(f"--source {location}: cannot load ({type(exc).__name__}: {exc})") from exc
    if isinstance(loaded, datasets.DatasetDict):
        loaded = loaded["test"] if "test" in loaded else loaded[next(iter(loaded))]
    return loaded


def read_pairs(location: str, columns: str | None, revision: str | None = None) -> list[Pair]:
    """Gold pairs with non-empty reference and hypothesis, in source order (index = source row)."""
    mapping = parse_columns(columns)
    table = read_table(location, revision)
    missing = [f"{field}={col}" for field, col in mapping.items() if col not in table.column_names]
    if missing:
        raise HallubenchError(f"--source {location} lacks {missing} (columns: {', '.join(table.column_names)}); "
                              "map them with --source-columns reference=COL,hypothesis=COL")
    pairs = []
    for index, row in enumerate(table.select_columns(list(dict.fromkeys(mapping.values())))):
        reference, hypothesis = (str(row[mapping[f]] or "").strip() for f in ("reference", "hypothesis"))
        if reference and hypothesis:
            pairs.append(Pair(index, reference, hypothesis, split_sentences(hypothesis)))
    if not pairs:
        raise HallubenchError(f"--source {location}: no pair with both a reference and a hypothesis")
    return pairs


# ---------------------------------------------------------------- rewrites

class Rewriter:
    """Hallucinated rewrites of sentences, by LLM or by rules, made once per (pair, sentence, kind)."""

    def __init__(self, mode: str, seed: int, pairs: list[Pair], client: ModelClient | None = None,
                 outside: list[str] | None = None):
        self.mode, self.seed, self.client = mode, seed, client
        self.done: dict[tuple[int, int, str], Rewrite | None] = {}
        self.documents = {p.index: p.reference for p in pairs}
        self._outside = outside
        self._pool: list[tuple[str, str]] | None = None

    def prepare(self, keys: list[tuple[Pair, int, str]]) -> None:
        """Rewrite every (pair, sentence index, kind) not done yet (LLM calls batched)."""
        todo = list({(p.index, i, k): (p, i, k) for p, i, k in keys if (p.index, i, k) not in self.done}.values())
        if self.mode == "llm":
            requests = [rewrite_request(p.sentences[i], k) for p, i, k in todo]
            replies = self.client.complete_or_raise(requests, desc="faithfulness rewrites") if todo else []
            for (p, i, k), reply in zip(todo, replies):
                text = clean_rewrite(reply, p.sentences[i])
                self.done[(p.index, i, k)] = Rewrite(text, "llm", "") if text else None
            return
        for p, i, k in todo:
            self.done[(p.index, i, k)] = self._rule(p, i, k)

    def get(self, pair: Pair, index: int, kind: str) -> Rewrite | None:
        return self.done[(pair.index, index, kind)]

    def _rule(self, pair: Pair, index: int, kind: str) -> Rewrite | None:
        rng = seeded_rng(self.seed, "rewrite", pair.index, index, kind)
        sentence = pair.sentences[index]
        if kind == "intrinsic":
            return intrinsic_rewrite(sentence, rng, pair.reference, self.entity_pool())
        donors = self.outside_sentences(pair.index)
        return extrinsic_rewrite(sentence, rng.choice(donors)) if donors else None

    def entity_pool(self) -> list[tuple[str, str]]:
        """(text, label) of the named entities of a seeded sample of 50 source documents (fallback
        replacements when a document has no other entity of the same type)."""
        if self._pool is None:
            docs = sorted(self.documents.items())
            sample = seeded_rng(self.seed, "entity-pool").sample(docs, min(50, len(docs)))
            self._pool = sorted({(t, lab) for _, doc in sample for t, lab, *_ in entities(doc[:2000])})
        return self._pool

    def outside_sentences(self, index: int) -> list[str]:
        """Donor sentences of a document unrelated to pair ``index``: one seeded other document of the source
        (or of ``--outside``) that shares no named entity with the pair's reference."""
        documents = self._outside or [doc for i, doc in sorted(self.documents.items()) if i != index]
        if not documents:
            return []
        rng = seeded_rng(self.seed, "outside", index)
        own = {t for t, *_ in entities(self.documents[index][:2000])}
        for document in rng.sample(documents, min(10, len(documents))):
            donors = donor_sentences(split_sentences(document))
            if donors and not any(name in document for name in own):
                return donors
        return []


# ---------------------------------------------------------------- rows

def _row(pair: Pair, kind: str, hypothesis: str, share: float, sentence_index: int, changed: list[int],
         rewrite: str, progression: str = "none", provenance: str = "") -> dict[str, Any]:
    suffix = f"-s{sentence_index}" if sentence_index >= 0 else ""
    ident = f"{pair.index}-{kind}{suffix}" + (f"-{progression}-{len(changed)}" if kind == "progression" else "")
    return {"id": ident, "reference": pair.reference, "hypothesis": hypothesis, "type": kind,
            "hallucinated_share": share, "expected_score": expected_score(share), "progression_kind": progression,
            "source_index": pair.index, "sentence_index": sentence_index, "hallucinated_sentences": changed,
            "rewrite": rewrite, "provenance": provenance}


def sentence_rows(pairs: list[Pair], rewriter: Rewriter, provenance: str) -> list[dict[str, Any]]:
    """gold_full, gold_sentence, intrinsic and extrinsic rows (a sentence whose rewrite failed has no
    hallucinated row)."""
    rewriter.prepare([(p, i, k) for p in pairs for i in range(len(p.sentences)) for k in KINDS])
    rows = []
    for pair in pairs:
        rows.append(_row(pair, "gold_full", pair.hypothesis, 0.0, -1, [], "", provenance=provenance))
        for i, sentence in enumerate(pair.sentences):
            rows.append(_row(pair, "gold_sentence", sentence, 0.0, i, [], "", provenance=provenance))
            for kind in KINDS:
                rewrite = rewriter.get(pair, i, kind)
                if rewrite is not None:
                    rows.append(_row(pair, kind, rewrite.text, 1.0, i, [i], f"{rewrite.kind} {rewrite.change}".strip(),
                                     provenance=provenance))
    return rows


def progression_rows(pairs: list[Pair], rewriter: Rewriter, seed: int, provenance: str) -> list[dict[str, Any]]:
    """For each 5-sentence pair whose 5 sentences all have a rewrite of the kind: k = 0..5 sentences swapped,
    the first k of a seeded permutation (nested: each step adds one hallucinated sentence)."""
    eligible = [p for p in pairs if len(p.sentences) == STEPS]
    rewriter.prepare([(p, i, k) for p in eligible for i in range(STEPS) for k in KINDS])
    rows = []
    for pair in eligible:
        for kind in KINDS:
            rewrites = [rewriter.get(pair, i, kind) for i in range(STEPS)]
            if any(r is None for r in rewrites):
                continue
            order = seeded_rng(seed, "progression", pair.index, kind).sample(range(STEPS), STEPS)
            for k in range(STEPS + 1):
                changed = sorted(order[:k])
                text = " ".join(rewrites[i].text if i in changed else s for i, s in enumerate(pair.sentences))
                rows.append(_row(pair, "progression", text, k / STEPS, -1, changed,
                                 "; ".join(rewrites[i].kind for i in changed), kind, provenance))
    return rows


# ---------------------------------------------------------------- CLI

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True,
                        help="gold pairs: .jsonl/.json/.parquet/.csv file, save_to_disk folder or Hub id")
    parser.add_argument("--source-columns", metavar="reference=COL,hypothesis=COL",
                        help="source columns of the reference and the hypothesis, e.g. "
                             "reference=document,hypothesis=right_summary for HaluEval summarization")
    parser.add_argument("--source-revision", help="Hub revision of --source")
    parser.add_argument("--n", type=int, required=True, help="source pairs for the four sentence-level types")
    parser.add_argument("--progression-n", type=int, default=None,
                        help="5-sentence source pairs for the progression set (default: --n; 0: none)")
    parser.add_argument("--perturbation", choices=PERTURBATIONS, default="llm",
                        help="llm: the paper's rewrite prompts sent to --generator (default); rules: offline rules")
    parser.add_argument("--generator", default=None, help="backend spec of the rewriting model (--perturbation llm)")
    parser.add_argument("--outside", help="file or dataset of unrelated documents for rule-based extrinsic clauses "
                                          "(default: other documents of --source)")
    parser.add_argument("--outside-column", default="source", help="column of --outside holding the text")
    parser.add_argument("--license", default="mit", help="license of the output (the source's own)")


def choose(pool: list[Pair], n: int, seed: int, part: str) -> list[Pair]:
    """A seeded choice of up to ``n`` pairs of ``pool``, in source order."""
    return sorted(seeded_rng(seed, part).sample(pool, min(n, len(pool))), key=lambda p: p.index)


def run(args: argparse.Namespace, clients: Any = None) -> tuple[list[dict[str, Any]], CardInfo]:
    if args.n < 1:
        raise HallubenchError("--n must be at least 1")
    if args.perturbation == "llm" and not args.generator:
        raise HallubenchError("--perturbation llm needs --generator SPEC (or use --perturbation rules offline)")
    pairs = read_pairs(args.source, args.source_columns, args.source_revision)
    chosen = choose(pairs, args.n, args.seed, "pairs")
    taken = {p.index for p in chosen}
    five = [p for p in pairs if len(p.sentences) == STEPS and p.index not in taken]
    progression = choose(five, args.n if args.progression_n is None else args.progression_n, args.seed, "progression")
    outside = None
    if args.outside:
        table = read_table(args.outside)
        if args.outside_column not in table.column_names:
            raise HallubenchError(f"--outside {args.outside} has no column {args.outside_column!r}")
        outside = [str(t) for t in table[args.outside_column] if t]
    client = clients if args.perturbation == "llm" else None
    if args.perturbation == "llm" and client is None:
        raise HallubenchError("--perturbation llm needs --generator SPEC (or use --perturbation rules offline)")
    try:
        rewriter = Rewriter(args.perturbation, args.seed, pairs, client, outside)
        provenance = f"perturbation={args.perturbation}" + (f",generator={client.public_spec}" if client else "")
        rows = sentence_rows(chosen, rewriter, provenance) + progression_rows(progression, rewriter, args.seed,
                                                                              provenance)
    finally:
        if client is not None:
            client.report()
    return rows, card_for(rows, args, client.public_spec if client else None)


def card_for(rows: list[dict[str, Any]], args: argparse.Namespace, generator: str | None) -> CardInfo:
    counts = Counter(r["type"] for r in rows)
    progression = Counter((r["progression_kind"], r["hallucinated_share"]) for r in rows if r["type"] == "progression")
    rules = Counter(part.split()[0] for r in rows for part in r["rewrite"].split("; ") if part)
    method = (f"LLM rewrites by `{generator}` (greedy, prompts in generators/faithfulness.py after the paper's Table 7)"
              if generator else "RULE-BASED rewrites (offline stand-in for the paper's LLM rewrites; "
              "generators/faithfulness_rules.py): intrinsic = one number, month/weekday, named entity or negation "
              "changed; extrinsic = one sentence of an unrelated document appended as a clause")
    source = args.source + (f" (columns: {args.source_columns})" if args.source_columns else "")
    return CardInfo(
        pretty_name="Faithfulness scoring pairs (On A Scale From 1 to 5)",
        license=args.license,
        task_categories=["text-classification"],
        summary="(reference, hypothesis) pairs with expected 1-5 faithfulness scores for benchmarking faithfulness "
                "scorers after Jing et al., \"On A Scale From 1 to 5\" (2025), section 3.1.",
        sections={
            "Generation": f"- source: {source}\n- pairs: {args.n} (progression: "
                          f"{args.n if args.progression_n is None else args.progression_n} requested)\n"
                          f"- seed: {args.seed}\n- rewrites: {method}\n- date: {generation_date()}",
            "Rows": "\n".join(f"- {t}: {counts.get(t, 0)}" for t in TYPES) + "\n- progression (kind, share): "
                    + ", ".join(f"{k} {s:.1f}: {n}" for (k, s), n in sorted(progression.items())),
            "Rewrites applied": ", ".join(f"{k} {n}" for k, n in sorted(rules.items())) or "none",
            "Columns": "`id`, `reference`, `hypothesis`, `type`, `hallucinated_share` (share of hallucinated "
                       "sentences), `expected_score` (5 gold, 1 hallucinated, 5 - 4 x share on the progression "
                       "set), `progression_kind`, `source_index`, `sentence_index`, `hallucinated_sentences`, "
                       "`rewrite` (rule and change per hallucinated sentence), `provenance`.",
        },
    )

