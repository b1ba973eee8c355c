"""``hallubench score``: judge saved lm-eval samples (also ``--predict_only`` output) without
re-running the model, and report overall metrics and breakdowns in the shared result shape."""

from __future__ import annotations

import contextlib
import json
import math
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from hallu_metrics.contract import Benchmark
from hallu_metrics.judges import failed_verdicts
from hallu_metrics.judges.accounting import AccountedJudgeSet, Price, accounting, roles_in_use
from hallu_metrics.judges.fingerprint import judge_prompts_hash
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import TASKS, benchmark_for_task
from hallu_metrics.settings import RunSettings, resolve_settings
from hallubench.core.backends.budget import Budget
from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import MARKER, write_text_atomic
from hallubench.core.provenance import dataset_fingerprint, records_fingerprint, software

RESULT_SCHEMA_VERSION = 2


_LM_EVAL_SAMPLES = re.compile(r"samples_(?P<task>\w+)_(?P<date>\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:\.\d+)?)\.jsonl")


def task_of(name: str) -> str | None:
    """The hallubench task of a file lm-eval named ``samples_<task>_<date>.jsonl``, or None for other names."""
    named = _LM_EVAL_SAMPLES.fullmatch(name)
    return named["task"] if named and named["task"] in TASKS else None


def _run_time(path: Path) -> float:
    """When lm-eval's run wrote ``path``: the date in its name (``..._2025-01-31T12-00-00.123456.jsonl``), else the
    file's modification time."""
    named = _LM_EVAL_SAMPLES.fullmatch(path.name)
    if named:
        day, _, clock = named["date"].partition("T")
        with contextlib.suppress(ValueError):  # a date-like name that is no date (month 13)
            return datetime.fromisoformat(f"{day}T{clock.replace('-', ':')}").timestamp()
    return path.stat().st_mtime


def find_runs(paths: Sequence[Path], task: str) -> list[Path]:
    """Every samples file of ``task`` that ``paths`` name, newest first: files, and folders searched recursively for
    lm-eval's ``samples_<task>_<date>.jsonl``. Files lm-eval named for another hallubench task are left out (a shell
    glob ``samples_halueval_qa_*`` also matches ``halueval_qa_knowledge``'s); none found is refused."""
    found: dict[Path, Path] = {}
    others: list[Path] = []
    for path in paths:
        if path.is_dir():
            matches = [p for p in path.rglob(f"samples_{task}_*.jsonl") if task_of(p.name) == task]
        elif path.is_file():
            matches = [path]
        else:
            raise HallubenchError(f"samples file not found: {path}")
        for match in matches:
            if task_of(match.name) in (None, task):
                found.setdefault(match.resolve(), match)
            else:
                others.append(match)
    if found:
        return sorted(found.values(), key=_run_time, reverse=True)
    if others:
        raise HallubenchError(f"{others[0]} holds samples of {task_of(others[0].name)}, not of --task {task}")
    raise HallubenchError(f"no samples_{task}_*.jsonl under {', '.join(map(str, paths))}")


def find_samples(paths: Sequence[Path], task: str) -> Path:
    """The one samples file of ``task`` that ``paths`` name (:func:`find_runs`); several runs of ``task`` are
    refused, listed newest first (merging them would mix models or sets)."""
    runs = find_runs(paths, task)
    if len(runs) > 1:
        raise HallubenchError(f"{len(runs)} samples files of {task} (newest first): {', '.join(map(str, runs))}; "
                              f"score one run at a time, e.g. the newest: --samples {runs[0]}")
    return runs[0]


def _is_results_file(path: Path) -> bool:
    """Whether ``path`` is an lm-eval results JSON (``results`` and ``configs`` at its top)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and "results" in data and "configs" in data


@dataclass(frozen=True)
class Sample:
    """One line of an lm-eval samples log: the doc, the model's raw response, and the judged record lm-eval's run
    left in ``filtered_resps`` (None when there is none, e.g. a file written by other code)."""

    doc_id: Any
    doc: dict
    response: str
    record: dict | None


def judged_record(sample: Mapping[str, Any]) -> dict | None:
    """The judged record of a samples line (``filtered_resps`` holds it as a JSON string), or None."""
    filtered = sample.get("filtered_resps")
    if not isinstance(filtered, list) or not filtered or not isinstance(filtered[0], str):
        return None
    try:
        record = json.loads(filtered[0])
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


_PYTHON_TYPES = {"string": (str,), "int32": (int,), "int64": (int,), "float32": (int, float), "float64": (int, float)}


def _sample_line(path: Path, number: int, line: str, benchmark: Benchmark) -> Sample:
    try:
        sample = json.loads(line)
        doc, resps = sample["doc"], sample["resps"]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise HallubenchError(f"{path}:{number} is not an lm-eval sample line ({type(exc).__name__})") from exc
    if not isinstance(doc, dict):
        raise HallubenchError(f"{path}:{number}: 'doc' is not an object")
    if not (isinstance(resps, list) and resps and isinstance(resps[0], list) and resps[0]
            and isinstance(resps[0][0], str)):
        raise HallubenchError(f"{path}:{number}: 'resps' must be lm-eval's list of response lists, [[\"text\"]], "
                              f"got {type(resps).__name__} {str(resps)[:40]!r}")
    response = resps[0][0]
    missing = [c for c in benchmark.required_doc_columns if c not in doc]
    if missing:
        raise HallubenchError(f"{path} is not a {benchmark.name} samples file: its docs lack {missing}")
    nulls = [c for c in benchmark.required_doc_columns if doc[c] is None and c not in benchmark.nullable]
    if nulls:
        raise HallubenchError(f"{path}:{number}: doc fields {nulls} are null")
    for column in benchmark.required_doc_columns:
        kind = benchmark.column_types.get(column)
        expected = _PYTHON_TYPES.get(kind) if isinstance(kind, str) else None
        value = doc[column]
        if expected and value is not None and (not isinstance(value, expected) or isinstance(value, bool)):
            raise HallubenchError(f"{path}:{number}: doc field {column!r} must be {expected[-1].__name__}, got "
                                  f"{type(value).__name__}")
    return Sample(sample.get("doc_id"), doc, response, judged_record(sample))


def read_samples(path: Path, task: str) -> list[Sample]:
    """The lines of an lm-eval ``samples_<task>_*.jsonl`` file, in the test set's order (``doc_id``; a run on
    several GPUs logs each GPU's docs in turn); of an Inspect log, its samples as such lines."""
    from hallubench.reporting.inspect_logs import is_inspect_log, sample_lines  # inspect_ai only when a log is read

    benchmark = benchmark_for_task(task)
    if not path.is_file():
        raise HallubenchError(f"samples file not found: {path}")
    if is_inspect_log(path):
        lines = [json.dumps(line, ensure_ascii=False) for line in sample_lines(path, task)]
        return [_sample_line(path, n, line, benchmark) for n, line in enumerate(lines, start=1)]
    if path.suffix == ".json" and _is_results_file(path):
        raise HallubenchError(f"{path} is lm-eval's results file; pass the samples_{task}_*.jsonl written beside it "
                              "with --log_samples")
    try:
        with path.open(encoding="utf-8") as handle:
            samples = [_sample_line(path, n, line, benchmark) for n, line in enumerate(handle, start=1) if line.strip()]
    except UnicodeDecodeError as exc:
        raise HallubenchError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    if not samples:
        raise HallubenchError(f"{path} holds no samples")
    if all(isinstance(sample.doc_id, int) for sample in samples):
        samples.sort(key=lambda sample: sample.doc_id)
    return samples


def recorded_settings(samples: Sequence[Sample]) -> dict[str, Any] | None:
    """The run settings lm-eval's run recorded in its judged records (the first that has them), or None."""
    return next((dict(s.record["settings"]) for s in samples
                 if s.record is not None and isinstance(s.record.get("settings"), dict)), None)


def has_verdict(record: Mapping[str, Any] | None) -> bool:
    """Whether a recorded record holds verdicts to reuse: a judge looked at it (not ``--predict_only``, not
    ``judge: none``, judging did not raise: no ``unjudged_reason``) and none of its judge calls failed. Unreadable
    verdicts are verdicts (their replies are cached; ``--retry-unparseable`` re-asks them)."""
    return (record is not None and "unjudged_reason" not in record and record.get("judge") != "none"
            and not failed_verdicts([record]))


@dataclass(frozen=True)
class ScoreOptions:
    """How ``hallubench score`` treats a samples log: ``flags`` are the command's settings (``--judge``,
    ``--judge-role``, ``--knowledge``, ``--set``), which override the settings the run recorded; ``rejudge`` judges
    every item again instead of reusing the verdicts in the log."""

    flags: Mapping[str, Any] = field(default_factory=dict)
    rejudge: bool = False
    retry_unparseable: bool = False
    prices: Mapping[str, Price] = field(default_factory=dict)
    budget: Budget | None = None  # --max-calls / --max-cost: the run stops judging at the cap


def _reusable(benchmark: Benchmark, settings: RunSettings, options: ScoreOptions,
              recorded: Mapping[str, Any] | None) -> bool:
    """Whether verdicts in the log may be reused: a judged benchmark, no --rejudge / --retry-unparseable, and every
    setting (judges, evidence, K, ...) as the run recorded it: a flag that changes one judges everything again."""
    if not benchmark.judge_roles or options.rejudge or options.retry_unparseable or recorded is None:
        return False
    return all(recorded.get(key) == value for key, value in settings.record().items())


def docs_fingerprint(docs: Sequence[dict]) -> str | None:
    """The test set's fingerprint as lm-eval's task records it (``dataset_fingerprint`` of its rows), computed over
    ``docs``; None when they are not the rows of one table (different keys or types)."""
    if any(doc.keys() != docs[0].keys() for doc in docs):
        return None
    plain = records_fingerprint(docs)
    if plain is not None:
        return plain
    import datasets

    try:
        return dataset_fingerprint(datasets.Dataset.from_list(list(docs)))
    except (ValueError, TypeError, OverflowError):  # pyarrow's ArrowInvalid / ArrowTypeError, ints beyond int64
        return None


def run_dataset(samples: Path, task: str) -> dict[str, Any]:
    """Where lm-eval's run took the set from: ``hallubench_dataset`` of ``task`` in the run's results file
    (``results_<date>.json`` beside ``samples_<task>_<date>.jsonl``; an Inspect log's task metadata), or {} when there
    is none."""
    from hallubench.reporting.inspect_logs import is_inspect_log, run_of

    if is_inspect_log(samples):
        return dict(run_of(samples).dataset)
    named = _LM_EVAL_SAMPLES.fullmatch(samples.name)
    results = samples.with_name(f"results_{named['date']}.json") if named and named["task"] == task else None
    if results is None or not results.is_file():
        return {}
    try:
        recorded = json.loads(results.read_text(encoding="utf-8"))["configs"][task]["metadata"]["hallubench_dataset"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return {}
    return recorded if isinstance(recorded, dict) else {}


def json_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def write_json_atomic(path: Path, payload: Any, command: str = "score") -> None:
    """Write JSON through a temporary file in the same folder (removed on any failure), marked as ``command``'s."""
    marked = {"written_by": f"{MARKER} {command}", **payload}
    write_text_atomic(path, json.dumps(json_safe(marked), indent=2, ensure_ascii=False) + "\n")


def _announce(task: str, settings: RunSettings, recorded: Mapping[str, Any] | None) -> None:
    """Say which settings came from the samples log and which flags override what the run recorded."""
    if recorded is None:  # a log not written by a hallubench task (or score --dataset): flags, env, defaults
        return
    mine = settings.record()
    overridden = [f"{key}={mine[key]!r} (run: {recorded.get(key)!r})" for key in mine
                  if settings.source(key) == "flag" and key in recorded and mine[key] != recorded.get(key)]
    print(f"[hallubench] {task}: run settings read from the samples log"
          + (f"; overridden by flags: {', '.join(overridden)}" if overridden else ""), file=sys.stderr)


def check_judgeable(benchmark: Benchmark, settings: RunSettings, task: str) -> None:
    """Before any judge call: LongWiki's evidence needs a knowledge store; a judge the run recorded with a template
    file (public form ``template=NAME@sha256:...``) needs the file again."""
    for role in benchmark.judge_roles:
        spec = settings.get(role) or ""
        if settings.source(role) == "samples log" and "@sha256:" in spec:
            raise HallubenchError(f"{task}: the run's {role} used a judge template file ({spec.split('template=')[-1]}"
                                  f"); to judge items without a verdict, pass --judge (or --judge-role {role}=...) "
                                  "with the template's path")
    if "knowledge" in benchmark.options and settings.get("knowledge") is None:
        raise HallubenchError(f"{task} needs a knowledge store for evidence: pass --knowledge PATH (or set "
                              "$HALLUBENCH_KNOWLEDGE; build one with: hallubench knowledge build)")


def _summary(benchmark: Benchmark, records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """The parts of a result computed from its records: metrics, breakdowns, counts, failed and unreadable verdicts."""
    share, items = benchmark.unreadable_items(records, docs)
    return {**benchmark.summarize(records, docs), "judge_failed": len(failed_verdicts(records)),
            "unreadable": {"metric": benchmark.unreadable_metric, "share": share, "items": items}}


def judging_plan(benchmark: Benchmark, task: str, samples: Sequence[Sample], options: ScoreOptions
                 ) -> tuple[RunSettings, dict[str, Any] | None, bool, list[int]]:
    """How :func:`score` treats a log: its settings, the settings the run recorded, whether the log's verdicts are
    reused, and the items judged now (the budget caps plan these)."""
    recorded_run = recorded_settings(samples)
    settings = resolve_settings(benchmark, task, {}, flags=options.flags, recorded=recorded_run)
    reuse = _reusable(benchmark, settings, options, recorded_run)
    return settings, recorded_run, reuse, [i for i, s in enumerate(samples) if not (reuse and has_verdict(s.record))]


def score(task: str, samples_path: Path, options: ScoreOptions | None = None) -> tuple[dict[str, Any], list[dict]]:
    """Summarise a samples log with the run's recorded settings (a flag overrides one, and says so): the verdicts
    already in the log are reused; items without one (unjudged, failed, ``--predict_only``) are judged, and every
    item with ``--rejudge``, ``--retry-unparseable`` or judges other than the run's. Failed verdicts stay unjudged
    and are counted in ``judge_failed``. ``unreadable`` in the result names the benchmark's unreadable-share metric,
    its value and how many items have an unreadable or failed verdict; ``dataset`` the set's location and revision as
    lm-eval's run recorded them (null when unknown) and the fingerprint of the docs scored; ``settings`` the settings
    used; ``accounting`` the judge calls, tokens, time and cost per role (docs/cost.md)."""
    options = options or ScoreOptions()
    benchmark = benchmark_for_task(task)
    samples = read_samples(samples_path, task)
    docs = [s.doc for s in samples]
    settings, recorded_run, reuse, todo = judging_plan(benchmark, task, samples, options)
    _announce(task, settings, recorded_run)
    records: list[dict] = [{k: v for k, v in (s.record or {}).items() if k != "settings"} for s in samples]
    calls: dict[str, dict[str, int]] = {}
    account = accounting(None, {}, 0.0)
    if todo:
        check_judgeable(benchmark, settings, task)
        specs = {role: settings[role] for role in benchmark.judge_roles if settings[role]}
        judges = AccountedJudgeSet(specs or {"judge": "none"}, retry_unparseable=options.retry_unparseable,
                                   settings=settings, budget=options.budget)
        start = time.perf_counter()
        try:
            judged = judge_responses(benchmark, [samples[i].response for i in todo], [docs[i] for i in todo], judges,
                                     desc=f"judge {task}")
            calls = judges.report()
            account = accounting(judges, roles_in_use(benchmark.judge_roles, specs), time.perf_counter() - start,
                                 options.prices)
        finally:
            judges.close()
        for i, record in zip(todo, judged):
            records[i] = record
    if reuse:
        print(f"[hallubench] {task}: {len(samples) - len(todo)} verdicts reused from the samples log, {len(todo)} "
              "judged now (--rejudge judges every item again)", file=sys.stderr)
    recorded = run_dataset(samples_path, task)
    result = {
        "schema_version": RESULT_SCHEMA_VERSION,
        "task": task,
        "benchmark": benchmark.name,
        **_summary(benchmark, records, docs),
        "metric_kinds": benchmark.metric_kinds(),
        "judges": {role: spec for role, spec in settings.record().items()
                   if role in benchmark.judge_roles and spec},
        "judge_calls": calls,
        "accounting": account,
        "verdicts": {"reused": len(samples) - len(todo), "judged": len(todo)},
        **({"budget": options.budget.report([failed_verdicts([records[i]]) for i in todo])} if options.budget else {}),
        "settings": settings.record(),
        "samples": str(samples_path),
        "dataset": {
            "location": recorded.get("location"),
            "revision": recorded.get("revision"),
            "fingerprint": docs_fingerprint(docs),
        },
        "provenance": {
            "software": software(),
            "judge_prompts_hash": judge_prompts_hash(benchmark),
        },
    }
    return result, records


# ---------------------------------------------------------------- error bars: generation runs and judge panels

def majority_records(panel: Sequence[Sequence[dict]]) -> list[dict]:
    """Per item, the record of the outcome most panel members gave (``panel``: each member's records, in panel
    order); a tie goes to the tied outcome the earliest member gave, and the record is that member's."""
    voted = []
    for records in zip(*panel, strict=True):
        votes = Counter(record.get("outcome") for record in records)
        top = max(votes.values())
        voted.append(next(record for record in records if votes[record.get("outcome")] == top))
    return voted


def spread(values: Sequence[Any]) -> float | None:
    """The sample standard deviation (ddof=1) of the defined values; None with fewer than two."""
    defined = [float(v) for v in values
               if isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)]
    return statistics.stdev(defined) if len(defined) > 1 else None


def _error_bar(benchmark: Benchmark, summaries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``n``, and per headline metric each summary's value and their standard deviation."""
    values = {m: [summary.get(m) for summary in summaries] for m in benchmark.headline_metrics}
    return {"n": len(summaries), "std": {m: spread(v) for m, v in values.items()}, "values": values}


def _merged_accounting(accounts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Several scorings' accounting as one: each role entry kept (``judge #2``: the 2nd scoring's), totals summed."""
    if len(accounts) == 1:
        return dict(accounts[0])
    roles = {f"{role} #{k}": entry for k, account in enumerate(accounts, 1) for role, entry in account["roles"].items()}
    total: dict[str, Any] = {}
    for key, first in accounts[0]["total"].items():
        values = [account["total"][key] for account in accounts]
        if key == "cost_usd":
            total[key] = sum(v for v in values if v is not None) if any(v is not None for v in values) else None
        elif isinstance(first, bool):
            total[key] = all(values)
        else:
            total[key] = sum(values) if all(isinstance(v, (int, float)) for v in values) else first
    return {"wall_seconds": sum(a["wall_seconds"] for a in accounts), "roles": roles, "total": total}


def _summed(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """Two call reports (``judge_calls``) as one: numbers added key by key, nested reports alike, other values (a
    mode) kept from the first that has them."""
    merged = dict(first)
    for key, value in second.items():
        mine = merged.get(key)
        if isinstance(mine, Mapping) and isinstance(value, Mapping):
            merged[key] = _summed(mine, value)
        elif isinstance(mine, (int, float)) and isinstance(value, (int, float)) and not isinstance(value, bool):
            merged[key] = mine + value
        else:
            merged.setdefault(key, value)
    return merged


def _same_set(paths: Sequence[Path], task: str) -> list[dict]:
    """The docs all ``paths`` share; one line naming the first log scored on another set."""
    docs = [s.doc for s in read_samples(paths[0], task)]
    for path in paths[1:]:
        if [s.doc for s in read_samples(path, task)] != docs:
            raise HallubenchError(f"{path} is not a run on the test set of {paths[0]} (its docs differ); generation "
                                  "runs must answer the same set")
    return docs


def score_with_error_bars(task: str, paths: Sequence[Path], options: ScoreOptions | None = None,
                          panel: Sequence[str] = ()) -> tuple[dict[str, Any], list[dict]]:
    """:func:`score` over generation runs (``paths``: samples logs of one set, e.g. seeds) and a judge panel
    (``panel``: judge specs, each member judging as ``--judge SPEC``). Per run, each item's record is the panel's
    majority (:func:`majority_records`). The reported result summarises every run's records pooled (a rate of
    every item: the mean of the runs' rates; ``n`` counts each run's items) and adds ``error_bars``: ``generation``,
    the runs' values and their std, and ``judge``, each member's value over all runs and their std. One path and no
    panel is :func:`score`."""
    options = options or ScoreOptions()
    if len(paths) == 1 and not panel:
        return score(task, paths[0], options)
    benchmark = benchmark_for_task(task)
    docs = _same_set(paths, task)
    members = [replace(options, flags={**options.flags, "judge": spec}) for spec in panel] or [options]
    scored = [[score(task, path, member) for member in members] for path in paths]  # [run][member]
    voted = [majority_records([records for _, records in run]) for run in scored]
    result = {**scored[0][0][0], **_summary(benchmark, [r for run in voted for r in run], docs * len(paths))}
    each = [member_result for run in scored for member_result, _ in run]
    result["verdicts"] = {key: sum(r["verdicts"][key] for r in each) for key in ("reused", "judged")}
    result["accounting"] = _merged_accounting([r["accounting"] for r in each])
    calls: dict[str, Any] = {}
    for member_result in each:
        calls = _summed(calls, member_result["judge_calls"])
    result["judge_calls"] = calls
    error_bars: dict[str, Any] = {}
    if len(paths) > 1:
        result["generation_runs"] = [str(path) for path in paths]
        error_bars["generation"] = _error_bar(benchmark, [_summary(benchmark, run, docs) for run in voted])
    if panel:
        result["judge_panel"] = [r["judges"] for r, _ in scored[0]]
        error_bars["judge"] = _error_bar(benchmark, [
            _summary(benchmark, [record for run in scored for record in run[k][1]], docs * len(paths))
            for k in range(len(members))])
    result["error_bars"] = error_bars
    return result, [r for run in voted for r in run]


def inspect_log_result(path: Path) -> dict[str, Any]:
    """The log in `hallubench score`'s result shape, from the verdicts it holds (no judge is called: an item without
    one counts as unjudged), with the run's model, date and set: what ``hallubench report`` shows of it."""
    from hallu_metrics.registry import benchmark_for_task
    from hallubench.reporting.inspect_logs import run_of

    run = run_of(path)
    benchmark = benchmark_for_task(run.task)
    samples = read_samples(path, run.task)
    records = [{k: v for k, v in (s.record or {"outcome": "unjudged", "judge": "none"}).items() if k != "settings"}
               for s in samples]
    settings = recorded_settings(samples) or {}
    return {"task": run.task, "benchmark": benchmark.name,
            **_summary(benchmark, records, [s.doc for s in samples]),
            "judges": {role: settings[role] for role in benchmark.judge_roles if settings.get(role)},
            "dataset": dict(run.dataset), "model": run.model, "date": run.date, "samples": str(path)}
