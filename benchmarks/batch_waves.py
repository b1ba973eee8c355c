"""Batch API waves of a LongWiki run (``openai-batch:`` on the loopback Batch API): how many batches each chain step
takes, with and without the quiet period that closes a wave. LongWiki's chain is knowledgeable -> claim extraction ->
evidence retrieval (CPU, between calls) -> verification; every batch of a real Batch API costs minutes to hours, so
a step should take one batch. Each run has a call cache of its own.
Usage: python benchmarks/batch_waves.py [--responses 12] [--quiet 0 0.5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import tempfile
from collections import Counter
from pathlib import Path

import _test_support  # noqa: F401  (tests/ on the path: the loopback servers)
from loopback_batch import LoopbackBatchServer

from hallu_metrics.longform.knowledge import write_store
from hallubench.cli import main

PAGES = [("Sirius", "Sirius is the brightest star in the night sky. It is a binary star in the constellation Canis "
                    "Major. Its companion Sirius B is a white dwarf. Sirius lies 8.6 light-years from the Sun."),
         ("Vega", "Vega is the brightest star in the constellation Lyra. It lies 25 light-years from the Sun and it "
                  "rotates rapidly.")]
ANSWER = ("{t} is the brightest star in the night sky, and it is a binary star. It lies 50 light-years from the Sun. "
          "It appears in star catalogue number {i}.")  # a claim of each answer's own: verification grows with them


def judge(messages: list[dict]) -> str:
    """Judge replies in the shapes chat models use (fenced JSON, bullet lists after a preface)."""
    system, prompt = messages[0]["content"], messages[-1]["content"]
    if "is_knowledgeable" in system:
        return 'Judgement: {"is_knowledgeable": true}'
    if "Claims:" in prompt:
        sentence = re.findall(r"<SOS>(.*?)<EOS>", prompt)[-1].rstrip(".")
        return "Here are the claims:\n" + "\n".join(f"- {p.strip()}." for p in re.split(r",| and ", sentence))
    return '```json\n{"is_supported": %s}\n```' % ("false" if " 50 " in prompt else "true")


def step(messages: list[dict]) -> str:
    if "is_knowledgeable" in messages[0]["content"]:
        return "knowledgeable"
    return "claims" if "Claims:" in messages[-1]["content"] else "verify"


def run(folder: Path, store: Path, samples: Path, quiet: float) -> dict:
    os.environ["HALLUBENCH_CACHE"] = str(folder / f"calls-{quiet}.sqlite")
    with LoopbackBatchServer(judge) as server, contextlib.redirect_stdout(io.StringIO()):  # score's tables
        code = main(["score", "--task", "longwiki", "--samples", str(samples), "--knowledge", str(store), "--set",
                     "retrieval=bm25", "--judge", f"openai-batch:base_url={server.base_url},model=judge,poll=0.05,"
                     f"quiet={quiet}", "--out", str(folder / f"r-{quiet}.json")])
        batches = [dict(Counter(step(line["body"]["messages"]) for line in b["lines"])) for b in server.batches]
    return {"quiet": quiet, "exit": code, "batches": batches}


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=12)
    parser.add_argument("--quiet", type=float, nargs="+", default=[0.0, 0.5])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = write_store(folder / "kb", PAGES, progress=False).path
        docs = [{"id": f"lw-{i}", "prompt": f"Tell me about {PAGES[i % 2][0]} (request {i}).",
                 "title": PAGES[i % 2][0], "reference": PAGES[i % 2][1], "level": 7} for i in range(args.responses)]
        samples = folder / "samples_longwiki.jsonl"
        samples.write_text("".join(json.dumps({"doc_id": i, "doc": d, "resps": [[ANSWER.format(t=d["title"], i=i)]]})
                                   + "\n" for i, d in enumerate(docs)))
        for quiet in args.quiet:
            print(json.dumps(run(folder, store, samples, quiet)))


if __name__ == "__main__":
    main_()
