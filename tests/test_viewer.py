"""`hallubench view`: the items gathered from samples logs and score results, the escaping of untrusted text, and
and (slow) the page itself in headless Chromium (filters, details, side-by-side models, claims with evidence)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from support import write_jsonl

from hallubench.cli import main
from hallubench.core.errors import HallubenchError
from hallubench.reporting.compare import FROM_DATASET
from hallubench.reporting.viewer import write_view
from hallubench.reporting.viewer.items import find_sources, gather
from hallubench.reporting.viewer.page import embed_json

CHROMIUM = Path("/usr/bin/chromium")
XSS = "<script>alert(1)</script> then </script><img src=x onerror=alert(2)> & \u2028 done"


def _line(doc_id: int, doc: dict, response: str, record: dict, metrics: dict, target: str = "") -> dict:
    """One lm-eval 0.4.13 samples line as `--log_samples` writes it for a hallubench task (judged record in
    filtered_resps as a JSON string, per-sample metric values at the top)."""
    question = doc.get("question") or doc.get("prompt") or f"Tell me about {doc.get('entity')}."
    return {"doc_id": doc_id, "doc": doc, "target": target,
            "arguments": {"gen_args_0": {"arg_0": f"<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n",
                                         "arg_1": {"until": [], "do_sample": False, "max_gen_toks": 256}}},
            "resps": [[response]], "filtered_resps": [json.dumps(record)], "filter": "judged", "metrics": list(metrics),
            "doc_hash": hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest(), **metrics}


def _write(path: Path, lines: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_jsonl(path, lines)


def _pwqa_doc(n: int, question: str, answer: str) -> dict:
    return {"id": f"pwqa-{n}", "question": question, "answer": answer, "title": answer,
            "reference": f"{answer} is the answer to: {question}", "difficulty": 3 if n < 2 else 7, "h_score": None,
            "pageid": None, "revid": None, "chunk_index": 0}


def _pwqa_lines(model_b: bool = False) -> list[dict]:
    """Three PreciseWikiQA items as an LLM judge reads them: a correct answer, an unreadable grade (model A) and an
    abstention."""
    settings = {"dataset": "sets/pwqa", "judge": "openai:model=judge"}
    no = {"label": False, "status": "ok", "raw": "The response attempts an answer.\n\n**Answer: NO**"}
    docs = [_pwqa_doc(0, "Which river flows through Aswan?", "Nile"),
            _pwqa_doc(1, "What is the capital of Kaliningrad Oblast?", "Kaliningrad"),
            _pwqa_doc(2, "Who founded the city of Trabzon?", "Greek colonists from Sinope")]
    grade_b = ({"label": "CORRECT", "status": "ok", "raw": "Matches the gold answer. CORRECT"} if model_b else
               {"label": None, "status": "unparseable", "raw": "Hmm, the capital might be right; hard to tell."})
    records = [
        {"response": "The Nile.", "abstention": no, "outcome": "correct", "settings": settings, "correctness": {
            "label": "CORRECT", "status": "ok", "raw": "The response names the Nile, as the gold does.\nCORRECT"}},
        {"response": "Its capital is Kaliningrad.", "abstention": no, "correctness": grade_b,
         "outcome": "correct" if model_b else "unjudged", "settings": settings},
        {"response": "I don't know who founded Trabzon.", "abstention": {
            "label": True, "status": "ok", "raw": "YES - the model declines to answer."},
         "outcome": "abstained", "settings": settings},
    ]
    return [_line(i, doc, rec["response"], rec, {"hallucination_rate": 0.0}, doc["answer"])
            for i, (doc, rec) in enumerate(zip(docs, records, strict=True))]


WILD_PAGE = "Aswan is a city in Upper Egypt. It lies on the east bank of the Nile."
WILD_RESPONSE = "Aswan is a city in Upper Egypt. It has a population of ten million."


def _wild_lines(response: str = WILD_RESPONSE) -> list[dict]:
    """One WildHallucinations item: two sentences, three atomic facts checked against the entity's page."""
    url = "https://en.wikipedia.org/wiki/Aswan"
    doc = {"entity": "Aswan", "perplexity": None, "info": [{"status_code": 200, "text": WILD_PAGE, "url": url}],
           "category": "geographic", "conversation_ids": [], "search_backend": "wiki-offline", "fetch_date": ""}

    def fact(text: str, supported: bool, raw: str) -> dict:
        return {"fact": text, "evidence": [{"url": url, "passage": 0}],
                "verdict": {"label": supported, "status": "ok", "raw": raw}}

    record = {"response": response, "abstention_phrase": False, "knowledgeable": None, "abstained": False,
              "sentences": [
                  {"sentence": "Aswan is a city in Upper Egypt.",
                   "extraction": {"label": ["Aswan is a city.", "Aswan is in Upper Egypt."], "status": "ok",
                                  "raw": "Here are the facts:\n- Aswan is a city.\n- Aswan is in Upper Egypt."},
                   "facts": [fact("Aswan is a city.", True, "**Supported.** The passage calls Aswan a city."),
                             fact("Aswan is in Upper Egypt.", True, "Supported")]},
                  {"sentence": "It has a population of ten million.",
                   "extraction": {"label": ["Aswan has a population of ten million."], "status": "ok",
                                  "raw": "- Aswan has a population of ten million."},
                   "facts": [fact("Aswan has a population of ten million.", False,
                                  "Not supported: the passage gives no population figure.")]}],
              "n_facts": 3, "n_supported": 2, "outcome": "some_unsupported", "settings": {"judge": "openai:model=j"}}
    return [_line(0, doc, response, record, {"wildfactscore": 2 / 3}, "Aswan")]


def _longwiki_lines() -> list[dict]:
    """One LongWiki item whose knowledge store is not on this machine (evidence titles without texts)."""
    doc = {"id": "lw-1", "prompt": "Tell me about Trabzon.", "title": "Trabzon", "reference": "Trabzon is a city.",
           "level": 6, "h_score": None, "pageid": None, "revid": None, "section_index": 0, "mock_answer": "", "k": 32}
    record = {"response": "Trabzon is a city on the Black Sea.", "k": 32, "snippets": [
        {"index": 0, "sentence": "Trabzon is a city on the Black Sea.",
         "extraction": {"label": ["Trabzon lies on the Black Sea."], "status": "ok",
                        "raw": "1. Trabzon lies on the Black Sea."}}],
        "claims": [{"claim": "Trabzon lies on the Black Sea.", "passages": [{"title": "Trabzon", "index": 2}],
                    "verification": {"label": None, "status": "failed", "raw": "timeout after 3 retries"}}],
        "n_claims": 1, "supported": 0, "knowledgeable": {"label": True, "status": "ok", "raw": "Yes."},
        "outcome": "unjudged", "settings": {"knowledge": "/nonexistent/kb"}}
    return [_line(0, doc, record["response"], record, {"precision": float("nan")})]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """An lm-eval output folder with two models' PreciseWikiQA runs, a WildHallucinations and a LongWiki run."""
    out = tmp_path / "out"
    _write(out / "model-a" / "samples_precisewikiqa_2026-01-01T00-00-00.000001.jsonl", _pwqa_lines())
    _write(out / "model-b" / "samples_precisewikiqa_2026-01-02T00-00-00.000001.jsonl", _pwqa_lines(model_b=True))
    _write(out / "model-a" / "samples_wildhallucinations_greedy_2026-01-01T00-00-00.000001.jsonl", _wild_lines(XSS))
    _write(out / "model-a" / "samples_longwiki_2026-01-01T00-00-00.000001.jsonl", _longwiki_lines())
    return out


def _page_data(page: Path) -> dict:
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', page.read_text(encoding="utf-8"),
                      re.S)
    assert found
    return json.loads(found[1])


def test_short_form_items_carry_every_judge_step(tmp_path):
    samples = _write(tmp_path / "m" / "samples_precisewikiqa_2026-01-01T00-00-00.000001.jsonl", _pwqa_lines())
    data = gather(find_sources([samples]))
    assert data["tasks"] == ["precisewikiqa"] and data["models"] == ["m"]
    correct, unreadable, abstained = data["items"]
    assert [s["n"] for s in correct["st"]] == ["abstention", "correctness"]
    assert correct["st"][1] == {"n": "correctness", "l": "CORRECT", "s": "ok",
                                "r": "The response names the Nile, as the gold does.\nCORRECT"}
    assert (correct["o"], correct["f"], correct["q"], correct["r"], correct["tg"]) == (
        "correct", 0, "Which river flows through Aswan?", "The Nile.", "Nile")
    assert correct["g"] == {"difficulty": "3"} and abstained["g"] == {"difficulty": "7"}
    assert correct["in"].startswith("<|im_start|>user\nWhich river")
    assert (unreadable["o"], unreadable["f"], unreadable["st"][1]["s"]) == ("unjudged", 1, "unparseable")
    assert [s["n"] for s in abstained["st"]] == ["abstention"] and abstained["st"][0]["l"] is True


def test_long_form_claims_have_evidence_and_places_in_the_response(tmp_path):
    samples = _write(tmp_path / "m" / "samples_wildhallucinations_greedy_2026-01-01T00-00-00.000001.jsonl",
                     _wild_lines())
    data = gather(find_sources([samples]))
    (item,) = data["items"]
    assert [c["c"] for c in item["cl"]] == ["Aswan is a city.", "Aswan is in Upper Egypt.",
                                            "Aswan has a population of ten million."]
    assert [c["l"] for c in item["cl"]] == [True, True, False]
    # no fact is quoted verbatim: each is placed on its sentence, "Aswan is a city in Upper Egypt." = 31 characters,
    # then a space and "It has a population of ten million." (35)
    assert [c["sp"] for c in item["cl"]] == [[0, 31], [0, 31], [32, 67]]
    assert data["evidence"] == [{"t": "https://en.wikipedia.org/wiki/Aswan", "i": 0, "x": WILD_PAGE}]
    assert all(c["e"] == [0] for c in item["cl"])
    assert [s["n"] for s in item["st"]] == ["sentences[0].extraction", "sentences[1].extraction"]
    assert item["g"]["category"] == "geographic"


def test_longwiki_claim_without_its_store_and_failed_verdict(tmp_path):
    samples = _write(tmp_path / "m" / "samples_longwiki_2026-01-01T00-00-00.000001.jsonl", _longwiki_lines())
    data = gather(find_sources([samples]))
    (item,) = data["items"]
    assert data["evidence"] == [{"t": "Trabzon", "i": 2, "x": None}]
    # the claim is not quoted verbatim: it is placed on the sentence it was extracted from (35 characters)
    assert item["cl"][0]["s"] == "failed" and item["cl"][0]["sp"] == [0, 35]
    assert item["f"] == 1  # the failed verification; extraction and the knowledgeable check were read
    assert [s["n"] for s in item["st"]] == ["snippets[0].extraction", "knowledgeable"]
    assert item["mt"] == {"precision": None}  # NaN (an undefined conditional metric) is JSON null


def test_score_results_name_their_samples_and_model(tmp_path, run_dir):
    samples = next((run_dir / "model-a").glob("samples_precisewikiqa_*"))
    result = tmp_path / "results" / "precisewikiqa.json"
    result.parent.mkdir()
    result.write_text(json.dumps({"written_by": "hallubench score", "task": "precisewikiqa", "samples": str(samples),
                                  "model": "Llama-3.1-8B-Instruct"}))
    sources = find_sources([result, run_dir])
    assert sorted((s.task, s.model) for s in sources) == [
        ("longwiki", "model-a"), ("precisewikiqa", "Llama-3.1-8B-Instruct"), ("precisewikiqa", "model-b"),
        ("wildhallucinations_greedy", "model-a")]
    data = gather(sources)
    keys = [(i["t"], i["k"]) for i in data["items"] if data["tasks"][i["t"]] == "precisewikiqa"]
    assert len(keys) == 6 and len(set(keys)) == 3  # the same three docs under both models


def test_escaping_in_the_written_file(run_dir, tmp_path):
    page = write_view([run_dir], tmp_path / "view")
    text = page.read_text(encoding="utf-8")
    assert text.count("</script>") == 3  # the ends of two data blocks and of the script; none from the data
    assert "<script>alert" not in text and "<img src=x" not in text and "\u2028" not in text
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in text
    wild = [i for i in _page_data(page)["items"] if i["r"].startswith("<script>")]
    assert [i["r"] for i in wild] == [XSS]
    packed = re.search(r'<script type="application/octet-stream" id="details">(.*?)</script>', text, re.S)[1]
    evidence, *details = gzip.decompress(base64.b64decode(packed)).decode("utf-8").split("\n")
    assert len(details) == 8 and [json.loads(line)["r"] for line in details].count(XSS) == 1
    assert {"t": "https://en.wikipedia.org/wiki/Aswan", "i": 0, "x": WILD_PAGE} in json.loads(evidence)
    assert embed_json({"a": "x</script>&\u2029"}) == '{"a":"x\\u003c/script\\u003e\\u0026\\u2029"}'


def test_view_cli_replaces_only_its_own_page(run_dir, tmp_path, capsys):
    out = tmp_path / "view"
    assert main(["view", str(run_dir), "--out", str(out)]) == 0
    assert main(["view", str(run_dir), "--out", str(out)]) == 0  # its own page is replaced
    (out / "view.html").write_text("<html>someone's page</html>")
    assert main(["view", str(run_dir), "--out", str(out)]) == 2
    assert "was not written by hallubench view" in capsys.readouterr().err
    assert (out / "view.html").read_text() == "<html>someone's page</html>"
    assert main(["view", str(run_dir), "--out", str(out), "--overwrite"]) == 0


def test_bad_inputs_are_one_line_errors(tmp_path):
    with pytest.raises(HallubenchError, match="not found"):
        find_sources([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(HallubenchError, match="no samples_"):
        find_sources([tmp_path / "empty"])
    bad = tmp_path / "m" / "samples_precisewikiqa_2026-01-01T00-00-00.000001.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"doc_id": 0}\nnot json\n')
    with pytest.raises(HallubenchError, match=r"samples_precisewikiqa_.*\.jsonl:2 is not a JSON line"):
        gather(find_sources([bad]))
    broken = _wild_lines()
    record = json.loads(broken[0]["filtered_resps"][0])
    record["sentences"][0]["facts"][0]["evidence"] = [{"url": "u", "passage": "first"}]
    broken[0]["filtered_resps"] = [json.dumps(record)]
    odd = _write(tmp_path / "m" / "samples_wildhallucinations_greedy_2026-01-01T00-00-00.000001.jsonl", broken)
    with pytest.raises(HallubenchError, match=r"\.jsonl:1: a judged record of an unexpected shape \(ValueError"):
        gather(find_sources([odd]))


@pytest.fixture
def browser():
    """Headless system Chromium driven by playwright (no browser download)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e .[test])")
    if not CHROMIUM.exists() and not shutil.which("chromium"):
        pytest.skip("no Chromium at /usr/bin/chromium (scripts/setup.sh installs the Debian package)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM if CHROMIUM.exists() else
                                                                  shutil.which("chromium")), args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.mark.slow  # a real browser; the page's data and escaping are checked by the fast tests, its scripts only here
def test_page_in_headless_chromium(browser, run_dir, tmp_path):
    page_file = write_view([run_dir], tmp_path / "view")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: (problems.append("dialog: " + dialog.message), dialog.dismiss()))
    url = page_file.resolve().as_uri()
    page.goto(url)
    rows = page.locator("#rows tr")
    assert rows.count() == 8 and page.text_content("#count") == "8 of 8 items"

    page.select_option("#f-task", "precisewikiqa")
    assert rows.count() == 6 and page.text_content("#count") == "6 of 8 items"
    page.select_option("#f-model", "model-b")
    assert rows.count() == 3
    page.select_option("#f-group", "difficulty=3")
    assert rows.count() == 2
    assert "task=precisewikiqa" in page.url and "model=model-b" in page.url

    page.goto(url + "#fail=1")  # hash filters: items with a failed or unreadable judge step
    page.reload()
    assert page.text_content("#count") == "2 of 8 items"
    assert sorted(rows.nth(i).locator("td").nth(0).text_content() for i in range(2)) == ["longwiki", "precisewikiqa"]
    page.fill("#f-q", "kaliningrad")
    page.wait_for_function("document.getElementById('count').textContent === '1 of 8 items'")
    assert rows.count() == 1

    page.goto(url + "#task=precisewikiqa&model=model-a&outcome=correct")
    page.reload()
    assert rows.count() == 1
    rows.first.click()
    page.wait_for_selector("#detail .col.current")
    detail = page.locator("#detail")
    assert detail.is_visible() and "Which river flows through Aswan?" in detail.text_content()
    assert detail.locator(".col").count() == 2  # both models' answers to the same item, side by side
    assert "The response names the Nile" in detail.locator(".col.current").text_content()

    page.goto(url + "#q=" + quote("<img src=x onerror=alert(2)> &"))  # markup typed into the text filter
    page.reload()
    page.wait_for_function("document.getElementById('count').textContent === '1 of 8 items'")
    page.fill("#f-q", "passage gives no population")  # a judge reply of one fact
    page.wait_for_function("document.getElementById('count').textContent === '1 of 8 items'")
    assert "wildhallucinations_greedy" in rows.first.text_content()

    page.goto(url + "#task=wildhallucinations_greedy")
    page.reload()
    rows.first.click()
    page.wait_for_selector("#detail .response")
    response = detail.locator(".response").first
    assert response.text_content() == XSS  # the injected markup is text, visible as written
    assert response.is_visible()
    passage = detail.locator("details.claim").nth(2).locator(".passage .text")
    assert not passage.is_visible()
    detail.locator("details.claim summary").nth(2).click()
    assert passage.is_visible() and passage.text_content() == WILD_PAGE
    page.wait_for_timeout(200)
    assert problems == []


def test_report_rows_link_to_the_items_the_page_shows_under_the_same_model(run_dir, tmp_path, capsys):
    """`report --view` links each row to its items; the page names an lm-eval folder's items by the model report
    reads from the results file beside them (model_args), so the link's filter finds them."""
    results = {"results": {"precisewikiqa": {"alias": "precisewikiqa", "correct_rate,judged": 0.5,
                                             "false_refusal_rate,judged": 0.0, "judge_unparseable_rate,judged": 0.0}},
               "configs": {"precisewikiqa": {"metadata": {"hallubench_judges": {"judge": "rule"}}}},
               "config": {"model_args": "pretrained=/models/SmolLM2-135M-Instruct"},
               "n-shot": {"precisewikiqa": 0}, "n-samples": {"precisewikiqa": {"original": 3, "effective": 3}},
               "date": 1717243200.0}
    (run_dir / "model-a" / "results_2026-01-01T00-00-00.000001.json").write_text(json.dumps(results))
    assert main(["report", str(run_dir / "model-a" / "results_2026-01-01T00-00-00.000001.json"),
                 "--view", "view.html"]) == 0
    link = "view.html#task=precisewikiqa&model=SmolLM2-135M-Instruct"
    assert f"| [all]({link}) · [judge failures]({link}&fail=1) |" in capsys.readouterr().out
    models = {(s.task, s.model) for s in find_sources([run_dir])}
    assert ("precisewikiqa", "SmolLM2-135M-Instruct") in models and ("precisewikiqa", "model-b") in models
    # a result `score --dataset` wrote logged no responses: its row says so instead of linking to nothing
    scored = {"task": "precisewikiqa", "model": "baseline", "judges": {"judge": "rule"}, "n": 3, "correct_rate": 0.5,
              "samples": f"sets/p{FROM_DATASET}", "dataset": {"location": "sets/p", "revision": "unpinned"}}
    (tmp_path / "scored.json").write_text(json.dumps(scored))
    assert main(["report", str(tmp_path / "scored.json"), "--view", "view.html"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| baseline |"))
    assert row.endswith("| (no items: scored from the dataset) |") and "view.html" not in row
