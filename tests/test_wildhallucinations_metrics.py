"""WildHallucinations metrics on hand-built judged records: WildFActScore, -Strict, response rate, facts per
response, FActScore's length penalty, and the domain / Wikipedia / rarity breakdowns."""

import math

import pytest
from support import evaluate_module

from hallu_metrics.benchmarks.wildhallucinations import (
    BENCHMARK,
    is_wikipedia_url,
    length_penalty,
    rarity_bin,
    sample_metrics,
    wiki_group,
)


def record(outcome, n_facts=0, n_supported=0, abstained=False):
    return {"outcome": outcome, "abstained": abstained, "n_facts": n_facts, "n_supported": n_supported}


ABSTAINED = record("abstained", abstained=True)
ALL_SUPPORTED = record("all_supported", 4, 4)
ONE_UNSUPPORTED = record("some_unsupported", 4, 3)
NO_FACTS = record("no_facts")
UNJUDGED = record("unjudged", abstained=None)


def doc(category="geographic", urls=("https://example.com/a",), perplexity=12.0):
    return {"entity": "E", "category": category, "perplexity": perplexity,
            "info": [{"status_code": 200, "text": "t", "url": u} for u in urls]}


def test_per_sample_values_for_each_outcome():
    """Abstained: strict 0, not in WildFActScore; all supported: 1 / 1; one of four unsupported: 0.75 / 0;
    zero facts: responding, skipped by WildFActScore, strict 0; unjudged: counts only as unparseable."""
    assert sample_metrics(ABSTAINED) == {
        "response_rate": 0.0, "judge_unparseable_rate": 0.0, "wildfactscore": None, "wildfactscore_strict": 0.0,
        "facts_per_response": None, "facts_per_response_reference": None, "wildfactscore_length_penalized": None}
    full = sample_metrics(ALL_SUPPORTED)
    assert (full["wildfactscore"], full["wildfactscore_strict"], full["facts_per_response"]) == (1.0, 1.0, 4.0)
    one = sample_metrics(ONE_UNSUPPORTED)
    assert (one["wildfactscore"], one["wildfactscore_strict"], one["response_rate"]) == (0.75, 0.0, 1.0)
    empty = sample_metrics(NO_FACTS)
    assert (empty["wildfactscore"], empty["wildfactscore_strict"], empty["response_rate"],
            empty["facts_per_response"], empty["facts_per_response_reference"]) == (None, 0.0, 1.0, 0.0, None)
    assert full["facts_per_response_reference"] == 4.0
    unjudged = sample_metrics(UNJUDGED)
    assert unjudged["judge_unparseable_rate"] == 1.0
    assert all(unjudged[m] is None for m in BENCHMARK.metric_names if m != "judge_unparseable_rate")


def test_summary_over_the_four_cases():
    """WildFActScore averages only responding responses with facts ((1 + 0.75) / 2); Strict averages all four
    (1 / 4); response rate 3 / 4; facts per response over responding ones ((4 + 4 + 0) / 3)."""
    records = [ABSTAINED, ALL_SUPPORTED, ONE_UNSUPPORTED, NO_FACTS]
    result = BENCHMARK.summarize(records, [doc()] * 4)
    assert result["wildfactscore"] == pytest.approx(0.875)
    assert result["wildfactscore_strict"] == pytest.approx(0.25)
    assert result["response_rate"] == pytest.approx(0.75)
    assert result["facts_per_response"] == pytest.approx(8 / 3)
    assert result["facts_per_response_reference"] == pytest.approx(8 / 2)  # FActScore's: fact-bearing responses
    assert result["counts"] == {"abstained": 1, "all_supported": 1, "some_unsupported": 1, "no_facts": 1,
                                "unjudged": 0, "too_long": 0}
    assert result["counted"]["wildfactscore"] == 2 and result["counted"]["wildfactscore_strict"] == 4


def test_an_unjudged_response_is_out_of_the_response_rate_in_every_path():
    """The bug fixed: a response that did not abstain but has an unreadable fact verdict counted as responding in
    `score` and lm-eval (2 / 3) and not in the evaluate module (1 / 2). It counts only as unparseable everywhere."""
    unjudged_after_abstention = record("unjudged", 3, 1, abstained=False)  # as judge_item writes it
    records = [ABSTAINED, ALL_SUPPORTED, unjudged_after_abstention]
    assert sample_metrics(unjudged_after_abstention)["response_rate"] is None
    assert BENCHMARK.summarize(records, [doc()] * 3)["response_rate"] == 0.5
    module = evaluate_module("wildhallucinations")
    result = module.compute(outcomes=[r["outcome"] for r in records], supported_facts=[0, 4, 1],
                            total_facts=[0, 4, 3], categories=["geographic"] * 3, knowledge_urls=[[]] * 3,
                            perplexities=[None] * 3)
    assert result["response_rate"] == 0.5 and result["judge_unparseable_rate"] == pytest.approx(1 / 3)


def test_length_penalty_is_factscores():
    """1 above gamma = 10 facts, exp(1 - 10 / n) at or below it; applied per response to its score."""
    assert length_penalty(11) == 1.0 and length_penalty(10) == pytest.approx(1.0)
    assert length_penalty(4) == pytest.approx(math.exp(1 - 10 / 4))
    assert sample_metrics(ONE_UNSUPPORTED)["wildfactscore_length_penalized"] == pytest.approx(0.75 * math.exp(-1.5))


@pytest.mark.parametrize("url, wiki", [
    ("https://en.wikipedia.org/wiki/Lake_Baikal", True),
    ("http://de.m.wikipedia.org/wiki/Baikalsee", True),
    ("https://wikipedia.org/", True),
    ("https://EN.WIKIPEDIA.ORG./wiki/X", True),
    ("https://wikipedia.org.example.com/wiki/X", False),
    ("https://notwikipedia.org/wiki/X", False),
    ("https://example.com/?ref=en.wikipedia.org", False),
    ("http://[broken", False),
    ("", False),
])
def test_wikipedia_url_rule(url, wiki):
    """Only wikipedia.org and its subdomains are Wikipedia pages (host match, never a substring)."""
    assert is_wikipedia_url(url) is wiki


def test_wiki_group_any_page_on_wikipedia():
    """An entity is ``wiki`` when any of its pages is on wikipedia.org, ``non-wiki`` otherwise (also no pages)."""
    assert wiki_group(doc(urls=("https://a.com/x", "https://en.wikipedia.org/wiki/X"))) == "wiki"
    assert wiki_group(doc(urls=("https://a.com/x",))) == "non-wiki"
    assert wiki_group({"info": None}) == "non-wiki"


@pytest.mark.parametrize("perplexity, expected", [
    (1.0, 0), (9.99, 0), (10.0, 1), (4999.0, 3), (123456.0, 5), (None, None), (float("nan"), None), (0.0, None),
])
def test_rarity_is_the_order_of_magnitude(perplexity, expected):
    """Section 5's groups: floor(log10(perplexity)); missing or impossible perplexities are unbinned."""
    assert rarity_bin({"perplexity": perplexity}) == expected


def test_breakdown_rows_per_domain_wiki_and_rarity():
    """One row per domain (with its n and score), wiki / non-wiki rows, and rarity rows in numeric order."""
    records = [ALL_SUPPORTED, ONE_UNSUPPORTED, ABSTAINED, ALL_SUPPORTED]
    docs = [doc("people & personal attributes", ("https://en.wikipedia.org/wiki/P",), 5.0),
            doc("people & personal attributes", ("https://p.example/",), 150.0),
            doc("finance-related", ("https://f.example/",), 20.0),
            doc("geographic", ("https://en.wikipedia.org/wiki/G",), None)]
    breakdowns = BENCHMARK.summarize(records, docs)["breakdowns"]
    domains = {row["value"]: row for row in breakdowns["category"]}
    assert domains["people & personal attributes"]["n"] == 2
    assert domains["people & personal attributes"]["wildfactscore"] == pytest.approx(0.875)
    assert domains["finance-related"]["wildfactscore"] is None and domains["finance-related"]["response_rate"] == 0
    wiki = {row["value"]: row for row in breakdowns["wiki"]}
    assert (wiki["wiki"]["n"], wiki["wiki"]["wildfactscore_strict"]) == (2, 1.0)
    assert (wiki["non-wiki"]["n"], wiki["non-wiki"]["wildfactscore_strict"]) == (2, 0.0)
    assert [row["value"] for row in breakdowns["rarity"]] == ["0", "1", "2", "none"]


def test_evaluate_module_matches_the_benchmark():
    """The ``evaluate`` module gives the same numbers as BENCHMARK.summarize on the same judged outcomes."""
    module = evaluate_module("wildhallucinations")
    result = module.compute(
        outcomes=["abstained", "all_supported", "some_unsupported", "no_facts"],
        supported_facts=[0, 4, 3, 0], total_facts=[0, 4, 4, 0],
        categories=["geographic"] * 4,
        knowledge_urls=[["https://en.wikipedia.org/wiki/X"], [], ["https://a.example/"], []],
        perplexities=[3.0, None, 40.0, 700.0],
    )
    assert result["wildfactscore"] == pytest.approx(0.875) and result["wildfactscore_strict"] == pytest.approx(0.25)
    assert {row["value"]: row["n"] for row in result["breakdowns"]["wiki"]} == {"wiki": 1, "non-wiki": 3}
