"""ANAH 2.0 with reference (HalluLens 4.2): sentence splitting, the three-turn chained annotation (scripted judge and
the rule stand-in), label parsing, sentence-pooled official vs fixed rates, per-response metrics, loaders, lm-eval
YAML loading, `hallubench score` and the evaluate module."""

from __future__ import annotations

import json

import datasets
import pytest
from support import evaluate_module, task_manager, write_jsonl

from hallu_metrics.benchmarks import anah
from hallu_metrics.judges import JudgeSet, Verdict
from hallu_metrics.pipeline import judge_responses
from hallubench.cli import main
from hallubench.core.errors import HallubenchError
from hallubench_tasks.dataset_loading import load

DOCUMENT = ("The Eiffel Tower was built between 1887 and 1889 in Paris. It is 330 metres tall. "
            "The tower was designed by the company of Gustave Eiffel.")
ROWS = [
    {"question": "When was the Eiffel Tower built?", "document": DOCUMENT, "language": "en"},
    {"question": "埃菲尔铁塔有多高？", "document": "埃菲尔铁塔位于巴黎，高330米。", "language": "zh"},
]


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


@pytest.mark.parametrize("text, language, sentences", [
    # eval.py (utils.sentence_tokenize): English re.sub(r"([:：])(\s+)", r"\1 ", ...), Chinese the same to "\1",
    # before splitting; worked out by hand for these inputs.
    ("Here are the key facts:\n- The tower was built in 1889.\n- It is 330 m tall.", "en",
     ["Here are the key facts: - The tower was built in 1889.", "- It is 330 m tall."]),
    ("Answer:\n\nThe tower is 330 m tall.", "en", ["Answer: The tower is 330 m tall."]),
    ("Note:  it opened in 1889.", "en", ["Note: it opened in 1889."]),
    ("**Key facts:**\n- It is 330 m tall.", "en", ["**Key facts:**", "- It is 330 m tall."]),  # ":" then "**": kept
    ("Facts:\nIt is tall.\n\nSummary\nIt is old.", "en", ["Facts: It is tall.", "Summary", "It is old."]),
    ("要点：\n铁塔高330米。\n它建于1889年。", "zh", ["要点：铁塔高330米。", "它建于1889年。"]),
    ("答案: 铁塔高330米。", "zh", ["答案:铁塔高330米。"]),
])
def test_a_line_ending_in_a_colon_joins_the_next_as_officially(text, language, sentences):
    """As the official splitter: the white space after a colon (line breaks included) is squeezed before splitting,
    so a heading line ending in ":" is not a sentence of its own (it would add a no-fact sentence to the
    denominator); a heading without a colon right before the line break stays one, as officially."""
    assert anah.split_answer(text, language) == sentences


@pytest.mark.parametrize("reply, facts, label", [
    ("<Facts Present>", True, None), ("no facts", False, None), ("<有事实>", True, None),
    ("<Facts Present> or <No Facts>", None, None),
    ("<Contradictory>", None, "contradictory"), ("No Hallucination.", None, "ok"), ("<无法验证>", None, "unverifiable"),
    ("<Unverifiable> or <Contradictory>", None, None), ("Hallucination present", None, None),
    ("<NoHallucination>", None, "ok"), ("**< no_hallucination >**", None, "ok"), ("<NoFacts>", False, None),
    ("<Contradictory>\nReason: 330 m, not 500 m; the date shows no hallucination.", None, "contradictory"),
    ("Final answer: <Unverifiable>", None, "unverifiable"), ("没有事实", False, None), ("不矛盾，无幻觉", None, "ok"),
    ("<think>Is it <Contradictory>?</think><No Hallucination>", None, "ok"), ("<think>The sentence", None, None),
])
def test_label_parsers_take_exactly_one_label(reply, facts, label):
    """One label form (any case, spacing, with or without <>) -> its value; none or two different ones -> None. An
    answer line ("Final answer:") decides first, then tags, then bare label words; <think> blocks are not read.
    (tests/reply_corpora/anah_*.yaml hold the full reply corpora.)"""
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
    the `hallulens_intrinsic` tag."""
    manager = task_manager({"dataset": str(write_jsonl(tmp_path / "a.jsonl", ROWS))})
    assert "hallulens_intrinsic" in manager.all_tags
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
    module = evaluate_module("anah_v2_ref")
    result = module.compute(sentence_labels=[["ok", "unparseable", "contradictory"], ["unverifiable"]],
                            languages=["en", "zh"])
    assert result["hallucination_rate"] == pytest.approx(2 / 3)
    assert result["hallucination_rate_official"] == pytest.approx(2 / 4)
    with pytest.raises(ValueError, match="unknown sentence labels"):
        module.compute(sentence_labels=[["fine"]], languages=["en"])


# ---------------------------------------------------------------- the official eval.py, replayed
# Expected tables worked out by hand from open-compass/ANAH eval/anah_v2/eval.py (process_question, evaluate_output):
# turn 1 ends the chain only on a reply equal to "<No Facts>" / "<无事实>"; turns 2 and 3 read the reply after
# .strip().replace(" ", "").lower() (spaces only: line breaks, "_" and "-" stay); turn 3 tries nohallucination/无幻觉,
# then contradictory/矛盾, then unverifiable/无法验证, whatever their position, else None; the score counts None in the
# total.

OFFICIAL_TURN_1 = [  # reply -> eval.py goes on to turn 2 (facts present)?
    ("<No Facts>", False), ("<无事实>", False), ("<No Facts>.", True), ("<no facts>", True), ("No Facts", True),
    (" <No Facts>", True), ("<No Facts>\n", True), ("**<No Facts>**", True), ("<Facts Present>", True), ("", True),
    ("I cannot tell.", True),
]
OFFICIAL_TURN_2 = [  # reply -> eval.py reads "no reference information" (the sentence is unverifiable)?
    ("<No Reference Information>", True), ("<no reference information>", True), ("NoReferenceInformation", True),
    ("  No Reference   Information. ", True), ("I found <No Reference Information> here.", True),
    ("<无参考信息>", True), ("无 参考 信息", True), ("No_Reference_Information", False),
    ("No\nReference Information", False), ("None", False), ("No relevant information found.", False), ("", False),
    ("The tower is 330 m tall.", False),
]
OFFICIAL_TURN_3 = [  # reply -> eval.py's label (None: counted in the total, not hallucinated)
    ("<No Hallucination>", "ok"), ("<NoHallucination>", "ok"), ("there is no hallucination", "ok"),
    ("<No-Hallucination>", None), ("No_Hallucination", None), ("<No\nHallucination>", None),
    ("<Contradictory>", "contradictory"), ("<Unverifiable> or <Contradictory>", "contradictory"),
    ("<Contradictory>: not a case of no hallucination", "ok"), ("<Unverifiable>", "unverifiable"),
    ("UNVERIFIABLE.", "unverifiable"), ("<无幻觉>", "ok"), ("不矛盾", "contradictory"), ("<无法验证>", "unverifiable"),
    ("Contradiction", None), ("", None), ("I'm sorry, I can't judge this.", None),
]


@pytest.mark.parametrize("reply, goes_on", OFFICIAL_TURN_1)
def test_official_turn_1_is_an_exact_match_of_the_no_facts_tag(reply, goes_on):
    assert anah.official_facts(reply) is goes_on


@pytest.mark.parametrize("reply, none", OFFICIAL_TURN_2)
def test_official_turn_2_finds_no_reference_after_removing_spaces(reply, none):
    assert anah.official_no_reference(reply) is none


@pytest.mark.parametrize("reply, label", OFFICIAL_TURN_3)
def test_official_turn_3_takes_labels_in_a_fixed_order_after_removing_spaces(reply, label):
    assert anah.official_hallucination(reply) == label


def test_official_label_follows_the_official_flow():
    """A chain's replies -> eval.py's sentence label; it needs exactly the replies its flow asks for."""
    assert anah.official_label(["<No Facts>"]) == "nofact"
    assert anah.official_label(["No Facts.", "<No Reference Information>"]) == "unverifiable"
    assert anah.official_label(["<Facts Present>", "It is 330 m tall.", "<NoHallucination>"]) == "ok"
    assert anah.official_label(["<Facts Present>", "It is 330 m tall.", "maybe"]) == "unreadable"
    with pytest.raises(ValueError):
        anah.official_label(["No Facts"])
    with pytest.raises(ValueError):
        anah.official_label(["<Facts Present>", "It is 330 m tall."])


# The mixed-reply case: 55 sentences in 5 answers. Each pattern: the judge's replies to turns 1-3 (None: the turn is not
# reached), its reply to a reminder turn, how many sentences follow it, the project's label, eval.py's label (worked
# out by hand with the rules above), the requests the project's chain makes per sentence, and the further requests
# the replay makes (where eval.py goes on and the chain stopped).
POINTS = "The tower is 330 metres tall."
PATTERNS = {
    # name: (turn 1, turn 2, turn 3, reminder reply, sentences, project, official, chain requests, replay requests)
    "clean ok": ("<Facts Present>", POINTS, "<No Hallucination>", None, 26, "ok", "ok", 3, 0),
    "clean contradictory": ("<Facts Present>", POINTS, "<Contradictory>", None, 3, "contradictory", "contradictory",
                            3, 0),
    "clean unverifiable": ("<Facts Present>", POINTS, "<Unverifiable>", None, 2, "unverifiable", "unverifiable", 3, 0),
    "no reference": ("<Facts Present>", "<No Reference Information>", None, None, 2, "unverifiable", "unverifiable",
                     2, 0),
    "clean no facts": ("<No Facts>", None, None, None, 8, "nofact", "nofact", 1, 0),
    "tag without space": ("<Facts Present>", POINTS, "<NoHallucination>", None, 4, "ok", "ok", 3, 0),
    # eval.py: "No Facts." is not the exact tag, so it asks turn 2, which finds no reference: unverifiable.
    "no facts with period": ("No Facts.", "<No Reference Information>", None, None, 3, "nofact", "unverifiable", 1, 1),
    # the project re-asks two labels (reminder -> Unverifiable); eval.py takes "contradictory" before "unverifiable".
    "two tags": ("<Facts Present>", POINTS, "<Unverifiable> or <Contradictory>", "<Unverifiable>", 1, "unverifiable",
                 "contradictory", 4, 0),
    # the tag decides for the project; eval.py finds "nohallucination" in the reason first.
    "reason names another label": ("<Facts Present>", POINTS, "<Contradictory>\nNot a case of no hallucination.",
                                   None, 1, "contradictory", "ok", 3, 0),
    "unreadable twice": ("<Facts Present>", POINTS, "Hallucination: none found", "still unsure", 1, "unparseable",
                         "unreadable", 4, 0),
    # turn 1 refused: the project re-asks (reminder -> Facts Present) and goes on; eval.py goes on with the refusal.
    "refusal at turn 1": ("I cannot determine this.", POINTS, "<No Hallucination>", "<Facts Present>", 1, "ok", "ok",
                          4, 2),
    "hyphenated tag": ("<Facts Present>", POINTS, "<No-Hallucination>", None, 2, "ok", "unreadable", 3, 0),
    # the project reads the whole reply as "nothing found"; eval.py takes it as the reference and asks turn 3.
    "nothing found in own words": ("<Facts Present>", "No relevant information found.", "<Unverifiable>", None, 1,
                                   "unverifiable", "unverifiable", 2, 1),
}
HEADINGS = ["Here is what the document says:", "Key facts:", "", "In short:", ""]


def _mixed_case():
    """5 answers of 11 sentences; answers with a heading start with "Heading:\\n" that the splitter joins to the first
    sentence. Returns (responses, the sentences of each, {sentence: pattern name})."""
    names = [name for name, pattern in PATTERNS.items() for _ in range(pattern[4])]
    units = [f"Coat number {k + 1} of the tower was applied in {1900 + k}." for k in range(len(names))]
    responses, sentences = [], []
    for a in range(5):
        mine = units[11 * a: 11 * a + 11]
        heading = HEADINGS[a]
        responses.append(f"{heading}\n" * bool(heading) + " ".join(mine[:5]) + "\n\n" + "\n".join(mine[5:]))
        sentences.append([f"{heading} {mine[0]}" if heading else mine[0], *mine[1:]])
    flat = [s for answer in sentences for s in answer]
    return responses, sentences, dict(zip(flat, names))


def test_official_replay_equals_eval_py_on_a_mixed_55_sentence_case(tmp_path):
    """Through a real LLM judge (OpenAI-compatible loopback server, real call cache), 55 sentences with the reply
    shapes of PATTERNS. The replay gives eval.py's label for every sentence (hand-worked table), so its rate is
    12/55 = 0.218; reading the project's labels with unparseable as not hallucinated (the former "official" column)
    gives 10/55 = 0.182, and the project's own rate is 10/54. The replay re-reads cached first replies and asks only
    the turns eval.py asks beyond the project's chain."""
    from loopback import LoopbackChatServer

    from hallubench.core.backends import CallCache

    responses, sentences, pattern_of = _mixed_case()
    assert [anah.split_answer(r, "en") for r in responses] == sentences
    assert len(pattern_of) == 55
    reminders = {anah.FACTS.reminder: 0, anah.REFERENCE.reminder: 1, anah.HALLUCINATION.reminder: 2}

    def reply(messages):
        sentence = next(s for s in pattern_of if s in messages[1]["content"])
        pattern = PATTERNS[pattern_of[sentence]]
        last = messages[-1]["content"]
        if last in reminders:
            return pattern[3]
        return pattern[int(last[len("Step "):].split(".")[0]) - 1]

    docs = [{**ROWS[0], "id": str(i)} for i in range(5)]
    with LoopbackChatServer(reply) as server:
        spec = f"openai:base_url={server.base_url},model=judge,max_retries=0"
        judges = JudgeSet({"judge": spec}, cache=CallCache(tmp_path / "calls.sqlite"))
        try:
            records = judge_responses(anah.BENCHMARK, responses, docs, judges)
        finally:
            judges.close()
    by_sentence = {s["sentence"]: s for r in records for s in r["sentences"]}
    for sentence, name in pattern_of.items():
        assert by_sentence[sentence]["label"] == PATTERNS[name][5], name
        assert (by_sentence[sentence]["official"]["label"] or "unreadable") == PATTERNS[name][6], name
    chain = sum(p[4] * p[7] for p in PATTERNS.values())
    replay = sum(p[4] * p[8] for p in PATTERNS.values())
    assert (chain, replay) == (143, 6) and len(server.requests) == chain + replay

    result = anah.BENCHMARK.summarize(records, docs)
    assert result["hallucination_rate_official"] == pytest.approx(12 / 55)
    assert result["hallucination_rate"] == pytest.approx(10 / 54)
    level = result["sentence_level"]
    assert level["official_label_counts"] == {"ok": 32, "nofact": 8, "contradictory": 4, "unverifiable": 8,
                                              "unreadable": 3}
    assert level["label_counts"] == {"ok": 33, "nofact": 11, "contradictory": 4, "unverifiable": 6, "unparseable": 1}
    former = sum(level["label_counts"][label] for label in anah.HALLUCINATED) / level["sentences"]
    assert former == pytest.approx(10 / 55) and round(former, 3) == 0.182 and round(12 / 55, 3) == 0.218
    per_answer = [anah.sample_metrics(r)["response_hallucination_rate_official"] for r in records]
    expected = [sum(PATTERNS[pattern_of[s]][6] in anah.HALLUCINATED for s in answer) / 11 for answer in sentences]
    assert per_answer == pytest.approx(expected)


def test_records_without_a_replay_fall_back_to_eval_py_aggregation_of_the_labels():
    """Sentence labels alone (the evaluate module, older records): eval.py's aggregation, unparseable as its None."""
    counts = anah.official_counts(record("ok", "unparseable", "contradictory"))
    assert counts == {"ok": 1, "nofact": 0, "contradictory": 1, "unverifiable": 0, "unreadable": 1}


@pytest.mark.parametrize(("reading", "passages"), [
    ("<No Reference Information>", []),
    ("Sirius is a binary star.", ["Sirius is a binary star."]),
    ("A is one. <SEP> B is two.<SEP>  C is three ", ["A is one.", "B is two.", "C is three"]),
    ("A is one. < SEP > <SEP>", ["A is one."]),
])
def test_a_reference_reading_is_compared_as_its_passages(reading, passages):
    """`hallubench agreement` compares turn 2 passage by passage (the shipped set's kind is claims), not as one text
    that a judge's wording never matches."""
    assert anah.checks.REFERENCE.listed(reading) == passages
