"""Error bars of a score (issue 34): a judge panel with scripted disagreement (three loopback judges on ten
PreciseWikiQA items, answering as chat models do, in markdown with reasons), generation runs over three hand-made
samples logs, and the report's spread line and CSV columns. Every expected number is worked by hand in its test."""

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest
from loopback import LoopbackChatServer
from support import run_cli, write_jsonl

from hallubench.reporting.scoring import ScoreOptions, score_with_error_bars

ROWS = [{"id": f"q{i}", "question": f"What is item {i}?", "answer": f"Answer{i}", "title": f"Item {i}",
         "reference": "r", "difficulty": i % 3} for i in range(10)]
# Judge A calls items 0-5 correct and 6-9 wrong. B flips 0 and 1 to wrong and calls 9 an abstention; C flips 0, 2, 3
# and 4 to wrong and calls 9 correct. Item 9 is a three-way tie (A: hallucinated, B: abstained, C: correct).
CORRECT = {"A": {0, 1, 2, 3, 4, 5}, "B": {2, 3, 4, 5}, "C": {1, 5, 9}}
ABSTAINS = {"A": set(), "B": {9}, "C": set()}


def judge_reply(name: str):
    """A chat judge: reasons, then the JSON label in a markdown fence; which item is read from the question."""
    def reply(messages: list[dict]) -> str:
        item = int(re.findall(r"What is item (\d)\?", messages[-1]["content"])[-1])
        if "is_abstaining" in json.dumps(messages):  # the abstention check
            abstains = item in ABSTAINS[name]
            return (f"**Judge {name}.** The chatbot {'declines to answer' if abstains else 'gives a specific answer'}."
                    f"\n\n```json\n{{\"is_abstaining\": {'true' if abstains else 'false'}}}\n```")
        label = "CORRECT" if item in CORRECT[name] else "INCORRECT"
        return f"Judge {name}: comparing with the reference answer.\n\n```json\n{{\"verdict\": \"{label}\"}}\n```\n"
    return reply


def samples(path: Path, responses: list[str]) -> Path:
    return write_jsonl(path, [{"doc_id": i, "doc": row, "resps": [[text]]}
                              for i, (row, text) in enumerate(zip(ROWS, responses))])


def answers(correct: int) -> list[str]:
    """The first ``correct`` items answered with the gold answer, the rest with a wrong one (none refused)."""
    return [f"It is Answer{i}." if i < correct else f"It is Wrong{i}." for i in range(10)]


@pytest.fixture
def panel():
    servers = [LoopbackChatServer(judge_reply(name)) for name in "ABC"]
    for server in servers:
        server.__enter__()
    yield [f"openai:base_url={server.base_url},model=judge-{name}" for server, name in zip(servers, "ABC")]
    for server in servers:
        server.__exit__(None, None, None)


def test_judge_panel_majority_and_std(tmp_path, panel):
    """Per judge (10 items, none unreadable): A 0 abstained, 6 correct, 4 hallucinated -> false refusal 0, hallucination
    4/10, correct 6/10; B 1 abstained (9), 4 correct, 5 hallucinated -> 1/10, 5/9, 4/10; C 0, 3 correct, 7
    hallucinated -> 0, 7/10, 3/10. Std (ddof=1): false refusal of (0, 1/10, 0) is sqrt(1/300); correct rate of (.6, .4,
    .3), mean 13/30, squares (5/30)^2 + (1/30)^2 + (4/30)^2 = 42/900, /2 -> sqrt(7/300); hallucination of (36, 50,
    63)/90, mean 149/270, deviations -41, 1, 40 (/270) -> sqrt(3282/2)/270. Majority per item: 0 hallucinated (A is
    outvoted: B's record), 1 correct (A's), 2-5 correct, 6-8 hallucinated, 9 the tie -> A's hallucinated: 5 correct,
    5 hallucinated."""
    log = samples(tmp_path / "samples_precisewikiqa.jsonl", answers(10))
    result, records = score_with_error_bars("precisewikiqa", [log], ScoreOptions(), panel)
    assert [r["outcome"] for r in records] == ["hallucinated"] + ["correct"] * 5 + ["hallucinated"] * 4
    assert "Judge B" in records[0]["correctness"]["raw"] and "Judge A" in records[1]["correctness"]["raw"]
    assert "Judge A" in records[9]["correctness"]["raw"]  # the tie: the first judge's record
    assert (result["n"], result["correct_rate"], result["hallucination_rate"]) == (10, 0.5, 0.5)
    bar = result["error_bars"]["judge"]
    assert bar["n"] == 3 and bar["values"]["correct_rate"] == [0.6, 0.4, 0.3]
    assert bar["values"]["hallucination_rate"] == pytest.approx([0.4, 5 / 9, 0.7])
    assert bar["std"]["correct_rate"] == pytest.approx(math.sqrt(7 / 300))
    assert bar["std"]["hallucination_rate"] == pytest.approx(math.sqrt(3282 / 2) / 270)
    assert bar["std"]["false_refusal_rate"] == pytest.approx(math.sqrt(1 / 300))
    assert [j["judge"] for j in result["judge_panel"]] == panel and result["judges"]["judge"] == panel[0]
    assert "generation" not in result["error_bars"]

    out = tmp_path / "r.json"
    run = run_cli("score", "--task", "precisewikiqa", "--samples", log, "--judge-panel", *panel, "--out", out)
    assert run.returncode == 0, run.stderr
    assert json.loads(out.read_text())["error_bars"]["judge"]["std"]["correct_rate"] == pytest.approx(0.152753, 1e-5)
    assert "correct_rate judge ±15.28 (3 judges)" in run.stdout
    assert "hallucination_rate judge ±15.00 (3 judges)" in run.stdout  # sqrt(1641)/270 = 0.15003


def test_judge_panel_is_refused_with_one_judge_or_with_judge(tmp_path, panel):
    log = samples(tmp_path / "samples_precisewikiqa.jsonl", answers(10))
    for extra in (["--judge-panel", panel[0]], ["--judge-panel", *panel, "--judge", "rule"]):
        run = run_cli("score", "--task", "precisewikiqa", "--samples", log, *extra, "--out", tmp_path / "r.json")
        assert run.returncode == 2 and "--judge-panel needs two or more judge specs, and no --judge" in run.stderr
    assert not (tmp_path / "r.json").exists()


def runs(tmp_path: Path) -> list[Path]:
    """Three runs of one set: 4, 6 and 8 of 10 answered correctly (the rule judge matches the gold answer)."""
    return [samples(tmp_path / f"samples_precisewikiqa_2025-03-0{k}T09-00-00.000001.jsonl", answers(correct))
            for k, correct in enumerate((4, 6, 8), 1)]


def test_generation_runs_pool_and_spread(tmp_path):
    """Correct rates .4, .6, .8: mean .6, deviations -.2, 0, .2 -> std sqrt(.08/2) = .2; hallucination the mirror
    (.6, .4, .2); no refusals. The pooled result counts 30 responses: 18 correct, 12 hallucinated."""
    out = tmp_path / "r.json"
    run = run_cli("score", "--task", "precisewikiqa", "--judge", "rule", "--samples", *runs(tmp_path),
                  "--generation-runs", "--model", "m", "--out", out)
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    assert (result["n"], result["correct_rate"], result["hallucination_rate"]) == (30, 0.6, 0.4)
    bar = result["error_bars"]["generation"]
    assert bar["n"] == 3 and bar["values"]["correct_rate"] == [0.8, 0.6, 0.4]  # newest run first
    assert bar["std"]["correct_rate"] == pytest.approx(0.2)
    assert bar["std"]["hallucination_rate"] == pytest.approx(0.2) and bar["std"]["false_refusal_rate"] == 0
    assert "correct_rate generation ±20.00 (3 runs)" in run.stdout

    report = run_cli("report", out, "--out", tmp_path / "report")
    assert report.returncode == 0, report.stderr
    assert ("spread (m): false_refusal_rate generation ±0.00 (3 runs); hallucination_rate generation ±20.00 (3 runs); "
            "correct_rate generation ±20.00 (3 runs)") in report.stdout
    lines = list(csv.DictReader(io.StringIO((tmp_path / "report" / "report.csv").read_text())))
    correct = next(line for line in lines if line["metric"] == "correct_rate")
    assert float(correct["generation_std"]) == pytest.approx(0.2) and correct["judge_std"] == ""


def test_generation_runs_on_different_sets_are_refused(tmp_path):
    logs = runs(tmp_path)
    other = write_jsonl(tmp_path / "samples_precisewikiqa_2025-03-09T09-00-00.000001.jsonl",
                        [{"doc_id": i, "doc": {**row, "answer": "x"}, "resps": [["It is x."]]}
                         for i, row in enumerate(ROWS)])
    run = run_cli("score", "--task", "precisewikiqa", "--judge", "rule", "--samples", *logs, other,
                  "--generation-runs", "--out", tmp_path / "r.json")
    assert run.returncode == 2 and "is not a run on the test set of" in run.stderr
    one = run_cli("score", "--task", "precisewikiqa", "--judge", "rule", "--samples", logs[0], "--generation-runs",
                  "--out", tmp_path / "r.json")
    assert one.returncode == 2 and "--generation-runs needs two or more samples files" in one.stderr


def test_panel_over_runs_gives_both_error_bars(tmp_path, panel):
    """Two runs with the same responses: the judges say the same on both, so generation std is 0 and each judge's
    pooled values are its single-run values (correct 6/10, 4/10, 3/10: std sqrt(7/300)); n counts 20 responses. The
    second run's calls are cached, and accounting keeps each (run, judge) scoring's entry."""
    logs = [samples(tmp_path / f"samples_precisewikiqa_2025-03-0{k}T09-00-00.000001.jsonl", answers(10))
            for k in (1, 2)]
    result, records = score_with_error_bars("precisewikiqa", logs, ScoreOptions(), panel)
    assert (result["n"], result["correct_rate"], len(records)) == (20, 0.5, 20)
    assert result["error_bars"]["generation"]["std"]["correct_rate"] == 0
    assert result["error_bars"]["judge"]["values"]["correct_rate"] == [0.6, 0.4, 0.3]
    assert result["error_bars"]["judge"]["std"]["correct_rate"] == pytest.approx(math.sqrt(7 / 300))
    assert list(result["accounting"]["roles"]) == [f"judge #{k}" for k in range(1, 7)]
    assert result["accounting"]["total"]["cached"] == result["accounting"]["total"]["calls"] / 2
