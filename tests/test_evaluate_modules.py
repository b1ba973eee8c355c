"""The `evaluate` modules load offline from the package and give the same numbers as the plain
metric functions, on hand-built judged outcomes / replies with hand-computed expectations."""

import pytest
from support import evaluate_module as load


def test_precisewikiqa_module_rates_and_bins():
    """hallucination_rate is over the 3 attempts; FRR and correct rate over the 4 judged samples (the unjudged one
    counts only in judge_unparseable_rate, over all 5); bins by difficulty."""
    result = load("hallulens_precisewikiqa").compute(
        outcomes=["correct", "hallucinated", "hallucinated", "abstained", "unjudged"], difficulties=[0, 0, 1, 1, None]
    )
    assert result["n"] == 5
    assert result["false_refusal_rate"] == pytest.approx(0.25)
    assert result["hallucination_rate"] == pytest.approx(2 / 3)
    assert result["correct_rate"] == pytest.approx(0.25) and result["judge_unparseable_rate"] == pytest.approx(0.2)
    rows = {row["value"]: row for row in result["breakdowns"]["difficulty"]}
    assert list(rows) == ["0", "1", "none"]
    assert rows["1"]["hallucination_rate"] == 1.0 and rows["none"]["hallucination_rate"] is None


def test_nonexistent_refusal_module_per_domain_and_tier():
    """believed / judged per domain; tier rows only when some sample has a tier; an unjudged sample counts only in
    judge_unparseable_rate."""
    module = load("hallulens_nonexistent_refusal")
    mixed = module.compute(
        outcomes=["believed", "not_believed", "unjudged", "believed"],
        domains=["animal", "animal", "plant", "plant"],
        place_tiers=[""] * 4,
    )
    assert mixed["false_acceptance_rate"] == pytest.approx(2 / 3) and mixed["judge_unparseable_rate"] == 0.25
    plant = {r["value"]: r for r in mixed["breakdowns"]["domain"]}["plant"]
    assert plant["false_acceptance_rate"] == 1.0 and plant["judge_unparseable_rate"] == 0.5
    assert "place_tier" not in mixed["breakdowns"]
    generated = module.compute(
        outcomes=["believed", "not_believed", "believed"],
        domains=["business", "event", "product"],
        place_tiers=["high", "high", None],
    )
    tiers = {r["value"]: r for r in generated["breakdowns"]["place_tier"]}
    assert tiers["high"]["false_acceptance_rate"] == 0.5 and tiers["none"]["n"] == 1


def test_halueval_module_reads_messy_replies():
    """Messy replies go through the documented extraction; a reply with neither word is wrong and invalid."""
    result = load("halueval_recognition").compute(
        predictions=["  Yes.", "No, because the answer is right.", "I am not sure.", "#Your Judgement#: No"],
        references=["Yes", "Yes", "No", "No"],
    )
    assert result["n"] == 4
    assert result["accuracy"] == 0.5 and result["invalid_rate"] == 0.25
    assert result["accuracy_hallucinated"] == 0.5 and result["accuracy_correct"] == 0.5


def test_unknown_module_name_is_refused():
    """A typo names the known modules instead of failing inside evaluate."""
    from hallu_metrics.evaluate_metrics import module_names, module_path

    assert {"hallulens_nonexistent_refusal", "hallulens_precisewikiqa", "halueval_recognition"} <= set(module_names())
    with pytest.raises(ValueError, match="hallulens_precisewikiqa"):
        module_path("hallulens_precisewikiqa_typo")


def test_faithfulness_module_takes_judge_scores_for_the_scorer_tasks():
    """faithfulness_hhem / _baseline records hold a judge's 1-5 score, not a reply: `scores` (None = unreadable or
    failed) replaces reading `predictions`; the unreadable pair is left out of residual and score."""
    result = load("faithfulness_rubric").compute(
        predictions=["", "", ""], references=[5.0, 1.0, 5.0], types=["gold_full", "intrinsic", "gold_full"],
        hallucinated_shares=[0.0, 1.0, 0.0], progression_kinds=["none"] * 3, scores=[4.5, 2.0, None],
        outcomes=["scored", "scored", "failed"])
    assert result["residual"] == pytest.approx((0.5 + 1.0) / 2) and result["score"] == pytest.approx(3.25)
    assert result["judge_unparseable_rate"] == pytest.approx(1 / 3) and result["counts"]["failed"] == 1


def test_anah_module_official_labels_give_the_replays_columns():
    """With the replay's labels, the official columns are the replay's (an unreadable turn-3 reply, None in the
    records, is eval.py's not-hallucinated); an unknown official label is refused."""
    module = load("anah_v2_ref")
    result = module.compute(sentence_labels=[["ok", "unparseable"]], languages=["en"],
                            official_labels=[["contradictory", None]])
    assert result["response_hallucination_rate"] == 0.0 and result["response_hallucination_rate_official"] == 0.5
    with pytest.raises(ValueError, match="unknown official labels"):
        module.compute(sentence_labels=[["ok"]], languages=["en"], official_labels=[["fine"]])


@pytest.mark.parametrize("name, inputs, message", [
    ("hallulens_precisewikiqa", {"outcomes": ["Correct"], "difficulties": [0]}, r"unknown value\(s\) \['Correct'\]"),
    ("hallulens_longwiki", {"outcomes": ["judged"], "claims": [2], "supported": [5], "ks": [32], "levels": [1]},
     r"supported\[0\] = 5 exceeds claims\[0\] = 2"),
    ("hallulens_longwiki", {"outcomes": ["judged"], "claims": [2], "supported": [-1], "ks": [32], "levels": [1]},
     r"supported\[0\] = -1: expected a whole number >= 0"),
    ("hallulens_longwiki", {"outcomes": ["judged"], "claims": [2], "supported": [1], "ks": [0], "levels": [1]},
     r"ks\[0\] = 0: expected a whole number >= 1"),
    ("short_answer_qa", {"grades": ["CORRECT"]}, r"grades: unknown value\(s\) \['CORRECT'\]"),
    ("hhem_summarization", {"predictions": ["A summary of five words."], "scores": [1.7]}, r"scores\[0\] = 1.7"),
])
def test_invalid_inputs_are_refused_not_turned_into_numbers(name, inputs, message):
    """An outcome spelled differently, a share above 1 or below 0, or K = 0 is a clear error, not a number
    (before: "Correct" gave correct_rate 0 and hallucination_rate 1.0; K = 0 raised ZeroDivisionError)."""
    with pytest.raises(ValueError, match=message):
        load(name).compute(**inputs)
