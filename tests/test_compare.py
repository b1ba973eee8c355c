"""`hallubench report`: results (RESULT.json files and lm-eval results files) become one table per benchmark in
markdown and CSV, every row naming model, judge, set, shots and date, with one unit convention per output; and
per-breakdown comparison plots with fitting titles, axes on each metric's scale and breakdowns in their order."""

import csv
import io
import json
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone

import pytest

from hallu_metrics.benchmarks import nonexistent_refusal, precisewikiqa, wildhallucinations
from hallu_metrics.benchmarks.faithfulness import HHEM
from hallu_metrics.contract import Breakdown
from hallubench.cli import main
from hallubench.reporting.compare import comparison_figure, load_results, model_name, tables

FINGERPRINT = "sha256:3fa2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80"
LLM_JUDGE = "openai:base_url=http://judge.internal:8000/v1,model=gpt-4o-mini,concurrency=8"
DATE = 1717243200.0  # 2024-06-01 12:00 UTC


def result_file(path, model, outcomes, bins, judge="rule", fingerprint=FINGERPRINT):
    result = precisewikiqa.BENCHMARK.summarize([{"outcome": o} for o in outcomes], [{"difficulty": b} for b in bins])
    result.update(task="precisewikiqa", model=model, judges={"judge": judge},
                  dataset={"location": "sets/p", "revision": "unpinned", "fingerprint": fingerprint})
    path.write_text(json.dumps(result))
    return path


def lm_eval_file(path, results, model_args="pretrained=/home/x/models/SmolLM2", metadata=None, n=8):
    task = next(iter(results))
    data = {
        "results": results,
        "configs": {task: {"metadata": metadata if metadata is not None else {
            "hallubench_judges": {"judge": LLM_JUDGE},
            "hallubench_dataset": {"location": "sets/p", "from": "--metadata dataset", "revision": "unpinned",
                                   "fingerprint": FINGERPRINT}}}},
        "config": {"model_args": model_args},
        "n-shot": {task: 0},
        "n-samples": {task: {"original": n, "effective": n}},
        "date": DATE,
    }
    path.write_text(json.dumps(data))
    return path


def csv_rows(folder):
    return list(csv.DictReader(io.StringIO((folder / "report.csv").read_text())))


def test_report_tables_and_plots_for_two_models(tmp_path, capsys):
    """Rows per model in percent with Wilson intervals; CSV lines per (model, metric) in fractions; a PNG per
    breakdown."""
    a = result_file(tmp_path / "a.json", "model-a", ["correct", "hallucinated", "abstained", "correct"], [0, 0, 1, 1])
    b = result_file(
        tmp_path / "b.json", "model-b", ["hallucinated", "hallucinated", "correct", "abstained"], [0, 1, 1, 1]
    )
    assert main(["report", str(a), str(b), "--out", str(tmp_path / "out")]) == 0
    markdown = capsys.readouterr().out
    assert ("| model | judge | set | shots | date (UTC) | n | false_refusal_rate (%) | hallucination_rate (%)"
            in markdown)
    assert "| model-a | rule | 3fa2b1c4d5e6 | 0 | " in markdown
    assert "| 4 | 25.0 [4.6, 69.9] | 33.3 [6.1, 79.2] |" in markdown
    assert "95% Wilson score interval" in markdown and "warning" not in markdown
    rows = csv_rows(tmp_path / "out")
    assert {(r["model"], r["metric"]) for r in rows} >= {("model-a", "correct_rate"), ("model-b", "correct_rate")}
    assert (tmp_path / "out" / "precisewikiqa_difficulty.png").read_bytes()[:4] == b"\x89PNG"


def test_every_row_names_model_judge_set_shots_and_date(tmp_path, capsys):
    """An lm-eval results file: the model's directory name, the judge's short form (no server address), the set's
    fingerprint (12 hex digits), lm-eval's n-shot and date; a RESULT.json: zero-shot, dated by its file."""
    lm_eval = lm_eval_file(tmp_path / "results_x.json", {"precisewikiqa": {"correct_rate,judged": 0.5}})
    score = result_file(tmp_path / "a.json", "model-a", ["correct"], [0])
    assert main(["report", str(lm_eval), str(score), "--out", str(tmp_path / "out")]) == 0
    markdown = capsys.readouterr().out
    assert "| SmolLM2 | openai:gpt-4o-mini | 3fa2b1c4d5e6 | 0 | 2024-06-01 12:00 | 8 |" in markdown
    assert "judge.internal" not in markdown
    mtime = datetime.fromtimestamp(score.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M")
    assert f"| model-a | rule | 3fa2b1c4d5e6 | 0 | {mtime} | 1 |" in markdown
    (tmp_path / "dated.json").write_text(json.dumps({**json.loads(score.read_text()), "date": "2025-03-01T09:30:00Z"}))
    assert load_results([tmp_path / "dated.json"])[0]["date"] == "2025-03-01 09:30"  # score's recorded time
    row = next(r for r in csv_rows(tmp_path / "out") if r["model"] == "SmolLM2")
    assert (row["judge"], row["set"], row["shots"], row["date"]) == (
        "openai:gpt-4o-mini", "3fa2b1c4d5e6", "0", "2024-06-01 12:00")
    assert json.loads(row["judge_spec"]) == {"judge": "openai:base_url=http://judge.internal:8000/v1,"
                                             "model=gpt-4o-mini,concurrency=8"}


def test_rows_that_differ_in_judge_or_set_are_flagged_and_told_apart(tmp_path, capsys):
    """The same samples judged twice (rule and an LLM judge) are two rows told apart by the judge column, under a
    warning line; another test set is flagged too; rows of one judge and set carry no warning."""
    outcomes, bins = ["correct", "hallucinated"], [0, 1]
    rule = result_file(tmp_path / "rule.json", "smollm2", outcomes, bins)
    llm = result_file(tmp_path / "llm.json", "smollm2", outcomes, bins, judge=LLM_JUDGE)
    other_set = result_file(tmp_path / "set.json", "smollm2", outcomes, bins, fingerprint="sha256:" + "ab" * 32)
    rows = load_results([rule, llm, other_set])
    markdown, _ = tables(rows)
    lines = [line for line in markdown.splitlines() if line.startswith("| smollm2 |")]
    assert len(lines) == 3 and len({line.split(" | ")[1] for line in lines}) == 2
    assert ("**warning:** rows differ in judge: openai:gpt-4o-mini, rule; set: 3fa2b1c4d5e6, abababababab; "
            "numbers are not comparable") in markdown
    assert "warning" not in tables(load_results([rule, result_file(tmp_path / "b.json", "b", outcomes, bins)]))[0]
    assert main(["report", str(rule), str(llm)]) == 0
    assert "rows differ in judge: openai:gpt-4o-mini, rule; numbers" in capsys.readouterr().out


def test_judges_with_the_same_short_form_still_read_apart(tmp_path):
    """The same model name served by two servers: the short forms get a hash of the full specs appended."""
    one = result_file(tmp_path / "one.json", "m", ["correct"], [0], judge="openai:base_url=http://a/v1,model=j")
    two = result_file(tmp_path / "two.json", "m", ["correct"], [0], judge="openai:base_url=http://b/v1,model=j")
    judges = [row["judge"] for row in load_results([one, two])]
    assert len(set(judges)) == 2 and all(j.startswith("openai:j #") for j in judges)


def test_csv_writes_rates_as_fractions_and_says_so(tmp_path):
    """One convention per output: markdown in percent, CSV in fractions with unit "fraction" and the Wilson
    bounds as fractions; scores keep their scale."""
    a = result_file(tmp_path / "a.json", "model-a", ["correct", "hallucinated", "abstained", "correct"], [0, 0, 1, 1])
    assert main(["report", str(a), "--out", str(tmp_path / "out")]) == 0
    row = next(r for r in csv_rows(tmp_path / "out") if r["metric"] == "false_refusal_rate")
    assert (float(row["value"]), row["unit"], row["counted"]) == (0.25, "fraction", "4")
    assert float(row["wilson95_low"]) == pytest.approx(0.0456, abs=1e-4)
    assert float(row["wilson95_high"]) == pytest.approx(0.6994, abs=1e-4)
    assert "%" not in {r["unit"] for r in csv_rows(tmp_path / "out")}


@pytest.mark.parametrize(("model_args", "name"), [
    ("pretrained=/home/x/models/SmolLM2", "SmolLM2"),
    ("pretrained=/home/x/models/SmolLM2/,dtype=float32", "SmolLM2"),
    ("pretrained=HuggingFaceTB/SmolLM2-135M-Instruct", "HuggingFaceTB/SmolLM2-135M-Instruct"),
    ("model=qwen2.5-7b-instruct,base_url=http://127.0.0.1:8000/v1/chat/completions", "qwen2.5-7b-instruct"),
    ("pretrained=/home/x/models,gguf_file=smollm2-135m-instruct-q8_0.gguf", "smollm2-135m-instruct-q8_0"),
    ({"pretrained": "/srv/m/Llama-3.1-8B", "dtype": "bfloat16"}, "Llama-3.1-8B"),
])
def test_model_names_are_short(model_args, name):
    assert model_name(model_args) == name


def test_report_reads_lm_eval_results_and_refuses_other_files(tmp_path, capsys):
    """An lm-eval results file gives the overall numbers of its hallubench tasks (a conditional rate, whose count
    lm-eval does not keep, with ± stderr); anything else is one line."""
    path = lm_eval_file(tmp_path / "results_x.json", {"precisewikiqa": {
        "alias": "precisewikiqa",
        "correct_rate,judged": 0.5,
        "correct_rate_stderr,judged": 0.1,
        "false_refusal_rate,judged": 0.25,
        "judge_unparseable_rate,judged": 0.0,
    }})
    assert main(["report", str(path)]) == 0
    assert "| 8 | 25.0 | n/a | 50.0 ± 10.0 | 0.0 [0.0, 32.4] |" in capsys.readouterr().out
    (tmp_path / "junk.json").write_text("[1, 2]")
    assert main(["report", str(tmp_path / "junk.json")]) == 2
    assert "neither a hallubench RESULT.json nor an lm-eval results file" in capsys.readouterr().err


def test_predict_only_results_are_a_note_not_a_row(tmp_path, capsys):
    """lm-eval --predict_only judged nothing: no row of n/a, one note line saying how to judge it."""
    metadata = {"hallubench_judges": {"judge": "rule"},
                "hallubench_judging": "skipped (--predict_only): judge with hallubench score"}
    path = lm_eval_file(tmp_path / "results_p.json", {"precisewikiqa": {"bypass,judged": 999}}, metadata=metadata)
    judged = result_file(tmp_path / "a.json", "model-a", ["correct"], [0])
    assert main(["report", str(path), str(judged), "--out", str(tmp_path / "out")]) == 0
    markdown = capsys.readouterr().out
    assert "| SmolLM2 |" not in markdown and "n/a" not in markdown
    assert ("skipped (predict-only, not judged): SmolLM2 on precisewikiqa — judge with hallubench score"
            in markdown.splitlines())
    assert {r["model"] for r in csv_rows(tmp_path / "out")} == {"model-a"}


def test_report_prints_the_unreadable_share_and_na_for_undefined_rates(tmp_path, capsys):
    """A judge that answered in the wrong format: the report shows the false acceptance rate as n/a (lm-eval's NaN
    and a RESULT.json's null alike) next to a 100% unreadable share; the CSV leaves undefined cells empty."""
    result = nonexistent_refusal.MIXED.summarize([{"outcome": "unjudged"}] * 2, [{"domain": "animal"}] * 2)
    result.update(task="mixedentities", model="model-a")
    (tmp_path / "a.json").write_text(json.dumps(result))
    lm_eval_file(tmp_path / "results_b.json", {"mixedentities": {
        "false_acceptance_rate,judged": float("nan"), "false_acceptance_rate_stderr,judged": "N/A",
        "judge_unparseable_rate,judged": 1.0, "judge_unparseable_rate_stderr,judged": 0.0}},
        model_args="pretrained=/models/model-b", n=2)  # json writes NaN as lm-eval does
    assert main(["report", str(tmp_path / "a.json"), str(tmp_path / "results_b.json"), "--out",
                 str(tmp_path / "out")]) == 0
    markdown = capsys.readouterr().out
    assert "| n | false_acceptance_rate (%) | judge_unparseable_rate (%) |" in markdown
    assert "| 2 | n/a | 100.0 [34.2, 100.0] |" in markdown and "| model-b | openai:gpt-4o-mini |" in markdown
    rows = csv_rows(tmp_path / "out")
    far = [r for r in rows if r["metric"] == "false_acceptance_rate"]
    assert [(r["value"], r["stderr"], r["wilson95_low"]) for r in far] == [("", "", ""), ("", "", "")]


def _rows_of(tmp_path, benchmark, task, outcomes_per_model, docs):
    rows = []
    for k, records in enumerate(outcomes_per_model):
        result = {**benchmark.summarize(records, docs), "task": task, "model": f"m{k}", "judges": {"judge": "rule"}}
        (tmp_path / f"{task}{k}.json").write_text(json.dumps(result))
        rows += load_results([tmp_path / f"{task}{k}.json"])
    return rows


def test_rate_axes_run_from_0_to_100_percent_and_counts_from_0(tmp_path):
    """An all-zero rate and a constant 100% rate get the [0, 100] % axis; a count axis starts at 0."""
    docs = [{"difficulty": d} for d in (0, 1)]
    rows = _rows_of(tmp_path, precisewikiqa.BENCHMARK, "precisewikiqa",
                    [[{"outcome": "correct"}] * 2, [{"outcome": "hallucinated"}] * 2], docs)
    breakdown = precisewikiqa.BENCHMARK.breakdowns[0]
    fig = comparison_figure("precisewikiqa", precisewikiqa.BENCHMARK, rows, breakdown)
    assert [ax.get_ylim() for ax in fig.axes if ax.get_visible()] == [(0.0, 100.0)] * 3
    wild = [{"outcome": "all_supported", "n_facts": n, "n_supported": n} for n in (3, 5)]
    wild_docs = [{"category": "people"}, {"category": "places"}]
    fig = comparison_figure("wildhallucinations", wildhallucinations.BENCHMARK,
                            _rows_of(tmp_path, wildhallucinations.BENCHMARK, "wildhallucinations", [wild], wild_docs),
                            wildhallucinations.BENCHMARK.breakdowns[0])
    counts = [ax for ax in fig.axes if ax.get_ylabel().startswith("facts_per_response")]
    assert len(counts) == 2 and all(ax.get_ylim()[0] == 0.0 and ax.get_ylim()[1] >= 5 for ax in counts)


def test_faithfulness_plots_draw_residual_and_score_each_on_its_own_scale(tmp_path):
    """The headline metrics but the unreadable share, one axis each: residual 0-4, score 1-5."""
    docs = [{"type": t, "expected_score": 5, "hallucinated_share": 0.0, "progression_kind": None}
            for t in ("gold_full", "intrinsic")]
    rows = _rows_of(tmp_path, HHEM, "faithfulness_hhem", [[{"score": 4.0}, {"score": 2.0}]], docs)
    fig = comparison_figure("faithfulness_hhem", HHEM, rows, HHEM.breakdowns[0])
    axes = {ax.get_ylabel(): ax.get_ylim() for ax in fig.axes if ax.get_visible()}
    assert axes == {"residual (0-4)": (0.0, 4.0), "score (1-5)": (1.0, 5.0)}


@dataclass(frozen=True)
class DeclaredOrder(Breakdown):
    order: tuple[str, ...] = ("high", "mid", "low")


def test_ordered_breakdowns_keep_their_order_and_leave_the_missing_group_unjoined(tmp_path):
    """Place tiers in their declared order (not alphabetical), numbers numerically; the line joins the ordered
    values only: the missing-key group (none) is a marker of its own."""
    benchmark = nonexistent_refusal.GENERATED
    docs = [{"domain": "business", "place_tier": t} for t in ("low", "high", "mid", None)]
    records = [{"outcome": o} for o in ("believed", "not_believed", "believed", "not_believed")]
    rows = _rows_of(tmp_path, benchmark, "generatedentities", [records], docs)
    fig = comparison_figure("generatedentities", benchmark, rows, DeclaredOrder("place_tier", "ordered", "tier"))
    ax = fig.axes[0]
    assert [t.get_text().split()[0] for t in ax.get_xticklabels()] == ["high", "mid", "low", "none"]
    (line,) = [line for line in ax.get_lines() if line.get_label() == "m0"]
    assert list(line.get_xdata()) == [0, 1, 2]
    assert [list(m.get_xdata()) for m in ax.get_lines() if m.get_gid() == "missing-group"] == [[3]]
    bins = [{"difficulty": d} for d in (10, 2, 9)]
    rows = _rows_of(tmp_path, precisewikiqa.BENCHMARK, "precisewikiqa", [[{"outcome": "correct"}] * 3], bins)
    fig = comparison_figure("precisewikiqa", precisewikiqa.BENCHMARK, rows, precisewikiqa.BENCHMARK.breakdowns[0])
    assert [t.get_text().split()[0] for t in fig.axes[0].get_xticklabels()] == ["2", "9", "10"]


def test_titles_fit_their_figure_and_name_the_judge_short(tmp_path):
    """A long breakdown label and an LLM judge: the title is wrapped inside the figure, with the short judge."""
    bins = [{"level": lv} for lv in (5, 6)]
    from hallu_metrics.benchmarks import longwiki

    records = [{"outcome": "judged", "n_claims": 1, "supported": 1, "k": 32}] * 2
    result = {**longwiki.BENCHMARK.summarize(records, bins), "task": "longwiki", "model": "m",
              "judges": {"judge": LLM_JUDGE, "judge_claims": LLM_JUDGE}}
    (tmp_path / "l.json").write_text(json.dumps(result))
    fig = comparison_figure("longwiki", longwiki.BENCHMARK, load_results([tmp_path / "l.json"]),
                            longwiki.BENCHMARK.breakdowns[0])
    fig.canvas.draw()
    title = fig._suptitle
    box = title.get_window_extent()
    assert "judge: openai:gpt-4o-mini" in title.get_text() and "base_url" not in title.get_text()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width


def test_report_imports_no_plotting_library():
    code = "import sys, hallubench.reporting.compare, hallubench.cli; assert 'matplotlib' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
