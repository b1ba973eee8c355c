"""Every rule verdict says why (issue 33, item 14): each check of the registry that the rule judge answers has a
``why`` giving a concrete reason on an item, written into the verdict as ``rule: REASON``; the reasons of ANAH's
three turns, the claim and atomic-fact stand-ins and the faithfulness baseline name what decided (content units,
document sentences, coverage against its threshold, clause breaks, the three metrics)."""

from __future__ import annotations

import asyncio
import re

import pytest

from hallu_metrics.benchmarks.anah.checks import FACTS, HALLUCINATION, REFERENCE
from hallu_metrics.benchmarks.faithfulness import BASELINE, baseline_scores
from hallu_metrics.judges import JudgeSet
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.kinds import RuleJudge
from hallu_metrics.longform.atomic_facts import ATOMIC_FACTS
from hallu_metrics.longform.claims import CLAIM_EXTRACTION
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import BENCHMARKS
from hallu_metrics.rubric import baseline as baseline_module
from hallu_metrics.rubric.rubric import RUBRIC
from hallubench.core.errors import HallubenchError

DOCUMENT = ("The Eiffel Tower was built by Gustave Eiffel's company for the 1889 World's Fair in Paris. It is 330 "
            "metres tall. Paris is the capital of France.")
POINT = DOCUMENT.split(". ")[0] + "."
SENTENCE = "The Eiffel Tower was built in 1887 by Gustave Eiffel's company."
# One value per item field a check may read; the response abstains, so the refusal rules have a phrase to name.
SAMPLE = {
    "question": "Who built the Eiffel Tower?", "response": "I'm sorry, I don't know who built the Eiffel Tower.",
    "gold": "Gustave Eiffel", "golds": ["Gustave Eiffel", "Eiffel"], "name": "Gustave Eiffel", "type": "person",
    "prompt": "Tell me about Gustave Eiffel.", "entity": "Eiffel Tower", "sentence": SENTENCE, "claim": SENTENCE,
    "snippet": f"<SOS>{SENTENCE}<EOS>", "passages": [{"title": "Eiffel Tower", "text": DOCUMENT}],
    "document": DOCUMENT, "language": "en", "facts_reply": "<Facts Present>", "reference_reply": POINT,
    "reference": POINT, "hypothesis": SENTENCE,
}


def rule_checks() -> list[Check]:
    """Every check object of the registry's benchmarks that has a rule, once each."""
    found = {id(check): check for b in BENCHMARKS.values() for check in b.checks if check.rule is not None}
    return list(found.values())


def sample_item(check: Check) -> dict:
    missing = [field for field in check.fields if field not in SAMPLE]
    assert not missing, f"{check.name}: give SAMPLE a value for {missing}"
    return {field: SAMPLE[field] for field in check.fields}


def test_every_rule_of_the_registry_says_why():
    """A rule that answers items (not one that refuses all, as summary_consistency's) has a ``why`` that gives a
    non-empty reason on a sample item, and the rule judge writes it into the verdict."""
    explained = set()
    for check in rule_checks():
        item = sample_item(check)
        try:
            check.rule(item)
        except HallubenchError:  # no rule judge for this check: nothing to explain
            continue
        assert check.why is not None, f"{check.name}'s rule gives no reason"
        reason = check.why(item)
        assert isinstance(reason, str) and reason.strip(), check.name
        assert asyncio.run(RuleJudge().ask(check, item)).raw == f"rule: {reason}"
        explained.add(check.name)
    assert {"anah_facts", "anah_reference", "anah_hallucination", "claim_extraction", "atomic_facts",
            "faithfulness", "verification", "knowledgeable", "does_believe", "abstention"} <= explained


def anah_item(sentence: str, reference: str = "") -> dict:
    return {"question": "Who built it?", "document": DOCUMENT, "language": "en", "sentence": sentence,
            "reference": reference}


def test_anah_facts_reason_names_the_content_units_or_their_absence():
    assert FACTS.why(anah_item("Sure! I hope this helps.")) == (
        "no content unit: only stop words and conversational fillers, so no facts")
    assert FACTS.why(anah_item(SENTENCE)) == (
        'content units "1887", "built", "company", "eiffel", "gustave", ... (6 in all): states facts')


def test_anah_reference_reason_names_the_chosen_document_sentences_and_their_overlap():
    assert REFERENCE.why(anah_item(SENTENCE)) == (
        "chose document sentence 1 (5 shared) of 3: the most content units shared with the sentence (at least 2)")
    assert REFERENCE.why(anah_item("Bananas are yellow.")) == (
        "no document sentence shares 1 content unit with the sentence (most shared: 0 of 3 sentences)")


def test_anah_hallucination_reason_gives_the_coverage_against_its_threshold_and_missing_numbers():
    assert HALLUCINATION.rule(anah_item(SENTENCE, POINT)) == "unverifiable"
    assert HALLUCINATION.why(anah_item(SENTENCE, POINT)) == (
        "the reference points hold 0.83 of the sentence's content units (needs 0.5); lacks numbers 1887")
    supported = "The tower was built for the 1889 World's Fair."
    assert HALLUCINATION.rule(anah_item(supported, POINT)) == "ok"
    assert HALLUCINATION.why(anah_item(supported, POINT)) == (
        "the reference points hold 1.00 of the sentence's content units (needs 0.5); every number found")
    assert HALLUCINATION.why(anah_item("Bananas are yellow.", "No reference.")).startswith(
        "the reference points hold 0.00 of")


@pytest.mark.parametrize("sentence, claims, reason", [
    (SENTENCE, [SENTENCE], "the whole sentence is one claim (9 words of 3+ letters or numbers)"),
    ("Who built the Eiffel Tower?", [], "a question (it ends with '?'): no claim"),
    ("Oh, ok.", [], "no word of 3+ letters and no number: no claim"),
])
def test_claim_extraction_reason_says_why_the_sentence_is_or_is_not_a_claim(sentence, claims, reason):
    item = {"question": "Q?", "snippet": f"<SOS>{sentence}<EOS>", "sentence": sentence}
    assert (CLAIM_EXTRACTION.rule(item), CLAIM_EXTRACTION.why(item)) == (claims, reason)


@pytest.mark.parametrize("sentence, facts, reason", [
    ("Lake Baikal is deep; it is very old, and it holds much water.", 3, 'cut at ";", ", and": 3 facts'),
    ("It is big, and old.", 1, 'cut at ", and": 1 fact; 1 piece under 3 words joined to a neighbour'),
    ("Paris is the capital of France.", 1,
     "no clause break (a semicolon, or a comma before and/but/while/whereas): the sentence is one fact"),
])
def test_atomic_facts_reason_names_the_clause_breaks(sentence, facts, reason):
    item = {"entity": "X", "sentence": sentence}
    assert (len(ATOMIC_FACTS.rule(item)), ATOMIC_FACTS.why(item)) == (facts, reason)


PAIR = ("The museum opened in 1901 and has 300 paintings.", "The museum opened in 1910.")
REASON = re.compile(r"ROUGE-L (\d\.\d\d), BLEU (\d\.\d\d), BERTScore (\d\.\d\d): mean (\d\.\d\d), 1 \+ 4 x \4 = "
                    r"(\d\.\d\d) on the 1-5 scale")


def test_the_faithfulness_baseline_reason_gives_the_three_metrics_behind_the_score():
    (scores,) = baseline_scores([PAIR])
    verdict = asyncio.run(RuleJudge().ask(RUBRIC, {"reference": PAIR[0], "hypothesis": PAIR[1]}))
    found = REASON.fullmatch(verdict.raw.removeprefix("rule: "))
    assert found, verdict.raw
    shown = [float(v) for v in found.groups()]
    expected = [scores.rouge_l, scores.bleu, scores.bertscore, scores.composite, scores.likert]
    assert shown == [round(v, 2) for v in expected] and verdict.label == pytest.approx(scores.likert)


def test_the_baseline_task_records_the_reason_without_scoring_twice(monkeypatch):
    """faithfulness_baseline's batched chain writes the rule reason into each verdict; the reason reads the scores
    the batch just computed (one BERTScore pass for both pairs)."""
    scorer = baseline_module._bertscorer(baseline_module.default_bertscore_model())
    passes = []
    monkeypatch.setattr(scorer, "score", lambda *a, **k: passes.append(1) or type(scorer).score(scorer, *a, **k))
    docs = [{"id": f"d{i}", "reference": ref, "hypothesis": hyp, "type": "gold_full", "hallucinated_share": 0.0,
             "expected_score": 5, "progression_kind": "none"} for i, (ref, hyp) in enumerate([PAIR, PAIR[::-1]])]
    judges = JudgeSet({"judge": "rule"})
    try:
        records = judge_responses(BASELINE, ["", ""], docs, judges)
    finally:
        judges.close()
    assert len(passes) == 1
    for record in records:
        found = REASON.fullmatch(record["verdict"]["raw"].removeprefix("rule: "))
        assert found and float(found[5]) == round(record["score"], 2)
