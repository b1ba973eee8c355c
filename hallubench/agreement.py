"""``hallubench agreement``: how far a judge agrees with human labels on one check of a benchmark (issue 25, first
part), the calibration the papers report for their own judges (HalluLens 96.67% abstention / 95.56% correctness
agreement, 94.77% does_believe; FActScore, SAFE). Here the user's judge is checked on the user's labels.

A labels file holds one JSON object per line: the fields the check reads (``hallubench judge-templates --task T``
lists them) and ``label``, the human verdict in the check's own terms (``true`` / ``false`` for yes-no checks, a label
such as ``"CORRECT"`` otherwise). Figures: agreement (accuracy) and Cohen's kappa over the items the judge answered
readably, each with a seeded bootstrap 95% interval; per-label precision and recall; the confusion matrix; the share
of unreadable or failed verdicts. Computed with scikit-learn's metrics.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hallubench.errors import HallubenchError
from hallubench.seeding import seeded_rng

BOOTSTRAP_RESAMPLES = 1000


def agreement_figures(human: Sequence[str], judged: Sequence[str | None], seed: int = 0) -> dict[str, Any]:
    """The figures for paired labels (``judged`` None = no readable verdict)."""
    from sklearn.metrics import accuracy_score, cohen_kappa_score, confusion_matrix, precision_recall_fscore_support

    if len(human) != len(judged) or not human:
        raise HallubenchError("agreement needs one judged verdict per human label, and at least one label")
    pairs = [(h, j) for h, j in zip(human, judged) if j is not None]
    unreadable = (len(human) - len(pairs)) / len(human)
    result: dict[str, Any] = {"n": len(human), "readable": len(pairs), "unreadable_share": unreadable}
    if not pairs:
        return {**result, "accuracy": None, "kappa": None, "labels": [], "confusion": [], "per_label": {},
                "interval95": {"accuracy": None, "kappa": None}}
    truth, verdicts = [h for h, _ in pairs], [j for _, j in pairs]
    labels = sorted(set(truth) | set(verdicts))
    precision, recall, _, support = precision_recall_fscore_support(truth, verdicts, labels=labels, zero_division=0)

    def kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
        return None if len(set(a) | set(b)) < 2 else float(cohen_kappa_score(a, b, labels=labels))

    rng = seeded_rng(seed, "agreement bootstrap")
    draws = [[rng.randrange(len(pairs)) for _ in pairs] for _ in range(BOOTSTRAP_RESAMPLES)]
    accuracies = sorted(sum(truth[i] == verdicts[i] for i in draw) / len(draw) for draw in draws)
    kappas = sorted(k for draw in draws if (k := kappa([truth[i] for i in draw], [verdicts[i] for i in draw]))
                    is not None)
    return {
        **result,
        "accuracy": float(accuracy_score(truth, verdicts)),
        "kappa": kappa(truth, verdicts),
        "labels": labels,
        "confusion": confusion_matrix(truth, verdicts, labels=labels).tolist(),  # rows: human, columns: judge
        "per_label": {label: {"precision": float(p), "recall": float(r), "support": int(s)}
                      for label, p, r, s in zip(labels, precision, recall, support)},
        "interval95": {"accuracy": _percentiles(accuracies), "kappa": _percentiles(kappas)},
    }


def _percentiles(values: Sequence[float]) -> list[float] | None:
    """The 2.5th and 97.5th percentiles of sorted bootstrap values."""
    if not values:
        return None
    return [values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]]


def markdown(figures: dict[str, Any], title: str) -> str:
    """The figures as a short markdown report: headline line, per-label table, confusion matrix."""
    def share(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:.1f}%"

    interval = figures["interval95"]
    accuracy_ci = interval["accuracy"] and f" [{share(interval['accuracy'][0])}, {share(interval['accuracy'][1])}]"
    kappa_ci = interval["kappa"] and f" [{interval['kappa'][0]:.3f}, {interval['kappa'][1]:.3f}]"
    kappa = "n/a" if figures["kappa"] is None else f"{figures['kappa']:.3f}"
    lines = [f"## {title}", "",
             f"{figures['n']} labelled items, {figures['readable']} with a readable verdict (unreadable "
             f"{share(figures['unreadable_share'])}). Agreement {share(figures['accuracy'])}{accuracy_ci or ''}, "
             f"Cohen's kappa {kappa}{kappa_ci or ''} (95% bootstrap intervals).", ""]
    if figures["labels"]:
        lines += ["| label | precision | recall | human count |", "|---|---:|---:|---:|"]
        lines += [f"| {label} | {share(v['precision'])} | {share(v['recall'])} | {v['support']} |"
                  for label, v in figures["per_label"].items()]
        lines += ["", "Confusion (rows: human label, columns: judge):", "",
                  "| human \\ judge | " + " | ".join(figures["labels"]) + " |",
                  "|---|" + "---:|" * len(figures["labels"])]
        lines += [f"| {label} | " + " | ".join(map(str, row)) + " |"
                  for label, row in zip(figures["labels"], figures["confusion"])]
    return "\n".join(lines) + "\n"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("agreement", help="a judge's agreement with human labels on one check")
    parser.add_argument("--task", required=True, help="the benchmark's lm-eval task name (e.g. precisewikiqa)")
    parser.add_argument("--check", required=True, help="the check to calibrate (hallubench judge-templates lists them)")
    parser.add_argument("--judge", required=True, help="the judge spec to calibrate (rule, openai:..., hf:...)")
    parser.add_argument("--labels", type=Path, required=True,
                        help="JSON lines: the check's fields and 'label', the human verdict")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an --out file that hallubench agreement did not write (never the labels)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap intervals (default 0)")
    parser.set_defaults(handler=agreement_command)


def agreement_command(args: argparse.Namespace) -> int:
    from hallu_metrics.judges import JudgeSet
    from hallu_metrics.judges.kinds import check_judge_spec
    from hallu_metrics.registry import benchmark_for_task
    from hallubench.backends.aio import run_sync
    from hallubench.outputs import MARKER, check_output_file, check_replaceable, write_text_atomic
    from hallubench.sources.tables import iter_json_records
    from hallubench.specs import redact_known

    benchmark = benchmark_for_task(args.task)
    checks = {check.name: check for check in benchmark.checks}
    if args.check not in checks:
        raise HallubenchError(f"--check {args.check}: {args.task} has no such check (its checks: "
                              f"{', '.join(checks) or 'none'})")
    check_judge_spec(args.judge)
    if args.out is not None:
        check_output_file(args.out, "--out", ".json")
        check_replaceable(args.out, "--out", "agreement", overwrite=args.overwrite, inputs=[args.labels])
    records = list(iter_json_records(args.labels))
    unlabelled = [where for where, record in records if "label" not in record]
    if unlabelled:
        raise HallubenchError(f"{unlabelled[0]}: no 'label' field (the human verdict)")
    judges = JudgeSet({"judge": args.judge})
    try:
        judge = judges.get("judge")

        async def ask_all() -> list:
            return list(await asyncio.gather(*(judge.ask(checks[args.check], record) for _, record in records)))

        try:
            verdicts = run_sync(ask_all())
        except KeyError as exc:
            raise HallubenchError(f"{args.labels}: a record lacks the field {exc} that check {args.check} "
                                  "reads") from exc
    finally:
        judges.close()
    human = [json.dumps(record["label"]) for _, record in records]
    judged = [json.dumps(v.label) if v.ok else None for v in verdicts]
    figures = agreement_figures(human, judged, args.seed)
    judge_name = redact_known(args.judge)
    title = f"{args.task} / {args.check}: {judge_name} vs the labels in {args.labels.name}"
    print(markdown(figures, title))
    if args.out is not None:
        payload = {"written_by": f"{MARKER} agreement", "task": args.task, "check": args.check, "judge": judge_name,
                   "labels": str(args.labels), "seed": args.seed, **figures}
        write_text_atomic(args.out, json.dumps(payload, indent=2) + "\n")
        print(f"[hallubench] figures written to {args.out}", file=sys.stderr)
    return 0
