"""The shipped labelled sets (hallu_metrics/labelled_sets.py, issue 25): one per judge check of every benchmark, each
with provenance, a holdout part, the fields its check reads and labels in its check's terms."""

from __future__ import annotations

import json
import shutil
from importlib.resources import files
from pathlib import Path

import pytest

from hallu_metrics.benchmarks.wildhallucinations import QUESTION
from hallu_metrics.labelled_sets import LabelledSet, labelled_set, labelled_sets, read_labelled, sets_for_role
from hallu_metrics.registry import BENCHMARKS
from hallubench.core.errors import HallubenchError

MIN_ITEMS, MIN_HOLDOUT = 30, 10
MODEL_RULES = {"faithfulness"}  # its rule, the baseline composite, loads a BERTScore model (minutes on this CPU)


def _boolean(label: object) -> bool:
    return isinstance(label, bool)


def _one_of(*labels: str):
    return lambda label: label in labels


def _claims(label: object) -> bool:
    return isinstance(label, list) and all(isinstance(c, str) and c.strip() for c in label)


def _number_in(low: float, high: float):
    return lambda label: isinstance(label, (int, float)) and not isinstance(label, bool) and low <= label <= high


# The label domain of every check, read off each check's parse / rule (what a Verdict.label can be).
DOMAINS = {
    "abstention": _boolean,  # parse_json_bool(..., "is_abstaining")
    "correctness": _one_of("CORRECT", "INCORRECT", "UNVERIFIABLE"),
    "does_believe": _boolean,
    "short_answer_grade": _one_of("CORRECT", "INCORRECT", "NOT_ATTEMPTED"),
    "knowledgeable": _boolean,
    "claim_extraction": _claims,
    "atomic_facts": _claims,
    "verification": _boolean,
    "anah_facts": _boolean,  # readers.parse_facts
    "anah_reference": _claims,  # readers.parse_reference read as its passages (Check.listed)
    "anah_hallucination": _one_of("ok", "contradictory", "unverifiable"),  # readers.parse_hallucination
    "faithfulness": _number_in(1, 5),  # the 1-5 rubric (an HHEM scorer answers the same check with a probability)
    "summary_consistency": _number_in(0, 1),  # P(consistent)
}

PAIRS = sorted({(b.name, c.name) for b in BENCHMARKS.values() for c in b.checks})


@pytest.mark.parametrize(("benchmark", "check"), PAIRS)
def test_every_check_has_a_labelled_set(benchmark: str, check: str) -> None:
    found = labelled_set(benchmark, check)
    assert (found.benchmark, found.check) == (benchmark, check)
    assert found.role in BENCHMARKS[benchmark].judge_roles
    assert found.path.is_file() and found.path.suffix == ".jsonl"
    for text in (found.labelled_by, found.method, found.timing, found.items_from):
        assert text.strip()


@pytest.mark.parametrize(("benchmark", "check"), PAIRS)
def test_sets_are_big_enough_and_labels_are_in_the_checks_terms(benchmark: str, check: str) -> None:
    found = labelled_set(benchmark, check)
    records = read_labelled(found)
    holdout = read_labelled(found, "holdout")
    assert len(records) >= MIN_ITEMS and len(holdout) >= MIN_HOLDOUT
    checker = next(c for c in BENCHMARKS[benchmark].checks if c.name == check)
    for where, record in records:
        assert DOMAINS[check](record["label"]), f"{where}: {record['label']!r}"
        assert record["source"].strip(), where
        if checker.messages is not None:
            assert checker.messages(record), where
        if checker.pair is not None:
            premise, hypothesis = checker.pair(record)
            assert premise.strip() and hypothesis.strip(), where


def test_every_rule_runs_on_its_set() -> None:
    """The rule stand-ins read every field they need (a set a rule cannot run on would break `agreement`)."""
    for found in labelled_sets():
        checker = next(c for c in BENCHMARKS[found.benchmark].checks if c.name == found.check)
        if found.check in MODEL_RULES or checker.rule is None or checker.pair is not None:
            continue
        for _, record in read_labelled(found):
            checker.rule(record)


def test_known_sets_and_figures() -> None:
    # HalluLens sections 3.1.2 / 9.1 / 3.3.2 / 9.2: 96.67%, 95.56%, 94.77% and 76.8%.
    assert labelled_set("precisewikiqa", "abstention").paper_figure.value == pytest.approx(0.9667)
    assert labelled_set("precisewikiqa", "correctness").paper_figure.value == pytest.approx(0.9556)
    assert labelled_set("mixedentities", "does_believe").paper_figure.value == pytest.approx(0.9477)
    lw = labelled_set("longwiki", "verification")
    assert (lw.paper_figure.value, lw.paper_figure.metric) == (pytest.approx(0.768), "pipeline_agreement")
    assert labelled_set("simpleqa_hallu", "short_answer_grade").paper_figure is None
    # WildHallucinations' refusal items ask the paper's question (section 3), as the chain does.
    for _, record in read_labelled(labelled_set("wildhallucinations", "knowledgeable")):
        assert record["question"] == QUESTION.format(entity=record["entity"])
    # NonExistentRefusal's two tasks share one file; SimpleQA and PopQA each have their own.
    assert labelled_set("mixedentities", "does_believe").path == labelled_set("generatedentities", "does_believe").path
    assert labelled_set("simpleqa_hallu", "short_answer_grade").path != labelled_set("popqa_hallu",
                                                                                     "short_answer_grade").path


def test_task_names_and_roles() -> None:
    assert [s.check for s in labelled_sets("longwiki")] == ["claim_extraction", "knowledgeable", "verification"]
    assert [s.check for s in sets_for_role("wildhallucinations", "judge_facts")] == ["atomic_facts"]
    assert [s.check for s in sets_for_role("longwiki", "judge_claims")] == ["claim_extraction"]
    assert {s.benchmark for s in labelled_sets()} >= {"precisewikiqa", "longwiki", "wildhallucinations",
                                                      "mixedentities", "generatedentities", "simpleqa_hallu",
                                                      "popqa_hallu"}
    with pytest.raises(HallubenchError, match=r"role 'judge_claims' of precisewikiqa \(roles with sets: judge\)"):
        sets_for_role("precisewikiqa", "judge_claims")
    with pytest.raises(HallubenchError, match=r"check 'nope' of precisewikiqa \(shipped: abstention, correctness\)"):
        labelled_set("precisewikiqa", "nope")
    with pytest.raises(HallubenchError, match="unknown task"):
        labelled_sets("no_such_task")


def test_splits_partition_the_set() -> None:
    found = labelled_set("precisewikiqa", "abstention")
    tuning, holdout, every = (read_labelled(found, s) for s in ("tuning", "holdout", "all"))
    assert {r["split"] for _, r in tuning} == {"tuning"} and {r["split"] for _, r in holdout} == {"holdout"}
    assert sorted(w for w, _ in tuning + holdout) == sorted(w for w, _ in every)
    # the 21 round-2 holdout items of the original judge_agreement_holdout.jsonl
    assert len(holdout) == 21 and all(r["round"] == "holdout-r2" for _, r in holdout)
    first_where, _ = every[0]
    assert first_where == f"{found.path}:1"
    with pytest.raises(HallubenchError, match="unknown split 'test'"):
        read_labelled(found, "test")


def _copy(found: LabelledSet, tmp_path: Path, edit) -> LabelledSet:
    lines = found.path.read_text(encoding="utf-8").splitlines()
    lines[2] = edit(lines[2])
    path = tmp_path / found.path.name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return LabelledSet(**{**found.__dict__, "path": path})


@pytest.mark.parametrize(("edit", "message"), [
    (lambda line: line[:-5], r"abstention.jsonl:3: not a JSON object"),
    (lambda line: json.dumps({k: v for k, v in json.loads(line).items() if k != "label"}),
     r"abstention.jsonl:3: the record has no 'label'"),
    (lambda line: json.dumps({**json.loads(line), "split": "holdout-r2"}),
     r"abstention.jsonl:3: split 'holdout-r2' is not one of tuning, holdout"),
    (lambda line: json.dumps({k: v for k, v in json.loads(line).items() if k != "response"}),
     r"abstention.jsonl:3: the record lacks the field 'response' that check abstention reads"),
    (lambda line: json.dumps({**json.loads(line), "label": ["a"]}),
     r"abstention.jsonl:3: label \['a'\] is not a categorical label"),
])
def test_a_broken_file_is_named_by_its_line(tmp_path: Path, edit, message: str) -> None:
    broken = _copy(labelled_set("precisewikiqa", "abstention"), tmp_path, edit)
    with pytest.raises(HallubenchError, match=message):
        read_labelled(broken)


def test_a_claims_label_must_be_a_list_of_text(tmp_path: Path) -> None:
    found = labelled_set("wildhallucinations", "atomic_facts")
    broken = _copy(found, tmp_path, lambda line: json.dumps({**json.loads(line), "label": "Paris is in France."}))
    with pytest.raises(HallubenchError, match=r"atomic_facts.jsonl:3: label 'Paris is in France.' is not a claims"):
        read_labelled(broken)


def test_the_files_are_package_data(tmp_path: Path) -> None:
    """Every set and provenance file sits where the pyproject package-data globs ``benchmarks/*/labels/*.jsonl`` and
    ``benchmarks/*/labels/*.yaml`` of ``hallu_metrics`` reach (in its benchmark's package), so a wheel carries them."""
    root = files("hallu_metrics")
    shipped = {p.relative_to(Path(str(root))).as_posix() for p in Path(str(root)).glob("benchmarks/*/labels/*")
               if p.is_file()}
    assert shipped and all(name.endswith((".jsonl", ".yaml")) for name in shipped)
    for found in labelled_sets():
        assert found.path.relative_to(Path(str(root))).as_posix() in shipped
    # A copy of one package's labels folder outside the repository reads the same (no path into the checkout).
    found = labelled_set("simpleqa_hallu", "short_answer_grade")
    copy = tmp_path / "labels"
    shutil.copytree(found.path.parent, copy)
    moved = LabelledSet(**{**found.__dict__, "path": copy / found.path.name})
    assert [r for _, r in read_labelled(moved)] == [r for _, r in read_labelled(found)]
