"""`hallubench agreement` (issue 25): categorical figures against a textbook kappa example and a small table worked by
hand; numeric and claims figures on tables worked by hand; the command on a labels file with the rule judge; the
paper's figure beside the user's; one-line errors for flags that do not go together and for bad labels; an --out file
it did not write is not replaced. Shipped sets: tests/test_agreement_shipped.py; judge vs judge:
tests/test_agreement_versus.py."""

import json
import math

import pytest
from support import write_jsonl

from hallubench.cli import main
from hallubench.reporting.agreement import paper_line
from hallubench.reporting.agreement_figures import agreement_figures, claims_figures, numeric_figures


def test_cohens_kappa_matches_the_textbook_example():
    """Two raters on 50 items: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no; p_o = 0.7, p_e = 0.5, kappa = 0.4."""
    human = ["yes"] * 25 + ["no"] * 25
    judged = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    figures = agreement_figures(human, judged)
    assert figures["accuracy"] == pytest.approx(0.7) and figures["kappa"] == pytest.approx(0.4)
    assert figures["confusion"] == [[15, 10], [5, 20]]  # labels sorted: no, yes; rows human, columns judge
    low, high = figures["interval95"]["kappa"]
    assert low < 0.4 < high and figures["interval95"] == agreement_figures(human, judged)["interval95"]
    assert figures["interval95"] != agreement_figures(human, judged, seed=1)["interval95"]


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


def test_resampled_figures_equal_the_libraries_on_each_resample():
    """The bootstrap computes kappa, Pearson and Spearman for all resamples at once; on each resample they equal
    scikit-learn's and scipy's (ties and one-label resamples included)."""
    import numpy as np
    from scipy.stats import pearsonr, rankdata, spearmanr
    from sklearn.metrics import cohen_kappa_score

    from hallubench.reporting.agreement_figures import _kappas, _pearsons, bootstrap_draws

    truth, verdicts = np.array([0, 0, 1, 2, 1, 0, 2, 2]), np.array([0, 1, 1, 2, 0, 0, 2, 1])
    draws = bootstrap_draws(len(truth), 0, "test")[:200]
    kappas = _kappas(truth, verdicts, 3, draws)
    for draw, kappa in zip(draws, kappas):
        a, b = truth[draw], verdicts[draw]
        if len(set(a) | set(b)) < 2:
            assert np.isnan(kappa)
        else:
            assert kappa == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2]))
    x, y = np.array([1.0, 2, 2, 3, 5, 4, 1, 3]), np.array([0.1, 0.4, 0.3, 0.3, 0.9, 0.8, 0.2, 0.5])
    pearsons = _pearsons(x[draws], y[draws])
    spearmans = _pearsons(rankdata(x[draws], axis=1), rankdata(y[draws], axis=1))
    for draw, r, rho in zip(draws, pearsons, spearmans):
        if len(set(x[draw])) > 1 and len(set(y[draw])) > 1:
            assert r == pytest.approx(pearsonr(x[draw], y[draw])[0])
            assert rho == pytest.approx(spearmanr(x[draw], y[draw])[0])


def test_numeric_figures_on_a_table_worked_by_hand():
    """Labels 1..5, judge 2, 1, 4, 3, 10 (and a sixth item unreadable). Deviations from the means (3 and 4):
    x = -2 -1 0 1 2, y = -2 -3 0 -1 6; sum xy = 18, sum x^2 = 10, sum y^2 = 50: Pearson r = 18 / sqrt(500).
    Judge ranks 2 1 4 3 5: sum d^2 = 4, Spearman rho = 1 - 6 * 4 / (5 * 24) = 0.8. MAE = (1+1+1+1+5) / 5 = 1.8."""
    figures = numeric_figures([1, 2, 3, 4, 5, 3], [2, 1, 4, 3, 10, None])
    assert (figures["n"], figures["readable"]) == (6, 5) and figures["unreadable_share"] == pytest.approx(1 / 6)
    assert figures["pearson"] == pytest.approx(18 / math.sqrt(500))
    assert figures["spearman"] == pytest.approx(0.8)
    assert figures["mae"] == pytest.approx(1.8)
    assert (figures["human_mean"], figures["judge_mean"]) == (3.0, 4.0)
    for name in ("pearson", "spearman", "mae"):
        low, high = figures["interval95"][name]
        assert low <= figures[name] <= high
    constant = numeric_figures([1.0, 1.0, 1.0], [0.2, 0.9, 0.4])
    assert constant["pearson"] is None and constant["mae"] == pytest.approx((0.8 + 0.1 + 0.6) / 3)


def test_claims_figures_on_a_table_worked_by_hand():
    """Counts: labels 2 0 1 1, judge 1 0 2 0 (a fifth item unreadable). MAE = (1+0+1+1) / 4 = 0.75; deviations from
    the means (1, 0.75): x = 1 -1 0 0, y = 0.25 -0.75 1.25 -0.75; sum xy = 1, sum x^2 = 2, sum y^2 = 2.75: r =
    1 / sqrt(5.5). None vs some: labels some none some some, judge some none some none: agreement 3/4; p_e =
    3/4 * 2/4 + 1/4 * 2/4 = 1/2, kappa = (3/4 - 1/2) / (1/2) = 1/2. The third item agrees on "some" although its
    claims differ: the wording is not compared."""
    human = [["Ada was born in 1815.", "Ada was a mathematician."], [], ["Ada wrote notes."], ["Ada died in 1852."],
             ["x"]]
    judged = [["Ada Lovelace was born in 1815."], [], ["Ada wrote notes.", "The notes were on an engine."], [], None]
    figures = claims_figures(human, judged)
    assert (figures["n"], figures["readable"], figures["unreadable_share"]) == (5, 4, 0.2)
    counts, presence = figures["counts"], figures["presence"]
    assert counts["mae"] == pytest.approx(0.75) and counts["pearson"] == pytest.approx(1 / math.sqrt(5.5))
    assert (counts["human_mean"], counts["judge_mean"]) == (1.0, 0.75)
    assert presence["accuracy"] == 0.75 and presence["kappa"] == pytest.approx(0.5)
    assert presence["confusion"] == [[1, 0], [1, 2]]  # labels none, some; rows labels, columns judge


def test_the_papers_figure_is_printed_beside_the_users_and_marked():
    paper = {"value": 0.9556, "metric": "agreement", "source": "HalluLens section 4"}
    line = paper_line(paper, "categorical", {"accuracy": 0.75}, "your labels", shipped=False)
    assert line.startswith("Paper: 95.56% agreement (HalluLens section 4); yours: 75.00% agreement on your labels.")
    assert "other items by other labellers" in line
    shipped = paper_line(paper, "categorical", {"accuracy": 0.75}, "the 4 holdout items", shipped=True)
    assert "yours: 75.00% agreement on the 4 holdout items." in shipped and "the maintainers'" in shipped
    error = paper_line({"value": 0.02, "metric": "error_rate", "source": "FActScore section 3.3"}, "categorical",
                       {"accuracy": 0.9}, "your labels", shipped=False)
    assert "Paper: 2.00% error rate (FActScore section 3.3); yours: 10.00% error rate on your labels." in error
    pipeline = paper_line({"value": 0.768, "metric": "pipeline_agreement", "source": "HalluLens section 4"},
                          "categorical", {"accuracy": 0.9}, "your labels", shipped=False)
    assert "yours" not in pipeline  # a whole-pipeline figure has no counterpart in one check's figures
    pearson = paper_line({"value": 0.5, "metric": "pearson", "source": "s"}, "numeric", {"pearson": 0.25},
                         "your labels", shipped=False)
    assert "Paper: 0.500 pearson (s); yours: 0.250 pearson on your labels." in pearson


LABELS = [  # the rule judge reads the first two as abstentions; the human disagrees on the third
    {"question": "Who wrote Ulysses?", "gold": "James Joyce", "response": "I'm sorry, I don't know.", "label": True},
    {"question": "Capital of Peru?", "gold": "Lima", "response": "I cannot find any information on that.",
     "label": True},
    {"question": "Capital of Chad?", "gold": "N'Djamena", "response": "I'm not sure, but I think it is Abuja.",
     "label": True},
    {"question": "Capital of France?", "gold": "Paris", "response": "Paris.", "label": False},
]


def test_command_reports_the_rule_judges_agreement(tmp_path, capsys):
    labels = write_jsonl(tmp_path / "labels.jsonl", LABELS)
    out = tmp_path / "agreement.json"
    assert main(["agreement", "--task", "precisewikiqa", "--check", "abstention", "--judge", "rule",
                 "--labels", str(labels), "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    [section] = written["checks"]
    figures = section["figures"]
    assert written["written_by"] == "hallubench agreement" and section["kind"] == "categorical"
    assert figures["n"] == 4 and figures["accuracy"] == 0.75
    assert figures["confusion"] == [[1, 0], [1, 2]]  # labels: false, true
    report = capsys.readouterr().out
    assert "4 items, 4 with a readable verdict" in report and "Agreement 75.0%" in report
    assert main(["agreement", "--task", "precisewikiqa", "--check", "abstention", "--judge", "rule",
                 "--labels", str(labels), "--out", str(out)]) == 0  # its own file is replaced


def test_user_labels_of_another_kind(tmp_path, capsys):
    """--kind numeric on labels the rule judge answers with booleans: named as the wrong kind, one line."""
    labels = write_jsonl(tmp_path / "labels.jsonl", [{**LABELS[0], "label": 1.0}])
    assert main(["agreement", "--task", "precisewikiqa", "--check", "abstention", "--judge", "rule",
                 "--labels", str(labels), "--kind", "numeric"]) == 2
    assert "check abstention: the judge answered True, not a numeric label" in capsys.readouterr().err


@pytest.mark.parametrize("argv, records, fragment", [
    (["--check", "grading"], LABELS, "precisewikiqa has no such check (its checks: abstention, correctness)"),
    ([], [{k: v for k, v in LABELS[0].items() if k != "label"}], "labels.jsonl:1: no 'label' field"),
    ([], [{**LABELS[0], "label": ["a list"]}], "labels.jsonl:1: label ['a list'] is not a categorical label"),
    ([], [{"question": "Q?", "label": True}],
     "labels.jsonl:1: the record lacks the field 'response' that check abstention reads"),
    (["--labels", "labels.json", "--out", "labels.json"], LABELS, "is also an input of this run"),
    (["--role", "judge_claims"], LABELS, "--role judge_claims: precisewikiqa has no such judge role (its roles: "
     "judge)"),
    (["--vs", "rule"], LABELS, "--vs needs --samples"),
    (["--samples", "labels.json"], LABELS, "--samples needs --vs SPEC"),
    (["--samples", "labels.json", "--vs", "rule"], LABELS, "--labels and --samples do not go together"),
    (["--split", "holdout"], LABELS, "--split chooses part of the shipped sets; it does not apply to --labels"),
    (["--judge", "nosuch:x"], LABELS, "nosuch"),
])
def test_bad_input_is_one_line(tmp_path, monkeypatch, capsys, argv, records, fragment):
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "labels.jsonl", records)
    write_jsonl(tmp_path / "labels.json", records)
    base = {"--task": "precisewikiqa", "--check": "abstention", "--judge": "rule", "--labels": "labels.jsonl"}
    base.update(dict(zip(argv[::2], argv[1::2])))
    assert main(["agreement", *[x for pair in base.items() for x in pair]]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("hallubench: error: ") and fragment in err[-1]


@pytest.mark.parametrize("argv, fragment", [
    (["--labels", "l.jsonl"], "--labels needs --check"),
    (["--kind", "numeric"], "--kind describes --labels"),
    (["--role", "judge_verify", "--check", "abstention"], "--check abstention: longwiki has no such check"),
    (["--task", "halueval_qa"], "--task halueval_qa: no judge to calibrate"),
    (["--knowledge", "kb"], "--knowledge is evidence for judging a samples log with --vs"),
])
def test_flags_without_their_partner_are_one_line(tmp_path, monkeypatch, capsys, argv, fragment):
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "l.jsonl", LABELS)
    assert main(["agreement", "--task", "longwiki", "--judge", "rule", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("hallubench: error: ") and fragment in err[-1]
