"""HaluEval scoring: Yes/No extraction from messy replies, pair construction, prompt variants and
the per-item metric definitions, on hand-built records (no model, no data files)."""

import pytest

from hallu_metrics.benchmarks.halueval import (
    TASKS,
    build_items,
    extract_judgement,
    extract_official,
    read_reply,
    sample_metrics,
)

DIALOGUE = {
    "knowledge": "Jaws is a 1975 film directed by Steven Spielberg.",
    "dialogue_history": "[Human]: Who directed Jaws?",
    "right_response": "Steven Spielberg directed it.",
    "hallucinated_response": "George Lucas directed it.",
}
SUMMARY = {
    "document": "The bridge reopened on Monday after repairs.",
    "right_summary": "The bridge reopened.",
    "hallucinated_summary": "The bridge was demolished.",
}
QA = {
    "knowledge": "Paris is the capital of France.",
    "question": "What is the capital of France?",
    "right_answer": "Paris",
    "hallucinated_answer": "Lyon",
}


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Yes", "Yes"),
        ("  \n no", "No"),
        ("Yes.", "Yes"),
        ("No, because the answer matches the knowledge.", "No"),
        ("**Yes** - Lyon is not the capital.", "Yes"),
        ('"No"', "No"),
        ("The answer is yes", "Yes"),
        ("I think there is no hallucination here.", None),  # "no" in prose is not a stated verdict
        ("Paris is the capital, so no wait, yes", None),
        ("The answer looks fabricated.", None),
        ("", None),
        ("Reasoning: no source says that; yes it is invented.\n#Your Judgement#: Yes", "Yes"),
        ("Yes, it looks odd at first. Judgement: No", None),  # two different stated verdicts
        ("Nothing wrong; yesterday's facts hold.", None),
        # label positions: markdown, labels, JSON, reasons after the label, a line of its own
        ("#Your Judgement#: Yes", "Yes"),
        ("#Your Judgement#: **No**", "No"),
        ("**Judgement:** Yes", "Yes"),
        ('```json\n{"judgement": "No"}\n```', "No"),
        ("Yes\nReason: no source says the tower opened in 1901.", "Yes"),
        ("The answer invents a date.\n\n**Yes**", "Yes"),
        ("Hallucination: No", "No"),
        ("I would say no.", "No"),
        ("YES", "Yes"),
        # two verdicts, echoed placeholders, weak first words, reasoning blocks, refusals
        ("Yes. No hallucination is present.", "Yes"),  # the stated verdict; prose after it is not read
        ("#Your Judgement#: Yes or No", None),
        ("Yes/No", None),
        ("No hallucination.", "No"),
        ("No source supports this, so yes.", None),
        ("There is no doubt the answer is fabricated.", None),
        ("The answer: no evidence supports 1901.\nJudgement: Yes", "Yes"),  # "no" + word after a label: determiner
        ("Answer: No because the knowledge confirms 1889.", "No"),
        ("<think>Yes, 1901 is wrong... or no?</think>\nYes", "Yes"),
        ("<think>Let me compare the answer with what I know", None),
        ("I'm sorry, I can't judge this.", None),
        ("Not hallucinated", None),
    ],
)
def test_extraction_rule_on_messy_replies(reply, expected):
    """The project's reader: verdicts stated after a label, alone on a line or as the first word before
    punctuation; one decides, two different are unreadable; else a first word Yes/No alone in the reply; else
    None."""
    assert extract_judgement(reply) == expected


def test_each_pair_yields_a_right_and_a_hallucinated_item():
    """qa/dialogue/summarization records give one gold-No item (right text) and one gold-Yes item (hallucinated
    text)."""
    for task, record in (("qa", QA), ("dialogue", DIALOGUE), ("summarization", SUMMARY)):
        spec = TASKS[task]
        items = build_items(task, [record, record], pairing="both")
        assert [i["label"] for i in items] == ["No", "Yes", "No", "Yes"]
        assert [i["candidate"] for i in items[:2]] == [record[spec.right], record[spec.hallucinated]]
        assert len({i["id"] for i in items}) == 4
        assert all(
            i["prompt"].endswith(f"#{spec.unit.capitalize()}#: {i['candidate']}\n#Your Judgement#:") for i in items
        )


def test_general_uses_the_human_label():
    """general: one item per record, gold label = the annotators' yes/no, judged text = the ChatGPT response."""
    records = [
        {"user_query": "q1", "chatgpt_response": "r1", "hallucination": "yes"},
        {"user_query": "q2", "chatgpt_response": "r2", "hallucination": "no"},
    ]
    assert TASKS["general"].columns == ("user_query", "chatgpt_response", "hallucination")
    items = build_items("general", records)
    assert [(i["label"], i["candidate"]) for i in items] == [("Yes", "r1"), ("No", "r2")]
    with pytest.raises(ValueError):
        build_items("general", [{**records[0], "hallucination": "maybe"}])


def test_knowledge_is_shown_only_in_the_knowledge_variant():
    """Tables 8/15 hide the knowledge; the Table 9 'w/ Knowledge' variant shows it; summarization always shows the
    document."""
    assert QA["knowledge"] not in build_items("qa", [QA])[0]["prompt"]
    assert QA["knowledge"] in build_items("qa", [QA], "knowledge")[0]["prompt"]
    assert DIALOGUE["knowledge"] in build_items("dialogue", [DIALOGUE], "knowledge")[0]["prompt"]
    assert SUMMARY["document"] in build_items("summarization", [SUMMARY])[0]["prompt"]
    with pytest.raises(ValueError):
        build_items("summarization", [SUMMARY], "knowledge")


def test_cot_and_contrast_prompts():
    """CoT asks for reasoning and a final labelled line; contrast shows both candidates in an order independent of
    which is judged."""
    assert "step by step" in build_items("qa", [QA], "cot")[0]["prompt"]
    right, hallucinated = build_items("qa", [QA], "contrast", pairing="both")
    assert "Lyon" in right["prompt"] and "Paris" in hallucinated["prompt"]
    listing = lambda p: p[p.index("1. ") : p.index("Judge this")]
    assert listing(right["prompt"]) == listing(hallucinated["prompt"])


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Yes", "Yes"),
        ("Yes.", "Yes"),
        ("No", "No"),
        ("No, because ... Yes it could be", None),  # both words: a failure in the official rule
        ("yes", None),
        ("no", None),  # case-sensitive
        ("The answer is not right", None),
        ("Not hallucinated", "No"),  # the official substring test reads "No" inside "Not"
        ("", None),
    ],
)
def test_official_extraction_is_the_papers_strict_rule(reply, expected):
    """Official rule: after removing full stops, both or neither of "Yes"/"No" is a failure (case-sensitive
    substrings)."""
    assert extract_official(reply) == expected


# What the official evaluate.py (RUCAIBox/HaluEval, evaluation_*_dataset) does with a reply, worked out by hand from
# its code: ans = reply.replace(".", ""); "Yes" and "No" both or neither in ans (case-sensitive substrings) ->
# "failed!" (None here); else "Yes" if "Yes" in ans, else "No".
OFFICIAL_TABLE = [
    ("Yes", "Yes"),
    ("No.", "No"),
    ("#Your Judgement#: Yes", "Yes"),
    ("**No**", "No"),
    ("Yes\nReason: No source says so.", None),
    ("Yes. No hallucination.", None),
    ("The answer is yes", None),
    ("YES", None),
    ("Nope", "No"),
    ("None of it is invented.", "No"),
    ("Yesterday's facts are right.", "Yes"),
    ("Y.e.s", "Yes"),  # full stops are removed first
    ("N.o.", "No"),
    ("I don't know", None),
    ("<think>Yes?</think> No", None),  # the official code reads the raw reply
    ("#Your Judgement#: Yes or No", None),
    ("", None),
]


@pytest.mark.parametrize("reply, expected", OFFICIAL_TABLE)
def test_official_column_replays_the_official_code(reply, expected):
    """read_reply's official prediction, and so accuracy / invalid_rate, equal the official code's reading."""
    assert extract_official(reply) == expected
    record = read_reply(reply, {"label": "Yes"})
    assert record["prediction"] == expected
    values = sample_metrics(record, {"label": "Yes"})
    assert (values["accuracy"], values["invalid_rate"]) == (float(expected == "Yes"), float(expected is None))


def test_metric_definitions():
    """accuracy (official rule) counts failures as wrong; accuracy_lenient uses the lenient rule; per-class accuracy
    counts only for its gold class (None otherwise); invalid_rate flags official failures."""
    yes, no = {"label": "Yes"}, {"label": "No"}
    values = lambda doc, reply: sample_metrics(read_reply(reply, doc), doc)
    assert values(yes, "Yes.") == {
        "accuracy": 1.0,
        "accuracy_lenient": 1.0,
        "accuracy_hallucinated": 1.0,
        "accuracy_correct": None,
        "invalid_rate": 0.0,
    }
    assert values(no, "Yes")["accuracy_correct"] == 0.0 and values(no, "Yes")["accuracy_hallucinated"] is None
    assert values(no, "No, because ... Yes it could be") == {
        "accuracy": 0.0,
        "accuracy_lenient": 1.0,
        "accuracy_hallucinated": None,
        "accuracy_correct": 0.0,
        "invalid_rate": 1.0,
    }


def test_draw_takes_one_answer_per_record_reproducibly():
    """The paper's protocol: one of the two answers per record, the same for the same seed."""
    records = [QA] * 40
    first = build_items("qa", records)
    assert len(first) == 40 and {i["label"] for i in first} == {"Yes", "No"}
    assert [i["label"] for i in build_items("qa", records)] == [i["label"] for i in first]
    assert [i["label"] for i in build_items("qa", records, seed=7)] != [i["label"] for i in first]
