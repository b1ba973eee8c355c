"""A long-form response cut at the token limit ends inside a sentence: its unfinished last fragment yields no claim
(LongWiki) or fact (WildHallucinations), and the judged record says the response was cut (issue 32, part 4)."""

import asyncio

import pytest

from hallu_metrics.benchmarks import longwiki as lw
from hallu_metrics.benchmarks import wildhallucinations as wh
from hallu_metrics.judges import JudgeSet
from hallu_metrics.longform.knowledge import write_store
from hallu_metrics.longform.sentences import finished_sentences, split_sentences
from hallu_metrics.pipeline import judge_responses

PAGES = [("Sirius", "Sirius is the brightest star in the night sky. Its companion Sirius B is a white dwarf.")]
LW_DOC = {"id": "lw-1", "prompt": "Tell me about Sirius.", "title": "Sirius", "reference": PAGES[0][1], "level": 7}
WILD_DOC = {"entity": "Sirius", "perplexity": 30.0, "category": "astronomy",
            "info": [{"status_code": 200, "text": PAGES[0][1], "url": "https://en.wikipedia.org/wiki/Sirius"}]}
FINISHED = "Sirius is the brightest star in the night sky. Its companion Sirius B is a white dwarf."
CUT = FINISHED + " Sirius lies in the constellation Kalining"  # what the embedded default's LongWiki run ended on


@pytest.mark.parametrize(("text", "fragment"), [
    (CUT, "Sirius lies in the constellation Kalining"),
    ("Sirius is bright. It is a binary star and", "It is a binary star and"),
    ("Sirius, a star in", "Sirius, a star in"),
    (FINISHED, None),
    ('He said "it shines."', None),
    ("It shines (brightly).", None),
    ("It is the **brightest star.**", None),
    ("Is it a star?\n\n", None),
    ("", None),
])
def test_only_a_last_sentence_without_final_punctuation_is_an_unfinished_fragment(text, fragment):
    sentences = split_sentences(text)
    kept, cut = finished_sentences(sentences)
    assert cut == fragment
    assert kept == (sentences[:-1] if fragment else sentences)


@pytest.fixture
def store(tmp_path):
    return str(write_store(tmp_path / "kb", PAGES, progress=False).path)


def test_longwiki_cut_response_judges_no_claim_from_its_fragment(store):
    """The rule extractor makes every sentence a claim: the unfinished one is not extracted, verified or counted."""
    judges = JudgeSet({"judge": "rule"}, settings={"knowledge": store, "retrieval": "bm25"})
    cut, whole = judge_responses(lw.BENCHMARK, [CUT, FINISHED], [LW_DOC, LW_DOC], judges)
    assert [c["claim"] for c in cut["claims"]] == [c["claim"] for c in whole["claims"]] == split_sentences(FINISHED)
    assert all("Kalining" not in s["sentence"] for s in cut["snippets"])
    assert (cut["cut"], cut["cut_fragment"], cut["n_claims"], cut["outcome"]) == (
        True, "Sirius lies in the constellation Kalining", 2, "judged")
    assert whole["cut"] is False and "cut_fragment" not in whole
    assert lw.BENCHMARK.summarize([cut, whole], [LW_DOC, LW_DOC])["cut_responses"] == 1


def test_longwiki_response_that_is_one_unfinished_fragment_has_no_claims(store):
    judges = JudgeSet({"judge": "rule"}, settings={"knowledge": store, "retrieval": "bm25"})
    (record,) = judge_responses(lw.BENCHMARK, ["Sirius is the brightest star in the"], [LW_DOC], judges)
    assert (record["outcome"], record["cut"], record["claims"]) == ("no_claims", True, [])


def test_wildhallucinations_cut_response_judges_no_fact_from_its_fragment():
    judges = JudgeSet({"judge": "rule"}, settings={"retrieval": "bm25"})
    cut = asyncio.run(wh.judge_item(WILD_DOC, CUT, judges))
    whole = asyncio.run(wh.judge_item(WILD_DOC, FINISHED, judges))
    assert [s["sentence"] for s in cut["sentences"]] == split_sentences(FINISHED)
    assert (cut["cut"], cut["cut_fragment"], cut["n_facts"]) == (True, "Sirius lies in the constellation Kalining",
                                                                 whole["n_facts"])
    assert whole["cut"] is False and cut["outcome"] == whole["outcome"]
    assert wh.BENCHMARK.summarize([cut, whole], [WILD_DOC, WILD_DOC])["cut_responses"] == 1
