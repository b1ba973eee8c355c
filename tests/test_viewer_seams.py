"""`hallubench view` at its seams: a samples file named on the command line whatever its name (task from --task or
its records), runs told apart by path, test set and date (the page's run/set/date filters), the reply to a reminder
turn beside the first reply, and why the rule judge gave each verdict. The data the page embeds is read back from
the written view.html."""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from support import run_cli, write_jsonl

from hallu_metrics.benchmarks import anah, longwiki, precisewikiqa
from hallu_metrics.benchmarks.precisewikiqa.checks import ABSTENTION, CORRECTNESS
from hallu_metrics.judges import JudgeSet
from hallu_metrics.pipeline import judge_responses

DOCS = [{"id": f"p{i}", "question": q, "answer": a, "title": a, "reference": f"{a}.", "difficulty": i}
        for i, (q, a) in enumerate([("Which river flows through Aswan?", "Nile"),
                                    ("Who founded Trabzon?", "Greek colonists"), ("Capital of France?", "Paris")])]
RESPONSES = ["The Nile.", "I don't know who founded Trabzon.", "It is Lyon."]
FINGERPRINT = {"embedded": "sha256:" + "a" * 64, "trial": "sha256:" + "b" * 64}


def samples_line(doc_id: int, doc: dict, response: str, record: dict) -> dict[str, Any]:
    """One lm-eval samples line of a hallubench task: the judged record as a JSON string in filtered_resps."""
    return {"doc_id": doc_id, "doc": doc, "target": "", "arguments": {}, "resps": [[response]],
            "filtered_resps": [json.dumps(record)], "filter": "judged", "metrics": [],
            "doc_hash": hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()}


def judged_lines(judge: str = "rule", responses: list[str] = RESPONSES, **settings: Any) -> list[dict[str, Any]]:
    """PreciseWikiQA's items judged by ``judge`` through the real chain; ``settings`` recorded as a run records them."""
    records = judge_responses(precisewikiqa.BENCHMARK, responses, DOCS[:len(responses)], JudgeSet({"judge": judge}))
    return [samples_line(i, doc, response, {**record, "settings": {"judge": judge, **settings}})
            for i, (doc, response, record) in enumerate(zip(DOCS, responses, records))]


def page_data(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The page's table data and each item's detail (unpacked as the browser unpacks them)."""
    text = (out / "view.html").read_text(encoding="utf-8")
    index = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)[1])
    packed = re.search(r'<script type="application/octet-stream" id="details">(.*?)</script>', text, re.S)[1]
    details = gzip.decompress(base64.b64decode(packed)).decode("utf-8").split("\n")[1:]
    return index, [{**row, **json.loads(line)} for row, line in zip(index["items"], details)]


def view(*argv: str | Path) -> tuple[int, str]:
    run = run_cli("view", *argv)
    return run.returncode, run.stderr


# ---------------------------------------------------------------- a samples file named whatever

def test_a_samples_file_of_any_name_is_read_with_task(tmp_path):
    samples = write_jsonl(tmp_path / "my_run.jsonl", judged_lines())
    code, err = view(samples, "--task", "precisewikiqa", "--out", tmp_path / "view")
    assert code == 0, err
    index, items = page_data(tmp_path / "view")
    assert index["tasks"] == ["precisewikiqa"] and len(items) == 3
    assert items[0]["g"] == {"difficulty": "0"}  # the task's breakdowns are read


def test_the_task_of_a_file_of_any_name_is_told_by_its_records(tmp_path):
    """PreciseWikiQA's doc columns fit one benchmark; GeneratedEntities' columns extend MixedEntities' (the more
    specific one is meant)."""
    samples = write_jsonl(tmp_path / "run.jsonl", judged_lines())
    assert view(samples, "--out", tmp_path / "a")[0] == 0
    assert page_data(tmp_path / "a")[0]["tasks"] == ["precisewikiqa"]
    generated = {"id": "g0", "name": "Velmora", "type": "place", "domain": "place", "place": "Kyiv",
                 "place_tier": "high", "prompt": "Tell me about Velmora."}
    record = {"response": "No such place.", "verdict": {"label": False, "status": "ok", "raw": "rule"},
              "outcome": "not_believed", "settings": {"judge": "rule"}}
    entities = write_jsonl(tmp_path / "entities.out", [samples_line(0, generated, "No such place.", record)])
    assert view(entities, "--out", tmp_path / "b")[0] == 0
    assert page_data(tmp_path / "b")[0]["tasks"] == ["generatedentities"]


def test_a_file_whose_task_cannot_be_told_is_one_line_asking_for_task(tmp_path):
    """HHEM and the baseline read the same columns: the records fit both; a file of other lines fits nothing."""
    pair = {"id": "f0", "reference": "r", "hypothesis": "h", "type": "gold_full", "expected_score": 5,
            "hallucinated_share": 0.0, "progression_kind": None}
    both = write_jsonl(tmp_path / "faith.jsonl", [samples_line(0, pair, "", {"score": 5})])
    code, err = view(both, "--out", tmp_path / "v")
    assert code == 2 and err.count("\n") == 1
    assert "cannot tell its task" in err and "faithfulness_baseline, faithfulness_hhem" in err and "--task" in err
    other = tmp_path / "notes.txt"
    other.write_text("just some notes\n")
    code, err = view(other, "--out", tmp_path / "v")
    assert code == 2 and "neither a hallubench score result.json nor an lm-eval samples log" in err
    code, err = view(both, "--task", "nosuch", "--out", tmp_path / "v")
    assert code == 2 and "unknown task 'nosuch'" in err


# ---------------------------------------------------------------- runs, sets and dates

def lm_eval_run(folder: Path, stamp: str, fingerprint: str, date: float) -> Path:
    """An lm-eval output folder of model m: its samples log and the results file written with it (same stamp)."""
    folder.mkdir(parents=True)
    (folder / f"results_{stamp}.json").write_text(json.dumps({
        "date": date, "config": {"model_args": "pretrained=/models/m"},
        "configs": {"precisewikiqa": {"metadata": {"hallubench_dataset": {"fingerprint": fingerprint}}}}}))
    return write_jsonl(folder / f"samples_precisewikiqa_{stamp}.jsonl", judged_lines())


def test_runs_sets_and_dates_of_one_model_are_told_apart(tmp_path):
    """The embedded run and a trial run of model m: each item names its run, whose set is the fingerprint its results
    file records and whose date is the run's (UTC); a lone file names the set location its records hold and the date
    in its name. The page's filter bar has run, set and date filters."""
    embedded = lm_eval_run(tmp_path / "embedded" / "m", "2026-01-01T00-00-00.000001", FINGERPRINT["embedded"],
                           1767225600.0)  # 2026-01-01 00:00 UTC
    trial = lm_eval_run(tmp_path / "trials" / "trial-0" / "m", "2026-02-01T00-00-00.000001", FINGERPRINT["trial"],
                        1769904000.0)  # 2026-02-01 00:00 UTC
    (tmp_path / "lone").mkdir()
    lone = write_jsonl(tmp_path / "lone" / "samples_precisewikiqa_2026-03-01T12-00-00.000001.jsonl",
                       judged_lines(dataset="sets/mine"))
    assert view(tmp_path / "embedded", tmp_path / "trials", lone, "--out", tmp_path / "v")[0] == 0
    index, items = page_data(tmp_path / "v")
    assert index["models"] == ["m", "lone"]
    runs = {run["p"]: run for run in index["runs"]}
    assert {k: (v["s"], v["w"]) for k, v in runs.items() if k != str(lone)} == {
        str(embedded): ("a" * 12, "2026-01-01 00:00"), str(trial): ("b" * 12, "2026-02-01 00:00")}
    assert runs[str(lone)]["s"] == "sets/mine" and runs[str(lone)]["w"].startswith("2026-03-01")
    by_run = {index["runs"][u]["p"]: sum(1 for it in items if it["u"] == u) for u in range(3)}
    assert by_run == {str(embedded): 3, str(trial): 3, str(lone): 3}
    page = (tmp_path / "v" / "view.html").read_text(encoding="utf-8")
    assert all(f'data-key="{key}"' in page for key in ("run", "set", "date"))


def test_a_score_result_gives_its_set_and_date(tmp_path):
    (tmp_path / "lm").mkdir()
    samples = write_jsonl(tmp_path / "lm" / "samples_precisewikiqa_2026-01-01T00-00-00.000001.jsonl",
                          judged_lines())
    result = tmp_path / "result.json"
    result.write_text(json.dumps({"written_by": "hallubench score", "task": "precisewikiqa", "samples": str(samples),
                                  "model": "M", "date": "2026-04-02T10:30:00Z",
                                  "dataset": {"fingerprint": FINGERPRINT["trial"]}}))
    assert view(result, "--out", tmp_path / "v")[0] == 0
    assert page_data(tmp_path / "v")[0]["runs"] == [{"p": str(samples), "s": "b" * 12, "w": "2026-04-02 10:30"}]


# ---------------------------------------------------------------- what the judges said

def reminded(messages: list[dict]) -> str:
    """An LLM judge whose first reply cannot be read; its reply to the reminder turn can."""
    last = messages[-1]["content"]
    if last == ABSTENTION.reminder:
        return '{"is_abstaining": false}'
    return '{"verdict": "CORRECT"}' if last == CORRECTNESS.reminder else "Let me think about it."


def test_the_reply_to_the_reminder_is_shown_beside_the_first(tmp_path, loopback_servers):
    server = loopback_servers.chat(reminded)
    judge = f"openai:base_url={server.base_url},model=judge"
    samples = write_jsonl(tmp_path / "llm.jsonl", judged_lines(judge, RESPONSES[:1]))
    assert view(samples, "--task", "precisewikiqa", "--out", tmp_path / "v")[0] == 0
    (item,) = page_data(tmp_path / "v")[1]
    abstention, correctness = item["st"]
    assert (abstention["r1"], abstention["r"], abstention["l"]) == (
        "Let me think about it.", '{"is_abstaining": false}', False)
    assert (correctness["r1"], correctness["r"], correctness["l"]) == (
        "Let me think about it.", '{"verdict": "CORRECT"}', "CORRECT")
    assert "w" not in abstention and "x" not in abstention  # an LLM judge's step: replies, no rule reason


def test_rule_verdicts_say_why_in_precisewikiqa(tmp_path):
    """The phrase that made a reply an abstention; the gold answer found (or not) for correctness; an attempted
    answer's abstention check says that nothing the rule looks for was found."""
    samples = write_jsonl(tmp_path / "rule.jsonl", judged_lines())
    assert view(samples, "--task", "precisewikiqa", "--out", tmp_path / "v")[0] == 0
    nile, trabzon, lyon = page_data(tmp_path / "v")[1]
    assert [(s["n"], s["w"]) for s in nile["st"]] == [
        ("abstention", "nothing the rule looks for was found"),
        ("correctness", 'gold "Nile" found in the response as words')]
    assert [(s["n"], s["l"], s["w"]) for s in trabzon["st"]] == [
        ("abstention", True, "matched lack-of-knowledge statement \"I don't know\"")]
    assert lyon["st"][1]["w"] == 'gold "Paris" not found in the response (normalised: "paris")'
    assert lyon["o"] == "hallucinated"


LONGWIKI_PAGES = [("Sirius", "Sirius is the brightest star in the night sky. Sirius lies 8.6 light-years from the "
                             "Sun.")]
LONGWIKI_DOC = {"id": "lw-1", "prompt": "Tell me about Sirius.", "title": "Sirius", "reference": LONGWIKI_PAGES[0][1],
                "level": 7}


@pytest.fixture
def store(knowledge_stores) -> str:
    return str(knowledge_stores.path(LONGWIKI_PAGES))


def test_rule_verdicts_say_why_in_longwiki_verification(tmp_path, store):
    """Each claim's rule verdict names the passage that supports it and its word coverage, or the best passage and
    what it lacks (here the number 50)."""
    answer = "Sirius is the brightest star in the night sky. Sirius lies 50 light-years from the Sun."
    judges = JudgeSet({"judge": "rule"}, settings={"knowledge": store, "retrieval": "bm25"})
    (record,) = judge_responses(longwiki.BENCHMARK, [answer], [LONGWIKI_DOC], judges)
    samples = write_jsonl(tmp_path / "lw.jsonl", [samples_line(0, LONGWIKI_DOC, answer, record)])
    assert view(samples, "--task", "longwiki", "--knowledge", store, "--out", tmp_path / "v")[0] == 0
    (item,) = page_data(tmp_path / "v")[1]
    supported, unsupported = item["cl"]
    assert supported["l"] is True and re.fullmatch(
        r"passage \d covers 1\.00 >= 0\.7 of the claim's content words, with its numbers and names", supported["w"])
    assert unsupported["l"] is False and re.fullmatch(
        r"best passage \d covers \d\.\d\d of the claim's content words \(needs 0\.7\); lacks numbers 50",
        unsupported["w"])
    assert [(s["n"], s["w"]) for s in item["st"] if s["n"].endswith(".extraction")] == [
        ("snippets[0].extraction", "the whole sentence is one claim (7 words of 3+ letters or numbers)"),
        ("snippets[1].extraction", "the whole sentence is one claim (8 words of 3+ letters or numbers)")]


ANAH_DOC = {"question": "Who built the Eiffel Tower?", "language": "en",
            "document": "The Eiffel Tower was built by Gustave Eiffel's company for the 1889 World's Fair in Paris. "
                        "It is 330 metres tall."}


def test_rule_verdicts_say_why_in_anah(tmp_path):
    """An ANAH run is viewable, and each sentence's three rule turns say why: the content units found (or none),
    the document sentence chosen as reference and its overlap, the coverage against its threshold and the number
    the reference lacks."""
    answer = "Sure! The Eiffel Tower was built in 1887 by Gustave Eiffel's company."
    (record,) = judge_responses(anah.BENCHMARK, [answer], [ANAH_DOC], JudgeSet({"judge": "rule"}))
    samples = write_jsonl(tmp_path / "anah.jsonl", [samples_line(0, ANAH_DOC, answer, record)])
    assert view(samples, "--task", "anah_v2_ref", "--out", tmp_path / "v")[0] == 0
    (item,) = page_data(tmp_path / "v")[1]
    assert [(s["n"], s["l"], s["w"]) for s in item["st"]] == [
        ("sentences[0].facts", False, "no content unit: only stop words and conversational fillers, so no facts"),
        ("sentences[1].facts", True,
         'content units "1887", "built", "company", "eiffel", "gustave", ... (6 in all): states facts'),
        ("sentences[1].reference", "The Eiffel Tower was built by Gustave Eiffel's company for the 1889 World's Fair "
         "in Paris.", "chose document sentence 1 (5 shared) of 2: the most content units shared with the sentence "
         "(at least 2)"),
        ("sentences[1].hallucination", "unverifiable",
         "the reference points hold 0.83 of the sentence's content units (needs 0.5); lacks numbers 1887")]


@pytest.mark.parametrize("response, reason", [
    ("I'm not sure, I don't know.", "rule: "),  # the abstention phrase it matched
    ("It was Paris, of course.", 'rule: gold "Paris" found in the response'),
    ("It was Lyon.", 'rule: gold "Paris" not found in the response (normalised: "paris"); gold "City of Light" not '
                     'found'),
])
def test_the_short_answer_rule_grade_says_why(response, reason):
    from hallu_metrics.judges.kinds import RuleJudge
    from hallu_metrics.short_answer_qa.checks import GRADE

    verdict = asyncio.run(RuleJudge().ask(GRADE, {"question": "Q?", "golds": ["Paris", "City of Light"],
                                                  "response": response}))
    assert verdict.raw.startswith(reason) and verdict.raw != "rule: nothing the rule looks for was found"
