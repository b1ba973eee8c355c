"""ANAH 2.0 with reference (HalluLens 4.2): sentence splitting, the three-turn chained annotation (scripted judge and
the rule stand-in), label parsing, sentence-pooled official vs fixed rates, per-response metrics, loaders, lm-eval
YAML loading, `hallubench score` and the evaluate module."""

from __future__ import annotations

import json

import datasets
import evaluate
import pytest
from lm_eval.tasks import TaskManager

from hallu_metrics import anah, registry
from hallu_metrics.evaluate_metrics import module_path
from hallu_metrics.judges import JudgeSet, Verdict
from hallu_metrics.pipeline import judge_responses
from hallubench.cli import main
from hallubench.errors import HallubenchError
from lm_eval_tasks import TASKS_DIR
from lm_eval_tasks.dataset_loading import load

DOCUMENT = ("The Eiffel Tower was built between 1887 and 1889 in Paris. It is 330 metres tall. "
            "The tower was designed by the company of Gustave Eiffel.")
ROWS = [
    {"question": "When was the Eiffel Tower built?", "document": DOCUMENT, "language": "en"},
    {"question": "埃菲尔铁塔有多高？", "document": "埃菲尔铁塔位于巴黎，高330米。", "language": "zh"},
]


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """The benchmark in the registry (a no-op once registry.py lists it)."""
    monkeypatch.setitem(registry.BENCHMARKS, anah.BENCHMARK.name, anah.BENCHMARK)
    monkeypatch.setitem(registry.TASKS, anah.BENCHMARK.name, anah.BENCHMARK)


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def record(*labels):
    return {"counts": {label: labels.count(label) for label in anah.SENTENCE_LABELS},
            "outcome": anah.response_outcome(list(labels))}


def test_sentences_split_like_the_official_scorer():
    """English: sentence ends (abbreviations kept), ';' and line breaks; Chinese: after 。！？； and line breaks."""
    text = "Dr. Smith visited the U.S. in 1990. He stayed; he left in 2001!\nThanks."
    assert anah.split_answer(text, "en") == ["Dr. Smith visited the U.S. in 1990.", "He stayed;", "he left in 2001!",
                                             "Thanks."]
    assert anah.split_answer("铁塔建于1889年。它很高！\n谢谢", "zh") == ["铁塔建于1889年。", "它很高！", "谢谢"]
    assert anah.split_answer("   ", "en") == []


@pytest.mark.parametrize("reply, facts, label", [
    ("<Facts Present>", True, None), ("no facts", False, None), ("<有事实>", True, None),
    ("<Facts Present> or <No Facts>", None, None),
    ("<Contradictory>", None, "contradictory"), ("No Hallucination.", None, "ok"), ("<无法验证>", None, "unverifiable"),
    ("<Unverifiable> or <Contradictory>", None, None), ("Hallucination present", None, None),
])
def test_label_parsers_take_exactly_one_label(reply, facts, label):
    """One label form (any case, with or without <>) -> its value; none or two different ones -> None."""
    assert anah.parse_facts(reply) is facts
    assert anah.parse_hallucination(reply) == label


def test_reference_parser_reads_no_reference_like_the_official_code():
    """"No Reference Information" anywhere (spaces and case ignored, or 无参考信息) means none; an empty reply is
    unreadable; anything else is the extracted information."""
    assert anah.parse_reference("I found <no reference  information>.") == anah.NO_REFERENCE
    assert anah.parse_reference("<无参考信息>") == anah.NO_REFERENCE
    assert anah.parse_reference("  ") is None
    assert anah.parse_reference(" It is 330 metres tall. ") == "It is 330 metres tall."


class ScriptedAnnotator:
    """A judge double answering each turn from a table keyed on (check, sentence); records the conversations."""

    spec = "scripted"

    def __init__(self, replies):
        self.replies, self.conversations = replies, []

    async def ask(self, check, item):
        self.conversations.append((check.name, item["sentence"], check.messages(item)))
        reply = self.replies[(check.name, item["sentence"])]
        label = check.parse(reply)
        return Verdict(label, "ok" if label is not None else "unparseable", reply)

    def report(self):
        return {}

    def close(self):
        pass


def test_three_turn_chain_per_sentence_with_early_exits():
    """Turn 1 "no facts" ends the chain (nofact); turn 2 "no reference" gives unverifiable without turn 3; otherwise
    turn 3 labels the sentence; an unreadable turn-3 reply is unparseable. Each later turn carries the earlier turns
    and the judge's own replies, and turn 3 sees the extracted points, not the document."""
    facts, ref, hal = "anah_facts", "anah_reference", "anah_hallucination"
    s1, s2, s3, s4 = "Sure.", "It was built in 1889.", "It is 500 metres tall.", "It has a lift to the moon."
    replies = {
        (facts, s1): "<No Facts>",
        (facts, s2): "<Facts Present>", (ref, s2): "built between 1887 and 1889", (hal, s2): "<No Hallucination>",
        (facts, s3): "<Facts Present>", (ref, s3): "It is 330 metres tall.", (hal, s3): "<Contradictory>",
        (facts, s4): "<Facts Present>", (ref, s4): "<No Reference Information>",
    }
    judge = ScriptedAnnotator(replies)
    judges = JudgeSet({"judge": "rule"})
    judges.use("rule", judge)
    records = judge_responses(anah.BENCHMARK, [f"{s1} {s2} {s3} {s4}"], [ROWS[0]], judges)
    assert [s["label"] for s in records[0]["sentences"]] == ["nofact", "ok", "contradictory", "unverifiable"]
    assert records[0]["outcome"] == "hallucinated"
    turn3 = next(m for name, s, m in judge.conversations if name == hal and s == s3)
    assert [m["role"] for m in turn3] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert turn3[2]["content"] == "<Facts Present>" and turn3[4]["content"] == "It is 330 metres tall."
    assert DOCUMENT in turn3[3]["content"] and DOCUMENT not in turn3[5]["content"]
    assert "It is 330 metres tall." in turn3[5]["content"]
    assert not any(name == hal and s == s4 for name, s, _ in judge.conversations)

    judge.replies[(hal, s3)] = "maybe"
    records = judge_responses(anah.BENCHMARK, [s3], [ROWS[0]], judges)
    assert records[0]["sentences"][0]["label"] == "unparseable" and records[0]["outcome"] == "unjudged"


def test_rule_stand_in_labels_by_overlap_and_never_contradicts():
    """Rule: no content words -> nofact; supported numbers and content words -> ok; an unsupported number ->
    unverifiable (a contradiction is not detectable by rule); nothing overlapping -> unverifiable at turn 2."""
    response = "Sure! The Eiffel Tower was built between 1887 and 1889. It is 500 metres tall. Penguins swim fast."
    records = judge_responses(anah.BENCHMARK, [response], [ROWS[0]], JudgeSet({"judge": "rule"}))
    sentences = records[0]["sentences"]
    assert [s["label"] for s in sentences] == ["nofact", "ok", "unverifiable", "unverifiable"]
    assert sentences[3]["hallucination"] is None and sentences[2]["hallucination"] is not None
    records = judge_responses(anah.BENCHMARK, ["埃菲尔铁塔高330米。"], [ROWS[1]], JudgeSet({"judge": "rule"}))
    assert records[0]["sentences"][0]["label"] == "ok"


def test_pooled_rates_official_versus_fixed():
    """Two answers, 5 + 3 sentences, labels [ok, nofact, contradictory, unverifiable, unparseable] and
    [ok, ok, unverifiable]. Official (unparseable = not hallucinated, pooled): 3/8. Fixed (unparseable left out): 3/7,
    unparseable share 1/8. Per response: (2/4 + 1/3) / 2 fixed and (2/5 + 1/3) / 2 official; no-fact sentences stay
    in every denominator."""
    records = [record("ok", "nofact", "contradictory", "unverifiable", "unparseable"),
               record("ok", "ok", "unverifiable")]
    r = anah.BENCHMARK.summarize(records, [{"language": "en"}, {"language": "zh"}])
    assert r["hallucination_rate_official"] == pytest.approx(3 / 8)
    assert r["hallucination_rate"] == pytest.approx(3 / 7)
    level = r["sentence_level"]
    assert level["judge_unparseable_rate"] == pytest.approx(1 / 8) and level["sentences"] == 8
    assert level["stderr"]["hallucination_rate"] > 0
    assert level["by_language"]["zh"]["hallucination_rate"] == pytest.approx(1 / 3)
    assert r["response_hallucination_rate"] == pytest.approx((2 / 4 + 1 / 3) / 2)
    assert r["response_hallucination_rate_official"] == pytest.approx((2 / 5 + 1 / 3) / 2)
    assert [row["value"] for row in r["breakdowns"]["language"]] == ["en", "zh"]


def test_pooled_stderr_is_the_cluster_ratio_estimator():
    """(k, n) = (1, 2), (0, 2): rate 1/4; residuals 0.5, -0.5 -> variance 2/1 * 0.5 / 16 = 1/16, stderr 0.25."""
    assert anah.pooled_rate([(1, 2), (0, 2)]) == (0.25, pytest.approx(0.25))
    assert anah.pooled_rate([(0, 0)]) == (None, None)


def test_empty_answer_counts_only_as_empty():
    """An answer without sentences has no rate (None), counts in empty_response_rate, and adds no sentences."""
    values = anah.sample_metrics(record())
    assert values["response_hallucination_rate"] is None and values["empty_response_rate"] == 1.0
    r = anah.BENCHMARK.summarize([record(), record("ok")], [{"language": "en"}] * 2)
    assert r["hallucination_rate"] == 0.0 and r["sentence_level"]["sentences"] == 1


def test_loaders_read_jsonl_and_the_official_folder_and_check_language(tmp_path):
    """A .jsonl of (question, document, language) and a folder holding question_document.jsonl both give docs with
    the answering prompt in the question's language; another language is a one-line error."""
    docs = load("anah_v2_ref", dataset=str(write_jsonl(tmp_path / "a.jsonl", ROWS)))["test"]
    assert docs["language"] == ["en", "zh"]
    assert docs[0]["prompt"].index(DOCUMENT) < docs[0]["prompt"].index("Question: When was")
    assert docs[1]["prompt"].startswith("请根据")
    write_jsonl(tmp_path / anah.OFFICIAL_FILE, ROWS)
    assert len(load("anah_v2_ref", dataset=str(tmp_path))["test"]) == 2
    with pytest.raises(HallubenchError, match="language 'fr'"):
        load("anah_v2_ref", dataset=str(write_jsonl(tmp_path / "fr.jsonl", [{**ROWS[0], "language": "fr"}])))


def test_yaml_task_and_group_load(tmp_path):
    """anah_v2_ref builds through lm-eval's TaskManager (prompt as text, 512 new tokens, greedy) and is listed in
    the `hallulens_intrinsic` group."""
    manager = TaskManager(include_path=str(TASKS_DIR),
                          metadata={"dataset": str(write_jsonl(tmp_path / "a.jsonl", ROWS))})
    assert "hallulens_intrinsic" in manager.all_groups
    task = manager.load(["anah_v2_ref"])["tasks"]["anah_v2_ref"]
    doc = next(iter(task.test_docs()))
    assert task.doc_to_text(doc) == doc["prompt"]
    assert task.config.generation_kwargs["max_gen_toks"] == 512 and task.config.generation_kwargs["do_sample"] is False


def test_hallubench_score_on_a_samples_file(tmp_path):
    """`hallubench score` annotates a samples file with the rule stand-in and writes both pooled rates."""
    docs = anah.to_docs(datasets.Dataset.from_list(ROWS), {}).to_list()
    replies = ["It was built between 1887 and 1889. It cost 9 billion euros.", "埃菲尔铁塔高330米。"]
    samples = tmp_path / "samples_anah_v2_ref.jsonl"
    samples.write_text("".join(json.dumps({"doc": d, "resps": [[r]]}, ensure_ascii=False) + "\n"
                               for d, r in zip(docs, replies)), encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["score", "--task", "anah_v2_ref", "--samples", str(samples), "--judge", "rule", "--out",
                 str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["sentence_level"]["label_counts"]["ok"] == 2
    assert result["hallucination_rate"] == pytest.approx(1 / 3) == result["hallucination_rate_official"]


def test_evaluate_module_matches_the_benchmark():
    """The `anah_v2_ref` evaluate module pools sentence labels like the benchmark and rejects unknown labels."""
    module = evaluate.load(module_path("anah_v2_ref"))
    result = module.compute(sentence_labels=[["ok", "unparseable", "contradictory"], ["unverifiable"]],
                            languages=["en", "zh"])
    assert result["hallucination_rate"] == pytest.approx(2 / 3)
    assert result["hallucination_rate_official"] == pytest.approx(2 / 4)
    with pytest.raises(ValueError, match="unknown sentence labels"):
        module.compute(sentence_labels=[["fine"]], languages=["en"])
