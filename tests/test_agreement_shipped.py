"""`hallubench agreement --task T --role R --judge rule` on the labelled sets shipped with the package (issue 25):
whatever a set holds, the figures equal those recomputed here from each record's rule verdict with the textbook
formulas (agreement, Cohen's kappa from the marginals; for claims the counts' mean absolute error and Pearson r and
the none/some agreement), on the whole set and on its holdout part; --split and --check narrow; the paper's figure is
printed beside the user's, also for the user's own labels of a check that has a shipped set."""

import json
import math

import pytest

from hallu_metrics.labelled_sets import labelled_set, sets_for_role
from hallu_metrics.registry import benchmark_for_task
from hallubench.cli import main


def rule_pairs(task, labelled, split="all"):
    """(label, rule verdict) of each record of the set's file, read line by line here."""
    check = next(c for c in benchmark_for_task(task).checks if c.name == labelled.check)
    records = [json.loads(line) for line in labelled.path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["label"], check.rule(r)) for r in records if split in ("all", r["split"])]


def textbook_kappa(pairs):
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    labels = {x for pair in pairs for x in pair}
    expected = sum(sum(a == k for a, _ in pairs) * sum(b == k for _, b in pairs) for k in labels) / n / n
    return None if expected == 1 else (observed - expected) / (1 - expected)


def textbook_pearson(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return None if sxx == 0 or syy == 0 else sxy / math.sqrt(sxx * syy)


def assert_figures(kind, figures, pairs):
    assert figures["n"] == len(pairs) and figures["unreadable_share"] == 0.0  # the rule always answers
    if kind == "claims":
        counts = [(len(label), len(verdict)) for label, verdict in pairs]
        assert figures["counts"]["mae"] == pytest.approx(sum(abs(a - b) for a, b in counts) / len(counts))
        pearson = textbook_pearson([a for a, _ in counts], [b for _, b in counts])
        assert figures["counts"]["pearson"] == (None if pearson is None else pytest.approx(pearson))
        presence = [(bool(a), bool(b)) for a, b in counts]
        assert figures["presence"]["accuracy"] == pytest.approx(sum(a == b for a, b in presence) / len(presence))
        kappa = textbook_kappa(presence)
        assert figures["presence"]["kappa"] == (None if kappa is None else pytest.approx(kappa))
        return
    assert kind == "categorical"
    texts = [(json.dumps(label), json.dumps(verdict)) for label, verdict in pairs]
    assert figures["accuracy"] == pytest.approx(sum(a == b for a, b in texts) / len(texts))
    kappa = textbook_kappa(texts)
    assert figures["kappa"] == (None if kappa is None else pytest.approx(kappa))


@pytest.mark.parametrize("task, role", [
    ("precisewikiqa", "judge"), ("longwiki", "judge_verify"), ("longwiki", "judge_claims"),
    ("wildhallucinations", "judge_facts"),
])
def test_role_on_the_shipped_sets_matches_the_rule_recomputed(tmp_path, capsys, task, role):
    out = tmp_path / "figures.json"
    assert main(["agreement", "--task", task, "--role", role, "--judge", "rule", "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    sets = sets_for_role(task, role)
    assert [c["check"] for c in written["checks"]] == [s.check for s in sets]
    for section, labelled in zip(written["checks"], sets):
        assert section["kind"] == labelled.kind and section["role"] == role and section["split"] == "all"
        assert_figures(labelled.kind, section["figures"], rule_pairs(task, labelled))
        holdout = rule_pairs(task, labelled, "holdout")
        if holdout:
            assert_figures(labelled.kind, section["holdout"], holdout)
        assert section["split_counts"]["holdout"] == len(holdout)
    report = capsys.readouterr().out
    assert report.count("Holdout only (items not seen while the rules and prompts were written") == len(sets)


def test_split_and_check_narrow_and_the_papers_figure_is_beside_yours(tmp_path, capsys):
    labelled = labelled_set("precisewikiqa", "abstention")
    out = tmp_path / "figures.json"
    assert main(["agreement", "--task", "precisewikiqa", "--check", "abstention", "--split", "holdout", "--judge",
                 "rule", "--out", str(out)]) == 0
    [section] = json.loads(out.read_text())["checks"]
    holdout = rule_pairs("precisewikiqa", labelled, "holdout")
    assert section["check"] == "abstention" and section["split"] == "holdout"
    assert_figures("categorical", section["figures"], holdout)
    report = capsys.readouterr().out
    figure = labelled.paper_figure
    assert figure is not None and figure.metric == "agreement"
    assert f"Paper: {100 * figure.value:.2f}% agreement ({figure.source}); yours: " in report
    assert "Not a like-for-like comparison" in report


def test_user_labels_of_a_check_with_a_shipped_set_get_its_kind_and_paper_figure(tmp_path, capsys):
    labels = tmp_path / "mine.jsonl"
    labels.write_text(json.dumps({"question": "Q?", "gold": "Lima", "response": "Lima.", "label": False}) + "\n",
                      encoding="utf-8")
    assert main(["agreement", "--task", "precisewikiqa", "--check", "abstention", "--judge", "rule",
                 "--labels", str(labels)]) == 0
    report = capsys.readouterr().out
    assert "(categorical): rule vs " in report and "Agreement 100.0%" in report
    assert "Paper: 96.67% agreement" in report and "yours: 100.00% agreement" in report


@pytest.mark.parametrize("argv, fragment", [
    (["--task", "precisewikiqa", "--split", "tuning", "--check", "abstention", "--role", "judge"], None),
    (["--task", "faitheval_unanswerable"], "--task faitheval_unanswerable: no judge to calibrate"),
    (["--task", "longwiki", "--role", "judge_verify", "--check", "knowledgeable"],
     "--check knowledgeable: no shipped labelled set of longwiki for role judge_verify"),
])
def test_shipped_form_flags(capsys, argv, fragment):
    code = main(["agreement", "--judge", "rule", *argv])
    if fragment is None:
        assert code == 0 and "Split tuning (" in capsys.readouterr().out
    else:
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and fragment in err[-1]
