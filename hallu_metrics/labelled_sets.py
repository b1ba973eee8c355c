"""Labelled sets shipped with the package, one per judge check of every benchmark (issue 25), so a judge can be
checked against each check's documented labelling rule without the user bringing labels. The shipped sets were
written and labelled by the maintainers with an AI coding assistant, not by independent human annotators: they show
whether a judge follows the rule, not a human-agreement figure like the papers' (HalluLens sections 3.1.2, 3.3.2,
9.2; WildHallucinations Appendix A); the user's own human labels (``hallubench agreement --labels``) give that.

Layout: ``hallu_metrics/benchmarks/<benchmark package>/labels/<check>.jsonl`` plus one ``labels/provenance.yaml`` per
package, mapping each check to ``benchmarks`` (the benchmark names it serves), ``role`` (the judge role that answers
it), ``kind`` (``categorical`` / ``numeric`` / ``claims``), the provenance (``labelled_by``, ``method``, ``timing``,
``items_from``) and ``paper_figure`` (``{value, metric, source}`` or null). Each record of a set holds the fields
its check reads, ``label`` (the verdict in the check's own terms), ``split`` (``tuning``: seen while rules or
prompts were written; ``holdout``: not) and ``source`` (where the item came from).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from hallu_metrics.judges.base import Check
from hallu_metrics.registry import BENCHMARKS, benchmark_for_task
from hallubench.core.errors import HallubenchError
from hallubench.core.official_files.tables import iter_json_records

KINDS = ("categorical", "numeric", "claims")
SPLITS = ("tuning", "holdout")
_PROVENANCE_TEXT = ("labelled_by", "method", "timing", "items_from")


@dataclass(frozen=True)
class PaperFigure:
    """The paper's own figure for a judge, printed beside the user's."""

    value: float  # e.g. 0.9667
    metric: str  # what ``value`` means: "agreement", "error_rate", "kappa", "pearson", "pipeline_agreement", ...
    source: str  # paper and section


@dataclass(frozen=True)
class LabelledSet:
    """One check's shipped labels for one benchmark, with where they came from."""

    benchmark: str  # Benchmark.name in hallu_metrics.registry.BENCHMARKS
    check: str  # Check.name
    role: str  # the judge role that answers this check ("judge", "judge_claims", "judge_verify", ...)
    kind: str  # "categorical" | "numeric" | "claims"
    path: Path  # the .jsonl file inside the installed package
    labelled_by: str
    method: str
    timing: str  # labelled before or after the rules were written
    items_from: str
    paper_figure: PaperFigure | None


def labelled_sets(benchmark: str | None = None) -> list[LabelledSet]:
    """Every shipped set, or those of one benchmark (a benchmark or task name), ordered by benchmark and check."""
    if benchmark is None:
        return list(_all_sets())
    name = benchmark_for_task(benchmark).name
    return [s for s in _all_sets() if s.benchmark == name]


def labelled_set(benchmark: str, check: str) -> LabelledSet:
    """The set for ``check`` of ``benchmark`` (a benchmark or task name)."""
    sets = labelled_sets(benchmark)
    for found in sets:
        if found.check == check:
            return found
    known = ", ".join(s.check for s in sets) or "none"
    raise HallubenchError(f"no shipped labelled set for check {check!r} of {benchmark} (shipped: {known})")


def sets_for_role(benchmark: str, role: str) -> list[LabelledSet]:
    """The sets whose check the judge of ``role`` answers in ``benchmark`` (a benchmark or task name)."""
    sets = labelled_sets(benchmark)
    chosen = [s for s in sets if s.role == role]
    if not chosen:
        roles = ", ".join(sorted({s.role for s in sets})) or "none"
        raise HallubenchError(f"no shipped labelled set for role {role!r} of {benchmark} (roles with sets: {roles})")
    return chosen


def read_labelled(labelled: LabelledSet, split: str = "all") -> list[tuple[str, dict]]:
    """(FILE:LINE, record) of a set, all of it or one split ("tuning" / "holdout"); a record without ``label``,
    ``split`` or ``source``, with a label of the wrong kind, or lacking a field its check reads is an error naming
    its line."""
    if split not in (*SPLITS, "all"):
        raise HallubenchError(f"unknown split {split!r} (known: {', '.join(SPLITS)}, all)")
    check = _check(labelled.benchmark, labelled.check, str(labelled.path))
    chosen = []
    for where, record in iter_json_records(labelled.path):
        _validate(where, record, labelled.kind, check)
        if split in ("all", record["split"]):
            chosen.append((where, record))
    return chosen


def _validate(where: str, record: dict[str, Any], kind: str, check: Check) -> None:
    for field in ("label", "split", "source"):
        if field not in record:
            raise HallubenchError(f"{where}: the record has no {field!r}")
    if record["split"] not in SPLITS:
        raise HallubenchError(f"{where}: split {record['split']!r} is not one of {', '.join(SPLITS)}")
    label = record["label"]
    if kind == "claims":
        good = isinstance(label, list) and all(isinstance(c, str) and c.strip() for c in label)
    elif kind == "numeric":
        good = isinstance(label, (int, float)) and not isinstance(label, bool)
    else:
        good = isinstance(label, (str, bool))
    if not good:
        raise HallubenchError(f"{where}: label {label!r} is not a {kind} label")
    build = check.messages or check.pair or check.rule
    try:
        if build is not None:
            build(record)
    except KeyError as exc:
        raise HallubenchError(f"{where}: the record lacks the field {exc} that check {check.name} reads") from exc
    except (TypeError, AttributeError, IndexError) as exc:
        raise HallubenchError(f"{where}: a field check {check.name} reads has the wrong shape ({exc})") from exc


def _check(benchmark: str, name: str, where: str) -> Check:
    known = BENCHMARKS[benchmark].checks
    for check in known:
        if check.name == name:
            return check
    raise HallubenchError(f"{where}: {benchmark} has no check {name!r} (checks: {', '.join(c.name for c in known)})")


@functools.cache
def _all_sets() -> tuple[LabelledSet, ...]:
    root = files("hallu_metrics") / "benchmarks"
    found: list[LabelledSet] = []
    for package in sorted(root.iterdir(), key=lambda p: p.name):
        provenance = package / "labels" / "provenance.yaml"
        if provenance.is_file():
            found.extend(_package_sets(Path(str(provenance))))
    return tuple(sorted(found, key=lambda s: (s.benchmark, s.check)))


def _package_sets(provenance: Path) -> list[LabelledSet]:
    try:
        declared = yaml.safe_load(provenance.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise HallubenchError(f"{provenance}: unreadable ({exc})") from exc
    if not isinstance(declared, dict):
        raise HallubenchError(f"{provenance}: expected a mapping of check names")
    sets = []
    for check, entry in declared.items():
        where = f"{provenance} [{check}]"
        if not isinstance(entry, dict):
            raise HallubenchError(f"{where}: expected a mapping")
        missing = [k for k in ("benchmarks", "role", "kind", *_PROVENANCE_TEXT, "paper_figure") if k not in entry]
        if missing or any(not str(entry[k]).strip() for k in _PROVENANCE_TEXT):
            raise HallubenchError(f"{where}: missing or empty {', '.join(missing) or 'provenance text'}")
        if entry["kind"] not in KINDS:
            raise HallubenchError(f"{where}: kind {entry['kind']!r} is not one of {', '.join(KINDS)}")
        path = provenance.parent / f"{check}.jsonl"
        if not path.is_file():
            raise HallubenchError(f"{where}: {path.name} is missing")
        for benchmark in entry["benchmarks"]:
            if benchmark not in BENCHMARKS:
                raise HallubenchError(f"{where}: unknown benchmark {benchmark!r}")
            _check(benchmark, check, where)
            if entry["role"] not in BENCHMARKS[benchmark].judge_roles:
                raise HallubenchError(f"{where}: {benchmark} has no judge role {entry['role']!r}")
            sets.append(LabelledSet(
                benchmark=benchmark, check=check, role=entry["role"], kind=entry["kind"], path=path,
                labelled_by=entry["labelled_by"], method=entry["method"], timing=entry["timing"],
                items_from=entry["items_from"], paper_figure=_figure(entry["paper_figure"], where),
            ))
    return sets


def _figure(entry: Any, where: str) -> PaperFigure | None:
    if entry is None:
        return None
    if not isinstance(entry, dict) or set(entry) != {"value", "metric", "source"}:
        raise HallubenchError(f"{where}: paper_figure must be null or {{value, metric, source}}")
    return PaperFigure(value=float(entry["value"]), metric=str(entry["metric"]), source=str(entry["source"]))
