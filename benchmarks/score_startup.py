"""`hallubench score` as a whole process beside the HalluLens reference's judging of the same samples, both against
the loopback OpenAI-compatible stub judge (tests/loopback.py, in a child process) with a fixed latency per call.

- hallubench: ``hallubench score --task precisewikiqa --samples ... --judge openai:...,concurrency=K`` in a
  subprocess, a fresh call cache each run (so every call is made); wall and CPU time of the process.
- reference (facebookresearch/HalluLens ``tasks/shortform/precise_wikiqa.py --do_eval``), emulated in a subprocess
  (``REFERENCE`` below): the module-level imports of that entry point (pandas, tqdm's ``thread_map``, transformers'
  ``AutoTokenizer`` from ``utils/generate_question.py``; openai is not installed here, so httpx, the HTTP client
  openai's client is built on, stands in for it and openai's own import time is left out: in the reference's
  favour), ``pd.read_json`` of the generations, then its schedule: the abstention prompts of all items through
  ``thread_map(max_workers=32)``, saved, then (a barrier) the correctness prompts of all items through
  ``thread_map(max_workers=64)``, each call with a new client as ``utils/lm.py`` makes one (a new connection). Its
  prompts are short stand-ins (the stub's latency does not depend on them). The child also reports the schedule
  alone (first call to last verdict).

Also prints the import time of score's path from ``python -X importtime``: self time summed per top-level package,
with the hallubench module that first imported it. Run it from another checkout's tree with
``PYTHONPATH=/that/tree python benchmarks/score_startup.py`` to compare before / after.
Usage: python benchmarks/score_startup.py [--items 20] [--latency 0.2] [--concurrency 32] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import _test_support  # noqa: F401  (tests/ on the path: the loopback servers)
from loopback import loopback_process

TASK = "precisewikiqa"
OWN = ("hallubench", "hallu_metrics", "hallubench_tasks", "hallubench_generators")

REFERENCE = r"""
import json, sys, time
import pandas as pd
from tqdm.contrib.concurrent import thread_map
from transformers import AutoTokenizer  # noqa: F401  (utils/generate_question.py, imported by precise_wikiqa.py)
import httpx  # stands in for openai (utils/lm.py)

base_url, folder = sys.argv[1], sys.argv[2]
df = pd.read_json(f"{folder}/generation.jsonl", lines=True)

def generate(prompt):  # utils/lm.py call_vllm_api: a new client per call
    with httpx.Client(base_url=base_url, timeout=60) as client:
        body = {"model": "judge", "messages": [{"role": "user", "content": prompt}], "max_tokens": 512,
                "temperature": 0.0, "top_p": 1.0}
        return client.post("/chat/completions", json=body).json()["choices"][0]["message"]["content"]

start = time.perf_counter()
abstain_prompts = [f"Does the chatbot abstain? Reply with is_abstaining true or false.\n{g.prompt}\n{g.generation}"
                   for _, g in df.iterrows()]
abstain_raw = thread_map(generate, abstain_prompts, max_workers=32, disable=True)
with open(f"{folder}/abstain_eval_raw.jsonl", "w") as f:
    f.writelines(json.dumps({"eval_res": r}) + "\n" for r in abstain_raw)
halu_prompts = [f"Is the response correct?\n{g.prompt}\n{g.generation}\n{g.answer}" for _, g in df.iterrows()]
halu_raw = thread_map(generate, halu_prompts, max_workers=64, disable=True)
abstained = [json.loads(r.replace(" ", ""))["is_abstaining"] for r in abstain_raw]
hallucinated = [r.lower() != "correct" for r in halu_raw]
print(json.dumps({"schedule": time.perf_counter() - start, "items": len(abstained), "abstained": sum(abstained),
                  "hallucinated": sum(hallucinated)}))
"""


def reply(messages: list[dict]) -> str:
    """The stub judge: nobody abstains, every answer is correct (both tools read these replies)."""
    return '{"is_abstaining": false}' if "is_abstaining" in messages[-1]["content"] else "CORRECT"


def write_inputs(folder: Path, items: int) -> Path:
    """lm-eval's samples log of ``items`` PreciseWikiQA docs for hallubench, the same items as the reference's
    generation.jsonl; returns the samples path."""
    docs = [{"id": f"q{i}", "question": f"In which year was landmark number {i} opened?", "answer": str(1900 + i),
             "title": f"Landmark {i}", "reference": f"Landmark {i} opened in {1900 + i}.", "difficulty": i % 10}
            for i in range(items)]
    samples = folder / f"samples_{TASK}_2026-11-27T00-00-00.000001.jsonl"
    with samples.open("w", encoding="utf-8") as handle:
        for i, doc in enumerate(docs):
            handle.write(json.dumps({"doc_id": i, "doc": doc, "resps": [[f"It opened in {1900 + i}."]]}) + "\n")
    with (folder / "generation.jsonl").open("w", encoding="utf-8") as handle:
        for i, doc in enumerate(docs):
            handle.write(json.dumps({"prompt": doc["question"], "generation": f"It opened in {1900 + i}.",
                                     "answer": doc["answer"]}) + "\n")
    return samples


def hallubench_command(samples: Path, base_url: str, concurrency: int, out: Path) -> list[str]:
    script = Path(sys.executable).with_name("hallubench")
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "hallubench.cli"]
    return [*launcher, "score", "--task", TASK, "--samples", str(samples), "--judge",
            f"openai:base_url={base_url},model=judge,concurrency={concurrency}", "--out", str(out), "--overwrite"]


def timed(command: list[str], **env: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds: user + system, stdout) of one process; CPU time is less sensitive to the load."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, env={**os.environ, **env})
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def run_hallubench(command: list[str], cache: Path, out: Path, items: int) -> tuple[float, float]:
    """(wall, CPU) of one score process on a fresh call cache; checks that every item got a readable verdict."""
    cache.unlink(missing_ok=True)
    wall, cpu, _ = timed(command, HALLUBENCH_CACHE=str(cache))
    result = json.loads(out.read_text(encoding="utf-8"))
    if result["n"] != items or result["judge_failed"] or result["unreadable"]["items"]:
        raise SystemExit(f"hallubench score did not judge every item: {result['n']}, {result['unreadable']}")
    return wall, cpu


def run_reference(base_url: str, folder: Path, items: int) -> tuple[float, float, float]:
    """(wall, CPU) of the emulated reference process and its schedule alone (wall)."""
    wall, cpu, stdout = timed([sys.executable, "-c", REFERENCE, base_url, str(folder)])
    report = json.loads(stdout.strip().splitlines()[-1])
    if report["items"] != items or report["abstained"] or report["hallucinated"]:
        raise SystemExit(f"the reference emulation misread the stub's replies: {report}")
    return wall, cpu, report["schedule"]


def import_profile(command: list[str], cache: Path) -> tuple[dict[str, float], dict[str, str]]:
    """Import time of one score process from ``python -X importtime``: self time (ms) summed per top-level package,
    and the module of ours that first imported each."""
    cache.unlink(missing_ok=True)
    launcher = [sys.executable, "-X", "importtime", "-m", "hallubench.cli"]
    err = subprocess.run([*launcher, *command[command.index("score"):]], check=True, capture_output=True, text=True,
                         env={**os.environ, "HALLUBENCH_CACHE": str(cache)}).stderr
    rows = []
    for line in err.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own_us, _, name = line.split(":", 1)[1].split("|")
            # max: an import in a judging thread (encodings.idna) can come out negative, the main thread's time
            # taken off it
            rows.append((max(int(own_us), 0), (len(name) - len(name.lstrip()) - 1) // 2, name.strip()))
    totals: dict[str, float] = defaultdict(float)
    ancestors: dict[int, list[str]] = {}
    stack: list[str] = []
    for index in reversed(range(len(rows))):  # importtime prints a module after its imports: reversed, parents first
        _, depth, name = rows[index]
        stack[depth:] = [name]
        ancestors[index] = stack[:-1]
    first_by: dict[str, str] = {}
    for index, (own_us, _, name) in enumerate(rows):
        package = name.split(".")[0]
        totals[package] += own_us / 1000
        if package not in first_by:
            ours = [a for a in ancestors[index] if a.split(".")[0] in OWN]
            first_by[package] = "-" if package in OWN else ours[-1] if ours else "a function, at run time"
    return totals, first_by


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per judge call")
    parser.add_argument("--concurrency", type=int, default=32, help="hallubench's K (the reference: 32, then 64)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--top", type=int, default=15, help="packages listed from -X importtime")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, loopback_process(reply, latency=args.latency) as base_url:
        folder = Path(tmp)
        samples = write_inputs(folder, args.items)
        out, cache = folder / "RESULT.json", folder / "calls.sqlite"
        command = hallubench_command(samples, base_url, args.concurrency, out)
        ours, theirs, schedules = [], [], []
        for _ in range(args.repeats):  # interleaved, so both see the same load
            ours.append(run_hallubench(command, cache, out, args.items))
            wall, cpu, schedule = run_reference(base_url, folder, args.items)
            theirs.append((wall, cpu))
            schedules.append(schedule)
        profiles = [import_profile(command, cache) for _ in range(args.repeats)]
    load_after = os.getloadavg()
    median = statistics.median
    walls, cpus = [w for w, _ in ours], [c for _, c in ours]
    print(f"{args.items} items, {args.latency * 1000:.0f} ms per call, hallubench K={args.concurrency}, "
          f"{args.repeats} runs each; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after\n")
    print("| run | wall (s) median | wall min | CPU (s) median | reference / hallubench (wall medians) |")
    print("|---|---:|---:|---:|---:|")
    print(f"| `hallubench score` process | {median(walls):.2f} | {min(walls):.2f} | {median(cpus):.2f} | - |")
    ref_walls, ref_cpus = [w for w, _ in theirs], [c for _, c in theirs]
    print(f"| reference process (emulated) | {median(ref_walls):.2f} | {min(ref_walls):.2f} | {median(ref_cpus):.2f} "
          f"| {median(ref_walls) / median(walls):.2f} |")
    print(f"| reference schedule alone (in its process) | {median(schedules):.2f} | {min(schedules):.2f} | - | "
          f"{median(schedules) / median(walls):.2f} |")
    per_package = {package: median(ms.get(package, 0.0) for ms, _ in profiles) for package in profiles[0][0]}
    everything = median(sum(ms.values()) for ms, _ in profiles)
    print(f"\nImport time of score's path (-X importtime, self time summed per package, median of {args.repeats}): "
          f"{everything / 1000:.2f} s in all\n")
    print("| package | ms | first imported by |\n|---|---:|---|")
    for package, ms in sorted(per_package.items(), key=lambda item: -item[1])[:args.top]:
        print(f"| {package} | {ms:.0f} | {profiles[0][1][package]} |")


if __name__ == "__main__":
    main()
