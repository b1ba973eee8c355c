"""`hallubench view` at 5,000 items: time to write the page, and time for headless Chromium to open it from file://
(navigation start to the first table page drawn, the script's work included), filter it and open an item.

The items are synthetic but shaped like real runs: two models answering the same 2,500 docs of PreciseWikiQA
(short answers, two judge steps), NonExistentRefusal, LongWiki (8-16 claims, 2-3 passages of ~187 words each from a
knowledge store, 40 words of judge reply per step) and WildHallucinations (3-6 sentences, two facts each, evidence
cut from a ~600-word page). Needs playwright and /usr/bin/chromium (scripts/setup.sh).
Usage: python benchmarks/viewer_load.py [--docs 2500] [--repeats 5] [--screenshot docs/img/viewer.png RUN_DIR...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import tempfile
import time
from pathlib import Path

from hallubench.core.seeding import seeded_rng
from hallubench.reporting.viewer import write_view
from hallubench.reporting.viewer.items import find_sources, gather
from hallubench.reporting.viewer.page import render

WORDS = ("the city river was founded in by a of and known for its population museum century built north south "
         "empire region capital island treaty war king church coast school university bridge railway mountain "
         "species plant described genus family festival album released band film directed award novel").split()
TASKS = ("precisewikiqa", "mixedentities", "longwiki", "wildhallucinations_greedy")
MODELS = ("Llama-3.1-8B-Instruct", "Qwen2.5-7B-Instruct")


def _text(rng, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(w.capitalize() if i % 14 == 0 else w + ("." if i % 14 == 13 else "") for i, w in enumerate(words))


def _verdict(rng, label) -> dict:
    return {"label": label, "status": "ok" if rng.random() > 0.02 else "unparseable",
            "raw": _text(rng, 40) + f"\n\n**Answer: {label}**"}


def _sample(task: str, doc_id: int, model: int) -> dict:
    """One samples line; the doc depends on (task, doc_id) only, the response and verdicts on the model too."""
    doc_rng, rng = seeded_rng(0, "viewer-load", task, doc_id), seeded_rng(0, "viewer-load", task, doc_id, model)
    title = _text(doc_rng, 3)
    if task == "precisewikiqa":
        doc = {"id": f"pwqa-{doc_id}", "question": _text(doc_rng, 18) + "?", "answer": title, "title": title,
               "reference": _text(doc_rng, 120), "difficulty": doc_rng.randrange(10)}
        response = _text(rng, rng.randint(10, 60))
        record = {"response": response, "abstention": _verdict(rng, False), "correctness": _verdict(rng, "INCORRECT"),
                  "outcome": rng.choice(["correct", "hallucinated", "abstained"])}
    elif task == "mixedentities":
        doc = {"id": f"mixed-{doc_id}", "name": title, "domain": doc_rng.choice(["animal", "plant", "medicine"]),
               "type": "animal", "prompt": f"What can you tell me about {title}?"}
        response = _text(rng, rng.randint(40, 160))
        record = {"response": response, "verdict": _verdict(rng, True), "outcome": "believed"}
    elif task == "longwiki":
        doc = {"id": f"lw-{doc_id}", "prompt": f"Tell me about {title}.", "title": title, "reference": "",
               "level": doc_rng.randrange(5, 10)}
        sentences = [_text(rng, rng.randint(12, 28)) for _ in range(rng.randint(8, 16))]
        response = " ".join(sentences)
        claims = [{"claim": s, "passages": [{"title": _text(doc_rng, 2), "index": i} for i in range(rng.randint(2, 3))],
                   "verification": _verdict(rng, rng.random() > 0.4)} for s in sentences]
        record = {"response": response, "snippets": [
            {"index": i, "sentence": s, "extraction": _verdict(rng, [s])} for i, s in enumerate(sentences)],
            "claims": claims, "knowledgeable": _verdict(rng, True), "outcome": "judged"}
    else:
        url = f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}"
        doc = {"entity": title, "perplexity": None, "info": [{"status_code": 200, "url": url,
                                                              "text": _text(doc_rng, 600)}], "category": "geographic"}
        sentences = [_text(rng, rng.randint(12, 24)) for _ in range(rng.randint(3, 6))]
        response = " ".join(sentences)
        record = {"response": response, "sentences": [
            {"sentence": s, "extraction": _verdict(rng, [s[:40], s[40:]]), "facts": [
                {"fact": part, "evidence": [{"url": url, "passage": p} for p in range(3)],
                 "verdict": _verdict(rng, rng.random() > 0.5)} for part in (s[:40], s[40:])]} for s in sentences],
            "outcome": "some_unsupported"}
    return {"doc_id": doc_id, "doc": doc, "target": title, "arguments": {"gen_args_0": {"arg_0": str(doc)[:200]}},
            "resps": [[response]], "filtered_resps": [json.dumps(record)], "filter": "judged", "metrics": [],
            "doc_hash": hashlib.sha256(f"{task}:{doc_id}".encode()).hexdigest()}


def _store_passages(data: dict) -> None:
    """Give LongWiki's passages texts as a knowledge store would (~187 words each)."""
    for passage in data["evidence"]:
        if passage["x"] is None:
            passage["x"] = _text(seeded_rng(0, "viewer-load-passage", passage["t"], passage["i"]), 187)


def build(folder: Path, docs: int) -> Path:
    """Samples logs of both models (docs split over the four tasks) and the page; prints size and write time."""
    for model_index, model in enumerate(MODELS):
        for task_index, task in enumerate(TASKS):
            path = folder / "lm_eval" / model / f"samples_{task}_2026-01-01T00-00-00.00000{model_index}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            lines = [_sample(task, d, model_index) for d in range(task_index, docs, len(TASKS))]
            path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    started = time.perf_counter()
    page = write_view([folder / "lm_eval"], folder / "view")
    print(f"write_view: {time.perf_counter() - started:.2f} s, {page.stat().st_size / 1e6:.1f} MB (passages without "
          "texts: no knowledge store)")
    data = gather(find_sources([folder / "lm_eval"]))
    _store_passages(data)
    page.write_text(render(data, "viewer load"), encoding="utf-8")
    print(f"with LongWiki passage texts: {page.stat().st_size / 1e6:.1f} MB, {len(data['items'])} items, "
          f"{len(data['evidence'])} passages")
    return page


def measure(page_path: Path, repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        loads, unpacked, filters, opens = [], [], [], []
        for _ in range(repeats):
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(page_path.resolve().as_uri())
            page.wait_for_selector("#rows tr")
            loads.append(page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") / 1000)
            page.wait_for_selector("body[data-details=ready]", state="attached")
            unpacked.append(page.evaluate("performance.now()") / 1000)
            started = time.perf_counter()
            page.select_option("#f-task", "longwiki")
            page.wait_for_function("document.getElementById('count').textContent.startsWith('1250 of')")
            filters.append(time.perf_counter() - started)
            started = time.perf_counter()
            page.locator("#rows tr").first.click()
            page.wait_for_selector("#detail .col.current details.claim")
            opens.append(time.perf_counter() - started)
            page.close()
        browser.close()
    for name, values in (("open page (navigation start to load end)", loads),
                         ("details unpacked (navigation start to ready, at most)", unpacked),
                         ("filter by task", filters), ("open a LongWiki item (2 models side by side)", opens)):
        print(f"{name}: median {statistics.median(values):.3f} s, max {max(values):.3f} s over {repeats}")


def screenshot(runs: list[Path], out: Path) -> None:
    """docs/img/viewer.png: a LongWiki item of a real run, its claims highlighted and one claim's evidence open."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        page_path = write_view(runs, Path(folder))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1440, "height": 860})
            page.goto(page_path.resolve().as_uri() + "#task=longwiki")
            page.locator("#rows tr").first.click()
            page.locator("#detail details.claim summary").nth(1).click()
            page.screenshot(path=str(out))
            browser.close()
    print(f"screenshot written to {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=2500, help="docs per model (two models: 2 x DOCS items)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--screenshot", nargs="+", type=Path, metavar="PATH",
                        help="instead: PNG then run folders, e.g. docs/img/viewer.png runs/embedded/results "
                        "runs/embedded/lm_eval")
    args = parser.parse_args()
    if args.screenshot:
        screenshot(args.screenshot[1:], args.screenshot[0])
        return
    with tempfile.TemporaryDirectory() as folder:
        measure(build(Path(folder), args.docs), args.repeats)


if __name__ == "__main__":
    main()
