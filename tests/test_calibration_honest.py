"""Calibration stated as it is (issue 34, part 3): `hallubench agreement` sets the paper's figure beside the holdout
figure (not the one over items the rule was tuned on), judges only the items of --split, names degenerate rule judges
and the kappa resamples its interval leaves out, and refuses a judge that cannot answer a chosen check before judging
anything; `report --paper` prints the papers' own inconsistencies under their tables and the Vectara leaderboard's
scorer and document count as its README states them."""

import json

import pytest
from support import run_cli

import hallubench.reporting.agreement as agreement
from hallu_metrics.labelled_sets import labelled_set
from hallu_metrics.registry import benchmark_for_task
from hallubench.reporting.agreement_figures import BOOTSTRAP_RESAMPLES, agreement_figures, bootstrap_draws, headline


def records(task, check, split="all"):
    labelled = labelled_set(task, check)
    rows = [json.loads(line) for line in labelled.path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split in ("all", r["split"])]


def rule_agreement(task, check, split):
    rule = next(c for c in benchmark_for_task(task).checks if c.name == check).rule
    rows = records(task, check, split)
    return sum(json.dumps(rule(r)) == json.dumps(r["label"]) for r in rows) / len(rows)


@pytest.fixture
def asked(monkeypatch):
    """Every question batch `agreement` sends to a judge (the real judge still answers)."""
    batches = []
    real = agreement._ask

    def counting(spec, questions):
        batches.append(len(questions))
        return real(spec, questions)

    monkeypatch.setattr(agreement, "_ask", counting)
    return batches


@pytest.mark.parametrize("check", ["abstention", "correctness"])
def test_the_papers_figure_is_set_beside_the_holdout_figure(check):
    holdout, whole = rule_agreement("precisewikiqa", check, "holdout"), rule_agreement("precisewikiqa", check, "all")
    n = len(records("precisewikiqa", check, "holdout"))
    run = run_cli("agreement", "--task", "precisewikiqa", "--check", check, "--judge", "rule")
    assert run.returncode == 0, run.stderr
    [line] = [x for x in run.stdout.splitlines() if x.startswith("Paper: ")]
    assert f"; yours: {100 * holdout:.2f}% agreement on the {n} holdout items." in line
    assert f"{100 * whole:.2f}%" not in line and holdout != whole  # abstention: 66.67% here, 89.77% over all items
    assert "the maintainers' (written with an AI coding assistant)" in line
    assert run.stdout.startswith("Who labelled these items: the shipped sets were written and labelled by the "
                                 "hallubench maintainers with an AI coding assistant")


def test_split_holdout_judges_only_the_holdout_items(tmp_path, asked):
    out = tmp_path / "figures.json"
    run = run_cli("agreement", "--task", "precisewikiqa", "--check", "abstention", "--split", "holdout", "--judge",
                  "rule", "--out", out)
    assert run.returncode == 0, run.stderr
    n = len(records("precisewikiqa", "abstention", "holdout"))
    assert asked == [n] and n < len(records("precisewikiqa", "abstention"))  # 21 questions, not 88
    [section] = json.loads(out.read_text())["checks"]
    assert section["judged_items"] == section["figures"]["n"] == section["holdout"]["n"] == n
    assert "Paper: 96.67% agreement" in run.stdout and f"on the {n} holdout items" in run.stdout


def test_split_all_takes_the_holdout_figures_from_the_same_verdicts(tmp_path, asked):
    out = tmp_path / "figures.json"
    assert run_cli("agreement", "--task", "precisewikiqa", "--check", "abstention", "--judge", "rule", "--out",
                   out).returncode == 0
    [section] = json.loads(out.read_text())["checks"]
    assert asked == [len(records("precisewikiqa", "abstention"))]  # one batch of every item, judged once
    assert section["holdout"]["accuracy"] == pytest.approx(rule_agreement("precisewikiqa", "abstention", "holdout"))


def test_split_tuning_judges_no_holdout_item_and_says_so(asked):
    run = run_cli("agreement", "--task", "precisewikiqa", "--check", "abstention", "--split", "tuning", "--judge",
                  "rule")
    assert run.returncode == 0, run.stderr
    assert asked == [len(records("precisewikiqa", "abstention", "tuning"))]
    assert "so their figures can flatter the rule judge): --split tuning judges no holdout item." in run.stdout
    assert "yours: not compared (" in run.stdout


@pytest.mark.parametrize("task, check, line", [
    ("anah_v2_ref", "anah_facts", "Degenerate judge on these items: it gave one label only (true), so its kappa is 0"),
    ("anah_v2_ref", "anah_hallucination", 'Degenerate judge on these items: it never answered "contradictory" ('),
    ("precisewikiqa", "correctness", 'Degenerate judge on these items: it never answered "UNVERIFIABLE" (4 of 67 '
     "items)"),
])
def test_degenerate_rule_judges_are_named_beside_their_figures(tmp_path, task, check, line):
    out = tmp_path / "figures.json"
    run = run_cli("agreement", "--task", task, "--check", check, "--judge", "rule", "--out", out)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    headline_at = next(i for i, x in enumerate(lines) if x.endswith("(95% bootstrap intervals)."))
    assert lines[headline_at + 2].startswith(line)  # right under the headline
    [section] = json.loads(out.read_text())["checks"]
    found = section["figures"]["degenerate"]
    labels = {json.dumps(r["label"]) for r in records(task, check)}
    assert found is not None and set(found["never_given"]) <= labels
    if check == "anah_facts":
        assert found["judge_labels"] == ["true"] and section["figures"]["kappa"] == 0.0
    else:
        assert json.dumps("contradictory" if check == "anah_hallucination" else "UNVERIFIABLE") in found["never_given"]


def test_a_judge_giving_every_label_is_not_degenerate():
    assert agreement_figures(["a", "b", "a"], ["a", "b", "b"])["degenerate"] is None
    assert agreement_figures(["a", "b"], ["a", "a"])["degenerate"] == {"judge_labels": ["a"], "never_given": {"b": 1}}


def test_kappa_resamples_left_out_are_counted_on_a_table_worked_by_hand():
    """Labels x x x y, the judge agreeing on all four: kappa 1. A resample of 4 items holds one label only when it
    draws item 4 never or every time: probability (3/4)^4 + (1/4)^4 = 82/256, about 320 of 1000 resamples, each
    left out of kappa's interval (kappa undefined) and counted. Two items of one label: all 1000 are."""
    figures = agreement_figures(["x", "x", "x", "y"], ["x", "x", "x", "y"])
    one_label = sum(len({row == 3 for row in draw}) == 1 for draw in bootstrap_draws(4, 0, "agreement bootstrap"))
    assert figures["kappa"] == 1.0 and figures["interval95"]["kappa"] == [1.0, 1.0]
    assert figures["kappa_resamples_dropped"] == one_label
    assert abs(one_label - BOOTSTRAP_RESAMPLES * 82 / 256) < 60  # 4 standard deviations (14.8)
    assert (f"Kappa is undefined (one label only) in {one_label} of 1000 resamples, left out of its interval."
            in headline("categorical", figures))
    constant = agreement_figures(["a", "a"], ["a", "a"])
    assert constant["kappa"] is None and constant["kappa_resamples_dropped"] == BOOTSTRAP_RESAMPLES
    assert "Kappa is undefined" not in headline("categorical", agreement_figures(["a", "b"] * 20, ["a", "b"] * 20))


def test_a_judge_that_cannot_answer_a_check_is_refused_before_anything_is_judged(tmp_path, asked):
    """hhem_summarization's summary_consistency has no rule: refused at once, the faithfulness rule (BERTScore,
    minutes) never run; a classifier cannot answer PreciseWikiQA's checks; the same for --labels."""
    run = run_cli("agreement", "--task", "hhem_summarization", "--judge", "rule")
    assert run.returncode == 2 and asked == []
    [error] = run.stderr.strip().splitlines()
    assert error.startswith("hallubench: error: --judge rule cannot answer 1 check(s) of hhem_summarization: "
                            "summary_consistency (hhem_summarization has no rule judge")
    run = run_cli("agreement", "--task", "precisewikiqa", "--judge", "hhem:model=/nowhere")
    assert run.returncode == 2 and asked == []
    assert "--judge hhem cannot answer 2 check(s) of precisewikiqa: abstention (" in run.stderr
    labels = tmp_path / "mine.jsonl"
    labels.write_text(json.dumps({"reference": "A cat sat.", "hypothesis": "A cat sat.", "label": 1.0}) + "\n",
                      encoding="utf-8")
    run = run_cli("agreement", "--task", "hhem_summarization", "--check", "summary_consistency", "--judge", "rule",
                  "--labels", labels)
    assert run.returncode == 2 and asked == [] and "cannot answer 1 check(s)" in run.stderr


def test_report_paper_prints_the_vectara_attribution_its_readme_states():
    run = run_cli("report", "--paper", "hhem_summarization")
    assert run.returncode == 0, run.stderr
    assert "HHEM-2.3" not in run.stdout and "1,006 documents" not in run.stdout.split("Caveats")[0]
    assert "Vectara hallucination leaderboard (HHEM-2.1; 1,000 documents, rates over the 831 every model " \
           "summarised)" in run.stdout
    assert "Paper settings: judge HHEM-2.1; " in run.stdout and "decoding: temperature=0." in run.stdout


@pytest.mark.parametrize("paper, caveat", [
    ("hhem_summarization", "- Two rows do not add up to 100% as printed: Google Gemini-1.5-Pro-002 (hallucination "
     "rate 6.6% + factual consistency rate 93.7% = 100.3%) and XAI Grok-3-Beta (2.1% + 97.8% = 99.9%)."),
    ("wildhallucinations", "- Gemini 1.5 Pro's row repeats Llama-3-70B's %Responding (88.07) and #Facts/Res (30.27) "
     "exactly"),
    ("faithfulness", "gives 22 of its 26 deltas to two digits. The 4 others are extrinsic: HHEM-extrinsic -0.61 "
     "(computed -0.616) and HHEM-intrinsic -0.38 (-0.374), both within the rounding of the printed scores; HHEM -0.33 "
     "(-0.196) and Llama3.1-8B -0.28 (-0.13), which no rounding explains."),
])
def test_report_paper_prints_the_papers_inconsistencies_under_their_tables(paper, caveat):
    run = run_cli("report", "--paper", paper)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if caveat in line)
    header = max(i for i in range(at) if lines[i] == "Caveats (the published figures are shipped as printed):")
    assert all(line.startswith("- ") for line in lines[header + 1:at + 1])
    assert lines[header - 1] == "" and lines[header - 2].startswith("| ")  # right under the table's last row


def test_the_shipped_caveats_hold_for_the_shipped_numbers():
    """The inconsistencies the caveats name are in the shipped rows, and the delta rule fits exactly 22 of 26."""
    from hallubench.reporting.paper_tables import published_tables

    vectara = published_tables("hhem_summarization")[0]
    off = {r.model for r in vectara.rows if abs(r.values[0] + r.values[1] - 100) > 0.05}
    assert off == {"Google Gemini-1.5-Pro-002", "XAI Grok-3-Beta"}
    table4 = next(t for t in published_tables("wildhallucinations") if t.source.startswith("Table 4"))
    rows = {r.model: r.values for r in table4.rows}
    assert rows["Gemini 1.5 Pro"] == rows["Llama-3-70B"]
    progression = published_tables("faithfulness")[0]
    misses = [(r.model, kind) for r in progression.rows for kind, (start, end, delta) in
              (("intrinsic", r.values[:3]), ("extrinsic", r.values[3:])) if round((end - start) / 5, 2) != delta]
    assert len(misses) == 4 and len(progression.rows) * 2 == 26
    assert misses == [("HHEM-extrinsic", "extrinsic"), ("HHEM-intrinsic", "extrinsic"), ("HHEM", "extrinsic"),
                      ("Llama3.1-8B", "extrinsic")]
