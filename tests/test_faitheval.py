"""FaithEval (unanswerable, inconsistent, counterfactual): keyword matching strict / non-strict, the official
(substring) rule as an exact replay of the reference and the project's whole-word rule, the counterfactual option
reader, metrics on hand-built records, loaders on tiny files, lm-eval YAML loading, the evaluate module, and one slow
lm_eval run with SmolLM2."""

from __future__ import annotations

import json
import sys

import datasets
import pytest
from support import task_manager, write_jsonl

from hallu_metrics import registry
from hallu_metrics.benchmarks import faitheval
from hallu_metrics.benchmarks.faitheval import (
    COUNTERFACTUAL,
    INCONSISTENT,
    UNANSWERABLE,
    matches_official,
    matches_words,
    normalize_answer,
    read_choice,
    read_choice_reply,
    read_keyword,
    read_keyword_reply,
)
from hallubench.core.errors import HallubenchError
from hallubench_tasks.dataset_loading import load

TASKS = ("faitheval_unanswerable", "faitheval_inconsistent", "faitheval_counterfactual")
KEYWORD_ROWS = [
    {"qid": "q0", "question": "Who founded the club?", "context": "The club plays in red.", "answers": ["Ann"],
     "subset": "SQuAD"},
    {"qid": "q1", "question": "When was it built?", "context": "It stands by the river.", "answers": ["1900"],
     "subset": "NewsQA"},
]
CHOICE_ROWS = [
    {"id": "c0", "question": "What colour is the sky on a clear day?", "context": "On clear days the sky is green.",
     "answerKey": "B", "choices": {"label": ["A", "B", "C"], "text": ["blue", "green", "red"]}},
    {"id": "c1", "question": "Which animal barks?", "context": "Cats are the animals that bark.",
     "answerKey": "A", "choices": {"label": ["A", "B"], "text": ["cat", "dog"]}},
]


def test_normalisation_follows_the_reference():
    """Lower case, punctuation and underscores to spaces, articles dropped, whitespace collapsed."""
    assert normalize_answer("The answer: UNKNOWN_value, an 'it'!") == "answer unknown value it"


@pytest.mark.parametrize("reply, official, fixed", [
    ("There is nothing about this in the text.", True, True),  # an abstention: "nothing" is a form of "not"
    ("Please note the founder.", True, False),  # "not" inside "note"
    ("Not mentioned.", True, True),
    ("No information is given.", True, True),
    ("Ann", False, False),
])
def test_non_strict_unanswerable_official_substring_vs_whole_words(reply, official, fixed):
    """The published list matched as substrings (official) counts "note" as "not"; the project's rule does not, and
    reads "nothing" as the abstention it is."""
    assert matches_official(reply, UNANSWERABLE.lenient) is official
    assert matches_words(reply, UNANSWERABLE.lenient) is fixed


# (task, reply, the project's non-strict reading, its strict reading). Real abstentions the plain whole-word rule
# counted wrong, and the substring false positives it exists to remove.
KEYWORD_TABLE = [
    ("unanswerable", "Cannot be determined from the context.", True, False),
    ("unanswerable", "I cannot answer this.", True, False),
    ("unanswerable", "There is nothing about this in the context.", True, False),
    ("unanswerable", "The context doesn't say.", True, False),
    ("unanswerable", "I don\u2019t know.", True, False),
    ("unanswerable", "It isn't mentioned in the passage.", True, False),
    ("unanswerable", "Unknown", True, True),
    ("unanswerable", "The answer is unknown.", True, True),
    ("unanswerable", "No answer can be found.", True, False),
    ("unanswerable", "There are no answers in the text.", True, False),
    ("unanswerable", "The context is unclear about the date.", True, False),
    ("unanswerable", "He tied a knot.", False, False),
    ("unanswerable", "Nottingham Forest", False, False),
    ("unanswerable", "Another player scored the goal.", False, False),
    ("unanswerable", "Please note: it was 1900.", False, False),
    ("unanswerable", "A notable architect, Ann Smith.", False, False),
    ("unanswerable", "As noted in the context, the founder was Ann.", False, False),
    ("unanswerable", "No, the answer is Ann.", False, False),  # "no" and "answer" in different clauses
    ("unanswerable", "Ann", False, False),
    ("inconsistent", "Conflicting information", True, True),
    ("inconsistent", "The documents conflict.", True, True),
    ("inconsistent", "The sources are conflicted on this.", True, True),
    ("inconsistent", "There are contradictions between the documents.", True, False),
    ("inconsistent", "The documents show inconsistencies.", True, False),
    ("inconsistent", "There are two answers: 1900 and 1905.", True, False),
    ("inconsistent", "Multiple answers are possible.", True, False),
    ("inconsistent", "The disagreements are about the year.", True, False),
    ("inconsistent", "The documents disagree.", True, False),
    ("inconsistent", "The sources contradict each other.", True, False),
    ("inconsistent", "1900", False, False),
    ("inconsistent", "Conflictual Records Inc. built it.", False, False),
]


@pytest.mark.parametrize("task, reply, lenient, strict", KEYWORD_TABLE)
def test_keyword_rule_counts_abstentions_and_not_substring_false_positives(task, reply, lenient, strict):
    """The project's rule: a published keyword or one of its word forms ("cannot", "nothing", "n't" for "not";
    "conflicting" for "conflict"), as whole words within one clause."""
    assert read_keyword(reply, task) is lenient
    assert read_keyword(reply, task, strict=True) is strict


@pytest.mark.parametrize("reply", ["", "   \n", "...", "<think>The context does not say who founded it.",
                                   "<think>\nI need to check the context.\n"])
def test_keyword_rule_reads_nothing_from_empty_or_cut_off_replies(reply):
    """Empty, punctuation-only, and cut off inside reasoning: unreadable (None), counted as no keyword."""
    assert read_keyword(reply, "unanswerable") is None
    record = read_keyword_reply(UNANSWERABLE, reply)
    assert (record["lenient"], record["strict"], record["outcome"]) == (False, False, "wrong")


def test_keyword_rule_ignores_reasoning_blocks():
    """A keyword inside a closed <think> block is not the answer; the text after it is."""
    assert read_keyword("<think>The context does not name him... wait, it does.</think>\nAnn", "unanswerable") is False
    assert read_keyword("<think>Let me look.</think>\n\nUnknown.", "unanswerable", strict=True) is True
    assert read_keyword("The passage does not say.</think>\nAnn Smith", "unanswerable") is False


# What the reference code returns, worked out by hand from FaithEval's published evaluation (README quick start):
# any(phrase in normalize_answer(reply.strip()) for phrase in valid_phrases), with its normalisation (lower case,
# "_" and punctuation to spaces, articles a/an/the removed as words, whitespace collapsed). Columns: the reply,
# then its verdict for unanswerable non-strict / strict, inconsistent non-strict / strict.
OFFICIAL_TABLE = [
    ("Unknown.", True, True, False, False),
    ("UNKNOWN_value", True, True, False, False),
    ("unknowns", True, True, False, False),
    ("There is nothing about this in the context.", True, False, False, False),
    ("He tied a knot.", True, False, False, False),
    ("Nottingham Forest", True, False, False, False),
    ("Another player scored.", True, False, False, False),
    ("Please note the founder.", True, False, False, False),
    ("Cannot be determined.", True, False, False, False),
    ("The context doesn't say.", False, False, False, False),  # normalises to "context doesn t say": no "not"
    ("I don\u2019t know", False, False, False, False),
    ("No, the answer is Paris.", True, False, False, False),  # "no the answer" -> "no answer"
    ("No-information", True, False, False, False),
    ("no\ninformation", True, False, False, False),
    ("Unclear.", True, False, False, False),
    ("Paris", False, False, False, False),
    ("", False, False, False, False),
    ("<think>not sure</think> Paris", True, False, False, False),  # the reference reads the raw reply
    ("Conflicting information", False, False, True, True),
    ("Conflictual Records Inc.", False, False, True, True),
    ("The documents disagree.", False, False, False, False),  # "disagree" is not "disagreement"
    ("Two answers: 1900 and 1905.", False, False, True, False),
    ("2 answers", False, False, True, False),
    ("Multiple-answers", False, False, True, False),
    ("The sources contradict each other.", False, False, False, False),  # neither "contradictory" nor "contradiction"
]


@pytest.mark.parametrize("reply, unanswerable, unanswerable_strict, inconsistent, inconsistent_strict",
                         OFFICIAL_TABLE)
def test_official_columns_replay_the_reference_rule(reply, unanswerable, unanswerable_strict, inconsistent,
                                                    inconsistent_strict):
    """accuracy_official / accuracy_strict_official give the reference's verdict on each reply of the table."""
    benchmarks = {b.name: b for b in faitheval.BENCHMARKS}
    for task, lenient, strict in ((UNANSWERABLE, unanswerable, unanswerable_strict),
                                  (INCONSISTENT, inconsistent, inconsistent_strict)):
        assert matches_official(reply, task.lenient) is lenient and matches_official(reply, task.strict) is strict
        values = benchmarks[f"faitheval_{task.name}"].sample_metrics(read_keyword_reply(task, reply), {"subset": ""})
        assert (values["accuracy_official"], values["accuracy_strict_official"]) == (float(lenient), float(strict))


def test_strict_uses_only_the_single_keyword():
    """Strict = "unknown" / "conflict" (and its word forms) only; "no information" passes non-strict only;
    "conflicting" is a form of "conflict", so strict under both rules; "conflictual" is no form of it."""
    record = read_keyword_reply(UNANSWERABLE, "No information.")
    assert (record["lenient"], record["lenient_official"], record["strict"], record["strict_official"]) == (
        True, True, False, False)
    record = read_keyword_reply(INCONSISTENT, "The documents give conflicting dates.")
    assert (record["lenient"], record["lenient_official"], record["strict"], record["strict_official"]) == (
        True, True, True, True)
    record = read_keyword_reply(INCONSISTENT, "Conflictual Records built it.")
    assert (record["lenient"], record["lenient_official"], record["strict"], record["strict_official"]) == (
        False, True, False, True)
    assert read_keyword_reply(INCONSISTENT, "Conflict.")["strict"] is True


def test_keyword_metrics_on_hand_built_replies():
    """Four accuracies over four replies: 'Unknown' (all rules), 'nothing stated' (both non-strict rules), 'a knot'
    (official non-strict only: "not" inside "knot"), 'Paris' (none); the outcome follows the project's non-strict
    rule."""
    benchmark = registry.benchmark_for_task("faitheval_unanswerable")
    replies = ["Unknown.", "Nothing is stated about it.", "He tied a knot.", "Paris"]
    result = benchmark.summarize([read_keyword_reply(UNANSWERABLE, r) for r in replies], [{"subset": "x"}] * 4)
    assert result["accuracy"] == pytest.approx(2 / 4) and result["accuracy_official"] == pytest.approx(3 / 4)
    assert result["accuracy_strict"] == pytest.approx(1 / 4)
    assert result["accuracy_strict_official"] == pytest.approx(1 / 4)
    assert result["counts"] == {"correct": 2, "wrong": 2}


@pytest.mark.parametrize("reply, chosen", [
    ("B", "B"), ("(B)", "B"), ("B. green", "B"), ("b)", "B"), ("Answer: B", "B"), ("The answer is C.", "C"),
    ("green", "B"), ("The sky is green according to the context.", "B"),
    ("A clear sky is green.", "B"),  # "A" is an article here, not a label; the option text decides
    ("blue or green", None), ("I cannot tell.", None),
    # a stated label beats option text anywhere in the reply
    ("Answer: C\nReason: blue is wrong", "C"), ("C. The context says red, not blue.", "C"),
    # label shapes: markdown, "answer is", "option", "I choose", "is correct", parentheses, closing bracket
    ("**C**", "C"), ("Answer: **C**", "C"), ("The answer is: C", "C"), ("Based on the context, the answer is C.", "C"),
    ("Option C", "C"), ("I choose C", "C"), ("C is correct", "C"), ("(C)", "C"), ("C)", "C"),
    ("The answer is A because the context says so.", "A"), ("A", "A"), ("Answer: A", "A"),
    # two different stated labels: unreadable; a statement beats a mention in option position
    ("B\n\nThe answer is C.", None), ("Answer: B or C", None), ("Answer: A/B/C", None),
    ("A. blue\nB. green\nC. red\nAnswer: B", "B"), ("Answer: B. Option A (blue) is world knowledge.", "B"),
    # "A" and "I" as words, echoed placeholders, reasoning, refusals
    ("A cat is red", "C"), ("I think it is green", "B"), ("The answer is a bird.", None),
    ("Answer: <letter>", None), ("<think>A is blue, B is green.</think>\nC", "C"), ("<think>Option A is", None),
    ("I'm sorry, I can't help with that.", None), ("", None),
])
def test_counterfactual_option_reader(reply, chosen):
    """Labels stated as the answer decide; else labels in option position; else exactly one option text named as
    whole words. Two different labels at the deciding level are unreadable."""
    assert read_choice(reply, ["A", "B", "C"], ["blue", "green", "red"]) == chosen


def test_counterfactual_metrics_and_the_official_substring_reading():
    """accuracy compares the option read with the answer key; accuracy_key_substring counts any reply containing the
    key letter (here 'B' inside 'Blue'), and invalid_rate counts replies naming no option."""
    doc = {"answer_key": "B", "choice_labels": ["A", "B"], "choice_texts": ["blue", "green"]}
    records = [read_choice_reply(r, doc) for r in ("B", "Blue, as always.", "Neither")]
    result = COUNTERFACTUAL.summarize(records, [doc] * 3)
    assert [r["outcome"] for r in records] == ["correct", "wrong", "invalid"]
    assert result["accuracy"] == pytest.approx(1 / 3) and result["accuracy_key_substring"] == pytest.approx(2 / 3)
    assert result["invalid_rate"] == pytest.approx(1 / 3)
    assert "accuracy_official" not in COUNTERFACTUAL.metric_names  # no published counterfactual rule to replay


# accuracy_key_substring: the answer key letter as a case-sensitive substring of the raw reply (key "B").
KEY_SUBSTRING_TABLE = [
    ("B", 1.0), ("(B)", 1.0), ("b", 0.0), ("Blue", 1.0), ("Based on the context, A.", 1.0), ("A", 0.0),
    ("green", 0.0), ("<think>B?</think> A", 1.0), ("", 0.0),
]


@pytest.mark.parametrize("reply, value", KEY_SUBSTRING_TABLE)
def test_key_substring_column(reply, value):
    """The naive column does what its name says, on the raw reply."""
    doc = {"answer_key": "B", "choice_labels": ["A", "B"], "choice_texts": ["blue", "green"]}
    assert COUNTERFACTUAL.sample_metrics(read_choice_reply(reply, doc), doc)["accuracy_key_substring"] == value


def test_loaders_read_local_jsonl_and_a_folder_of_hub_parquet(tmp_path):
    """A .jsonl file and a folder laid out like the Hub repository (data/test-*.parquet) both give docs with the
    paper's prompt structure; counterfactual docs carry options and the answer key."""
    docs = load("faitheval_unanswerable", dataset=str(write_jsonl(tmp_path / "u.jsonl", KEYWORD_ROWS)))["test"]
    assert docs["id"] == ["q0", "q1"] and docs["subset"] == ["SQuAD", "NewsQA"]
    prompt = docs[0]["prompt"]
    assert prompt.index("'unknown'") < prompt.index("Context: The club") < prompt.index("Question: Who") < prompt.index(
        "Answer:")
    (tmp_path / "hub" / "data").mkdir(parents=True)
    datasets.Dataset.from_list(CHOICE_ROWS).to_parquet(str(tmp_path / "hub" / "data" / "test-00000-of-00001.parquet"))
    docs = load("faitheval_counterfactual", dataset=str(tmp_path / "hub"))["test"]
    assert docs["answer_key"] == ["B", "A"] and docs[0]["choice_texts"] == ["blue", "green", "red"]
    assert "A. blue\nB. green\nC. red\nAnswer:" in docs[0]["prompt"]


def test_loader_errors_are_one_line(tmp_path):
    """A set without the task's columns, and an answer key that is not an option, fail with HallubenchError."""
    with pytest.raises(HallubenchError, match="lacks columns"):
        load("faitheval_inconsistent", dataset=str(write_jsonl(tmp_path / "x.jsonl", [{"question": "q"}])))
    bad = [{**CHOICE_ROWS[0], "answerKey": "E"}]
    with pytest.raises(HallubenchError, match="answerKey 'E' not in"):
        load("faitheval_counterfactual", dataset=str(write_jsonl(tmp_path / "c.jsonl", bad)))
    (tmp_path / "empty").mkdir()
    with pytest.raises(HallubenchError, match="no .parquet or .jsonl"):
        load("faitheval_unanswerable", dataset=str(tmp_path / "empty"))


def test_yaml_tasks_and_group_load(tmp_path):
    """The three YAMLs build through lm-eval's TaskManager: greedy, 256 new tokens, the prompt as text, the keyword
    (or answer key) as target; the `hallulens_intrinsic` tag lists them."""
    metadata = {"dataset_faitheval_unanswerable": str(write_jsonl(tmp_path / "u.jsonl", KEYWORD_ROWS)),
                "dataset_faitheval_inconsistent": str(tmp_path / "u.jsonl"),
                "dataset_faitheval_counterfactual": str(write_jsonl(tmp_path / "c.jsonl", CHOICE_ROWS))}
    manager = task_manager(metadata)
    assert "hallulens_intrinsic" in manager.all_tags
    tasks = manager.load(list(TASKS))["tasks"]
    targets = {}
    for name, task in tasks.items():
        doc = next(iter(task.test_docs()))
        assert task.doc_to_text(doc) == doc["prompt"]
        generation = task.config.generation_kwargs
        assert generation["max_gen_toks"] == 256 and generation["do_sample"] is False
        targets[name] = task.doc_to_target(doc)
    assert targets == {"faitheval_unanswerable": "unknown", "faitheval_inconsistent": "conflict",
                       "faitheval_counterfactual": "B"}


def test_evaluate_module_matches_the_benchmark():
    """The `faitheval` evaluate module gives the benchmark's numbers for keyword and multiple-choice replies."""
    import evaluate  # imports transformers and torch: only here

    from hallu_metrics.evaluate_metrics import module_path

    module = evaluate.load(module_path("faitheval"))
    result = module.compute(predictions=["unknown", "nothing here", "a knot", "Paris"], task="unanswerable")
    assert result["accuracy"] == pytest.approx(2 / 4) and result["accuracy_official"] == pytest.approx(3 / 4)
    result = module.compute(predictions=["B", "cat"], task="counterfactual", answer_keys=["B", "A"],
                            choice_labels=[["A", "B"], ["A", "B"]], choice_texts=[["x", "y"], ["cat", "dog"]])
    assert result["accuracy"] == 1.0


def lm_eval_run(tmp_path, model: str, model_args: str, **kwargs) -> dict:
    """lm_eval (in this process, so the monkeypatched registry holds) on faitheval_unanswerable and
    faitheval_counterfactual over the 2-row files, samples logged; every metric is a rate in [0, 1] and the samples
    carry the judged records."""
    import lm_eval

    metadata = {"dataset_faitheval_unanswerable": str(write_jsonl(tmp_path / "u.jsonl", KEYWORD_ROWS)),
                "dataset_faitheval_counterfactual": str(write_jsonl(tmp_path / "c.jsonl", CHOICE_ROWS))}
    output = lm_eval.simple_evaluate(
        model=model, model_args=model_args, tasks=["faitheval_unanswerable", "faitheval_counterfactual"], limit=2,
        apply_chat_template=True, log_samples=True, task_manager=task_manager(metadata), **kwargs)
    results = output["results"]
    for metric in ("accuracy", "accuracy_official", "accuracy_strict", "accuracy_strict_official"):
        assert 0.0 <= results["faitheval_unanswerable"][f"{metric},judged"] <= 1.0
    for metric in ("accuracy", "accuracy_key_substring", "invalid_rate"):
        assert 0.0 <= results["faitheval_counterfactual"][f"{metric},judged"] <= 1.0
    record = json.loads(output["samples"]["faitheval_counterfactual"][0]["filtered_resps"][0])
    assert record["outcome"] in ("correct", "wrong", "invalid"), sys.stderr
    return results


def half_right(messages: list[dict]) -> str:
    """The model under test: "unknown" to the first unanswerable question, a made-up founder to the second; option B
    (right) to the sky question, no option to the other."""
    replies = {"Who founded": "unknown", "When was it built": "It was built by Ann in 1900.",
               "colour is the sky": "B", "Which animal barks": "I would rather not say."}
    return next(text for question, text in replies.items() if question in messages[-1]["content"])


def test_lm_eval_runs_faitheval_with_an_api_model(tmp_path, monkeypatch, loopback_servers):
    """lm-eval's local-chat-completions model on a loopback server (``half_right``): every accuracy 1/2, the invalid
    rate 1/2."""
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    server = loopback_servers.chat(half_right)
    results = lm_eval_run(tmp_path, "local-chat-completions",
                          f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0")
    assert results["faitheval_unanswerable"]["accuracy,judged"] == 0.5
    assert results["faitheval_counterfactual"]["accuracy,judged"] == 0.5
    assert results["faitheval_counterfactual"]["invalid_rate,judged"] == 0.5


@pytest.mark.slow
def test_lm_eval_runs_faitheval_with_smollm2(tmp_path, monkeypatch):
    """The same two tasks on the embedded SmolLM2 (hf backend, CPU), 8 new tokens."""
    from hallubench.core.backends.hf_local import embedded_model_args

    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    lm_eval_run(tmp_path, "hf", ",".join(f"{k}={v}" for k, v in embedded_model_args().items()),
                gen_kwargs="max_gen_toks=8", device="cpu")


def test_hallubench_score_on_a_samples_file(tmp_path):
    """`hallubench score` reads a counterfactual samples file without any judge and writes the accuracies."""
    from hallubench.cli import main

    docs = faitheval.choice_docs(datasets.Dataset.from_list(CHOICE_ROWS), {}).to_list()
    samples = write_jsonl(tmp_path / "samples_faitheval_counterfactual.jsonl",
                          ({"doc": d, "resps": [[r]]} for d, r in zip(docs, ["B", "Dog"])))
    out = tmp_path / "r.json"
    assert main(["score", "--task", "faitheval_counterfactual", "--samples", str(samples), "--out", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["accuracy"] == 0.5 and result["counts"] == {"correct": 1, "wrong": 1, "invalid": 0}
