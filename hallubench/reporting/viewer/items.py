"""Gather the items of lm-eval samples logs (and the `hallubench score` results that name them) into the compact
rows the viewer page embeds: prompt, response, every judge step (raw reply and reading), long-form claims with
their evidence passages and verdicts."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hallu_metrics.benchmarks.wildhallucinations.evidence import page_passages_of
from hallu_metrics.longform.knowledge import KnowledgeStore
from hallu_metrics.longform.passages import PASSAGE_WORDS
from hallu_metrics.registry import BENCHMARKS, benchmark_for_task
from hallu_metrics.settings import setting_keys
from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import MARKER
from hallubench.reporting.compare import _date, model_name, set_label
from hallubench.reporting.inspect_logs import is_inspect_log, run_of, sample_lines
from hallubench.reporting.scoring import _LM_EVAL_SAMPLES, _run_time, judged_record, task_of

# doc fields that hold what the model was asked, first found wins (the chat-templated input is kept apart)
_QUESTION_FIELDS = ("question", "prompt", "name", "entity", "query")
_CLAIM_LISTS = ("claims", "facts")  # record lists shown as claims with their evidence, not as plain steps
_RULE = "rule"  # the rule judge's raw: "rule", or "rule: REASON" (hallu_metrics.judges.kinds.RuleJudge)


@dataclass(frozen=True)
class Source:
    """One samples log to show, with the model name it is shown under, and the test set (``dataset`` as a result
    records it: fingerprint, location, revision) and time (``date``: unix or ISO 8601) its run recorded, if any."""

    path: Path
    task: str
    model: str
    dataset: Mapping[str, Any] | None = None
    date: Any = None


def _result_samples(path: Path, result: Mapping[str, Any]) -> Path | None:
    """The samples log a `hallubench score` result names: as recorded (relative to where score ran), else relative
    to the result file's folder or one of its parents; None when there is none (a result scored from --dataset)."""
    recorded = Path(str(result.get("samples", "")))
    candidates = (recorded, *(parent / recorded for parent in path.resolve().parents)) if result.get("samples") else ()
    return next((c for c in candidates if c.is_file()), None)


def _score_result(path: Path) -> Mapping[str, Any] | None:
    """A `hallubench score` result.json's content, or None for any other JSON file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("written_by") == f"{MARKER} score" else None


def _folder_model(folder: Path) -> str:
    """The model of an lm-eval output folder as ``hallubench report`` names it (from the ``results_*.json`` beside
    the samples logs), so that report rows link to their items; else the folder's name."""
    for results in sorted(folder.glob("results_*.json"), reverse=True):
        try:
            model_args = json.loads(results.read_text(encoding="utf-8")).get("config", {}).get("model_args")
        except (OSError, UnicodeDecodeError, ValueError, AttributeError):
            continue
        name = model_name(model_args or "")
        if name:
            return name
    return folder.name


def _lm_eval_run(samples: Path, task: str) -> tuple[Mapping[str, Any] | None, Any]:
    """The test set and date that the lm-eval results file written with ``samples`` (``results_<date>.json``, the
    same date stamp) records for ``task``; (None, None) without one."""
    named = _LM_EVAL_SAMPLES.fullmatch(samples.name)
    results = samples.with_name(f"results_{named['date']}.json") if named else None
    try:
        data = json.loads(results.read_text(encoding="utf-8")) if results is not None else None
    except (OSError, UnicodeDecodeError, ValueError):
        data = None
    if not isinstance(data, dict):
        return None, None
    config = (data.get("configs") or {}).get(task)
    metadata = config.get("metadata") if isinstance(config, dict) else None
    dataset = metadata.get("hallubench_dataset") if isinstance(metadata, dict) else None
    return (dataset if isinstance(dataset, dict) else None), data.get("date")


def _task_of_records(path: Path) -> str:
    """The task of a samples log that its name does not tell, from its first line: the benchmark whose test set
    columns the doc holds (the most specific, when one benchmark's columns extend another's) and whose settings its
    judged record names, when that benchmark has one task; else one line asking for ``--task``."""
    try:
        with path.open(encoding="utf-8") as handle:
            sample = json.loads(next((line for line in handle if line.strip()), "null"))
    except (OSError, UnicodeDecodeError, ValueError):
        sample = None
    doc = sample.get("doc") if isinstance(sample, dict) else None
    if not isinstance(doc, Mapping):
        raise HallubenchError(f"view: {path} is neither a hallubench score result.json nor an lm-eval samples log "
                              "(JSON lines with a doc)")
    settings = (judged_record(sample) or {}).get("settings")
    named = set(settings) if isinstance(settings, Mapping) else set()
    columns = {name: set(b.required_doc_columns) for name, b in BENCHMARKS.items()}
    fits = [name for name, b in BENCHMARKS.items() if columns[name] <= doc.keys() and named <= set(setting_keys(b))]
    tasks = sorted(task for name in fits if not any(columns[name] < columns[other] for other in fits)
                   for task in BENCHMARKS[name].task_names)
    if len(tasks) != 1:
        told = f"its records fit {', '.join(tasks)}" if tasks else "its records fit no benchmark's columns"
        raise HallubenchError(f"view: {path}: cannot tell its task (its name is not samples_<task>_<date>.jsonl; "
                              f"{told}): pass --task TASK")
    return tasks[0]


def find_sources(paths: Iterable[Path], model: str | None = None, task: str | None = None) -> list[Source]:
    """Every samples log the given files and folders (searched recursively) name: lm-eval's
    ``samples_<task>_<date>.jsonl`` and `hallubench score` result.json files (which name their samples and model).
    A file named itself that is not a score result is a samples log whatever its name: of ``task`` when given, else
    of the task its name or its records tell. A log named twice is shown once, under the model name a result gives
    it (else ``model``, else its folder)."""
    if task is not None:
        benchmark_for_task(task)  # one line naming the known tasks
    found: dict[Path, Source] = {}
    named: dict[Path, str] = {}
    for path in paths:
        if not path.exists():
            raise HallubenchError(f"view: {path} not found")
        files = sorted([*path.rglob("*.json*"), *path.rglob("*.eval")]) if path.is_dir() else [path]
        for file in files:
            if is_inspect_log(file):  # an Inspect log names its task, model, set and date
                try:
                    run = run_of(file)
                except HallubenchError:
                    if path.is_dir():  # another suite's log in the folder
                        continue
                    raise
                found.setdefault(file.resolve(), Source(file, run.task, model or run.model, run.dataset, run.date))
                continue
            result = _score_result(file) if file.suffix == ".json" else None
            file_task = task_of(file.name) if path.is_dir() or result is not None else (
                task or task_of(file.name) or _task_of_records(file))
            if file_task is not None:
                found.setdefault(file.resolve(), Source(file, file_task, model or _folder_model(file.parent),
                                                        *_lm_eval_run(file, file_task)))
                continue
            if result is not None and isinstance(result.get("task"), str):
                samples = _result_samples(file, result)
                if samples is None:
                    if not path.is_dir():
                        raise HallubenchError(f"view: {file} names no samples log found here ({result.get('samples')})"
                                              "; pass the samples file itself")
                    print(f"[hallubench] view: {file} names no samples log found here; left out", file=sys.stderr)
                    continue
                dataset = result.get("dataset") if isinstance(result.get("dataset"), dict) else None
                found.setdefault(samples.resolve(), Source(samples, result["task"], model or samples.parent.name,
                                                           dataset, result.get("date")))
                if result.get("model"):
                    named[samples.resolve()] = str(result["model"])
            elif not path.is_dir():
                raise HallubenchError(f"view: {file}: a hallubench score result without a task")
    if not found:
        raise HallubenchError(f"view: no samples_<task>_*.jsonl or score result under {', '.join(map(str, paths))}")
    return [replace(s, model=named.get(key, s.model)) for key, s in found.items()]


def _replies(verdict: Mapping[str, Any]) -> dict[str, Any]:
    """What a verdict's judge said: its reply (``r``); the first reply before the reminder turn (``r1``) when the
    first could not be read; the rule judge's reason (``w``) for its label, or "" when it gave none."""
    raw = verdict.get("raw")
    shown: dict[str, Any] = {"r": raw}
    if verdict.get("first_reply") is not None:
        shown["r1"] = verdict["first_reply"]
    if raw == _RULE or (isinstance(raw, str) and raw.startswith(_RULE + ": ")):
        shown["w"] = raw.removeprefix(_RULE).removeprefix(": ")
    return shown


def _steps(record: Mapping[str, Any], where: str = "") -> Iterator[dict[str, Any]]:
    """Every judge step of a judged record (a ``{label, status, raw}`` verdict), named by its place in the record;
    claim lists are left to :func:`_claims`."""
    for key, value in record.items():
        name = f"{where}.{key}" if where else str(key)
        if isinstance(value, Mapping):
            if "status" in value and ("raw" in value or "label" in value):
                step = {"n": name, "l": value.get("label"), "s": value.get("status"), **_replies(value)}
                extra = {k: v for k, v in value.items() if k not in ("label", "status", "raw", "first_reply")}
                yield {**step, "x": extra} if extra else step
            else:
                yield from _steps(value, name)
        elif isinstance(value, list) and key not in _CLAIM_LISTS:
            for i, entry in enumerate(value):
                if isinstance(entry, Mapping):
                    yield from _steps(entry, f"{name}[{i}]")


class _Evidence:
    """Evidence passages of all items, each (title, index, text) stored once (models answering the same item share
    them); claims point into this table."""

    def __init__(self) -> None:
        self.table: list[dict[str, Any]] = []
        self._at: dict[tuple[str, int, str | None], int] = {}
        self.lookup: Mapping[tuple[str, int], str] = {}
        self.store: KnowledgeStore | None = None

    def use(self, lookup: Mapping[tuple[str, int], str], store: KnowledgeStore | None) -> _Evidence:
        """Where the next item's passage texts come from: its own pages (WildHallucinations) or a knowledge store."""
        self.lookup, self.store = lookup, store
        return self

    def ref(self, title: str, index: int) -> int:
        text = self.lookup.get((title, index))
        if text is None and self.store is not None:
            text = next((p.text for p in self.store.passages(title) if p.index == index), None)
        key = (title, index, text)
        if key not in self._at:
            self._at[key] = len(self.table)
            self.table.append({"t": title, "i": index, "x": text})
        return self._at[key]


def _span(response: str, *texts: str) -> list[int] | None:
    """Where the first of ``texts`` found in ``response`` sits ([start, end]), for highlighting."""
    for text in texts:
        at = response.find(text.strip()) if text and text.strip() else -1
        if at >= 0:
            return [at, at + len(text.strip())]
    return None


def _claims(record: Mapping[str, Any], response: str, evidence: _Evidence) -> list[dict[str, Any]]:
    """Claims (LongWiki, HalluLens 3.2) or atomic facts (WildHallucinations, section 3) with their evidence passages
    and verdicts, each located in the response (the claim itself, else the sentence it came from)."""
    out: list[dict[str, Any]] = []
    sentence_of = {str(claim): str(s.get("sentence", "")) for s in record.get("snippets", []) if isinstance(s, Mapping)
                   and isinstance(s.get("extraction"), Mapping) and isinstance(s["extraction"].get("label"), list)
                   for claim in s["extraction"]["label"]}
    for claim in record.get("claims", []) if isinstance(record.get("claims"), list) else []:
        if not isinstance(claim, Mapping):
            continue
        verdict = claim.get("verification") if isinstance(claim.get("verification"), Mapping) else {}
        text = str(claim.get("claim", ""))
        passages = [evidence.ref(str(p.get("title")), int(p.get("index", 0))) for p in claim.get("passages", [])
                    if isinstance(p, Mapping)]
        out.append({"c": text, "l": verdict.get("label"), "s": verdict.get("status"), **_replies(verdict),
                    "e": passages, "sp": _span(response, text, sentence_of.get(text, ""))})
    for sentence in record.get("sentences", []) if isinstance(record.get("sentences"), list) else []:
        if not isinstance(sentence, Mapping):
            continue
        facts = sentence.get("facts")  # WildHallucinations' atomic facts; ANAH's "facts" is its first turn's verdict
        for fact in facts if isinstance(facts, list) else []:
            if not isinstance(fact, Mapping):
                continue
            verdict = fact.get("verdict") if isinstance(fact.get("verdict"), Mapping) else {}
            text = str(fact.get("fact", ""))
            passages = [evidence.ref(str(e.get("url")), int(e.get("passage", 0))) for e in fact.get("evidence", [])
                        if isinstance(e, Mapping)]
            out.append({"c": text, "l": verdict.get("label"), "s": verdict.get("status"), **_replies(verdict),
                        "e": passages, "sp": _span(response, text, str(sentence.get("sentence", "")))})
    return out


def _question(doc: Mapping[str, Any], model_input: str) -> str:
    return next((str(doc[f]) for f in _QUESTION_FIELDS if isinstance(doc.get(f), str) and doc[f]), model_input)


def _model_input(sample: Mapping[str, Any]) -> str:
    """The text lm-eval sent the model (its first request's first argument)."""
    arguments = sample.get("arguments")
    first = next(iter(arguments.values()), None) if isinstance(arguments, Mapping) and arguments else None
    value = first.get("arg_0") if isinstance(first, Mapping) else first
    return value if isinstance(value, str) else ""


class _Stores:
    """Knowledge stores opened once per path (LongWiki evidence texts); missing stores give no texts."""

    def __init__(self, knowledge: Path | None) -> None:
        self.knowledge = knowledge
        self.opened: dict[str, KnowledgeStore | None] = {}

    def get(self, record: Mapping[str, Any]) -> KnowledgeStore | None:
        settings = record.get("settings") if isinstance(record.get("settings"), Mapping) else {}
        path = str(self.knowledge or settings.get("knowledge") or "")
        if not path:
            return None
        if path not in self.opened:
            try:
                self.opened[path] = KnowledgeStore.open(path, progress=False)
            except HallubenchError:
                self.opened[path] = None
        return self.opened[path]

    def close(self) -> None:
        for store in self.opened.values():
            if store is not None:
                store.close()


def _item(source: Source, number: int, sample: Mapping[str, Any], stores: _Stores, evidence: _Evidence
          ) -> dict[str, Any]:
    doc = sample.get("doc") if isinstance(sample.get("doc"), Mapping) else {}
    resps = sample.get("resps")
    response = resps[0][0] if isinstance(resps, list) and resps and isinstance(resps[0], list) and resps[0] else ""
    response = response if isinstance(response, str) else str(response)
    record = judged_record(sample) or {}
    benchmark = benchmark_for_task(source.task)
    groups = {b.key: str(v) for b in benchmark.breakdowns if (v := b.value(dict(doc))) not in (None, "")}
    model_input = _model_input(sample)
    wild = isinstance(record.get("sentences"), list) and isinstance(doc.get("info"), list)
    evidence.use({(p.title, p.index): p.text for p in page_passages_of(doc, PASSAGE_WORDS)} if wild else {},
                 None if wild else stores.get(record))
    steps = list(_steps(record))
    claims = _claims(record, response, evidence)
    failures = sum(1 for s in steps if s["s"] != "ok") + sum(1 for c in claims if c["s"] != "ok")
    metrics = {m: sample[m] if math.isfinite(sample[m]) else None for m in sample.get("metrics", [])
               if isinstance(sample.get(m), (int, float))}
    outcome = record.get("outcome") or (record.get("unjudged_reason") and "unjudged") or "no verdict"
    item = {"d": sample.get("doc_id", number), "k": sample.get("doc_hash") or doc.get("id") or number,
            "o": str(outcome), "g": groups, "f": failures, "q": _question(doc, model_input), "r": response,
            "st": steps, "mt": metrics}
    if model_input and model_input != item["q"]:
        item["in"] = model_input
    target = sample.get("target")
    if target not in (None, "", []):
        item["tg"] = target if isinstance(target, str) else json.dumps(target, ensure_ascii=False)
    if isinstance(doc.get("reference"), str):
        item["ref"] = doc["reference"]
    if record.get("unjudged_reason"):
        item["why"] = str(record["unjudged_reason"])
    if claims:
        item["cl"] = claims
    return item


def _run(source: Source, first: Mapping[str, Any] | None) -> dict[str, str]:
    """A samples log as the page's run filters name it: ``p`` its path, ``s`` its test set (the first 12 hex digits
    of the fingerprint its run recorded, else the set location its judged records name), ``w`` its date (UTC: the
    one recorded, else the one in its name, else the file's)."""
    settings = (first or {}).get("settings")
    location = settings.get("dataset") if isinstance(settings, Mapping) else None
    label = set_label(source.dataset or {})
    when = source.date if source.date is not None else _run_time(source.path)
    return {"p": str(source.path), "s": str(location) if label == "unknown" and location else label,
            "w": _date(when, source.path)}


def gather(sources: Iterable[Source], knowledge: Path | None = None) -> dict[str, Any]:
    """The page's data: task, model and run names, evidence passages, and one item per samples line (items refer
    to names, runs and passages by index)."""
    tasks: list[str] = []
    models: list[str] = []
    runs: list[dict[str, str]] = []
    items: list[dict[str, Any]] = []
    stores = _Stores(knowledge)
    evidence = _Evidence()
    try:
        for source in sources:
            tasks += [] if source.task in tasks else [source.task]
            models += [] if source.model in models else [source.model]
            t, m = tasks.index(source.task), models.index(source.model)
            try:
                lines = ([json.dumps(line) for line in sample_lines(source.path, source.task)]
                         if is_inspect_log(source.path)
                         else source.path.read_text(encoding="utf-8").split("\n"))  # lm-eval writes U+2028
            except (OSError, UnicodeDecodeError) as exc:
                raise HallubenchError(f"view: cannot read {source.path} ({exc})") from exc
            u = len(runs)
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    sample = json.loads(line)
                except ValueError as exc:
                    raise HallubenchError(f"view: {source.path}:{number} is not a JSON line") from exc
                if not isinstance(sample, dict):
                    raise HallubenchError(f"view: {source.path}:{number} is not an lm-eval sample line")
                if len(runs) == u:
                    runs.append(_run(source, judged_record(sample)))
                try:
                    items.append({"t": t, "m": m, "u": u, **_item(source, number, sample, stores, evidence)})
                except (ValueError, TypeError, AttributeError, KeyError) as exc:
                    raise HallubenchError(f"view: {source.path}:{number}: a judged record of an unexpected shape "
                                          f"({type(exc).__name__}: {exc})") from exc
    finally:
        stores.close()
    return {"tasks": tasks, "models": models, "runs": runs, "evidence": evidence.table, "items": items}
