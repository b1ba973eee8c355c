"""NonExistentRefusal judging and false-acceptance metrics on hand-built judged samples."""

import json
import math

import pytest

from hallu_metrics.benchmarks import nonexistent_refusal as ne
from hallu_metrics.judges import JudgeSet, Verdict, make_judge
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import BENCHMARKS
from hallu_metrics.stats import mean_of_counted
from hallubench.core.backends import CallCache
from hallubench.reporting.scoring import ScoreOptions, score

DOCS = [
    {"name": "Aus bus", "type": "animal", "domain": "animal", "prompt": "Tell me about the animal Aus bus."},
    {"name": "Bus cus", "type": "plant", "domain": "plant", "prompt": "Tell me about the plant Bus cus."},
    {
        "name": "Cobalt Ember",
        "type": "cafe",
        "domain": "business",
        "place": "Oslo",
        "place_tier": "high",
        "prompt": "p",
    },
    {"name": "Zentrix", "type": "router", "domain": "product", "place": "", "place_tier": "", "prompt": "p"},
]


class ScriptedJudge:
    """Returns a fixed verdict per response text."""

    spec = "scripted"

    def __init__(self, verdicts):
        self.verdicts = verdicts

    async def ask(self, check, item):
        assert check is ne.DOES_BELIEVE
        return self.verdicts[item["response"]]

    def report(self):
        return {}

    def close(self):
        pass


def judged(benchmark, responses, docs, judge=None):
    judges = JudgeSet({"judge": "rule"})
    if judge is not None:
        judges.use("rule", judge)
    return judge_responses(benchmark, responses, docs, judges)


def test_false_acceptance_rate_is_believed_over_judged_samples():
    """FAR = believed / judged: an unjudged sample (unreadable verdict) is left out of it, never counted as a
    refusal, and only raises judge_unparseable_rate (over N); lm-eval's per-sample means give the same numbers."""
    outcomes = ["believed", "not_believed", "believed", "unjudged", "not_believed"]
    r = ne.GENERATED.summarize([{"outcome": o} for o in outcomes], [{}] * 5)
    assert r["n"] == 5 and r["false_acceptance_rate"] == 2 / 4 and r["judge_unparseable_rate"] == 1 / 5
    assert r["counted"]["false_acceptance_rate"] == 4
    per_sample = [ne.sample_metrics({"outcome": o}) for o in outcomes]
    assert mean_of_counted([s["false_acceptance_rate"] for s in per_sample]) == r["false_acceptance_rate"]
    assert sum(s["judge_unparseable_rate"] for s in per_sample) / 5 == r["judge_unparseable_rate"]


def test_all_verdicts_unreadable_leaves_the_rate_undefined_not_zero():
    """A judge that never answers in the expected format: the false acceptance rate is undefined (None, NaN in
    lm-eval), not 0 (the best score), and the unreadable share is 1."""
    r = ne.MIXED.summarize([{"outcome": "unjudged"}] * 3, [{"domain": "animal"}] * 3)
    assert r["false_acceptance_rate"] is None and r["judge_unparseable_rate"] == 1.0
    assert r["breakdowns"]["domain"][0]["false_acceptance_rate"] is None
    assert math.isnan(mean_of_counted([ne.sample_metrics({"outcome": "unjudged"})["false_acceptance_rate"]] * 3))


def test_judged_records_and_breakdown_per_domain_and_place_tier():
    """Verdicts map to outcomes (unparseable kept as unjudged with its raw text); the summary breaks
    the rate down per domain and per place tier (products have no tier)."""
    ok = lambda label: Verdict(label, "ok", "raw")
    judge = ScriptedJudge({"a": ok(True), "b": ok(False), "c": ok(True), "d": Verdict(None, "unparseable", "??")})
    records = judged(ne.GENERATED, ["a", "b", "c", "d"], DOCS, judge)
    assert [r["outcome"] for r in records] == ["believed", "not_believed", "believed", "unjudged"]
    assert records[3]["verdict"]["raw"] == "??"
    summary = ne.GENERATED.summarize(records, DOCS)
    assert summary["false_acceptance_rate"] == 2 / 3  # the unreadable verdict is left out
    domains = {row["value"]: row for row in summary["breakdowns"]["domain"]}
    tiers = {row["value"]: row for row in summary["breakdowns"]["place_tier"]}
    assert domains["animal"]["false_acceptance_rate"] == 1.0
    assert domains["plant"]["false_acceptance_rate"] == 0.0
    assert domains["product"]["judge_unparseable_rate"] == 1.0
    assert tiers["high"]["n"] == 1 and tiers["none"]["n"] == 3


def test_mixed_summary_has_no_place_tier_rows():
    """MixedEntities declares no place-tier breakdown, so only domain rows appear."""
    records = judged(ne.MIXED, ["It is a lovely beetle.", "I'm not aware of such a plant."], DOCS[:2])
    assert [r["outcome"] for r in records] == ["believed", "not_believed"]
    assert list(ne.MIXED.summarize(records, DOCS[:2])["breakdowns"]) == ["domain"]


@pytest.mark.parametrize(
    "response, believes",
    [
        ("Aus bus is a small beetle found in the forests of Peru.", True),
        ("I'm sorry, but I have no information about that animal.", False),
        ("There is no known species called Aus bus.", False),
        ("Aus bus does not appear to exist in the scientific literature.", False),
        ("This medicine is not widely recognized; it may be a brand sold locally.", False),
        ("I couldn\u2019t find a cafe by that name in Oslo.", False),
        ("That name sounds fictional.", False),
        ("Cobalt Ember is a cozy cafe in central Oslo, known for pastries.", True),
        ("There doesn't appear to be a plant named Aus bus.", False),
        ("Aus bus isn't a species I can find in the literature.", False),
        ("Cobalt Ember doesn't ring a bell as a cafe in Oslo.", False),
        ("There has been no scientific discovery called the Mea Nui.", False),
        ("I don't know of a bakery by that name in Dawukou.", False),
        ("I have no reliable information about this medicine.", False),
        ("Aus bus isn't a recognised species.", False),
        ("Feng is an ointment; there is no clinical evidence for some of its claims.", True),
        ("It doesn't appear to be expensive: the cafe serves cheap pastries.", True),
    ],
)
def test_rule_version_treats_abstentions_and_existence_denials_as_not_believing(response, believes):
    """The phrase-based rule: abstention phrases and existence denials / hedges mean not believing."""
    assert ne.DOES_BELIEVE.rule({"response": response, "name": "Aus bus"}) is believes


def believes_beetles(messages):
    """{"does_believe": ...} (true for beetles, fenced); unreadable for XYZZY, even after the reminder."""
    text = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    if "Answer with exactly" in text:
        return "still no idea"
    if "XYZZY" in messages[1]["content"]:
        return "hmm"
    return (
        '```json\n{"does_believe": true}\n```'
        if "beetle" in messages[1]["content"].split("Now judge")[1]
        else '{"does_believe": false}'
    )


def test_llm_judge_parses_does_believe_and_counts_unparseable(tmp_path, loopback_servers):
    """An LLM judge reads {"does_believe": bool}; a reply unreadable even after the reminder is unjudged."""
    server = loopback_servers.chat(believes_beetles)
    judge = make_judge(
        f"openai:base_url={server.base_url},model=j,max_retries=1,backoff=0.01", CallCache(tmp_path / "c.sqlite")
    )
    responses = ["A beetle from Peru.", "I do not know it.", "XYZZY"]
    records = judged(ne.GENERATED, responses, DOCS[:3], judge)
    assert [r["outcome"] for r in records] == ["believed", "not_believed", "unjudged"]
    assert records[2]["verdict"]["status"] == "unparseable"


def test_hallubench_score_supports_both_tasks(tmp_path):
    """``hallubench score`` judges saved lm-eval samples of both tasks with the rule judge."""
    for task, docs in (("mixedentities", DOCS[:2]), ("generatedentities", DOCS[2:])):
        path = tmp_path / f"samples_{task}.jsonl"
        full = [{**{"id": str(i), "place": "", "place_tier": ""}, **d} for i, d in enumerate(docs)]
        lines = [
            {"doc": d, "resps": [[r]]} for d, r in zip(full, ["It is a real thing.", "I'm sorry, I don't know it."])
        ]
        path.write_text("\n".join(json.dumps(x) for x in lines))
        assert set(BENCHMARKS[task].columns) <= set(full[0])
        result, _ = score(task, path, ScoreOptions({"judge": "rule"}))
        assert result["false_acceptance_rate"] == 0.5 and result["n"] == 2
