"""The faithfulness generator (Jing et al., section 3.1): rule-based rewrites make exactly one change, the
progression set swaps k of exactly 5 sentences under the seed, and whole sets from the offline HaluEval
summaries are deterministic; LLM rewrites go through the paper's template to a loopback model."""

from __future__ import annotations

import argparse
import difflib
import json
import random
from pathlib import Path

import pytest

from hallu_metrics.benchmarks.faithfulness import STEPS
from hallu_metrics.longform.sentences import split_sentences
from hallubench.core.errors import HallubenchError
from hallubench_generators import faithfulness
from hallubench_generators.cli import open_clients
from hallubench_generators.faithfulness.rules import change_number, extrinsic_rewrite, flip_negation, intrinsic_rewrite

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HALUEVAL = SHARED_DATA / "halueval_full" / "summarization_data.json"
needs_halueval = pytest.mark.skipif(not HALUEVAL.is_file(), reason="../shared/data/halueval_full is not present")


def changed_spans(old: str, new: str) -> list[tuple[str, str]]:
    """The word-level edits turning ``old`` into ``new``."""
    a, b = old.split(), new.split()
    return [(" ".join(a[i1:i2]), " ".join(b[j1:j2]))
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b).get_opcodes() if tag != "equal"]


def test_a_number_is_changed_and_nothing_else():
    """One number of the sentence becomes a different number; thousands separators stay; one edit only."""
    sentence = "The hotel charged 1,078 dollars for 3 nights in 2019."
    for seed in range(20):
        rewrite = change_number(sentence, random.Random(seed))
        (old, new), = changed_spans(sentence, rewrite.text)
        old, new = old.rstrip("."), new.rstrip(".")
        assert old != new and rewrite.kind == "number" and new.replace(",", "").isdigit()
        assert ("," in new) == ("," in old and int(new.replace(",", "")) >= 1000)


def test_a_negation_is_inserted_or_removed():
    """Without a negation "not" goes after an auxiliary; with one, the negation is removed ("wasn't" -> "was")."""
    inserted = flip_negation("The agency does offer an installment plan.", random.Random(0))
    assert inserted.text == "The agency does not offer an installment plan."
    removed = flip_negation("The charge wasn't dropped automatically.", random.Random(0))
    assert removed.text == "The charge was dropped automatically."
    assert flip_negation("The charge will not be dropped.", random.Random(0)).text == "The charge will be dropped."
    assert flip_negation("Blue sky above.", random.Random(0)) is None


def test_intrinsic_rewrite_makes_exactly_one_change_per_sentence():
    """Whatever rule the seed picks (number, month, entity, negation), the rewrite differs from the sentence in
    exactly one contiguous edit."""
    document = "Maria Lopez met Peter Smith in Madrid on Monday. They signed 4 contracts in March."
    sentence = "Maria Lopez signed 4 contracts in Madrid in March."
    kinds = set()
    for seed in range(30):
        rewrite = intrinsic_rewrite(sentence, random.Random(seed), document)
        assert rewrite is not None and len(changed_spans(sentence, rewrite.text)) == 1
        kinds.add(rewrite.kind)
    assert {"number", "date", "entity"} <= kinds


def test_extrinsic_rewrite_appends_one_outside_clause():
    """The sentence is kept word for word and the donor sentence is appended after a semicolon."""
    rewrite = extrinsic_rewrite("The pool was cold.", "The Roman baths were a hub of social life.")
    assert rewrite.text == "The pool was cold; the Roman baths were a hub of social life."
    assert rewrite.text.startswith("The pool was cold") and len(changed_spans("The pool was cold.", rewrite.text)) == 1


def _pairs(n: int) -> list[faithfulness.Pair]:
    pairs = []
    for i, place in enumerate(("bakery", "harbour", "library", "orchard")[:n]):
        sentences = [f"The {place} was busy on day {j + 1} with {j + 2} visitors waiting outside." for j in range(5)]
        reference = f"Notes about the {place}. " + " ".join(sentences)
        pairs.append(faithfulness.Pair(i, reference, " ".join(sentences), sentences))
    return pairs


def test_progression_swaps_k_of_five_sentences_nested_and_seeded():
    """Each 5-sentence pair gives, per kind, k = 0..5 rows with exactly k sentences rewritten (share k/5,
    expected 5 - 4k/5); the swapped sets are nested and differ between seeds but not between runs."""
    pairs = _pairs(3)

    def build(seed: int) -> list[dict]:
        rewriter = faithfulness.Rewriter("rules", seed, pairs)
        return faithfulness.progression_rows(pairs, rewriter, seed, "perturbation=rules")

    rows = build(0)
    assert len(rows) == 3 * 2 * 6 and rows == build(0)
    for pair in pairs:
        for kind in ("intrinsic", "extrinsic"):
            steps = [r for r in rows if r["source_index"] == pair.index and r["progression_kind"] == kind]
            assert [len(r["hallucinated_sentences"]) for r in steps] == [0, 1, 2, 3, 4, 5]
            assert [r["hallucinated_share"] for r in steps] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
            assert [r["expected_score"] for r in steps] == pytest.approx([5, 4.2, 3.4, 2.6, 1.8, 1])
            assert steps[0]["hypothesis"] == pair.hypothesis
            for before, after in zip(steps, steps[1:]):
                assert set(before["hallucinated_sentences"]) < set(after["hallucinated_sentences"])
            for step in steps:
                kept = [s for i, s in enumerate(pair.sentences) if i not in step["hallucinated_sentences"]]
                assert all(s in step["hypothesis"] for s in kept)
    orders = {seed: [tuple(r["hallucinated_sentences"]) for r in build(seed)] for seed in range(4)}
    assert len(set(map(tuple, orders.values()))) > 1


def run(args):
    """The generator as `hallubench generate` runs it: its client opened by the CLI's open_clients."""
    return faithfulness.run(args, open_clients(faithfulness, args))


@pytest.fixture(scope="module")
def halueval_summaries(tmp_path_factory) -> Path:
    """An excerpt of the HaluEval summarization file, in its format: its first 15 records and the first 5 whose right
    summary has exactly five sentences (the progression set's pairs). The generator reads and splits every row of
    its source and runs spaCy over up to 50 of its documents: the whole file costs about 20 s a run."""
    lines = HALUEVAL.read_text(encoding="utf-8").splitlines()
    five = []
    for line in lines[15:]:
        summary = json.loads(line)["right_summary"].strip()
        if summary.count(".") >= STEPS - 1 and len(split_sentences(summary)) == STEPS:  # split only likely ones
            five.append(line)
            if len(five) == 5:
                break
    path = tmp_path_factory.mktemp("halueval") / "summarization_data.json"
    path.write_text("\n".join(lines[:15] + five) + "\n", encoding="utf-8")
    return path


def _args(source: Path, **extra) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    faithfulness.add_arguments(parser)
    base = ["--source", str(source), "--source-columns", "reference=document,hypothesis=right_summary",
            "--n", "3", "--progression-n", "1", "--perturbation", "rules"]
    args = parser.parse_args(base + [item for k, v in extra.items() for item in (f"--{k.replace('_', '-')}", v)])
    args.seed, args.cache = 0, None
    return args


@needs_halueval
def test_rules_set_from_halueval_summaries_is_complete_and_deterministic(halueval_summaries):
    """Every type is present, gold rows expect 5 and hallucinated ones 1, every sentence row is judged against the
    whole document, the card names the rule-based mode, and the same seed gives the same rows."""
    rows, card = run(_args(halueval_summaries))
    types = {r["type"] for r in rows}
    assert types == {"gold_full", "gold_sentence", "intrinsic", "extrinsic", "progression"}
    for row in rows:
        if row["type"] in ("gold_full", "gold_sentence"):
            assert row["expected_score"] == 5 and row["hallucinated_share"] == 0 and row["rewrite"] == ""
        elif row["type"] in ("intrinsic", "extrinsic"):
            assert row["expected_score"] == 1 and row["hallucinated_share"] == 1 and row["rewrite"]
    gold = {(r["source_index"], r["sentence_index"]): r for r in rows if r["type"] == "gold_sentence"}
    for row in (r for r in rows if r["type"] == "intrinsic"):
        assert gold[(row["source_index"], row["sentence_index"])]["reference"] == row["reference"]
    assert "RULE-BASED" in card.sections["Generation"]
    assert rows == run(_args(halueval_summaries))[0]
    assert set(faithfulness.FEATURES) >= set(rows[0])


@needs_halueval
def test_missing_source_columns_and_llm_without_generator_are_one_line_errors(halueval_summaries):
    """A source without the mapped columns names its columns; LLM rewrites need a generator spec."""
    with pytest.raises(HallubenchError, match="lacks"):
        run(_args(halueval_summaries, source_columns="reference=nope,hypothesis=right_summary"))
    with pytest.raises(HallubenchError, match="--generator"):
        run(_args(halueval_summaries, perturbation="llm"))


def labelled_rewrite(messages: list[dict]) -> str:
    """The sentence with "(changed)", after a REWRITE: label, then an extra line."""
    text = messages[-1]["content"]
    sentence = text.split("SENTENCE:\n", 1)[1].split("\n=====", 1)[0]
    return f"REWRITE: {sentence[:-1]} (changed).\nextra line"


def test_llm_rewrites_use_the_template_and_keep_the_reply(tmp_path, loopback_servers):
    """With --perturbation llm each sentence is sent in the Table 7 template (instruction, SENTENCE between
    ===== markers, REWRITE:) greedily; the reply's first line, without a REWRITE: label, is the rewrite."""
    source = tmp_path / "pairs.jsonl"
    source.write_text('{"reference": "The council met 5 times in May.", "hypothesis": "The council met 5 times."}\n'
                      '{"reference": "Rain fell on Paris all week.", "hypothesis": "It rained in Paris."}\n')

    server = loopback_servers.chat(labelled_rewrite)
    parser = argparse.ArgumentParser()
    faithfulness.add_arguments(parser)
    args = parser.parse_args(["--source", str(source), "--n", "2", "--generator",
                              f"openai:base_url={server.base_url},model=m", "--progression-n", "0"])
    args.seed, args.cache = 0, tmp_path / "cache.sqlite"
    rows, card = run(args)
    prompts = [r["messages"][-1]["content"] for r in server.requests]
    temperatures = {r.get("temperature") for r in server.requests}
    assert len(prompts) == 4 and all("=====\nSENTENCE:\n" in p and p.endswith("REWRITE:") for p in prompts)
    assert temperatures == {0.0}
    intrinsic = [r for r in rows if r["type"] == "intrinsic"]
    assert {r["hypothesis"] for r in intrinsic} == {"The council met 5 times (changed).",
                                                    "It rained in Paris (changed)."}
    assert "LLM rewrites" in card.sections["Generation"]


VECTARA = SHARED_DATA / "vectara_leaderboard" / "source_documents.jsonl"


@needs_halueval
@pytest.mark.skipif(not VECTARA.is_file(), reason="../shared/data/vectara_leaderboard is not present")
def test_outside_documents_supply_the_extrinsic_clauses(halueval_summaries):
    """With --outside (the Vectara leaderboard's documents, column `source`), every appended extrinsic clause is
    a sentence of one of those documents, not of the HaluEval source."""
    rows, _ = run(_args(halueval_summaries, outside=str(VECTARA), progression_n="0"))
    outside = VECTARA.read_text(encoding="utf-8")
    extrinsic = [r for r in rows if r["type"] == "extrinsic"]
    assert extrinsic
    for row in extrinsic:
        clause = row["rewrite"].split("+ ", 1)[1].strip("'\"")
        assert clause[1:30] in outside
