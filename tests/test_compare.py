"""`hallubench report`: two models' results (a RESULT.json each, and an lm-eval results file) become one
table per benchmark in markdown and CSV with units, and per-breakdown comparison plots."""

import csv
import io
import json

from hallu_metrics import precisewikiqa
from hallubench.cli import main


def result_file(path, model, outcomes, bins):
    result = precisewikiqa.BENCHMARK.summarize([{"outcome": o} for o in outcomes], [{"difficulty": b} for b in bins])
    result.update(task="precisewikiqa", model=model)
    path.write_text(json.dumps(result))
    return path


def test_report_tables_and_plots_for_two_models(tmp_path, capsys):
    """Rows per model with percent units and stderr; CSV with one line per (model, metric); one PNG per breakdown."""
    a = result_file(tmp_path / "a.json", "model-a", ["correct", "hallucinated", "abstained", "correct"], [0, 0, 1, 1])
    b = result_file(
        tmp_path / "b.json", "model-b", ["hallucinated", "hallucinated", "correct", "abstained"], [0, 1, 1, 1]
    )
    assert main(["report", str(a), str(b), "--out", str(tmp_path / "out")]) == 0
    markdown = capsys.readouterr().out
    assert "| model | n | false_refusal_rate (%) | hallucination_rate (%)" in markdown
    assert "| model-a | 4 | 25.0 ± 25.0 | 33.3 ± 33.3 |" in markdown and "| model-b | 4 |" in markdown
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "report.csv").read_text())))
    assert {(r["model"], r["metric"]) for r in rows} >= {("model-a", "correct_rate"), ("model-b", "correct_rate")}
    assert (tmp_path / "out" / "precisewikiqa_difficulty.png").read_bytes()[:4] == b"\x89PNG"


def test_report_reads_lm_eval_results_and_refuses_other_files(tmp_path, capsys):
    """An lm-eval results file gives the overall numbers of its hallubench tasks; anything else is one line."""
    lm_eval = {
        "results": {
            "precisewikiqa": {
                "alias": "precisewikiqa",
                "correct_rate,judged": 0.5,
                "correct_rate_stderr,judged": 0.1,
                "false_refusal_rate,judged": 0.25,
            }
        },
        "configs": {"precisewikiqa": {}},
        "config": {"model_args": "pretrained=/models/SmolLM2,gguf_file=x"},
        "n-samples": {"precisewikiqa": {"effective": 8}},
    }
    path = tmp_path / "results_x.json"
    path.write_text(json.dumps(lm_eval))
    assert main(["report", str(path)]) == 0
    assert "| SmolLM2 | 8 | 25.0 | n/a | 50.0 ± 10.0 |" in capsys.readouterr().out
    (tmp_path / "junk.json").write_text("[1, 2]")
    assert main(["report", str(tmp_path / "junk.json")]) == 2
    assert "neither a hallubench RESULT.json nor an lm-eval results file" in capsys.readouterr().err


def test_report_prints_the_unreadable_share_and_na_for_undefined_rates(tmp_path, capsys):
    """A judge that answered in the wrong format: the report shows the false acceptance rate as n/a (lm-eval's NaN
    and a RESULT.json's null alike) next to a 100% unreadable share; the CSV leaves undefined cells empty."""
    from hallu_metrics import nonexistent_refusal

    result = nonexistent_refusal.MIXED.summarize([{"outcome": "unjudged"}] * 2, [{"domain": "animal"}] * 2)
    result.update(task="mixedentities", model="model-a")
    (tmp_path / "a.json").write_text(json.dumps(result))
    lm_eval = {
        "results": {"mixedentities": {"false_acceptance_rate,judged": float("nan"),
                                      "false_acceptance_rate_stderr,judged": "N/A",
                                      "judge_unparseable_rate,judged": 1.0,
                                      "judge_unparseable_rate_stderr,judged": 0.0}},
        "configs": {"mixedentities": {}},
        "config": {"model_args": "pretrained=/models/model-b"},
        "n-samples": {"mixedentities": {"effective": 2}},
    }
    (tmp_path / "results_b.json").write_text(json.dumps(lm_eval))  # json writes NaN as lm-eval does
    assert main(["report", str(tmp_path / "a.json"), str(tmp_path / "results_b.json"), "--out",
                 str(tmp_path / "out")]) == 0
    markdown = capsys.readouterr().out
    assert "| model | n | false_acceptance_rate (%) | judge_unparseable_rate (%) |" in markdown
    assert "| model-a | 2 | n/a | 100.0 ± 0.0 |" in markdown and "| model-b | 2 | n/a | 100.0 ± 0.0 |" in markdown
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "report.csv").read_text())))
    far = [r for r in rows if r["metric"] == "false_acceptance_rate"]
    assert [(r["value"], r["stderr"]) for r in far] == [("", ""), ("", "")]
