"""Faithfulness scorers (Jing et al., "On A Scale From 1 to 5"): rubric replies, metrics on hand-built scores,
the baseline composite, and the HHEM path through the real classifier loader with a tiny random model."""

from __future__ import annotations

import pytest

from hallu_metrics.benchmarks.faithfulness import (
    BASELINE,
    HHEM,
    RUBRIC,
    RUBRIC_TASK,
    baseline_scores,
    load_rubric,
    parse_rubric_score,
    read_reply,
    rubric_messages,
)
from hallu_metrics.judges import JudgeSet
from hallu_metrics.judges.prompts import block_texts
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.scorers import make_classifier_scorer, score_to_likert
from hallu_metrics.scorers.stand_ins import write_hhem_1_0
from hallubench.core.errors import HallubenchError


@pytest.mark.parametrize(("reply", "score"), [
    ('{"reasoning": "All facts match the source.", "score": 5}', 5),
    ('Sure! ```json\n{"reasoning": "One date is wrong.", "score": 2}\n```', 2),
    ('{"score": 3}', 3),
    ("score: 4", 4),
    ('{"reasoning": "Mostly wrong.", "score": 0}', None),
    ('{"reasoning": "Perfect.", "score": 6}', None),
    ('{"score": 4.5}', None),
    ('{"score": "high"}', None),
    ("I would rate it five out of five.", None),
    ('{"score": 2} or maybe {"score": 4}', None),
])
def test_rubric_replies_are_read_or_unparseable_never_clipped(reply, score):
    """A 1-5 whole score is read; out of range (0, 6), fractional, non-numeric, missing or contradictory
    scores are unparseable (None) rather than clipped or guessed."""
    assert parse_rubric_score(reply) == score


def test_rubric_prompt_uses_the_rubric_file_and_both_output_formats(tmp_path):
    """The rubric text comes from the file (a custom one replaces the default); the texts to grade sit in data
    blocks; the reasoning format asks for both keys, the score-only format for the score alone."""
    custom = tmp_path / "rubric.md"
    custom.write_text("Grade travel listings; descriptive adjectives are allowed.\n", encoding="utf-8")
    default = load_rubric()
    assert "Adjectives" in default and "5 - fully faithful" in default
    system, user = rubric_messages("The hotel has 3 rooms.", "The hotel has 4 rooms.", load_rubric(str(custom)))
    assert system["content"].startswith("Grade travel listings") and "Adjectives" not in system["content"]
    assert block_texts(user["content"], "summary") == ["The hotel has 4 rooms."]
    assert block_texts(user["content"], "source") == ["The hotel has 3 rooms."]
    assert '"reasoning"' in user["content"]
    _, score_only = rubric_messages("a", "b", default, reasoning=False)
    assert '"reasoning"' not in score_only["content"] and '"score"' in score_only["content"]
    with pytest.raises(HallubenchError, match="cannot be read"):
        load_rubric(str(tmp_path / "missing.md"))


def _doc(kind: str, expected: float, share: float = 0.0, progression: str = "none") -> dict:
    return {"id": "x", "reference": "r", "hypothesis": "h", "type": kind, "hallucinated_share": share,
            "expected_score": expected, "progression_kind": progression}


def test_residuals_per_type_pair_weighted_and_unparseable_counted():
    """Residual = |expected - predicted| averaged over the four paper types, pair-weighted; an unparseable reply
    counts in judge_unparseable_rate only; progression pairs have no residual but count in `score`."""
    docs = [_doc("gold_full", 5), _doc("gold_sentence", 5), _doc("gold_sentence", 5), _doc("intrinsic", 1, 1.0),
            _doc("extrinsic", 1, 1.0), _doc("progression", 5, 0.0, "intrinsic")]
    replies = ['{"score": 4}', '{"score": 5}', '{"score": 2}', '{"score": 1}', "no idea", '{"score": 3}']
    result = RUBRIC_TASK.summarize([read_reply(r) for r in replies], docs)
    assert result["residual"] == pytest.approx((1 + 0 + 3 + 0) / 4)
    assert result["counted"]["residual"] == 4
    assert result["judge_unparseable_rate"] == pytest.approx(1 / 6)
    assert result["score"] == pytest.approx((4 + 5 + 2 + 1 + 3) / 5)
    types = {row["value"]: row for row in result["breakdowns"]["type"]}
    assert types["gold_sentence"]["residual"] == pytest.approx(1.5)
    assert types["extrinsic"]["residual"] is None and types["extrinsic"]["judge_unparseable_rate"] == 1.0
    assert types["progression"]["residual"] is None and types["progression"]["score"] == 3.0
    assert result["counts"] == {"scored": 5, "unparseable": 1, "failed": 0}


def test_progression_delta_per_step_per_kind():
    """Mean score per share, separately per kind; delta_per_step = (mean at share 1 - mean at share 0) / 5, as
    in the paper's Table 4 (negative when the scorer follows the hallucination)."""
    scores = {"intrinsic": ((5, 4), (4,), (4,), (3,), (2,), (1, 1)),
              "extrinsic": ((5, 4), (5,), (4,), (4,), (4,), (4, 4))}
    docs, records = [], []
    for kind, by_step in scores.items():
        for k, step_scores in enumerate(by_step):
            for score in step_scores:
                docs.append(_doc("progression", 5 - 4 * k / 5, k / 5, kind))
                records.append(read_reply(f'{{"score": {score}}}'))
    result = RUBRIC_TASK.summarize(records, docs)
    intrinsic = result["progression"]["intrinsic"]
    assert intrinsic["shares"] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert intrinsic["scores"][0] == pytest.approx(4.5) and intrinsic["n"][0] == 2
    assert result["delta_per_step_intrinsic"] == pytest.approx((1 - 4.5) / 5)
    assert result["delta_per_step_extrinsic"] == pytest.approx((4 - 4.5) / 5)
    shares = [row["value"] for row in result["breakdowns"]["hallucinated_share"]]
    assert shares == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]


PAIRS = [
    ("The museum opened in 1901 and has 300 paintings.", "The museum opened in 1901 and has 300 paintings."),
    ("The museum opened in 1901 and has 300 paintings.", "Penguins cannot fly but swim very fast."),
]


def test_baseline_composite_is_the_mean_of_the_three_metrics_on_one_to_five():
    """An identical pair scores ROUGE-L 1, BLEU 1, BERTScore ~1 (composite ~5); an unrelated one scores far lower;
    the composite is the mean of the three and its 1-5 value 1 + 4 x composite."""
    same, unrelated = baseline_scores(PAIRS)
    assert same.rouge_l == pytest.approx(1.0) and same.bleu == pytest.approx(1.0)
    assert same.bertscore == pytest.approx(1.0, abs=1e-3) and same.likert == pytest.approx(5.0, abs=1e-2)
    assert unrelated.rouge_l < 0.2 and unrelated.bleu < 0.1 and unrelated.likert < 3
    assert unrelated.composite == pytest.approx((unrelated.rouge_l + unrelated.bleu + unrelated.bertscore) / 3)
    assert RUBRIC.rule({"reference": PAIRS[1][0], "hypothesis": PAIRS[1][1]}) == pytest.approx(unrelated.likert)


def _docs_of(pairs) -> list[dict]:
    return [{**_doc("gold_full", 5), "reference": r, "hypothesis": h} for r, h in pairs]


def test_baseline_task_scores_pairs_with_the_rule_judge_batched():
    """faithfulness_baseline's chain gives each pair the same composite as the check's rule (batched through
    one scorer judge); another judge kind is refused with one line."""
    judges = JudgeSet({"judge": "rule"})
    try:
        records = judge_responses(BASELINE, ["", ""], _docs_of(PAIRS), judges)
    finally:
        judges.close()
    expected = [s.likert for s in baseline_scores(PAIRS)]
    assert [r["score"] for r in records] == pytest.approx(expected)
    assert all(r["outcome"] == "scored" for r in records)
    with pytest.raises(HallubenchError, match="needs the rule judge"):
        judge_responses(BASELINE, [""], _docs_of(PAIRS[:1]), JudgeSet({"judge": "hhem:model=x"}))


WORDS = ["the", "museum", "opened", "in", "1901", "and", "has", "300", "paintings", "penguins", "cannot", "fly"]


def test_hhem_task_maps_p_consistent_to_one_to_five(tmp_path):
    """faithfulness_hhem scores (reference, hypothesis) with a classifier judge loaded by the real loader (a tiny
    random HHEM-1.0 stand-in): score = 1 + 4 P(consistent) of the pair, P as the scorer computes it alone;
    the rule judge is refused."""
    folder = write_hhem_1_0(tmp_path, WORDS)
    args = {"model": str(folder), "kind": "hhem-1.0", "device": "cpu"}
    judges = JudgeSet({"judge": "hhem:" + ",".join(f"{k}={v}" for k, v in args.items())})
    try:
        records = judge_responses(HHEM, ["ignored", "ignored"], _docs_of(PAIRS), judges)
    finally:
        judges.close()
    probabilities = make_classifier_scorer(args).score(PAIRS)
    assert [r["score"] for r in records] == pytest.approx([score_to_likert(p) for p in probabilities], abs=1e-5)
    assert all(1.0 <= r["score"] <= 5.0 for r in records)
    with pytest.raises(HallubenchError, match="needs a classifier judge"):
        judge_responses(HHEM, [""], _docs_of(PAIRS[:1]), JudgeSet({"judge": "rule"}))


def test_figure_draws_progression_and_residuals_of_several_scorers(tmp_path):
    """faithfulness_figure writes one PNG from several results, a scorer with nothing scored included; a result
    of another benchmark is refused with one line."""
    from hallubench.reporting.faithfulness_report import faithfulness_figure, scorer_label

    docs = [_doc("gold_full", 5), _doc("intrinsic", 1, 1.0), _doc("progression", 5, 0.0, "intrinsic"),
            _doc("progression", 1, 1.0, "intrinsic")]
    scored = {**RUBRIC_TASK.summarize([read_reply(f'{{"score": {s}}}') for s in (5, 2, 5, 2)], docs), "model": "A"}
    nothing = {**RUBRIC_TASK.summarize([read_reply("?")] * 4, docs), "task": "faithfulness_rubric_so"}
    path = tmp_path / "figure.png"
    faithfulness_figure([scored, nothing], path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert scorer_label(scored) == "A" and scorer_label(nothing) == "faithfulness_rubric_so"
    with pytest.raises(HallubenchError, match="not faithfulness results"):
        faithfulness_figure([{"task": "precisewikiqa", "n": 1}], tmp_path / "other.png")
