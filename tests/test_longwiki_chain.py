"""The LongWiki judging chain per response on a tiny knowledge store built in the test: refusal first, claims
from every sentence snippet (de-duplicated), evidence and verification per claim; records keep passage titles and
indices; unreadable steps make a response unjudged; a missing store is one clear error; a cached re-run of an LLM
judge makes no calls; `hallubench score --task longwiki --knowledge` scores a samples file."""

import json
import re
import threading
import time

import pytest

from hallu_metrics.benchmarks import longwiki as lw
from hallu_metrics.judges import JudgeSet, Verdict
from hallu_metrics.judges.prompts import block_texts
from hallu_metrics.pipeline import judge_responses
from hallubench.cli import main
from hallubench.core.backends import CallCache
from hallubench.core.errors import HallubenchError

PAGES = [
    ("Sirius", "Sirius is the brightest star in the night sky. It is a binary star in the constellation Canis Major. "
               "Its companion Sirius B is a white dwarf. Sirius lies 8.6 light-years from the Sun."),
    ("Canis Major", "Canis Major is a constellation in the southern celestial hemisphere. Its brightest star is "
                    "Sirius."),
    ("Vega", "Vega is the brightest star in the constellation Lyra."),
]
DOC = {"id": "lw-1", "prompt": "Tell me about Sirius and the constellation Canis Major.", "title": "Sirius",
       "reference": PAGES[0][1], "level": 7}
ANSWER = ("Sirius is the brightest star in the night sky. Sirius is the brightest star in the night sky. "
          "Its companion Sirius B is a white dwarf. Sirius lies 50 light-years from the Sun.")
REFUSAL = "I'm sorry, but I don't have information about that star, so I can't describe it."


@pytest.fixture
def store(knowledge_stores):
    return str(knowledge_stores.path(PAGES))


def judges_for(store, judge, **settings):
    judges = JudgeSet({"judge": "rule"}, settings={"knowledge": store, "retrieval": "bm25", **settings})
    judges.use("rule", judge)
    return judges


class ScriptedJudge:
    """Answers each check from the item: refusal from the response, one claim per marked sentence (or a table),
    verification by whether the claim mentions '8.6' or 'brightest'; records every question."""

    spec = "scripted"

    def __init__(self, extraction=None):
        self.asked, self.extraction = [], extraction or {}

    async def ask(self, check, item):
        self.asked.append((check.name, item))
        if check.name == "knowledgeable":
            return Verdict(not item["response"].startswith("I'm sorry"), "ok", "r")
        if check.name == "claim_extraction":
            return self.extraction.get(item["sentence"], Verdict([item["sentence"]], "ok", "e"))
        return Verdict("brightest" in item["claim"] or "white dwarf" in item["claim"], "ok", "v")

    def report(self):
        return {}

    def close(self):
        pass


def test_chain_extracts_dedupes_retrieves_and_verifies_each_claim(store):
    """Refused responses stop after the refusal check; repeated claims are verified once, against passages whose
    titles and indices (not texts) are recorded; precision and counts follow the verdicts."""
    judge = ScriptedJudge()
    records = judge_responses(lw.BENCHMARK, [ANSWER, REFUSAL], [DOC, DOC], judges_for(store, judge))
    answered, refused = records
    assert refused["outcome"] == "refused" and refused["claims"] == [] and refused["snippets"] == []
    assert (answered["knowledgeable"]["label"], refused["knowledgeable"]["label"]) == (True, False)
    assert [c["claim"] for c in answered["claims"]] == [
        "Sirius is the brightest star in the night sky.", "Its companion Sirius B is a white dwarf.",
        "Sirius lies 50 light-years from the Sun."]
    assert len(answered["snippets"]) == 4 and answered["outcome"] == "judged"
    assert answered["n_claims"] == 3 and answered["supported"] == 2 and answered["k"] == 32
    first = answered["claims"][0]["passages"]
    assert first and set(first[0]) == {"title", "index"} and first[0]["title"] == "Sirius"
    verified = [item["claim"] for name, item in judge.asked if name == "verification"]
    assert len(verified) == 3 and all(name != "claim_extraction" or item["question"] == DOC["prompt"]
                                      for name, item in judge.asked)
    assert "<SOS>Its companion Sirius B is a white dwarf.<EOS>" in [
        item["snippet"] for name, item in judge.asked if name == "claim_extraction"][2]
    assert lw.sample_metrics(answered)["precision"] == pytest.approx(2 / 3)


def test_candidate_pages_come_from_the_question_entities(store):
    """The question names Canis Major: its page joins the source page among the evidence candidates."""
    judge = ScriptedJudge()
    record = judge_responses(lw.BENCHMARK, [ANSWER], [DOC], judges_for(store, judge))[0]
    titles = {p["title"] for claim in record["claims"] for p in claim["passages"]}
    assert titles == {"Sirius", "Canis Major"}


def test_unreadable_extraction_makes_the_response_unjudged_without_verification(store):
    """One unreadable extraction verdict: no claims are verified and the response counts only as unjudged."""
    judge = ScriptedJudge({"Its companion Sirius B is a white dwarf.": Verdict(None, "unparseable", "??")})
    record = judge_responses(lw.BENCHMARK, [ANSWER], [DOC], judges_for(store, judge))[0]
    assert record["outcome"] == "unjudged" and record["claims"] == []
    assert not [name for name, _ in judge.asked if name == "verification"]
    assert record["snippets"][2]["extraction"]["raw"] == "??"


def test_claimless_response_and_k_from_settings(store):
    """A response whose sentences give no claim is `no_claims`; `longwiki_k` sets K in the record."""
    judge = ScriptedJudge({"Sirius is the brightest star in the night sky.": Verdict([], "ok", "none")})
    records = judge_responses(lw.BENCHMARK, ["Sirius is the brightest star in the night sky."], [DOC],
                              judges_for(store, judge, longwiki_k="8"))
    assert records[0]["outcome"] == "no_claims" and records[0]["k"] == 8
    with pytest.raises(HallubenchError, match="longwiki_k must be at least 1"):
        lw.claim_k({}, {"longwiki_k": "0"})
    with pytest.raises(HallubenchError, match="must be at least 1, got 0"):  # a doc's k: 0 is not the default 32
        lw.claim_k({"k": 0}, {})
    assert lw.claim_k({"k": None}, {}) == 32


def test_evidence_of_concurrent_responses_is_retrieved_one_claim_at_a_time_in_the_cpu_lane(store, monkeypatch):
    """Retrieval is CPU-bound Python: the claims of responses judged together are ranked one after another in the
    process's one CPU-lane thread, never in parallel threads that would contend with the judge calls for the
    interpreter lock; every claim still gets its passages."""
    running, seen, lock = [0], [], threading.Lock()
    passages = lw.Evidence.passages

    def watched(self, question, claim, title):
        with lock:
            running[0] += 1
            seen.append((threading.current_thread().name, running[0]))
        time.sleep(0.01)  # long enough for a second thread to overlap, were there one
        try:
            return passages(self, question, claim, title)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(lw.Evidence, "passages", watched)
    records = judge_responses(lw.BENCHMARK, [ANSWER] * 4, [{**DOC, "id": f"lw-{i}"} for i in range(4)],
                              judges_for(store, ScriptedJudge()))
    assert len(seen) == 12 and all(claim["passages"] for record in records for claim in record["claims"])
    assert {name.split("_")[0] for name, _ in seen} == {"cpu-lane"} and max(depth for _, depth in seen) == 1


def test_missing_knowledge_store_is_one_clear_error(monkeypatch):
    """Without --metadata knowledge / $HALLUBENCH_KNOWLEDGE the chain names the setting to pass."""
    monkeypatch.delenv("HALLUBENCH_KNOWLEDGE", raising=False)
    judges = JudgeSet({"judge": "rule"})
    judges.use("rule", ScriptedJudge())
    with pytest.raises(HallubenchError, match="needs a knowledge store.*--metadata knowledge"):
        judge_responses(lw.BENCHMARK, [ANSWER], [DOC], judges)


def test_rule_judge_runs_the_offline_stand_in_end_to_end(store):
    """The rule judge: one claim per sentence, lexical verification against the retrieved passages."""
    judges = JudgeSet({"judge": "rule"}, settings={"knowledge": store, "retrieval": "bm25"})
    record = judge_responses(lw.BENCHMARK, [ANSWER], [DOC], judges)[0]
    verdicts = {c["claim"]: c["verification"]["label"] for c in record["claims"]}
    assert verdicts == {"Sirius is the brightest star in the night sky.": True,
                        "Its companion Sirius B is a white dwarf.": True,
                        "Sirius lies 50 light-years from the Sun.": False}


def llm_reply(messages):
    """A scripted LLM judge: refusal by the reply's opening, the marked sentence as the claim, supported unless
    the claim says 50."""
    text = messages[-1]["content"]
    if "is_knowledgeable" in messages[0]["content"]:
        reply = block_texts(text, "chatbot")[-1]
        return json.dumps({"is_knowledgeable": not reply.startswith("I'm sorry")})
    if "Claims:" in text:
        return "- " + re.findall(r"<SOS>(.*?)<EOS>", text)[-1]
    return json.dumps({"is_supported": " 50 " not in block_texts(text, "claim")[-1]})


def test_cached_rerun_of_an_llm_judge_makes_no_calls(store, tmp_path, loopback_servers):
    """Every step goes through the call cache: the second run of the same chain makes 0 calls."""
    server = loopback_servers.chat(llm_reply)
    spec = f"openai:base_url={server.base_url},model=judge"
    runs = []
    for _ in range(2):
        judges = JudgeSet({"judge": spec}, CallCache(tmp_path / "calls.sqlite"),
                          settings={"knowledge": store, "retrieval": "bm25"})
        try:
            records = judge_responses(lw.BENCHMARK, [ANSWER, REFUSAL], [DOC, DOC], judges)
            runs.append((records, judges.report()[judges.get("judge").spec]))
        finally:
            judges.close()
    (first, first_calls), (second, second_calls) = runs
    assert first_calls["calls"] == 2 + 4 + 3 and second_calls["calls"] == 0  # 2 refusals, 4 snippets, 3 claims
    assert [r["outcome"] for r in first] == ["judged", "refused"]
    assert [r["supported"] for r in second] == [r["supported"] for r in first] == [2, 0]


def test_score_cli_judges_a_samples_file_with_a_knowledge_store(store, tmp_path, monkeypatch, capsys):
    """`hallubench score --task longwiki --knowledge` writes the paper's columns and per-level rows."""
    monkeypatch.setenv("HALLUBENCH_RETRIEVAL", "bm25")
    samples = tmp_path / "samples_longwiki.jsonl"
    lines = [{"doc": {**DOC, "level": level, "k": 32}, "resps": [[response]]}
             for level, response in ((5, ANSWER), (6, REFUSAL), (6, ANSWER))]
    samples.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    out = tmp_path / "result.json"
    code = main(["score", "--task", "longwiki", "--samples", str(samples), "--knowledge", store, "--out", str(out),
                 "--plot", str(tmp_path / "levels.png")])
    assert code == 0
    result = json.loads(out.read_text())
    assert result["false_refusal_rate"] == pytest.approx(1 / 3) and result["precision"] == pytest.approx(2 / 3)
    assert result["recall_at_k"] == pytest.approx(2 / 32) and result["claims"] == 6
    assert [row["value"] for row in result["breakdowns"]["level"]] == ["5", "6"]
    table = capsys.readouterr().out
    assert "false_refusal_rate (%)" in table and "f1_at_k (%)" in table
    assert (tmp_path / "levels.png").stat().st_size > 0


def test_a_response_with_a_lone_surrogate_is_judged_not_a_traceback(store, tmp_path, monkeypatch):
    """A broken JSON escape in a response ("\\ud800") reaches sentence splitting and the title index as U+FFFD."""
    monkeypatch.setenv("HALLUBENCH_RETRIEVAL", "bm25")
    samples = tmp_path / "samples_longwiki.jsonl"
    broken = "Sirius is the brightest star \ud800 in the night sky. Its companion Sirius B is a white dwarf."
    samples.write_text(json.dumps({"doc": {**DOC, "k": 32}, "resps": [[broken]]}) + "\n")
    out = tmp_path / "result.json"
    assert main(["score", "--task", "longwiki", "--judge", "rule", "--samples", str(samples), "--knowledge", store,
                 "--out", str(out)]) == 0
    assert json.loads(out.read_text())["claims"] == 2


def test_a_response_over_the_size_limits_is_too_long_not_judged(store, tmp_path, monkeypatch, capsys):
    """A 5 MB response and one of 401 sentences: no judge call, outcome too_long, in no metric; score says how many
    were left out (the lm-eval samples keep the counts)."""
    judge = ScriptedJudge()
    huge, many = "Sirius is bright. " * 300_000, "It is. " * 401
    records = judge_responses(lw.BENCHMARK, [huge, many, ANSWER], [DOC, DOC, DOC], judges_for(store, judge))
    assert [r["outcome"] for r in records[:2]] == ["too_long", "too_long"]
    assert records[0]["too_long"] == {"chars": len(huge), "max_chars": 100_000}
    assert records[1]["too_long"] == {"sentences": 401, "max_sentences": 400}
    assert all(item["response"] == ANSWER for _, item in judge.asked if "response" in item)
    assert lw.sample_metrics(records[0])["judge_unparseable_rate"] == 0.0 and lw.sample_metrics(records[0])[
        "precision"] is None
    monkeypatch.setenv("HALLUBENCH_RETRIEVAL", "bm25")
    samples = tmp_path / "samples_longwiki.jsonl"
    samples.write_text(json.dumps({"doc": {**DOC, "k": 32}, "resps": [[many]]}) + "\n")
    assert main(["score", "--task", "longwiki", "--judge", "rule", "--samples", str(samples), "--knowledge", store,
                 "--out", str(tmp_path / "r.json")]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["counts"]["too_long"] == 1
    assert "longwiki: 1 response(s) over the size limits were not judged" in capsys.readouterr().err
