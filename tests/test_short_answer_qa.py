"""SimpleQA and PopQA as hallucination proxies (HalluLens 5.2): the shared three-way grade, its strict parser (the
public grader's "(A|B|C)" bug), metric definitions and F-score on hand-built records, popularity bins, the rule
grader, loaders (tiny files and the shared SimpleQA CSV), lm-eval YAML loading, `hallubench score`, the evaluate
module and one slow lm_eval run with SmolLM2."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import datasets
import pytest
from support import task_manager, write_jsonl

from hallu_metrics import short_answer_qa as qa
from hallu_metrics.benchmarks import popqa, simpleqa
from hallu_metrics.judges import JudgeSet, Verdict
from hallu_metrics.pipeline import judge_responses
from hallubench.cli import main
from hallubench.core.errors import HallubenchError
from hallubench_tasks.dataset_loading import load

SHARED_CSV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "simpleqa" / "simple_qa_test_set.csv"
needs_shared_csv = pytest.mark.skipif(not SHARED_CSV.is_file(), reason="../shared/data/simpleqa is not present")
POPQA_ROWS = [
    {"id": 7, "question": "What is Vilnius the capital of?",
     "possible_answers": '["Lithuania", "Republic of Lithuania"]', "s_pop": 25000, "prop": "capital of",
     "subj": "Vilnius"},
    {"id": 8, "question": "Who was the director of Tiny Film?", "possible_answers": '["Ann Lee"]', "s_pop": 42,
     "prop": "director", "subj": "Tiny Film"},
    {"id": 9, "question": "What genre is Obscure Band?", "possible_answers": '["punk rock", "punk"]', "s_pop": 0,
     "prop": "genre", "subj": "Obscure Band"},
]


def summary(outcomes, benchmark=simpleqa.BENCHMARK, docs=None):
    return benchmark.summarize([{"outcome": o} for o in outcomes], docs or [{}] * len(outcomes))


# ---------------------------------------------------------------- grading

@pytest.mark.parametrize("reply, grade", [
    ("A", "CORRECT"), ("B", "INCORRECT"), ("C", "NOT_ATTEMPTED"), ("A: CORRECT", "CORRECT"),
    ("(B) INCORRECT", "INCORRECT"), ("The grade is NOT_ATTEMPTED.", "NOT_ATTEMPTED"),
    ("not attempted", "NOT_ATTEMPTED"), ("incorrect", "INCORRECT"),
    ("Correct answer: C", None),  # two different labels: the word CORRECT and the letter C
    ("Based on this, I would say it is a good answer.", None),  # capitals inside words and "a" are no grades
    ("A or B", None), ("The reply is not correct.", None), ("", None), ("Certainly", None),
])
def test_grade_parser_is_strict(reply, grade):
    """Whole-token capitals A/B/C or label words; none, several or a negated word is unparseable (None)."""
    assert qa.parse_grade(reply) == grade


def test_public_grader_regex_reads_capitals_inside_words():
    """The bug fixed: re.search("(A|B|C)") turns "Correct." into C and "Based on ... it is wrong" into B; the strict
    parser reads CORRECT from the first and nothing from the second."""
    assert re.search("(A|B|C)", "Correct.").group(0) == "C" and qa.parse_grade("Correct.") == "CORRECT"
    assert re.search("(A|B|C)", "Based on the gold answer it is wrong").group(0) == "B"
    assert qa.parse_grade("Based on the gold answer it is wrong") is None


def test_rates_and_f_score_follow_simpleqa_and_hallulens():
    """10 replies: 4 correct, 2 incorrect, 3 not attempted, 1 unjudged (9 graded). Hallucination = 2/6, false
    refusal = 3/9, correct = 4/9, accuracy given attempted = 4/6, F = harmonic mean(4/9, 2/3) = 8/15; simple-evals'
    not attempted (the unreadable grade read as C) = 4/10."""
    r = summary(["correct"] * 4 + ["incorrect"] * 2 + ["not_attempted"] * 3 + ["unjudged"])
    assert r["hallucination_rate"] == pytest.approx(2 / 6) and r["counted"]["hallucination_rate"] == 6
    assert r["false_refusal_rate"] == pytest.approx(3 / 9) and r["correct_rate"] == pytest.approx(4 / 9)
    assert r["counted"]["false_refusal_rate"] == r["counted"]["correct_rate"] == 9
    assert r["accuracy_given_attempted"] == pytest.approx(4 / 6)
    assert r["judge_unparseable_rate"] == pytest.approx(0.1)
    assert r["not_attempted_rate_reference"] == pytest.approx(0.4)
    assert r["f_score"] == pytest.approx(2 * (4 / 9) * (4 / 6) / (4 / 9 + 4 / 6)) == pytest.approx(8 / 15)
    assert r["counts"] == {"correct": 4, "incorrect": 2, "not_attempted": 3, "unjudged": 1}


def test_nothing_attempted_leaves_conditional_rates_and_f_score_undefined():
    """All refused: hallucination rate, accuracy given attempted and F-score are None, never 0; all wrong: F = 0."""
    r = summary(["not_attempted"] * 3)
    assert r["hallucination_rate"] is None and r["accuracy_given_attempted"] is None and r["f_score"] is None
    assert summary(["incorrect", "incorrect"])["f_score"] == 0.0


class ScriptedJudge:
    """A judge double answering from a table keyed on the reply, recording the items it was asked."""

    spec = "scripted"

    def __init__(self, verdicts):
        self.verdicts, self.asked = verdicts, []

    async def ask(self, check, item):
        self.asked.append(item)
        return self.verdicts[item["response"]]

    def report(self):
        return {}

    def close(self):
        pass


def test_chain_grades_each_reply_once_against_all_golds():
    """One grader call per reply with every gold answer; an unparseable grade becomes `unjudged`, raw kept."""
    judge = ScriptedJudge({"x": Verdict("CORRECT", "ok", "A"), "y": Verdict(None, "unparseable", "Correct answer: C")})
    judges = JudgeSet({"judge": "rule"})
    judges.use("rule", judge)
    doc = {"question": "q", "golds": ["Lithuania", "Republic of Lithuania"]}
    records = judge_responses(popqa.BENCHMARK, ["x", "y"], [doc, doc], judges)
    assert [r["outcome"] for r in records] == ["correct", "unjudged"]
    assert records[1]["grade"]["raw"] == "Correct answer: C"
    assert [item["golds"] for item in judge.asked] == [doc["golds"]] * 2


def test_rule_grader_abstains_matches_any_gold_or_calls_it_incorrect():
    """Rule: PreciseWikiQA abstention -> not attempted; any gold answer in the reply -> correct; else incorrect."""
    doc = {"question": "What is Vilnius the capital of?", "golds": ["Lithuania", "Republic of Lithuania"]}
    replies = ["I don't know.", "It is the capital of the Republic of Lithuania.", "Latvia."]
    records = judge_responses(popqa.BENCHMARK, replies, [doc] * 3, JudgeSet({"judge": "rule"}))
    assert [r["outcome"] for r in records] == ["not_attempted", "correct", "incorrect"]


# ---------------------------------------------------------------- popularity bins

def test_popularity_bins_are_log10_and_ordered():
    """floor(log10 s_pop): 9 -> 0, 10 -> 1, 25,000 -> 4; 0 or missing -> no bin; rows sorted numerically, none last."""
    assert [popqa.popularity_bin(v) for v in (1, 9, 10, 99, 100, 25000, 0, None)] == [0, 0, 1, 1, 2, 4, None, None]
    docs = [{"popularity_bin": b, "prop": "p"} for b in (10, 2, None, 2)]
    r = summary(["correct", "incorrect", "correct", "not_attempted"], popqa.BENCHMARK, docs)
    rows = r["breakdowns"]["popularity_bin"]
    assert [row["value"] for row in rows] == ["2", "10", "none"]
    assert rows[0]["hallucination_rate"] == 1.0 and rows[0]["false_refusal_rate"] == 0.5


# ---------------------------------------------------------------- data

@needs_shared_csv
def test_simpleqa_loader_reads_the_shared_csv_with_topic_and_answer_type():
    """The public CSV (4,326 rows): metadata dict literals become topic / answer type; the gold is the only golds."""
    docs = load("simpleqa_hallu", dataset=str(SHARED_CSV))["test"]
    assert len(docs) == 4326
    first = docs[0]
    assert first["question"] == "Who received the IEEE Frank Rosenblatt Award in 2010?"
    assert first["golds"] == ["Michio Sugeno"] and first["topic"] == "Science and technology"
    assert first["answer_type"] == "Person"


def test_simpleqa_loader_reads_a_folder_and_rejects_bad_metadata(tmp_path):
    """A folder holding simple_qa_test_set.csv is read like the download; a metadata cell that is not a dict
    literal is a one-line error (it is parsed as a literal, never executed)."""
    rows = [{"metadata": "{'topic': 'Art', 'answer_type': 'Date'}", "problem": "When?", "answer": "1900"}]
    datasets.Dataset.from_list(rows).to_csv(str(tmp_path / simpleqa.OFFICIAL_FILE), index=False)
    docs = load("simpleqa_hallu", dataset=str(tmp_path))["test"]
    assert docs[0]["topic"] == "Art" and docs[0]["golds"] == ["1900"]
    bad = [{"metadata": "__import__('os').getcwd()", "problem": "q", "answer": "a"}]
    datasets.Dataset.from_list(bad).to_csv(str(tmp_path / "bad.csv"), index=False)
    with pytest.raises(HallubenchError, match="row 0 metadata is not a dict literal"):
        load("simpleqa_hallu", dataset=str(tmp_path / "bad.csv"))
    empty = [{"metadata": "", "problem": "q", "answer": "a"}, {"metadata": None, "problem": "q", "answer": "a"}]
    datasets.Dataset.from_list(empty).to_csv(str(tmp_path / "empty.csv"), index=False)
    with pytest.raises(HallubenchError, match="^simpleqa: row 0 has an empty metadata cell"):
        load("simpleqa_hallu", dataset=str(tmp_path / "empty.csv"))


@pytest.mark.parametrize("s_pop", ["popular", float("inf"), float("nan"), True])
def test_popqa_popularity_that_is_not_a_finite_number_is_a_one_line_error(tmp_path, s_pop):
    path = write_jsonl(tmp_path / "p.jsonl", [{**POPQA_ROWS[0], "s_pop": s_pop}])
    with pytest.raises(HallubenchError, match="^popqa: row 0 s_pop must be a finite number, got "):
        load("popqa_hallu", dataset=str(path))


def test_popqa_loader_reads_jsonl_and_a_hub_like_parquet_folder(tmp_path):
    """possible_answers (a JSON list in a string) becomes golds; s_pop gives the bin; a folder of parquet files (the
    Hub layout) reads the same; a malformed answer list is a one-line error."""
    docs = load("popqa_hallu", dataset=str(write_jsonl(tmp_path / "p.jsonl", POPQA_ROWS)))["test"]
    assert docs["golds"][0] == ["Lithuania", "Republic of Lithuania"]
    assert docs["popularity_bin"] == [4, 1, None] and docs["id"] == ["7", "8", "9"]
    (tmp_path / "hub" / "data").mkdir(parents=True)
    datasets.Dataset.from_list(POPQA_ROWS).to_parquet(str(tmp_path / "hub" / "data" / "test-00000-of-00001.parquet"))
    assert load("popqa_hallu", dataset=str(tmp_path / "hub"))["test"]["prop"] == ["capital of", "director", "genre"]
    bad = [{**POPQA_ROWS[0], "possible_answers": "[broken"}]
    with pytest.raises(HallubenchError, match="possible_answers is not JSON"):
        load("popqa_hallu", dataset=str(write_jsonl(tmp_path / "b.jsonl", bad)))


@needs_shared_csv
def test_yaml_tasks_and_group_load(tmp_path):
    """Both YAMLs build through lm-eval's TaskManager (question as text, first gold as target, greedy, 256 tokens);
    the `hallulens_proxies` group lists them."""
    metadata = {"dataset_simpleqa_hallu": str(SHARED_CSV),
                "dataset_popqa_hallu": str(write_jsonl(tmp_path / "p.jsonl", POPQA_ROWS))}
    manager = task_manager(metadata)
    assert "hallulens_proxies" in manager.all_groups
    tasks = manager.load(["simpleqa_hallu", "popqa_hallu"])["tasks"]
    doc = next(iter(tasks["popqa_hallu"].test_docs()))
    assert tasks["popqa_hallu"].doc_to_text(doc) == doc["question"]
    assert tasks["popqa_hallu"].doc_to_target(doc) == "Lithuania"
    doc = next(iter(tasks["simpleqa_hallu"].test_docs()))
    assert tasks["simpleqa_hallu"].doc_to_target(doc) == "Michio Sugeno"
    assert tasks["simpleqa_hallu"].config.generation_kwargs["max_gen_toks"] == 256


def test_hallubench_score_on_a_samples_file(tmp_path):
    """`hallubench score` re-judges a PopQA samples file with the rule judge: rates, F-score and popularity rows."""
    docs = popqa.to_docs(datasets.Dataset.from_list(POPQA_ROWS), {}).to_list()
    replies = ["Lithuania.", "I don't know who directed it.", "It is jazz."]
    samples = write_jsonl(tmp_path / "samples_popqa_hallu.jsonl",
                          ({"doc": d, "resps": [[r]]} for d, r in zip(docs, replies)))
    out = tmp_path / "r.json"
    assert main(["score", "--task", "popqa_hallu", "--samples", str(samples), "--judge", "rule", "--out",
                 str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["counts"] == {"correct": 1, "incorrect": 1, "not_attempted": 1, "unjudged": 0}
    assert result["hallucination_rate"] == 0.5 and result["f_score"] == pytest.approx(2 * (1 / 3) * 0.5 / (1 / 3 + 0.5))
    assert [row["value"] for row in result["breakdowns"]["popularity_bin"]] == ["1", "4", "none"]


def test_evaluate_module_matches_the_benchmark():
    """The `short_answer_qa` evaluate module gives the benchmark's rates, F-score and per-group rows."""
    import evaluate  # imports transformers and torch: only here

    from hallu_metrics.evaluate_metrics import module_path

    module = evaluate.load(module_path("short_answer_qa"))
    result = module.compute(grades=["correct", "incorrect", "not_attempted", "correct"], groups=["a", "a", "b", "b"])
    assert result["hallucination_rate"] == pytest.approx(1 / 3) and result["false_refusal_rate"] == 0.25
    assert result["f_score"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert [row["correct_rate"] for row in result["breakdowns"]["group"]] == [0.5, 0.5]


def simpleqa_run(dataset: Path, model: str, model_args: str, **kwargs) -> tuple[dict, list[dict]]:
    """lm_eval (in this process, so the monkeypatched registry holds) runs simpleqa_hallu on 3 questions with the
    embedded rule grader: every rate is in [0, 1] or undefined and the records carry grades."""
    import lm_eval

    output = lm_eval.simple_evaluate(
        model=model, model_args=model_args, tasks=["simpleqa_hallu"], limit=3, apply_chat_template=True,
        log_samples=True, task_manager=task_manager({"dataset": str(dataset)}), **kwargs)
    results = output["results"]["simpleqa_hallu"]
    for metric in ("false_refusal_rate", "correct_rate", "judge_unparseable_rate"):
        assert 0.0 <= results[f"{metric},judged"] <= 1.0
    value = results["hallucination_rate,judged"]
    assert math.isnan(value) or 0.0 <= value <= 1.0
    records = [json.loads(s["filtered_resps"][0]) for s in output["samples"]["simpleqa_hallu"]]
    assert len(records) == 3 and all(r["grade"]["raw"].startswith("rule: ") for r in records)  # with its reason
    return results, records


# (question, gold answer, the reply of the model under test): right, wrong, declined
SIMPLEQA_REPLIES = [("Who painted the Night Watch?", "Rembrandt", "Rembrandt painted it."),
                    ("Where is Lake Baikal?", "Siberia", "It is in Canada."),
                    ("Who wrote Hamlet?", "William Shakespeare", "I don't know.")]


def simpleqa_reply(messages: list[dict]) -> str:
    return {q: r for q, _, r in SIMPLEQA_REPLIES}[messages[-1]["content"]]


def test_lm_eval_runs_simpleqa_with_an_api_model(tmp_path, monkeypatch, loopback_servers):
    """lm-eval's local-chat-completions model on a loopback server answers one question right, one wrong and declines
    the third: one of each grade, hallucination rate 1/2 of the attempted answers."""
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    csv = tmp_path / "simple_qa_test_set.csv"
    csv.write_text("metadata,problem,answer\n" + "".join(
        f"\"{{'topic': 'Art', 'answer_type': 'Person', 'urls': []}}\",{q},{a}\n" for q, a, _ in SIMPLEQA_REPLIES))
    server = loopback_servers.chat(simpleqa_reply)
    results, records = simpleqa_run(csv, "local-chat-completions",
                                    f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0")
    assert [r["outcome"] for r in records] == ["correct", "incorrect", "not_attempted"]
    assert results["hallucination_rate,judged"] == 0.5 and results["correct_rate,judged"] == pytest.approx(1 / 3)


@pytest.mark.slow
@needs_shared_csv
def test_lm_eval_runs_simpleqa_with_smollm2(monkeypatch):
    """The same on the embedded SmolLM2 (hf backend, CPU, 32 new tokens) for 3 questions of the shared CSV."""
    from hallubench.core.backends.hf_local import embedded_model_args

    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    simpleqa_run(SHARED_CSV, "hf", ",".join(f"{k}={v}" for k, v in embedded_model_args().items()),
                 gen_kwargs="max_gen_toks=32", device="cpu")
