"""`hallubench agreement` (issue 25, first part): agreement figures against a textbook kappa example and a small table
worked by hand; the command on a labels file with the rule judge; one-line errors for a wrong check, a record without
its label or without a field the check reads; an --out file it did not write is not replaced."""

import json

import pytest

from hallubench.agreement import agreement_figures
from hallubench.cli import main


def test_cohens_kappa_matches_the_textbook_example():
    """Two raters on 50 items: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no; p_o = 0.7, p_e = 0.5, kappa = 0.4."""
    human = ["yes"] * 25 + ["no"] * 25
    judged = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    figures = agreement_figures(human, judged)
    assert figures["accuracy"] == pytest.approx(0.7) and figures["kappa"] == pytest.approx(0.4)
    assert figures["confusion"] == [[15, 10], [5, 20]]  # labels sorted: no, yes; rows human, columns judge
    low, high = figures["interval95"]["kappa"]
    assert low < 0.4 < high and figures["interval95"] == agreement_figures(human, judged)["interval95"]


def test_unreadable_verdicts_are_a_share_not_a_disagreement():
    """Worked by hand: 5 items, one unreadable; of the 4 readable, 3 agree. CORRECT: judged twice, right once
    (precision 1/2), human twice, found once (recall 1/2)."""
    human = ["CORRECT", "CORRECT", "INCORRECT", "INCORRECT", "CORRECT"]
    judged = ["CORRECT", "INCORRECT", "INCORRECT", "INCORRECT", None]
    figures = agreement_figures(human, judged)
    assert (figures["n"], figures["readable"], figures["unreadable_share"]) == (5, 4, 0.2)
    assert figures["accuracy"] == 0.75
    assert figures["per_label"]["CORRECT"] == {"precision": 1.0, "recall": 0.5, "support": 2}
    assert figures["per_label"]["INCORRECT"] == {"precision": pytest.approx(2 / 3), "recall": 1.0, "support": 2}
    assert agreement_figures(["a"], [None])["accuracy"] is None


LABELS = [  # the rule judge reads the first two as abstentions; the human disagrees on the third
    {"question": "Who wrote Ulysses?", "gold": "James Joyce", "response": "I'm sorry, I don't know.", "label": True},
    {"question": "Capital of Peru?", "gold": "Lima", "response": "I cannot find any information on that.",
     "label": True},
    {"question": "Capital of Chad?", "gold": "N'Djamena", "response": "I'm not sure, but I think it is Abuja.",
     "label": True},
    {"question": "Capital of France?", "gold": "Paris", "response": "Paris.", "label": False},
]


def write_labels(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_command_reports_the_rule_judges_agreement(tmp_path, capsys):
    labels = write_labels(tmp_path / "labels.jsonl", LABELS)
    out = tmp_path / "agreement.json"
    assert main(["agreement", "--task", "precisewikiqa", "--check", "abstention", "--judge", "rule",
                 "--labels", str(labels), "--out", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["written_by"] == "hallubench agreement" and figures["n"] == 4
    assert figures["accuracy"] == 0.75 and figures["confusion"] == [[1, 0], [1, 2]]  # labels: false, true
    report = capsys.readouterr().out
    assert "4 labelled items, 4 with a readable verdict" in report and "Agreement 75.0%" in report
    assert main(["agreement", "--task", "precisewikiqa", "--check", "abstention", "--judge", "rule",
                 "--labels", str(labels), "--out", str(out)]) == 0  # its own file is replaced


@pytest.mark.parametrize("argv, records, fragment", [
    (["--check", "grading"], LABELS, "precisewikiqa has no such check (its checks: abstention, correctness)"),
    ([], [{k: v for k, v in LABELS[0].items() if k != "label"}], "labels.jsonl:1: no 'label' field"),
    ([], [{"question": "Q?", "label": True}], "a record lacks the field 'response' that check abstention reads"),
    (["--labels", "labels.json", "--out", "labels.json"], LABELS, "is also an input of this run"),
])
def test_bad_input_is_one_line(tmp_path, monkeypatch, capsys, argv, records, fragment):
    monkeypatch.chdir(tmp_path)
    write_labels(tmp_path / "labels.jsonl", records)
    write_labels(tmp_path / "labels.json", records)
    base = {"--task": "precisewikiqa", "--check": "abstention", "--judge": "rule", "--labels": "labels.jsonl"}
    base.update(dict(zip(argv[::2], argv[1::2])))
    assert main(["agreement", *[x for pair in base.items() for x in pair]]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("hallubench: error: ") and fragment in err[-1]
