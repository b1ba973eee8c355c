"""HaluEval scoring: Yes/No extraction from messy replies, pair construction, prompt variants and
the per-item metric definitions, on hand-built records (no model, no data files)."""

import pytest

from hallu_metrics.halueval import TASKS, build_items, extract_judgement, process_results

DIALOGUE = {
    "knowledge": "Jaws is a 1975 film directed by Steven Spielberg.",
    "dialogue_history": "[Human]: Who directed Jaws?",
    "right_response": "Steven Spielberg directed it.",
    "hallucinated_response": "George Lucas directed it.",
}
SUMMARY = {"document": "The bridge reopened on Monday after repairs.", "right_summary": "The bridge reopened.", "hallucinated_summary": "The bridge was demolished."}
QA = {"knowledge": "Paris is the capital of France.", "question": "What is the capital of France?", "right_answer": "Paris", "hallucinated_answer": "Lyon"}


@pytest.mark.parametrize("reply, expected", [
    ("Yes", "Yes"),
    ("  \n no", "No"),
    ("Yes.", "Yes"),
    ("No, because the answer matches the knowledge.", "No"),
    ("**Yes** - Lyon is not the capital.", "Yes"),
    ('"No"', "No"),
    ("The answer is yes", "Yes"),
    ("I think there is no hallucination here.", "No"),
    ("Paris is the capital, so no wait, yes", None),
    ("The answer looks fabricated.", None),
    ("", None),
    ("Reasoning: no source says that; yes it is invented.\n#Your Judgement#: Yes", "Yes"),
    ("Yes, it looks odd at first. Judgement: No", "No"),
    ("Nothing wrong; yesterday's facts hold.", None),
])
def test_extraction_rule_on_messy_replies(reply, expected):
    """The documented rule: last 'Judgement: X' label, else first word, else the only Yes/No word present; else invalid."""
    assert extract_judgement(reply) == expected


def test_each_pair_yields_a_right_and_a_hallucinated_item():
    """qa/dialogue/summarization records give one gold-No item (right text) and one gold-Yes item (hallucinated text)."""
    for task, record in (("qa", QA), ("dialogue", DIALOGUE), ("summarization", SUMMARY)):
        spec = TASKS[task]
        items = build_items(task, [record, record])
        assert [i["label"] for i in items] == ["No", "Yes", "No", "Yes"]
        assert [i["candidate"] for i in items[:2]] == [record[spec.right], record[spec.hallucinated]]
        assert len({i["id"] for i in items}) == 4
        assert all(i["prompt"].endswith(f"#{spec.unit.capitalize()}#: {i['candidate']}\n#Your Judgement#:") for i in items)


def test_general_uses_the_human_label():
    """general: one item per record, gold label = the annotators' yes/no, judged text = the ChatGPT response."""
    records = [{"user_query": "q1", "chatgpt_response": "r1", "hallucination": "yes"},
               {"user_query": "q2", "chatgpt_response": "r2", "hallucination": "no"}]
    assert TASKS["general"].columns == ("user_query", "chatgpt_response", "hallucination")
    items = build_items("general", records)
    assert [(i["label"], i["candidate"]) for i in items] == [("Yes", "r1"), ("No", "r2")]
    with pytest.raises(ValueError):
        build_items("general", [{**records[0], "hallucination": "maybe"}])


def test_knowledge_is_shown_only_in_the_knowledge_variant():
    """Tables 8/15 hide the knowledge; the Table 9 'w/ Knowledge' variant shows it; summarization always shows the document."""
    assert QA["knowledge"] not in build_items("qa", [QA])[0]["prompt"]
    assert QA["knowledge"] in build_items("qa", [QA], "knowledge")[0]["prompt"]
    assert DIALOGUE["knowledge"] in build_items("dialogue", [DIALOGUE], "knowledge")[0]["prompt"]
    assert SUMMARY["document"] in build_items("summarization", [SUMMARY])[0]["prompt"]
    with pytest.raises(ValueError):
        build_items("summarization", [SUMMARY], "knowledge")


def test_cot_and_contrast_prompts():
    """CoT asks for reasoning and a final labelled line; contrast shows both candidates in an order independent of which is judged."""
    assert "step by step" in build_items("qa", [QA], "cot")[0]["prompt"]
    right, hallucinated = build_items("qa", [QA], "contrast")
    assert "Lyon" in right["prompt"] and "Paris" in hallucinated["prompt"]
    listing = lambda p: p[p.index("1. "):p.index("Judge this")]  # noqa: E731
    assert listing(right["prompt"]) == listing(hallucinated["prompt"])


def test_metric_definitions():
    """accuracy counts invalid replies as wrong; per-class accuracy goes to the gold label's key only; invalid_rate flags unparseable replies."""
    yes, no = {"label": "Yes"}, {"label": "No"}
    assert process_results(yes, ["Yes."]) == {"accuracy": 1.0, "invalid_rate": 0.0, "accuracy_hallucinated": 1.0}
    assert process_results(no, ["Yes"]) == {"accuracy": 0.0, "invalid_rate": 0.0, "accuracy_correct": 0.0}
    assert process_results(no, ["maybe"]) == {"accuracy": 0.0, "invalid_rate": 1.0, "accuracy_correct": 0.0}
