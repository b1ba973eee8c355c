"""WildHallucinations judging chain: abstention by phrase and by the optional refusal check, atomic facts per
sentence, evidence only from the entity's own pages (BM25 and embedding ranking), per-fact verification, and
robustness to pages and replies of any size or encoding."""

import asyncio
import json

import numpy as np
import pytest

from hallu_metrics.benchmarks import wildhallucinations as wh
from hallu_metrics.benchmarks.wildhallucinations import evidence as wh_evidence
from hallu_metrics.judges import JudgeSet
from hallu_metrics.judges.base import Verdict
from hallu_metrics.longform.embeddings import Embedder

PAGES = {
    "Lake Baikal": [
        ("https://en.wikipedia.org/wiki/Lake_Baikal", "Lake Baikal is a rift lake in Siberia. It is the deepest lake "
         "in the world, with a maximum depth of 1,642 metres."),
        ("https://baikal.example/facts", "The lake holds about 23 percent of the fresh surface water of the world."),
    ],
    "Mount Kosciuszko": [
        ("https://kosciuszko.example/", "Mount Kosciuszko is the highest mountain of mainland Australia, at 2,228 "
         "metres. It stands in the Snowy Mountains."),
    ],
}


def doc(entity, category="geographic"):
    return {"entity": entity, "perplexity": 30.0, "category": category,
            "info": [{"status_code": 200, "text": text, "url": url} for url, text in PAGES[entity]]}


class ScriptedJudge:
    """Facts per sentence from a table; a claim is supported unless it contains "WRONG"; refusal from a flag."""

    spec = "scripted"

    def __init__(self, facts, knowledgeable=True, unreadable=()):
        self.facts, self.knowledgeable, self.unreadable = facts, knowledgeable, set(unreadable)
        self.asked = []

    async def ask(self, check, item):
        self.asked.append((check.name, item))
        if check.name == "atomic_facts":
            if item["sentence"] in self.unreadable:
                return Verdict(None, "unparseable", "???")
            return Verdict(self.facts.get(item["sentence"], []), "ok", "scripted")
        if check.name == "verification":
            return Verdict("WRONG" not in item["claim"], "ok", "scripted")
        if check.name == "knowledgeable":
            return Verdict(self.knowledgeable, "ok", "scripted")
        raise AssertionError(check.name)

    def report(self):
        return {}

    def close(self):
        pass


def judge(judge_double, doc_, response, **settings):
    judges = JudgeSet({"judge": "rule"}, settings={"retrieval": "bm25", **settings})
    judges.use("rule", judge_double)
    return asyncio.run(wh.judge_item(doc_, response, judges))


FACTS = {
    "Lake Baikal is the deepest lake in the world.": ["Lake Baikal is the deepest lake in the world."],
    "It is 2,228 metres high.": ["Lake Baikal is 2,228 metres high WRONG."],
    "I hope this helps!": [],
}


def test_all_supported_one_unsupported_and_per_fact_records():
    """Each sentence is split into facts and each fact verified: one WRONG fact makes the response
    some_unsupported; the record keeps every fact with its evidence (page URL + passage index) and verdict."""
    scripted = ScriptedJudge(FACTS)
    record = judge(scripted, doc("Lake Baikal"), "Lake Baikal is the deepest lake in the world.")
    assert (record["outcome"], record["n_facts"], record["n_supported"]) == ("all_supported", 1, 1)
    fact = record["sentences"][0]["facts"][0]
    assert fact["verdict"]["label"] is True and fact["evidence"][0]["url"].startswith("https://")
    record = judge(scripted, doc("Lake Baikal"),
                   "Lake Baikal is the deepest lake in the world. It is 2,228 metres high. I hope this helps!")
    assert (record["outcome"], record["n_facts"], record["n_supported"]) == ("some_unsupported", 2, 1)
    assert wh.sample_metrics(record)["wildfactscore"] == 0.5
    json.dumps(record)


def test_abstention_phrase_stops_the_chain_and_refusal_check_is_optional():
    """A listed phrase abstains without any judge call; the LLM refusal check runs only when enabled, and a
    'not knowledgeable' verdict abstains."""
    scripted = ScriptedJudge(FACTS)
    record = judge(scripted, doc("Lake Baikal"), "I'm sorry, I couldn't find any information about that lake.")
    assert (record["outcome"], record["abstained"], scripted.asked) == ("abstained", True, [])
    judge(scripted, doc("Lake Baikal"), "Lake Baikal is the deepest lake in the world.")
    assert "knowledgeable" not in [name for name, _ in scripted.asked]
    refusing = ScriptedJudge(FACTS, knowledgeable=False)
    record = judge(refusing, doc("Lake Baikal"), "Lake Baikal is the deepest lake in the world.", refusal_check="true")
    assert record["outcome"] == "abstained" and [name for name, _ in refusing.asked] == ["knowledgeable"]
    assert refusing.asked[0][1]["question"] == "In a paragraph, could you tell me what you know about Lake Baikal?"


def test_zero_facts_and_unreadable_extraction():
    """A response whose sentences state no fact is no_facts; one unreadable extraction makes it unjudged."""
    assert judge(ScriptedJudge(FACTS), doc("Lake Baikal"), "I hope this helps!")["outcome"] == "no_facts"
    unreadable = ScriptedJudge(FACTS, unreadable={"I hope this helps!"})
    record = judge(unreadable, doc("Lake Baikal"), "Lake Baikal is the deepest lake in the world. I hope this helps!")
    assert record["outcome"] == "unjudged" and wh.sample_metrics(record)["judge_unparseable_rate"] == 1.0


def bag_of_words(texts):
    vocabulary = sorted({w for text in ["mountain australia lake siberia deepest water metres highest"]
                         for w in text.split()})
    return np.array([[text.lower().count(w) + 0.01 for w in vocabulary] for text in texts], dtype=np.float32)


@pytest.mark.parametrize("method", ["bm25", "embedding"])
def test_evidence_comes_only_from_the_entitys_own_pages(method, monkeypatch):
    """A fact about another entity is still checked against this entity's pages only: every passage handed to
    verification comes from a URL in this entity's ``info`` (with both ranking methods)."""
    monkeypatch.setattr(wh_evidence, "embedder_from_spec", lambda spec: Embedder("test/bow", bag_of_words))
    monkeypatch.setattr(wh_evidence, "_RETRIEVERS", {})
    sentence = "Lake Baikal is the deepest lake in the world."
    facts = {sentence: ["Lake Baikal is the deepest lake in the world.",
                        "Mount Kosciuszko is the highest mountain of mainland Australia."]}
    scripted = ScriptedJudge(facts)
    record = judge(scripted, doc("Lake Baikal"), sentence, retrieval=method)
    own = {url for url, _ in PAGES["Lake Baikal"]}
    handed = [p["title"] for name, item in scripted.asked if name == "verification" for p in item["passages"]]
    assert handed and set(handed) <= own
    assert {e["url"] for f in record["sentences"][0]["facts"] for e in f["evidence"]} <= own
    texts = [p["text"] for name, item in scripted.asked if name == "verification" for p in item["passages"]]
    assert not any("Kosciuszko" in text for text in texts)


def test_pages_and_replies_of_any_size_or_encoding(monkeypatch):
    """Real rule stand-ins on a 300,000-word page with lone surrogates, NULs and emoji, a 404 page, a page
    without text and a reply with a lone surrogate: the chain finishes and the record is valid JSON."""
    huge = " ".join(f"w{i % 997} \ud800 \x00 \U0001f600 lake" for i in range(60_000))
    odd = {"entity": "Lake \udcff Baikal", "perplexity": None, "category": "geographic", "info": [
        {"status_code": 200, "text": huge, "url": "https://huge.example/"},
        {"status_code": 404, "text": "Not found", "url": "https://gone.example/"},
        {"status_code": 200, "text": None, "url": None},
        {"status_code": 200, "text": "Lake Baikal is deep, and it is cold; it lies in Siberia.", "url": "x"},
    ]}
    judges = JudgeSet({"judge": "rule"}, settings={"retrieval": "bm25"})
    response = "Lake Baikal \ud83d is deep, and it is cold. " * 5 + "\x00" + "é" * 5000
    record = asyncio.run(wh.judge_item(odd, response, judges))
    assert record["outcome"] in ("all_supported", "some_unsupported") and record["n_facts"] >= 2
    json.dumps(record, ensure_ascii=False).encode("utf-8")
    assert [url for url, _ in wh.entity_pages(odd)] == ["https://huge.example/", "x"]


def test_bad_settings_are_one_line_errors():
    """An unknown retrieval method or a non-numeric top_k is a HallubenchError before any work."""
    from hallubench.core.errors import HallubenchError

    with pytest.raises(HallubenchError, match="retrieval must be one of"):
        wh.EvidenceSettings.from_settings({"retrieval": "grep"})
    with pytest.raises(HallubenchError, match="top_k"):
        wh.EvidenceSettings.from_settings({"top_k": "five"})


@pytest.mark.parametrize("response, excess", [
    ("Lake Baikal is deep. " * 5_000, {"chars": 105_000, "max_chars": 100_000}),
    ("It is. " * 401, {"sentences": 401, "max_sentences": 400}),
])
def test_a_response_over_the_size_limits_is_too_long_not_judged(response, excess):
    """Over 100,000 characters or 400 sentences: no judge call, outcome too_long with what it exceeds, the start of
    the response kept, and no metric counts it (not even the unreadable share)."""
    scripted = ScriptedJudge(FACTS)
    record = judge(scripted, doc("Lake Baikal"), response)
    assert (record["outcome"], record["too_long"], scripted.asked) == ("too_long", excess, [])
    assert len(record["response"]) <= 1_000
    assert set(wh.sample_metrics(record).values()) == {None, 0.0}
    assert wh.BENCHMARK.summarize([record], [doc("Lake Baikal")])["counts"]["too_long"] == 1
