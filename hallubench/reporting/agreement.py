"""``hallubench agreement``: how far a judge agrees with labels, the calibration the papers report for their own
judges (HalluLens section 4: 96.67% abstention / 95.56% correctness agreement, 94.77% does_believe, 76.8% for the
LongWiki pipeline; FActScore section 3.3; SAFE section 4). Three forms (issue 25):

- shipped labels: ``--task T [--role R] [--check C] --judge SPEC [--split S]`` calibrates the judge on the labelled
  sets shipped with the package (``hallu_metrics.labelled_sets``), every check the role answers (or one); only the
  items of ``--split`` are judged, the holdout-only figures are printed too (from the same verdicts) and the paper's
  own figure is set beside the user's holdout figure. The shipped labels are the maintainers' (written and labelled
  with an AI coding assistant), so they show whether a judge follows the documented labelling rule, not how it
  agrees with people (``SHIPPED_LABELS_NOTE``);
- the user's labels: ``--check C --judge SPEC --labels FILE [--kind K]``;
- judge against judge: ``--judge A --vs B --samples LOG [--role R] [--check C]``
  (``hallubench.reporting.judge_comparison``).

Figures by the verdict's kind (categorical, numeric, claims) are in ``hallubench.reporting.agreement_figures``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallubench.core.errors import HallubenchError
from hallubench.reporting.agreement_figures import (
    degenerate_line,
    figures_for,
    headline,
    kind_tables,
    valid_label,
)

if TYPE_CHECKING:
    from hallu_metrics.judges.base import Check

SPLITS = ("tuning", "holdout", "all")
_NUMBER_FIGURES = ("kappa", "pearson", "spearman", "mae")
SHIPPED_LABELS_NOTE = (
    "Who labelled these items: the shipped sets were written and labelled by the hallubench maintainers with an AI "
    "coding assistant (Claude), not by independent human annotators. Their figures show whether the judge follows "
    "the documented labelling rule on these items; they are not a human-agreement figure comparable to the papers'. "
    "For one, label items yourself and pass --labels (docs/agreement.md, 'Your own human labels').")


def _shipped_kind(task: str, check: str) -> tuple[str | None, Any]:
    """(kind, labelled set) of the shipped set of ``check``, (None, None) when none is shipped."""
    from hallu_metrics.labelled_sets import labelled_sets

    found = next((s for s in labelled_sets(task) if s.check == check), None)
    return (found.kind, found) if found else (None, None)


class _Probed(Exception):
    """Raised by ``_Unread`` when a rule reads its item."""


class _Unread(dict):
    """An item any read of which raises ``_Probed``: a rule asked about it shows whether it refuses every item
    before reading one (as summary_consistency's rule does) without doing any work."""

    def __getitem__(self, key: Any) -> Any:
        raise _Probed

    def get(self, key: Any, default: Any = None) -> Any:
        raise _Probed

    def __contains__(self, key: object) -> bool:
        raise _Probed


def _refusal(kind: str, check: Check) -> str | None:
    """Why a judge of ``kind`` cannot answer ``check`` (None when it can), found without judging anything."""
    from hallu_metrics.judges.kinds import SCORER_KINDS

    if kind == "rule":
        if check.rule is None:
            return "it has no rule"
        try:
            check.rule(_Unread())
        except HallubenchError as exc:
            return str(exc)
        except Exception:  # the rule read the item (or failed on this empty one): it answers items
            pass
        return None
    if kind in SCORER_KINDS:
        return None if check.pair is not None else "a classifier scorer reads no (premise, hypothesis) pair of it"
    return None if check.messages is not None and check.parse is not None else "it has no LLM prompt"


def _check_answerable(task: str, spec: str, checks: Sequence[Check]) -> None:
    """One line naming every check the judge of ``spec`` cannot answer, before anything is judged."""
    from hallu_metrics.judges.kinds import judge_kind

    kind = judge_kind(spec)
    refused = [(check.name, why) for check in checks if (why := _refusal(kind, check)) is not None]
    if refused:
        named = "; ".join(f"{name} ({why})" for name, why in refused)
        raise HallubenchError(f"--judge {kind} cannot answer {len(refused)} check(s) of {task}: {named}; nothing was "
                              "judged: choose the checks it answers with --check / --role, or another judge")


def _ask(spec: str, questions: Sequence[tuple[Any, dict]]) -> list:
    """The judge's verdicts on (check, record) questions, all at once through its backend and the call cache."""
    from hallu_metrics.judges import JudgeSet
    from hallubench.core.backends.aio import run_sync

    judges = JudgeSet({"judge": spec})
    try:
        judge = judges.get("judge")

        async def ask_all() -> list:
            return list(await asyncio.gather(*(judge.ask(check, record) for check, record in questions)))

        return run_sync(ask_all())
    finally:
        judges.close()


def _checks_by_name(task: str) -> dict[str, Any]:
    """The task's checks by name; the first of a name (ANAH declares a second, verbatim reading of each turn), as
    the shipped sets are checked."""
    from hallu_metrics.registry import benchmark_for_task

    checks: dict[str, Any] = {}
    for check in benchmark_for_task(task).checks:
        checks.setdefault(check.name, check)
    return checks


def _judged_labels(kind: str, check: Any, verdicts: Sequence[Any]) -> list[Any]:
    """The verdicts' labels (None for unreadable or failed ones), as a list where the check reads one text as a list
    (``Check.listed``) and the kind is claims; a readable label of another kind is an error."""
    labels = [v.label if v.ok else None for v in verdicts]
    if kind == "claims" and check.listed is not None:
        labels = [None if label is None else check.listed(label) for label in labels]
    wrong = next((label for label in labels if label is not None and not valid_label(kind, label)), None)
    if wrong is not None:
        raise HallubenchError(f"check {check.name}: the judge answered {wrong!r}, not a {kind} label")
    return labels


def _human_labels(kind: str, records: Sequence[tuple[str, dict]]) -> list[Any]:
    for where, record in records:
        if "label" not in record:
            raise HallubenchError(f"{where}: no 'label' field (the human verdict)")
        if not valid_label(kind, record["label"]):
            raise HallubenchError(f"{where}: label {record['label']!r} is not a {kind} label")
    return [record["label"] for _, record in records]


def _paper(labelled: Any) -> dict[str, Any] | None:
    figure = labelled and labelled.paper_figure
    return figure and {"value": figure.value, "metric": figure.metric, "source": figure.source}


def _comparable(metric: str, kind: str, figures: dict[str, Any]) -> float | None:
    """The user's figure in the paper figure's terms, where one matches (None for a whole-pipeline figure or a
    figure computed against something other than labels)."""
    base = figures["presence"] if kind == "claims" else figures
    accuracy = base.get("accuracy")
    if metric in ("agreement", "accuracy"):
        return accuracy
    if metric == "error_rate":
        return None if accuracy is None else 1 - accuracy
    if metric == "precision_of_unsupported":  # of the judge's "not supported" verdicts, the share the labels share
        return base.get("per_label", {}).get("false", {}).get("precision")
    value = base.get(metric)
    return value if isinstance(value, float) else None


def _show(metric: str, value: float | None) -> str:
    """A share in percent, a correlation, kappa or error on a scale as a number."""
    if value is None:
        return "n/a"
    on_a_scale = metric in _NUMBER_FIGURES or "residual" in metric or "absolute" in metric
    return f"{value:.3f}" if on_a_scale or not 0 <= value <= 1 else f"{100 * value:.2f}%"


def paper_line(paper: dict[str, Any], kind: str, figures: dict[str, Any] | None, on: str, shipped: bool) -> str:
    """The paper's figure beside the user's figure ``on`` some items (the holdout items of a shipped set, or the
    user's labels; ``figures`` None: none judged), marked as what it is: other items, other labellers, other judge."""
    metric = paper["metric"]
    name = metric.replace("_", " ")
    if figures is None:
        beside = f"; yours: not compared ({on})"
    else:
        yours = _comparable(metric, kind, figures)
        beside = f"; yours: {_show(metric, yours)} {name} on {on}" if yours is not None else ""
    labellers = ("human annotators; these labels are the maintainers' (written with an AI coding assistant), so "
                 "they do not measure agreement with people" if shipped else "other labellers")
    return (f"Paper: {_show(metric, paper['value'])} {name} ({paper['source']}){beside}. Not a like-for-like "
            f"comparison: the paper's judge was scored on other items by {labellers}.")


def _section(kind: str, check: str, human: Sequence[Any], judged: Sequence[Any], seed: int, **about: Any
             ) -> dict[str, Any]:
    return {"check": check, "kind": kind, **about, "figures": figures_for(kind, human, judged, seed)}


@dataclass(frozen=True)
class AgreementRun:
    """What `hallubench agreement` was asked (its flags; docs/agreement.md)."""

    task: str
    judge: str
    role: str | None = None
    check: str | None = None
    split: str = "all"
    labels: Path | None = None
    kind: str | None = None
    vs: str | None = None
    samples: Path | None = None
    knowledge: Path | None = None
    seed: int = 0


def user_label_sections(args: AgreementRun) -> list[dict[str, Any]]:
    """The user's labels file, judged on ``--check``."""
    from hallubench.core.official_files.tables import iter_json_records

    check = _checks_by_name(args.task)[args.check]
    _check_answerable(args.task, args.judge, [check])
    shipped_kind, labelled = _shipped_kind(args.task, args.check)
    kind = args.kind or shipped_kind or "categorical"
    records = list(iter_json_records(args.labels))
    human = _human_labels(kind, records)
    try:
        verdicts = _ask(args.judge, [(check, record) for _, record in records])
    except KeyError as exc:
        where = next((where for where, record in records if exc.args[0] not in record), str(args.labels))
        raise HallubenchError(f"{where}: the record lacks the field {exc} that check {args.check} reads") from exc
    return [_section(kind, args.check, human, _judged_labels(kind, check, verdicts), args.seed,
                     labels=str(args.labels), paper_figure=_paper(labelled))]


def shipped_sections(args: AgreementRun) -> list[dict[str, Any]]:
    """The shipped sets of the task (those of ``--role`` / ``--check`` when given), only their ``--split`` items
    judged, once; figures on them and on their holdout part (the same verdicts; None when ``--split tuning``)."""
    from hallu_metrics.labelled_sets import labelled_sets, read_labelled, sets_for_role

    chosen = sets_for_role(args.task, args.role) if args.role else labelled_sets(args.task)
    if args.check is not None:
        chosen = [s for s in chosen if s.check == args.check]
    if not chosen:
        where = f" for role {args.role}" if args.role else ""
        raise HallubenchError(f"--check {args.check}: no shipped labelled set of {args.task}{where} for this check "
                              "(bring your own with --labels)" if args.check else f"{args.task} has no shipped "
                              "labelled sets (bring your own with --labels)")
    checks = _checks_by_name(args.task)
    _check_answerable(args.task, args.judge, [checks[s.check] for s in chosen])
    every = {s.check: read_labelled(s, "all") for s in chosen}
    records = {check: [(where, r) for where, r in rows if args.split in ("all", r["split"])]
               for check, rows in every.items()}
    empty = next((s.check for s in chosen if not records[s.check]), None)
    if empty is not None:
        raise HallubenchError(f"--split {args.split}: the shipped set of {empty} has no such items")
    questions = [(checks[s.check], record) for s in chosen for _, record in records[s.check]]
    verdicts = iter(_ask(args.judge, questions))
    sections = []
    for labelled in chosen:
        rows = records[labelled.check]
        human = _human_labels(labelled.kind, rows)
        judged = _judged_labels(labelled.kind, checks[labelled.check], [next(verdicts) for _ in rows])
        counts = {s: sum(r["split"] == s for _, r in every[labelled.check]) for s in ("tuning", "holdout")}
        about = {"role": labelled.role, "labels": f"shipped set {labelled.path.name}", "split": args.split,
                 "split_counts": counts, "judged_items": len(rows), "labels_note": SHIPPED_LABELS_NOTE,
                 "provenance": {"labelled_by": labelled.labelled_by, "method": labelled.method,
                                "timing": labelled.timing, "items_from": labelled.items_from},
                 "paper_figure": _paper(labelled)}
        section = _section(labelled.kind, labelled.check, human, judged, args.seed, **about)
        holdout = [i for i, (_, record) in enumerate(rows) if record["split"] == "holdout"]
        if args.split == "holdout":
            section["holdout"] = section["figures"]
        elif holdout:
            section["holdout"] = figures_for(labelled.kind, [human[i] for i in holdout], [judged[i] for i in holdout],
                                             args.seed)
        else:
            section["holdout"] = None
        sections.append(section)
    return sections


def versus_sections(args: AgreementRun) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Judge A against judge B on the samples log: per check, B's verdicts as the labels; the headline moves."""
    from hallubench.core.specs import redact_known
    from hallubench.reporting.judge_comparison import compare_judges
    from hallubench.reporting.scoring import find_samples

    samples = find_samples([args.samples], args.task)  # a file, or a folder holding one run's samples_<task>_*.jsonl
    settings = {"knowledge": str(args.knowledge)} if args.knowledge else {}
    run_a, run_b, steps, moves = compare_judges(args.task, samples, (args.judge, args.vs), args.role, args.check,
                                                args.seed, settings)
    checks = _checks_by_name(args.task)
    sections = []
    for check, pairs in steps.items():
        answered_b = [(a, b) for a, b in pairs if b.ok]
        shipped_kind, _ = _shipped_kind(args.task, check)
        kind = shipped_kind or _kind_of([b.label for _, b in answered_b])
        if not answered_b:
            sections.append({"check": check, "kind": kind, "asked_both": len(pairs), "b_unreadable": len(pairs),
                             "figures": None})
            continue
        human = _judged_labels(kind, checks[check], [b for _, b in answered_b])
        judged = _judged_labels(kind, checks[check], [a for a, _ in answered_b])
        sections.append(_section(kind, check, human, judged, args.seed, asked_both=len(pairs),
                                 b_unreadable=len(pairs) - len(answered_b)))
    extra = {"vs": redact_known(args.vs), "samples": str(samples), "role": args.role,
             "judges": {"a": run_a.judges, "b": run_b.judges}, "headline": moves}
    return sections, extra


def _kind_of(labels: Sequence[Any]) -> str:
    """The kind of verdict labels no shipped set describes: lists are claims, numbers (not booleans) numeric."""
    if labels and all(isinstance(label, list) for label in labels):
        return "claims"
    if labels and all(valid_label("numeric", label) for label in labels):
        return "numeric"
    return "categorical"


def markdown(task: str, judge: str, sections: Sequence[dict[str, Any]], extra: dict[str, Any] | None) -> str:
    """The report: one section per check, then (for --vs) the headline moves."""
    lines: list[str] = []
    versus = extra is not None
    if any(section.get("labels_note") for section in sections):
        lines += [SHIPPED_LABELS_NOTE, ""]
    for section in sections:
        against = f"{extra['vs']} as the labels" if versus else section["labels"]
        role = f", role {section['role']}" if section.get("role") else ""
        lines += [f"## {task} / {section['check']} ({section['kind']}{role}): {judge} vs {against}", ""]
        if versus:
            lines += [f"{section['asked_both']} questions both judges were asked (same item at the same step); "
                      f"{section['b_unreadable']} left out where {extra['vs']} gave no readable verdict.", ""]
        if section.get("provenance"):
            p, counts = section["provenance"], section["split_counts"]
            lines += [f"Labels: {p['labelled_by']}; {p['method']}; {p['timing']}; items from {p['items_from']}. "
                      f"Split {section['split']} ({counts['tuning']} tuning + {counts['holdout']} holdout items; "
                      f"{section['judged_items']} judged).", ""]
        if section["figures"] is None:
            lines += ["No figures: no readable verdict to compare with.", ""]
            continue
        lines += _figure_lines(section["kind"], section["figures"])
        if "holdout" in section:
            lines += _figure_lines(section["kind"], section["holdout"], "Holdout only (items not seen while the rules "
                                   "and prompts were written; the tuning items may have been used to tune them, so "
                                   "their figures can flatter the rule judge): ", _no_holdout(section["split"]) + ".")
        if section.get("paper_figure"):
            lines += [_paper_beside(section), ""]
        tables = kind_tables(section["kind"], section["figures"])
        lines += [*tables, ""] if tables else []
    if versus and not sections:
        lines += ["The two judges were asked no question in common (e.g. a classifier and an LLM judge answer "
                  "different checks), so only the headlines are compared.", ""]
    if versus:
        lines += [f"## {task} headline: {judge} (A) vs {extra['vs']} (B)", "",
                  "How much each headline moves if B replaces A, with a paired bootstrap 95% interval over items.", "",
                  "| metric | A | B | B - A | 95% interval |", "|---|---:|---:|---:|---:|"]
        for name, move in extra["headline"].items():
            show = _rate if move["kind"] == "rate" else _plain
            ci = move["interval95"]
            lines.append(f"| {name} | {show(move['a'])} | {show(move['b'])} | {show(move['difference'])} | "
                         + (f"[{show(ci[0])}, {show(ci[1])}]" if ci else "n/a") + " |")
        lines.append("")
    return "\n".join(lines)


def _figure_lines(kind: str, figures: dict[str, Any] | None, lead: str = "", missing: str = "") -> list[str]:
    """The headline of a figure set after ``lead`` (``missing`` when there is none), and its degenerate-judge line."""
    if figures is None:
        return [lead + missing, ""]
    degenerate = degenerate_line(kind, figures)
    return [lead + headline(kind, figures), "", *([degenerate, ""] if degenerate else [])]


def _paper_beside(section: dict[str, Any]) -> str:
    """The paper line of a section: beside the holdout figures of a shipped set, beside all of the user's labels."""
    paper, kind = section["paper_figure"], section["kind"]
    if "holdout" not in section:
        return paper_line(paper, kind, section["figures"], "your labels", shipped=False)
    holdout = section["holdout"]
    missing = f"the paper's figure is set beside holdout figures only, and {_no_holdout(section['split'])}"
    return paper_line(paper, kind, holdout, f"the {holdout['n']} holdout items" if holdout else missing, shipped=True)


def _no_holdout(split: str) -> str:
    """Why a shipped section has no holdout figures."""
    return "--split tuning judges no holdout item" if split == "tuning" else "the set has no holdout item"


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _plain(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
