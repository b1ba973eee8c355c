"""``hallubench report --paper BENCH [RESULTS...]``: a paper's published table for a benchmark, with the user's own
results for the same models beside it, so that a setup can be checked against the paper.

The published figures ship as package data, one ``hallu_metrics/benchmarks/<package>/published.yaml`` per benchmark
package
(copied from the papers' text, each table with its source table/section, the paper's settings and each column's
hallubench metric). A user's row sits beside a paper row only when the two model names are the same model: names
are compared after :func:`model_key` (case, org prefix, separators, version punctuation, GGUF quantisation suffix)
and through each table's explicit ``aliases`` (model ids the paper names); nothing closer than that counts. Each
matched model gets a line naming the settings in which the user's run differs from the paper's: judge, test set,
decoding (when the results file records it) and quantised weights. The papers' own inconsistencies are shipped as
printed, each table's ``caveats`` saying where, and are printed under the table."""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from hallu_metrics.contract import Metric
from hallu_metrics.registry import BENCHMARKS, TASKS
from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import MARKDOWN_MARK, check_replaceable, write_text_atomic
from hallubench.reporting.compare import Row, load_results, set_label
from hallubench.reporting.report import cell, fmt, short_judge, short_name, unit

DATA_FILE = "published.yaml"
UNIT_KINDS = {"percent": "rate", "fraction": "rate", "score": "score", "count": "count"}  # paper unit -> metric kind
_QUANTISED = re.compile(r"[-_.](i?q\d(?:_[a-z0-9]+)*|f16|f32|bf16|fp16|fp8|gguf)$")  # GGUF / checkpoint suffixes
_COLUMN = {
    "type": "object", "required": ["name", "metric"], "additionalProperties": False,
    "properties": {"name": {"type": "string"}, "metric": {"type": "string"}, "unit": {"enum": list(UNIT_KINDS)},
                   "breakdown": {"type": "object", "minProperties": 1, "maxProperties": 1,
                                 "additionalProperties": {"type": "string"}},
                   "path": {"type": "string"}},
}
_SCHEMA = {  # the shape of a published.yaml
    "type": "object", "required": ["paper", "tables"], "additionalProperties": False,
    "properties": {"paper": {"type": "string"}, "tables": {"type": "array", "minItems": 1, "items": {
        "type": "object", "additionalProperties": False,
        "required": ["benchmark", "source", "unit", "digits", "settings", "columns", "rows"],
        "properties": {
            "benchmark": {"type": "string"}, "tasks": {"type": "array", "items": {"type": "string"}},
            "source": {"type": "string"}, "unit": {"enum": list(UNIT_KINDS)}, "digits": {"type": "integer"},
            "settings": {"type": "object", "required": ["judge", "set", "decoding"], "additionalProperties": False,
                         "properties": {"judge": {"type": "object",
                                                  "additionalProperties": {"type": ["string", "null"]}},
                                        "set": {"type": "string"},
                                        "decoding": {"type": ["object", "null"],
                                                     "additionalProperties": {"type": "number"}}}},
            "columns": {"type": "array", "minItems": 1, "items": _COLUMN},
            "aliases": {"type": "object", "additionalProperties": {"type": "string"}},
            "caveats": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "rows": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["model", "values"], "additionalProperties": False,
                "properties": {"model": {"type": "string"}, "match": {"type": "string"}, "task": {"type": "string"},
                               "values": {"type": "array", "items": {"type": ["number", "null"]}}}}},
        }}}},
}


@dataclass(frozen=True)
class Column:
    """One published column: the paper's name for it, the hallubench metric it is, and where a result holds it."""

    name: str
    metric: Metric
    unit: str  # the paper's unit: percent, fraction, score or count
    breakdown: tuple[str, str] | None  # (breakdown key, value): the metric within one breakdown group
    path: tuple[str, ...]  # else a path into the result (e.g. progression.intrinsic.scores.0); empty: the metric


@dataclass(frozen=True)
class PaperRow:
    """One model's published values (in the table's columns' order; None where the paper prints none)."""

    model: str  # as the paper prints it
    key: str  # model_key of the name it matches by
    tasks: tuple[str, ...]  # the lm-eval tasks whose results compare with it
    values: tuple[float | None, ...]


@dataclass(frozen=True)
class PaperTable:
    """A published table of one benchmark, with the settings the paper used."""

    paper: str
    benchmark: str
    source: str  # table and section
    digits: int
    judge: Mapping[str, str | None]  # judge role -> the paper's judge model (None: the paper does not say)
    test_set: str
    decoding: Mapping[str, float] | None
    columns: tuple[Column, ...]
    aliases: Mapping[str, str]  # model_key of a model id the paper names -> model_key of its row
    rows: tuple[PaperRow, ...]
    caveats: tuple[str, ...]  # where the published figures disagree with themselves or with the method they state


def model_key(name: str) -> tuple[str, str | None]:
    """(comparable name, quantisation suffix or None): the name's last path part, lower case, without org prefix or
    GGUF quantisation suffix, ``Meta-Llama`` as ``llama``, version punctuation as dots (``3_1`` = ``3.1``), and
    separators (space, ``-``, ``_``, a letter running into a digit) as one ``-``."""
    text = short_name(name.strip()).rpartition("/")[2].lower().removesuffix(".gguf")
    quantised = None
    while found := _QUANTISED.search(text):
        quantised = quantised or found.group(1)
        text = text[: found.start()]
    text = re.sub(r"(?<=\d)_(?=\d)", ".", text)
    text = re.sub(r"(?<=[a-z])(?=\d)", "-", text)
    key = "-".join(part for part in re.split(r"[-_\s]+", text) if part)
    return key.removeprefix("meta-") if key.startswith("meta-llama-") else key, quantised


def _column(entry: Mapping[str, Any], table: Mapping[str, Any], where: str) -> Column:
    benchmark = BENCHMARKS[table["benchmark"]]
    if entry["metric"] not in {m.name for m in benchmark.metrics}:
        raise HallubenchError(f"{where}: column {entry['name']!r}: {benchmark.name} declares no metric "
                              f"{entry['metric']!r}")
    metric = benchmark.metric(entry["metric"])
    paper_unit = entry.get("unit", table["unit"])
    if UNIT_KINDS[paper_unit] != metric.kind:
        raise HallubenchError(f"{where}: column {entry['name']!r}: unit {paper_unit} does not fit the {metric.kind} "
                              f"metric {metric.name}")
    breakdown = next(iter(entry.get("breakdown", {}).items()), None)
    if breakdown and breakdown[0] not in {b.key for b in benchmark.breakdowns}:
        raise HallubenchError(f"{where}: column {entry['name']!r}: {benchmark.name} has no breakdown {breakdown[0]!r}")
    return Column(entry["name"], metric, paper_unit, breakdown, tuple(entry.get("path", "").split(".")) if
                  entry.get("path") else ())


def _table(data: Mapping[str, Any], table: Mapping[str, Any], where: str) -> PaperTable:
    """A checked table: benchmark, tasks and metrics known, one value per column, no two rows one model."""
    if table["benchmark"] not in BENCHMARKS:
        raise HallubenchError(f"{where}: unknown benchmark {table['benchmark']!r}")
    benchmark = BENCHMARKS[table["benchmark"]]
    where = f"{where} ({benchmark.name}, {table['source']})"
    tasks = tuple(table.get("tasks") or benchmark.task_names)
    columns = tuple(_column(entry, table, where) for entry in table["columns"])
    rows, seen = [], {}
    for entry in table["rows"]:
        row_tasks = (entry["task"],) if "task" in entry else tasks
        stray = [t for t in row_tasks if t not in TASKS or not {c.metric.name for c in columns}
                 <= {m.name for m in TASKS[t].metrics}]
        if stray:
            raise HallubenchError(f"{where}: row {entry['model']!r}: task {stray[0]!r} is unknown or lacks a column's "
                                  "metric")
        if len(entry["values"]) != len(columns):
            raise HallubenchError(f"{where}: row {entry['model']!r} has {len(entry['values'])} values for "
                                  f"{len(columns)} columns")
        key = model_key(entry.get("match", entry["model"]))[0]
        for task in row_tasks:
            if (key, task) in seen:
                raise HallubenchError(f"{where}: rows {seen[key, task]!r} and {entry['model']!r} are one model")
            seen[key, task] = entry["model"]
        rows.append(PaperRow(entry["model"], key, row_tasks, tuple(entry["values"])))
    keys = {row.key for row in rows}
    aliases = {}
    for alias, target in (table.get("aliases") or {}).items():
        alias_key, target_key = model_key(alias)[0], model_key(target)[0]
        if target_key not in keys or (alias_key in keys and alias_key != target_key):
            raise HallubenchError(f"{where}: alias {alias!r} -> {target!r}: the target is no row, or the alias "
                                  "names another row")
        aliases[alias_key] = target_key
    settings = table["settings"]
    return PaperTable(data["paper"], benchmark.name, table["source"], table["digits"], settings["judge"],
                      settings["set"], settings["decoding"], columns, aliases, tuple(rows),
                      tuple(table.get("caveats", ())))


@functools.cache
def _published() -> dict[str, list[PaperTable]]:
    """Every shipped published.yaml, by benchmark package (the folder under hallu_metrics)."""
    found: dict[str, list[PaperTable]] = {}
    for folder in sorted((files("hallu_metrics") / "benchmarks").iterdir(), key=lambda p: p.name):
        source = folder / DATA_FILE
        if not source.is_file():
            continue
        where = f"hallu_metrics/benchmarks/{folder.name}/{DATA_FILE}"
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
        error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(_SCHEMA).iter_errors(data))
        if error is not None:
            raise HallubenchError(f"{where}: {error.json_path}: {error.message[:200]}")
        found[folder.name] = [_table(data, table, f"{where} table {i + 1}") for i, table in enumerate(data["tables"])]
    return found


def paper_names() -> list[str]:
    """The names ``--paper`` accepts: benchmark packages with a published table, and the benchmarks in them."""
    published = _published()
    return sorted({*published, *(t.benchmark for tables in published.values() for t in tables)})


def published_tables(name: str) -> list[PaperTable]:
    """The published tables of a benchmark package, a benchmark, or the benchmark serving a task."""
    published = _published()
    if name in published:
        return published[name]
    benchmark = TASKS[name].name if name in TASKS else name
    tables = [t for group in published.values() for t in group if t.benchmark == benchmark]
    if not tables:
        raise HallubenchError(f"--paper {name}: no published table (known: {', '.join(paper_names())})")
    return tables


# ---------------------------------------------------------------- the user's side

def _find(table: PaperTable, row: Row) -> PaperRow | None:
    """The paper row of the same model and a comparable task as ``row``, if any."""
    key = model_key(str(row["model"]))[0]
    key = table.aliases.get(key, key)
    return next((p for p in table.rows if p.key == key and row["task"] in p.tasks), None)


def _value(column: Column, row: Row) -> str:
    """The user's value of a column, formatted as hallubench shows the metric; ``n/a`` where the result lacks it."""
    if column.breakdown is None and not column.path:
        return cell(column.metric, row)
    if column.breakdown is not None:
        key, value = column.breakdown
        found = next((g for g in (row.get("breakdowns") or {}).get(key) or [] if str(g.get("value")) == value), {})
        return fmt(column.metric, found.get(column.metric.name))
    found: Any = row
    for part in column.path:
        if isinstance(found, Mapping):
            found = found.get(part)
        elif isinstance(found, list) and part.isdigit() and int(part) < len(found):
            found = found[int(part)]
        else:
            found = None
    return fmt(column.metric, found)


def _paper_value(column: Column, value: float | None, digits: int) -> str:
    """A published number in hallubench's display unit (rates in %), with the paper's digits."""
    if value is None:
        return "—"
    shown = value / 100.0 if column.unit == "percent" else value
    return f"{shown * (100.0 if column.metric.kind == 'rate' else 1.0):.{digits}f}"


def _decoding(row: Row) -> dict[str, float] | None:
    """The sampling settings an lm-eval results file records for the row's task (``do_sample: false`` counts as
    temperature 0); None for hallubench score results, which record none."""
    try:
        data = json.loads(Path(row["source"]).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or "configs" not in data:
        return None
    kwargs = dict(((data["configs"].get(row["task"]) or {}).get("generation_kwargs")) or {})
    override = (data.get("config") or {}).get("gen_kwargs")
    if isinstance(override, str):
        override = dict(part.partition("=")[::2] for part in override.split(",") if "=" in part)
    kwargs.update(override if isinstance(override, dict) else {})
    if str(kwargs.get("do_sample")).lower() == "false" and "temperature" not in kwargs:
        kwargs["temperature"] = 0.0
    recorded = {}
    for key in ("temperature", "top_p", "max_gen_toks"):
        try:
            recorded[key] = float(kwargs[key])
        except (KeyError, TypeError, ValueError):
            continue
    return recorded


def _judge_model(spec: str) -> str:
    """The model a judge spec names (``openai:...,model=gpt-4o-mini`` -> ``gpt-4o-mini``); its kind when none."""
    short = short_judge(spec).partition(" (")[0]
    kind, _, model = short.partition(":")
    return model or kind


def _number(value: float) -> str:
    return f"{value:g}"


def differences(table: PaperTable, row: Row) -> list[str]:
    """The settings in which the user's run differs from the paper's: judge per role, test set, decoding, weights."""
    found = []
    judges = row.get("judges") or {}
    for role, paper_model in table.judge.items():
        spec = judges.get(role) or judges.get("judge")
        mine = short_judge(spec) if spec else "none recorded"
        if paper_model is None:
            found.append(f"{role}: yours {mine}, paper's not stated in its text")
        elif not spec or model_key(_judge_model(spec))[0] != model_key(paper_model)[0]:
            found.append(f"{role}: yours {mine}, paper {paper_model}")
    found.append(f"set: yours {row.get('set') or set_label({})}, paper {table.test_set} (no published fingerprint)")
    if table.decoding:
        recorded = _decoding(row)
        paper = ", ".join(f"{k}={_number(v)}" for k, v in table.decoding.items())
        if not recorded:
            found.append(f"decoding: not recorded in your results (paper {paper})")
        else:
            differing = [f"{k}={_number(recorded[k])} (paper {_number(v)})" for k, v in table.decoding.items()
                         if k in recorded and recorded[k] != v]
            missing = [k for k in table.decoding if k not in recorded]
            if differing or missing:
                found.append("decoding: yours " + ", ".join(differing + [f"{k} not recorded" for k in missing]))
    quantised = model_key(str(row["model"]))[1]
    if quantised:
        found.append(f"weights: yours quantised ({quantised})")
    return found


# ---------------------------------------------------------------- markdown

def _settings_line(table: PaperTable) -> str:
    judge = ", ".join((f"{role} " if role != "judge" else "") + (model or "not stated")
                      for role, model in table.judge.items()) or "none"
    decoding = ", ".join(f"{k}={_number(v)}" for k, v in (table.decoding or {}).items()) or "not stated"
    return f"Paper settings: judge {judge}; set: {table.test_set}; decoding: {decoding}."


def _header(column: Column, side: str) -> str:
    name = column.name if side == "paper" else column.metric.name + (
        f"[{column.breakdown[0]}={column.breakdown[1]}]" if column.breakdown else "")
    return f"{name} ({side}, {unit(column.metric)})"


def table_markdown(table: PaperTable, rows: Sequence[Row]) -> str:
    """One published table: a line per paper model (with each of the user's results for it beside the paper's
    numbers when RESULTS are given), then per matched result the settings that differ."""
    mine = [r for r in rows if any(r["task"] in p.tasks for p in table.rows)]
    matched: dict[str, list[Row]] = {}
    for row in mine:
        paper_row = _find(table, row)
        if paper_row is not None:
            matched.setdefault(paper_row.model, []).append(row)
    header = ["model"]
    for column in table.columns:
        header += [_header(column, "paper"), *([_header(column, "yours")] if rows else [])]
    lines = [f"### {table.benchmark}: {table.source}", "", f"{table.paper}. {_settings_line(table)}", "",
             "| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    notes = []
    for paper_row in table.rows:
        for row in matched.get(paper_row.model) or [None]:
            label = paper_row.model
            cells = []
            for column, value in zip(table.columns, paper_row.values):
                cells.append(_paper_value(column, value, table.digits))
                if rows:
                    cells.append(_value(column, row) if row is not None else "")
            if row is not None:
                label += f" (yours: {row['model']}, {row['task']})" if row["model"] != paper_row.model else ""
                notes.append(f"- {paper_row.model} ← {Path(row['source']).name}: settings that differ: "
                             + "; ".join(differences(table, row)))
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if table.caveats:
        lines += ["", "Caveats (the published figures are shipped as printed):", *(f"- {c}" for c in table.caveats)]
    unmatched = [r for r in mine if _find(table, r) is None]
    if notes:
        lines += ["", *notes]
    if unmatched:
        lines += ["", "Not in this table (no paper row of the same model): " + ", ".join(
            f"{r['model']} ({r['task']}, {Path(r['source']).name})" for r in unmatched)]
    return "\n".join(lines)


def paper_markdown(name: str, rows: Sequence[Row]) -> str:
    """Every published table of ``name`` (see :func:`published_tables`), the user's rows beside them; results of
    tasks none of the tables covers are named in a closing line."""
    tables = published_tables(name)
    parts = [
        "Published figures as printed in the papers (rates in %, the paper's digits); yours as hallubench shows them "
        "(rates in % with the 95% Wilson interval where the item count is known). Numbers compare only where the "
        "settings listed under a table agree.",
        *(table_markdown(table, rows) for table in tables),
    ]
    covered = {task for table in tables for p in table.rows for task in p.tasks}
    other = sorted({f"{r['model']} ({r['task']})" for r in rows if r["task"] not in covered})
    if other:
        parts.append(f"Not compared (no table of --paper {name} covers their task): {', '.join(other)}")
    return "\n\n".join(parts) + "\n"


def paper_report(name: str, sources: list[Path], out: str | None, overwrite: bool) -> int:
    """The ``--paper`` mode of ``hallubench report``: print the tables, and write ``paper.md`` to ``--out``."""
    published_tables(name)  # an unknown name fails before anything is read
    target = None
    if out:
        folder = Path(out)
        if folder.exists() and not folder.is_dir():
            raise HallubenchError(f"--out {folder} is a file; expected a folder for the report")
        target = folder / "paper.md"
        check_replaceable(target, "--out", "report", overwrite=overwrite, inputs=sources)
    markdown = paper_markdown(name, load_results(sources) if sources else [])
    print(markdown)
    if target is not None:
        write_text_atomic(target, f"{MARKDOWN_MARK}\n{markdown}")
        print(f"[hallubench] published tables written to {target}", file=sys.stderr)
    return 0
