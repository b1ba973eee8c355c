"""Group runs reach the report (issue 33, items 1 and 12): lm-eval's results of `--tasks hallulens` / `halueval` /
`hallulens_proxies` (real files lm-eval 0.4.13 wrote with its `dummy` model and the rule judges, one per family with a
group, kept in tests/fixtures/lm_eval_group_runs with how each was made) give one row per task and per hallubench
group, each group with its unreadable share; `--limit` rows say "n of N" and
are flagged; conditional rates carry the item counts hallubench recorded, so every rate has its Wilson interval.
End to end: `hallubench eval --tasks hallulens` (dummy model) -> `hallubench report` -> `hallubench view`."""

import csv
import io
import json
import re
import sys
from pathlib import Path

import pytest
from support import run_cli, save_set, write_jsonl

from hallu_metrics.stats import mean_of_shares_stderr

FIXTURES = Path(__file__).parent / "fixtures" / "lm_eval_group_runs"
HALLULENS = FIXTURES / "hallulens.json"
HALUEVAL = FIXTURES / "halueval_limit6.json"
PROXIES = FIXTURES / "hallulens_proxies_limit5.json"
RESULTS = sorted(FIXTURES.glob("*.json"))
TASK_FOLDERS = Path(__file__).parents[1] / "lm_eval_tasks"
UNREADABLE = ("judge_unparseable_rate", "invalid_rate")  # a group's unreadable share: judge verdicts or replies


def section(markdown: str, task: str) -> str:
    """The table of one task in a report.md."""
    return markdown.split(f"### {task} (", 1)[1].split("\n### ", 1)[0]


def row_cells(table: str) -> list[str]:
    return [c.strip() for c in table.split("\n| r0cytw4c |", 1)[1].split("\n", 1)[0].split("|")[:-1]]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[str, list[dict]]:
    out = tmp_path_factory.mktemp("report")
    run = run_cli("report", *RESULTS, "--out", out)
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO((out / "report.csv").read_text())))
    return (out / "report.md").read_text(), rows


def test_group_results_files_are_read_with_a_row_per_group(report):
    markdown, rows = report
    groups = {"hallulens": "precisewikiqa, longwiki, mixedentities, generatedentities",
              "nonexistent_refusal": "mixedentities, generatedentities",
              "halueval": "halueval_qa, halueval_dialogue, halueval_summarization, halueval_general"}
    for group, members in groups.items():
        assert f"### {group} (lm-eval group of {members}" in markdown
    data = json.loads(HALLULENS.read_text())["results"]
    hallulens = section(markdown, "hallulens")
    assert "judge_unparseable_rate (%)" in hallulens  # the group's unreadable share
    assert row_cells(hallulens)[4] == str(data["hallulens"]["sample_len"])
    by_task_metric = {(r["task"], r["metric"]): r for r in rows}
    unreadable = by_task_metric[("hallulens", "judge_unparseable_rate")]
    assert float(unreadable["value"]) == data["hallulens"]["judge_unparseable_rate,judged"]
    assert int(unreadable["counted"]) == data["hallulens"]["sample_count"]["judge_unparseable_rate,judged"]
    assert unreadable["wilson95_high"] != ""
    assert ("halueval", "invalid_rate") in by_task_metric  # HaluEval's unreadable share
    refusal = by_task_metric[("nonexistent_refusal", "false_acceptance_rate")]
    assert float(refusal["value"]) == data["nonexistent_refusal"]["false_acceptance_rate,judged"]
    # the group's false acceptance rate is the paper's macro mean of its two tasks (weight_by_size: false), not a
    # share of its items: no Wilson interval over the item count; its stderr from each member's share and count
    assert refusal["counted"] == "" and refusal["wilson95_low"] == ""
    shares = [(float(by_task_metric[(task, "false_acceptance_rate")]["value"]),
               int(by_task_metric[(task, "false_acceptance_rate")]["counted"]))
              for task in ("mixedentities", "generatedentities")]
    assert float(refusal["stderr"]) == pytest.approx(mean_of_shares_stderr(shares)) and float(refusal["stderr"]) > 0
    assert by_task_metric[("nonexistent_refusal", "judge_unparseable_rate")]["wilson95_low"] != ""  # size-weighted


def declared_groups() -> dict[str, str]:
    """Every lm-eval group a YAML under lm_eval_tasks/ declares, with its family folder."""
    return {match[1]: path.relative_to(TASK_FOLDERS).parts[0] for path in TASK_FOLDERS.rglob("*.yaml")
            for match in re.finditer(r"^group:\s*(\S+)", path.read_text(encoding="utf-8"), re.M)}


def test_every_family_with_a_group_keeps_a_real_group_run_file():
    """A family folder whose YAMLs declare a group has a results file of that group here (one real lm-eval run)."""
    kept = {group for path in RESULTS for group in json.loads(path.read_text())["groups"]}
    declared = declared_groups()
    assert {"hallulens", "nonexistent_refusal", "halueval", "hallulens_proxies"} <= declared.keys()
    missing = sorted(f"{group} ({family})" for group, family in declared.items() if group not in kept)
    assert not missing, f"no group-run results file in {FIXTURES} for: {', '.join(missing)}"


@pytest.mark.parametrize("path", RESULTS, ids=lambda path: path.stem)
def test_each_familys_group_rows_show_their_unreadable_share(report, path):
    """Every group of every kept run has its report section and its unreadable share, with lm-eval's value and the
    item count it was taken over (so a Wilson interval)."""
    markdown, rows = report
    data = json.loads(path.read_text())
    by_task_metric = {(r["task"], r["metric"]): r for r in rows}
    assert data["groups"]
    for group, values in data["groups"].items():
        unreadable = next(metric for metric in UNREADABLE if f"{metric},judged" in values)
        columns = next(line for line in section(markdown, group).splitlines() if line.startswith("| model |"))
        assert f"| {unreadable} (%) |" in columns
        row = by_task_metric[(group, unreadable)]
        assert float(row["value"]) == values[f"{unreadable},judged"]
        assert int(row["counted"]) == values["sample_count"][f"{unreadable},judged"] and row["wilson95_high"] != ""


def test_the_proxies_group_row_is_the_macro_mean_with_its_unreadable_share(report):
    """hallulens_proxies: SimpleQA (5 of 4,326 items, --limit 5) and PopQA (4 of 4) in one row of 9 of 4,330 items,
    its rates the members' unweighted mean (lm-eval's pooled stderr, no Wilson interval), its unreadable share over
    the 9 items with one."""
    markdown, rows = report
    data = json.loads(PROXIES.read_text())
    table = section(markdown, "hallulens_proxies")
    assert table.startswith("lm-eval group of simpleqa_hallu, popqa_hallu")
    assert "judge_unparseable_rate (%)" in table and "| 9 of 4330 |" in table
    assert "--limit runs scored a part of their set" in table
    group = {r["metric"]: r for r in rows if r["task"] == "hallulens_proxies"}
    members = [data["results"][task]["hallucination_rate,judged"] for task in ("simpleqa_hallu", "popqa_hallu")]
    assert float(group["hallucination_rate"]["value"]) == sum(members) / 2
    assert group["hallucination_rate"]["wilson95_low"] == ""
    assert "hallucination_rate" in markdown.split("### hallulens_proxies (")[1].split("unweighted mean")[0]
    assert float(group["hallucination_rate"]["stderr"]) > 0  # never ± 0.0 on 9 items, whatever the members scored
    assert int(group["judge_unparseable_rate"]["counted"]) == 9 and group["judge_unparseable_rate"]["wilson95_low"]


def test_limit_runs_say_n_of_the_set_and_are_flagged(report):
    markdown, _ = report
    sizes = json.loads(HALUEVAL.read_text())["n-samples"]["halueval_qa"]
    table = section(markdown, "halueval_qa")
    assert row_cells(table)[4] == f"{sizes['effective']} of {sizes['original']}"
    assert "--limit runs scored a part of their set" in table and "not comparable" in table
    assert "--limit" not in section(markdown, "precisewikiqa")  # the hallulens run scored its whole sets


def test_conditional_rates_get_wilson_intervals_from_the_recorded_counts(report):
    """hallucination_rate counts only answered items: lm-eval keeps no count, hallubench's metadata does."""
    markdown, rows = report
    counted = json.loads(HALLULENS.read_text())["configs"]["precisewikiqa"]["metadata"]["hallubench_counted"]
    line = next(r for r in rows if r["task"] == "precisewikiqa" and r["metric"] == "hallucination_rate")
    assert int(line["counted"]) == counted["hallucination_rate"] and line["wilson95_low"] != ""
    assert "±" not in row_cells(section(markdown, "precisewikiqa"))[6]


def test_rows_of_different_sizes_are_not_comparable(tmp_path):
    data = json.loads(HALLULENS.read_text())
    data["n-samples"]["precisewikiqa"]["effective"] = 4
    data["model_name"], data["config"]["model_args"] = "other", "pretrained=other"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    assert run_cli("report", HALLULENS, other, "--out", tmp_path / "r").returncode == 0
    table = section((tmp_path / "r" / "report.md").read_text(), "precisewikiqa")
    assert "rows differ in n: 30, 4" in table


def hallulens_sets(folder: Path) -> dict[str, str]:
    """Three-item sets of the group's four tasks and a knowledge store, as --metadata keys."""
    pages = [{"title": "Lyon", "text": "Lyon is a city in France. It lies on the Rhone."}]
    assert run_cli("knowledge", "build", "--source", write_jsonl(folder / "pages.jsonl", pages),
                   "--out", folder / "kb").returncode == 0
    rows = {
        "precisewikiqa": [{"id": f"p{i}", "question": f"Which river flows through Lyon {i}?", "answer": "Rhone",
                           "title": "Lyon", "reference": "Lyon lies on the Rhone.", "difficulty": i} for i in range(3)],
        "longwiki": [{"id": f"l{i}", "prompt": "Tell me about Lyon.", "title": "Lyon", "reference": "Lyon is a city.",
                      "level": 5 + i} for i in range(3)],
        "mixedentities": [{"id": f"m{i}", "name": f"Felis zorbus{i}", "domain": "animal", "type": "animal",
                           "prompt": f"What can you tell me about the animal Felis zorbus{i}?"} for i in range(3)],
        "generatedentities": [{"id": f"g{i}", "name": f"Quarry Cafe {i}", "type": "cafe", "domain": "business",
                               "place": "Lyon", "place_tier": "high",
                               "prompt": f"I came across the cafe Quarry Cafe {i} in Lyon. What is it known for?"}
                              for i in range(3)],
    }
    keys = {f"dataset_{task}": str(save_set(folder / task, items)) for task, items in rows.items()}
    return {**keys, "knowledge": str(folder / "kb"), "judge": "rule"}


def test_group_run_to_report_to_view_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", sys.argv[:1])
    metadata = hallulens_sets(tmp_path)
    ran = run_cli("eval", "--model", "dummy", "--tasks", "hallulens", "--log_samples", "--output_path",
                  tmp_path / "runs", "--metadata", json.dumps(metadata))
    assert ran.returncode == 0, ran.stderr
    results = next((tmp_path / "runs").rglob("results_*.json"))
    reported = run_cli("report", results, "--out", tmp_path / "report", "--view", "view.html")
    assert reported.returncode == 0, reported.stderr
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "### hallulens (lm-eval group of" in markdown and "### nonexistent_refusal (lm-eval group of" in markdown
    assert "| 12 |" in section(markdown, "hallulens")
    viewed = run_cli("view", results.parent, "--out", tmp_path / "report")
    assert viewed.returncode == 0, viewed.stderr
    page = (tmp_path / "report" / "view.html").read_text()
    for text in ("Which river flows through Lyon 2?", "Tell me about Lyon.", "Felis zorbus2", "Quarry Cafe 2"):
        assert text in page  # every member task's items are in the page


def test_the_stderr_of_a_mean_of_shares_keeps_the_uncertainty_of_perfect_scores():
    """Agresti-Coull centres: 0.5 of 100 items alone gives sqrt(0.25 / 103.84); 4 of 4 and 5 of 5 give a stderr
    well above 0 (lm-eval pools the plain variances p (1 - p) / n: 0 here)."""
    assert mean_of_shares_stderr([(0.5, 100)]) == pytest.approx((0.25 / (100 + 1.959963984540054 ** 2)) ** 0.5)
    assert mean_of_shares_stderr([(1.0, 4), (1.0, 5)]) == pytest.approx(0.1035, abs=1e-4)  # worked by hand
    with pytest.raises(ValueError):
        mean_of_shares_stderr([(1.0, 0)])
