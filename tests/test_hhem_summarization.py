"""HHEM leaderboard summarization: validity (5 words, refusals), the leaderboard's metrics on hand-built records,
loaders (the shared leaderboard documents, a leaderboard summaries CSV, a folder), the offline failure without HHEM
weights, scoring through a tiny random HHEM-2.1 stand-in (explicit spec and the default role), the rubric judge,
lm-eval YAML loading and the evaluate module."""

from __future__ import annotations

import asyncio
import csv
import json
import re

import datasets
import pytest
from conftest import SHARED_DATA
from support import evaluate_module, task_manager

from hallu_metrics.benchmarks import hhem_summarization as hs
from hallu_metrics.judges import JudgeSet, Verdict
from hallu_metrics.scorers import make_classifier_scorer
from hallu_metrics.scorers.stand_ins import write_hhem_2_1
from hallubench.core.errors import HallubenchError
from hallubench_tasks.dataset_loading import load
from hallubench_tasks.judged_task import JudgeFilter

VECTARA = SHARED_DATA / "vectara_leaderboard"
DOCUMENTS = VECTARA / "source_documents.jsonl"
needs_vectara = pytest.mark.skipif(not DOCUMENTS.is_file(), reason="../shared/data/vectara_leaderboard is absent")


@pytest.mark.parametrize("summary, valid", [
    ("The club lost the final.", True),  # 5 words
    ("The club lost again", False),  # 4 words
    ("", False),
    ("I'm sorry, but I cannot summarize this article for you.", False),
    ("I cannot provide a summary of this passage.", False),
    ("As an AI language model I will not do that.", False),
    ("Sorry state of the club: it lost the final.", False),  # leading "sorry" reads as a refusal (documented)
    ("Merson said he was sorry and that he cannot judge players.", True),  # refusal words not at the start
])
def test_valid_summary_rule(summary, valid):
    """At least 5 whitespace words (the leaderboard's rule), and not a refusal (a reply opening by declining)."""
    assert hs.is_valid_summary(summary) is valid


def test_leaderboard_metrics_on_hand_built_records():
    """Scores 0.9, 0.49, 0.5, unscored, plus one invalid reply: 0.49 is the only hallucination (0.5 is not below the
    threshold), so hallucination_rate = 1/3 of the scored valid summaries, factual consistency 2/3, answer rate
    4/5, average length over the 4 valid summaries, judge_unparseable_rate 1/5."""
    texts = ["one two three four five", "a b c d e f", "a b c d e f g", "w o r d s s s s", "too short"]
    records = [hs.summary_record(t, s) for t, s in zip(texts, [0.9, 0.49, 0.5, None, 0.1])]
    assert [r["outcome"] for r in records] == ["consistent", "hallucinated", "consistent", "unscored", "invalid"]
    result = hs.BENCHMARK.summarize(records, [{}] * 5)
    assert result["hallucination_rate"] == pytest.approx(1 / 3)
    assert result["factual_consistency_rate"] == pytest.approx(2 / 3)
    assert result["answer_rate"] == pytest.approx(4 / 5)
    assert result["average_summary_length"] == pytest.approx((5 + 6 + 7 + 8) / 4)
    assert result["judge_unparseable_rate"] == pytest.approx(1 / 5)
    assert result["counted"]["hallucination_rate"] == 3 and result["counted"]["average_summary_length"] == 4


def test_conditional_rates_are_none_without_valid_summaries():
    """When every reply is invalid the conditional rates have no denominator (None), the answer rate is 0."""
    records = [hs.summary_record("", None), hs.summary_record("no", 0.9)]
    per_sample = [hs.sample_metrics(r) for r in records]
    assert all(p["hallucination_rate"] is None and p["average_summary_length"] is None for p in per_sample)
    assert hs.BENCHMARK.summarize(records, [{}] * 2)["answer_rate"] == 0.0


@needs_vectara
def test_shared_leaderboard_documents_load_as_docs():
    """The shared file (1,006 leaderboard documents) loads through the one loader: ids kept, the prompt ends with
    the document after the instruction; with judge none no scorer is needed."""
    docs = load(hs.NAME, dataset=str(DOCUMENTS), judge="none")["test"]
    assert len(docs) == 1006 and docs[0]["id"] == "0"
    assert docs[0]["prompt"].endswith(docs[0]["source"]) and "concise summary" in docs[0]["prompt"]


def test_leaderboard_csv_is_deduplicated_in_file_order(tmp_path):
    """A leaderboard summaries file (one row per model and document) gives each document once, in first-seen order,
    read as a .csv file and as a folder holding leaderboard_summaries.csv."""
    path = tmp_path / hs.LEADERBOARD_FILE
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["source", "summary", "model"])
        writer.writeheader()
        for model in ("m1", "m2"):
            for source in ("Doc B text.", "Doc A text."):
                writer.writerow({"source": source, "summary": f"{model} summary", "model": model})
    for location in (path, tmp_path):
        docs = load(hs.NAME, dataset=str(location), judge="none")["test"]
        assert docs["source"] == ["Doc B text.", "Doc A text."]


def test_folder_without_leaderboard_files_is_a_one_line_error(tmp_path):
    with pytest.raises(HallubenchError, match="holds neither leaderboard_summaries.csv nor source_documents.jsonl"):
        hs.read_official(str(tmp_path))


@pytest.mark.skipif(hs.default_scorer_available(), reason="HHEM-2.1-Open is cached here")
def test_no_judge_and_no_hhem_weights_fails_before_the_model_runs(tmp_path):
    """Offline without HHEM-2.1-Open in the cache, the default (no judge given) fails while the task's data loads,
    in one line naming the model and the way out; it never scores with anything else."""
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": 1, "source": "A document."}) + "\n", encoding="utf-8")
    with pytest.raises(HallubenchError, match=r"HHEM-2.1-Open \(vectara/hallucination_evaluation_model\) is not in"):
        load(hs.NAME, dataset=str(data))
    with pytest.raises(HallubenchError, match="has no rule judge"):
        hs.CONSISTENCY.rule({})


# ---------------------------------------------------------------- scoring with a tiny HHEM-2.1 stand-in

DOCS = [{"id": "0", "source": "The council voted on Tuesday to close the library in March after a budget gap."},
        {"id": "1", "source": "Townsend scored for England against Italy in Turin on Tuesday night."}]
REPLIES = ["The council voted to close the library in March.", "Townsend scored.",
           "Townsend scored for England against Italy in Turin."]


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    words = sorted({w for text in [d["source"] for d in DOCS] + REPLIES for w in re.findall(r"\w+|[^\w\s]", text)})
    hhem, foundation = write_hhem_2_1(tmp_path_factory.mktemp("hhem"), words)
    return f"hhem:model={hhem},kind=hhem-2.1,foundation={foundation},device=cpu,window=truncate,max_length=2048"


def _expected(spec: str, pairs: list[tuple[str, str]]) -> list[float]:
    args = dict(part.split("=", 1) for part in spec.removeprefix("hhem:").split(","))
    return make_classifier_scorer(args).score(pairs)


def test_scoring_through_the_real_loader_with_an_explicit_spec(stand_in):
    """The judging filter with a classifier spec: the invalid 2-word reply is not scored, the valid ones carry the
    scorer's own P(consistent) for (document, summary) and the outcome follows the 0.5 threshold."""
    docs = [DOCS[0], DOCS[1], DOCS[1]]
    records = [json.loads(r) for r in JudgeFilter(hs.BENCHMARK, {"judge": stand_in}, hs.NAME).apply(REPLIES, docs)]
    expected = _expected(stand_in, [(DOCS[0]["source"], REPLIES[0]), (DOCS[1]["source"], REPLIES[2])])
    assert records[1]["outcome"] == "invalid" and records[1]["score"] is None
    for record, score in zip((records[0], records[2]), expected):
        assert record["score"] == pytest.approx(score, abs=1e-5)
        assert record["outcome"] == ("hallucinated" if score < 0.5 else "consistent")


def test_no_judge_given_means_the_default_scorer(stand_in, monkeypatch):
    """With no judge given, the task's default judge is the HHEM-2.1-Open spec (not the embedded rule judge), and
    the results metadata names it; with the default spec pointing at the stand-in, scores equal the explicit run's."""
    from hallubench_tasks.judged_task import judge_specs

    assert hs.BENCHMARK.default_judge == hs.DEFAULT_SCORER_SPEC
    specs = judge_specs(hs.BENCHMARK, {}, hs.NAME)
    assert specs == {"judge": hs.DEFAULT_SCORER_SPEC}
    judges = JudgeSet({"judge": stand_in})
    try:
        record = asyncio.run(hs.judge_item(DOCS[0], REPLIES[0], judges))
        assert [spec.split(":")[0] for spec in judges.report()] == ["hhem"]
    finally:
        judges.close()
    assert record["score"] == pytest.approx(_expected(stand_in, [(DOCS[0]["source"], REPLIES[0])])[0], abs=1e-5)


class ScriptedRubricJudge:
    """An LLM-like judge answering the rubric with a fixed 1-5 score."""

    spec = "openai:model=scripted"

    def __init__(self, score: int):
        self.score, self.checks = score, []

    async def ask(self, check, item):
        self.checks.append((check.name, item["reference"], item["hypothesis"]))
        return Verdict(self.score, "ok", str(self.score))

    def report(self):
        return {"calls": len(self.checks), "cached": 0, "failed": 0}

    def close(self):
        pass


@pytest.mark.parametrize("score, outcome", [(2, "hallucinated"), (3, "consistent")])
def test_llm_judge_answers_the_faithfulness_rubric(score, outcome):
    """An LLM judge is asked the 1-5 faithfulness rubric on (document, summary); (score - 1) / 4 < 0.5 means
    hallucinated, so 2 (a misleading error) is hallucinated and 3 is not."""
    judges = JudgeSet({"judge": "openai:model=scripted"})
    judge = judges.use("openai:model=scripted", ScriptedRubricJudge(score))
    record = asyncio.run(hs.judge_item(DOCS[0], REPLIES[0], judges))
    assert judge.checks == [("faithfulness", DOCS[0]["source"], REPLIES[0])]
    assert record["score"] == pytest.approx((score - 1) / 4) and record["outcome"] == outcome


@needs_vectara
def test_yaml_task_loads_with_greedy_decoding():
    """The YAML builds in lm-eval's TaskManager: the prompt is the text, temperature 0, 512 new tokens."""
    manager = task_manager({"dataset": str(DOCUMENTS), "judge": "none"})
    task = manager.load([hs.NAME])["tasks"][hs.NAME]
    doc = next(iter(task.test_docs()))
    assert task.doc_to_text(doc) == doc["prompt"]
    generation = task.config.generation_kwargs
    assert generation["temperature"] == 0.0 and generation["do_sample"] is False and generation["max_gen_toks"] == 512


@needs_vectara
def test_deepseek_r1_summaries_answer_rate_and_length():
    """The deepseek-r1 summaries shipped with the documents, read by the evaluate module without scores: every one
    is valid (answer rate 100 %, as published) and they average 79.3 words (published: 77.1, docs explain)."""
    rows = [json.loads(line) for line in DOCUMENTS.read_text(encoding="utf-8").splitlines()]
    summaries = [r["deepseek_r1_summary"] or "" for r in rows]
    result = evaluate_module(hs.NAME).compute(predictions=summaries, scores=[None] * len(summaries))
    assert result["answer_rate"] == 1.0 and result["average_summary_length"] == pytest.approx(79.33, abs=0.01)
    assert result["hallucination_rate"] is None and result["judge_unparseable_rate"] == 1.0


def test_hallubench_score_on_a_samples_file(stand_in, tmp_path):
    """`hallubench score` re-scores an lm-eval samples file with a classifier spec and writes the leaderboard rates:
    one of the three replies is invalid, so the answer rate is 2/3 and the length averages the two valid ones."""
    from hallubench.cli import main

    docs = hs.to_docs(datasets.Dataset.from_list([DOCS[0], DOCS[1], DOCS[1]]), {"judge": "none"}).to_list()
    docs.append({**docs[1], "id": "2"})
    samples = tmp_path / "samples_hhem_summarization.jsonl"
    samples.write_text("".join(json.dumps({"doc": d, "resps": [[r]]}) + "\n" for d, r in zip(docs, REPLIES)),
                       encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["score", "--task", hs.NAME, "--samples", str(samples), "--judge", stand_in, "--out", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["answer_rate"] == pytest.approx(2 / 3) and result["average_summary_length"] == pytest.approx(8.5)
    assert result["counts"]["invalid"] == 1 and result["counts"]["consistent"] + result["counts"]["hallucinated"] == 2


# ---------------------------------------------------------------- what the scorer sees of long documents

def test_coverage_counts_unseen_tokens_exactly():
    """Template of 3 tokens, max_length 128, overlap 32: a 300-token premise with a 20-token hypothesis leaves 105
    premise tokens per window. Truncation sees 105 of 300 (cut); sliding sees all 300 in 1 + ceil(195 / 73) = 4
    windows (not cut); a 200-token hypothesis keeps 128 - 3 - 64 = 61 tokens (cut) in either mode."""
    from hallu_metrics.scorers.windows import PairLayout, coverage

    layout = PairLayout(prefix=(1,), middle=(2,), suffix=(2,), prefix_types=(0,), middle_types=(0,),
                        suffix_types=(1,))
    truncated = coverage(300, 20, layout, 128, 32, sliding=False)
    assert (truncated.windows, truncated.premise_scored, truncated.cut) == (1, 105, True)
    windowed = coverage(300, 20, layout, 128, 32, sliding=True)
    assert (windowed.windows, windowed.premise_scored, windowed.cut) == (4, 300, False)
    long_summary = coverage(300, 200, layout, 128, 32, sliding=True)
    assert (long_summary.hypothesis_scored, long_summary.cut) == (61, True)
    assert coverage(50, 20, layout, 128, 32, sliding=False).to_dict() == {
        "windows": 1, "premise_tokens": 50, "premise_scored": 50, "hypothesis_tokens": 20, "hypothesis_scored": 20,
        "cut": False}


def _spec_args(spec: str, **changes: str) -> dict[str, str]:
    args = dict(part.split("=", 1) for part in spec.split(":", 1)[1].split(","))
    return {**args, **changes}


@needs_vectara
def test_default_scorer_sees_every_leaderboard_pair_whole(tmp_path):
    """The 1,006 leaderboard documents, each with its shipped deepseek-r1 summary, through the real HHEM-2.1 loading
    code with the default spec's windowing (sliding, max_length 4096) and a stand-in word-level tokenizer (one token
    per word or punctuation mark; flan-t5-base's tokenizer is not available offline): every pair is one whole window.
    The former default (truncate at 2048) cut 1 of them (the longest pair is 2,330 tokens), which docs report."""
    hhem, foundation = write_hhem_2_1(tmp_path, ["the"])
    rows = [json.loads(line) for line in DOCUMENTS.read_text(encoding="utf-8").splitlines()]
    pairs = [(r["source"], r["deepseek_r1_summary"] or "") for r in rows]
    local = {"model": str(hhem), "foundation": str(foundation), "device": "cpu"}
    default = make_classifier_scorer(_spec_args(hs.DEFAULT_SCORER_SPEC, **local))
    seen = default.coverage(pairs)
    assert not any(c.cut for c in seen) and all(c.windows == 1 for c in seen)
    longest = max(c.premise_tokens + c.hypothesis_tokens for c in seen) + default.layout.overhead
    assert longest == 2330
    former = make_classifier_scorer(_spec_args(hs.DEFAULT_SCORER_SPEC, **local, window="truncate", max_length="2048"))
    assert sum(c.cut for c in former.coverage(pairs)) == 1


@pytest.mark.parametrize("window, cut, windows", [("truncate", True, 1), ("sliding", False, 5)])
def test_a_cut_is_recorded_per_summary_and_counted_in_the_results(stand_in, window, cut, windows):
    """A 320-token document (a 16-token sentence 20 times) and a 10-token summary at max_length 128 (16 template
    tokens): 102 document tokens per window. Truncation cuts it (the record says so, scorer_cut_rate counts it, the
    results count it); the sliding window sees all of it in 1 + ceil(218 / 70) = 5 windows (no cut, counted as
    windowed). A short document is seen whole either way."""
    spec = stand_in.replace("window=truncate,max_length=2048", f"window={window},max_length=128")
    long_doc = {"id": "9", "source": " ".join([DOCS[0]["source"]] * 20)}
    judges = JudgeSet({"judge": spec})
    try:
        records = [asyncio.run(hs.judge_item(doc, REPLIES[0], judges)) for doc in (long_doc, DOCS[0])]
    finally:
        judges.close()
    long_input, short_input = records[0]["scorer_input"], records[1]["scorer_input"]
    assert long_input["cut"] is cut and long_input["windows"] == windows
    assert long_input["premise_tokens"] == 320 and long_input["premise_scored"] == (102 if cut else 320)
    assert short_input["cut"] is False and short_input["windows"] == 1
    assert [hs.sample_metrics(r)["scorer_cut_rate"] for r in records] == [float(cut), 0.0]
    result = hs.BENCHMARK.summarize(records, [long_doc, DOCS[0]])
    assert result["scorer_input"] == {"pairs": 2, "cut": int(cut), "windowed": int(not cut)}
    assert result["scorer_cut_rate"] == pytest.approx(0.5 if cut else 0.0)


def test_llm_judges_and_hand_built_records_have_no_scorer_input():
    """An LLM judge reads the whole pair itself: no scorer_input, scorer_cut_rate not counted (None)."""
    judges = JudgeSet({"judge": "openai:model=scripted"})
    judges.use("openai:model=scripted", ScriptedRubricJudge(4))
    record = asyncio.run(hs.judge_item(DOCS[0], REPLIES[0], judges))
    assert record["scorer_input"] is None and hs.sample_metrics(record)["scorer_cut_rate"] is None
    assert hs.sample_metrics(hs.summary_record(REPLIES[0], 0.9))["scorer_cut_rate"] is None
