"""`hallubench report --paper BENCH [RESULTS...]`: the papers' published tables ship as package data, every column
maps to a metric its benchmark declares, user results sit beside the paper's numbers only for the same model, and
each matched result names the settings (judge, set, decoding, weights) in which it differs from the paper."""

import csv
import json
import re
from pathlib import Path

import pytest

from hallu_metrics.benchmarks import precisewikiqa
from hallu_metrics.benchmarks.faithfulness import RUBRIC_TASK, read_reply
from hallu_metrics.registry import BENCHMARKS
from hallubench.cli import main
from hallubench.core.outputs import MARKDOWN_MARK
from hallubench.reporting.paper_tables import _find, _published, model_key, published_tables

ROOT = Path(__file__).resolve().parents[1]
HALLULENS_TEXT = ROOT.parent / "shared" / "seeds" / "000_4824843e758b09db.txt"  # the HalluLens paper as text
VECTARA_CSV = ROOT.parent / "shared" / "data" / "vectara_leaderboard" / "published_rates_hhem-2.3_1006docs.csv"
GPT_JUDGE = "openai:base_url=http://judge.internal:8000/v1,model=gpt-4o-mini,concurrency=8"
PAPER_JUDGE = "openai:base_url=http://judge.internal:8000/v1,model=meta-llama/Llama-3.1-70B-Instruct"


def test_every_published_file_loads_and_names_declared_metrics():
    """Each published.yaml in the package is read; each column is a metric (and breakdown) its benchmark declares."""
    on_disk = {p.parent.name for p in (ROOT / "hallu_metrics" / "benchmarks").glob("*/published.yaml")}
    assert on_disk == {"precisewikiqa", "longwiki", "nonexistent_refusal", "halueval", "wildhallucinations",
                       "faithfulness", "hhem_summarization"}
    published = _published()
    assert set(published) == on_disk
    for tables in published.values():
        for table in tables:
            benchmark = BENCHMARKS[table.benchmark]
            declared = {m.name for m in benchmark.metrics}
            for column in table.columns:
                assert column.metric.name in declared, (table.source, column.name)
                if column.breakdown:
                    assert column.breakdown[0] in {b.key for b in benchmark.breakdowns}
            assert all(len(row.values) == len(table.columns) for row in table.rows)


# what the papers print (read off the paper text by hand): (--paper name, table source starts with, model, column
# as the paper names it, value as printed)
EXPECTED = [
    ("precisewikiqa", "Table 2", "Llama-3.1-8B-Instruct", "Correct answer rate", 8.73),
    ("precisewikiqa", "Table 2", "GPT-4o", "False refusal rate", 4.13),
    ("longwiki", "Table 3", "GPT-4o", "F1@32", 75.80),
    ("longwiki", "Table 3", "Mistral-Nemo-Instruct-2407", "False Refusal Rate", 0.00),
    ("mixedentities", "Table 4", "Llama-3.1-405B-Instruct", "MixedEntities false acceptance rate", 11.48),
    ("generatedentities", "Table 4", "Mistral-7B-Instruct-v0.3", "GeneratedEntities false acceptance rate", 77.98),
    ("mixedentities", "Appendix", "Gemma-2-9b-it", "Medicine", 0.00),
    ("halueval_summarization", "Table 6", "ChatGPT", "Summa. accuracy", 58.53),
    ("halueval_general", "Table 6", "text-davinci-002", "General accuracy", 87.60),
    ("wildhallucinations", "Table 5", "Claude 3 Haiku", "All", 93.40),
    ("wildhallucinations", "Table 5", "Mistral-7B", "People", 58.87),
    ("wildhallucinations", "Table 4", "GPT-4o", "%Responding", 95.49),
    ("faithfulness", "Table 4", "GPT-4", "delta per step (20%) intrinsic", -0.77),
    ("faithfulness", "Table 4", "Llama3.1-8B", "0% extrinsic", 2.61),
    ("faithfulness", "Table 10", "HHEM-combined", "All Tasks (mean)", 0.51),
    ("faithfulness", "Table 10", "Baseline", "Gold sent-level", 2.64),
    ("hhem_summarization", "vectara", "OpenAI GPT-4o", "Hallucination Rate", 1.5),
    ("hhem_summarization", "vectara", "Llama-3.1-8B-Instruct", "Factual Consistency Rate", 94.6),
]


@pytest.mark.parametrize(("name", "source", "model", "column", "value"), EXPECTED)
def test_shipped_numbers_equal_the_papers(name, source, model, column, value):
    table = next(t for t in published_tables(name) if t.source.startswith(source))
    row = next(r for r in table.rows if r.model == model)
    assert row.values[[c.name for c in table.columns].index(column)] == value


@pytest.mark.skipif(not HALLULENS_TEXT.is_file(),
                    reason="../shared/seeds/000_4824843e758b09db.txt (the HalluLens paper text) is not present")
def test_hallulens_tables_equal_the_paper_text_row_by_row():
    """Every HalluLens row's numbers stand, in order, on the paper text's line for that model in that table."""
    text = HALLULENS_TEXT.read_text(encoding="utf-8").splitlines()
    checked = 0
    for name, first_line in (("precisewikiqa", 91), ("longwiki", 115)):
        for k, row in enumerate(published_tables(name)[0].rows):
            line = text[first_line - 1 + k]
            assert line.startswith(row.model + " |")
            numbers = [float(x) for x in re.findall(r"\d+\.\d+", line.partition("|")[2])]
            assert numbers == list(row.values)
            checked += 1
    mixed, by_domain = published_tables("mixedentities")
    (generated,) = published_tables("generatedentities")
    for k, (m, g, d) in enumerate(zip(mixed.rows, generated.rows, by_domain.rows)):
        line = text[167 + k]  # "Model MixedEntities GeneratedEntities Average", space-separated
        assert line.split()[0] == m.model == g.model
        assert [float(x) for x in line.split()[1:3]] == [m.values[0], g.values[0]]
        line = text[402 + k]  # appendix 9.3.1: "Model Avg. Medicine Animal Plants Bacteria"
        assert line.split()[0] == d.model and [float(x) for x in line.split()[1:]] == list(d.values)
        checked += 1
    assert checked == 39


@pytest.mark.skipif(not VECTARA_CSV.is_file(), reason="the leaderboard copy is not here")
def test_vectara_rates_equal_the_published_csv():
    with VECTARA_CSV.open(encoding="utf-8") as handle:
        published = {r["model"]: r for r in csv.DictReader(handle)}
    (table,) = published_tables("hhem_summarization")
    assert {r.model for r in table.rows} == set(published)
    for row in table.rows:
        csv_row = published[row.model]
        assert row.values == (float(csv_row["hallucination_rate_pct"]), float(csv_row["factual_consistency_rate_pct"]),
                              float(csv_row["answer_rate_pct"]), float(csv_row["avg_summary_words"]))


def _match(name, model, task):
    found = _find(published_tables(name)[0], {"model": model, "task": task})
    return found.model if found else None


@pytest.mark.parametrize(("name", "task", "model", "paper_row"), [
    ("precisewikiqa", "precisewikiqa", "meta-llama/Meta-Llama-3.1-8B-Instruct", "Llama-3.1-8B-Instruct"),
    ("precisewikiqa", "precisewikiqa", "Meta-Llama-3.1-8B-Instruct-Q4_K_M", "Llama-3.1-8B-Instruct"),
    ("precisewikiqa", "precisewikiqa", "llama3_1-8b-instruct", "Llama-3.1-8B-Instruct"),
    ("precisewikiqa", "precisewikiqa", "Llama 3.1 8B Instruct", "Llama-3.1-8B-Instruct"),
    ("precisewikiqa", "precisewikiqa", "google/gemma-2-9b-it", "Gemma-2-9b-it"),
    ("precisewikiqa", "precisewikiqa", "Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct"),
    ("precisewikiqa", "precisewikiqa", "gpt-4o-2024-08-06", "GPT-4o"),
    ("precisewikiqa", "precisewikiqa", "claude-3-haiku", "Claude-3-haiku"),
    ("wildhallucinations", "wildhallucinations", "gpt-4o-2024-05-13", "GPT-4o"),
    ("wildhallucinations", "wildhallucinations_greedy", "claude-3-haiku-20240307", "Claude 3 Haiku"),
    ("halueval_qa", "halueval_qa", "gpt-3.5-turbo", "ChatGPT"),
    ("halueval_qa", "halueval_qa", "davinci", "GPT-3 (davinci)"),
    ("faithfulness", "faithfulness_rubric", "gpt-4", "GPT-4"),
    ("faithfulness", "faithfulness_rubric_so", "gpt-4", "GPT-4 SO"),
    ("hhem_summarization", "hhem_summarization", "gpt-4o", "OpenAI GPT-4o"),
])
def test_same_model_under_other_spellings_matches(name, task, model, paper_row):
    assert _match(name, model, task) == paper_row


@pytest.mark.parametrize(("name", "task", "model"), [
    ("precisewikiqa", "precisewikiqa", "meta-llama/Llama-3.1-8B"),  # the base model, not the Instruct one
    ("precisewikiqa", "precisewikiqa", "Llama-3.1-8B-Instruct-abliterated"),
    ("precisewikiqa", "precisewikiqa", "gpt-4o-mini"),
    ("precisewikiqa", "precisewikiqa", "gpt-4o-2024-05-13"),  # another GPT-4o snapshot than HalluLens ran
    ("precisewikiqa", "precisewikiqa", "Qwen2-57B-A14B-Instruct"),  # not Qwen2.5-7B once separators go
    ("precisewikiqa", "precisewikiqa", "Qwen2.5-7B"),
    ("precisewikiqa", "precisewikiqa", "claude-3-5-haiku"),
    ("precisewikiqa", "longwiki", "Llama-3.1-8B-Instruct"),  # another benchmark's task
    ("halueval_qa", "halueval_qa_cot", "gpt-3.5-turbo"),  # Table 9's CoT variant, not Table 6
    ("halueval_qa", "halueval_qa", "text-davinci-001"),
    ("wildhallucinations", "wildhallucinations", "Meta-Llama-3-8B-Instruct"),  # the paper names Llama-3-8B only
    ("hhem_summarization", "hhem_summarization", "Mistral-Nemo-Instruct-2407"),  # leaderboard: Mistral-Nemo-Instruct
])
def test_different_models_never_match(name, task, model):
    assert _match(name, model, task) is None


def test_distinct_paper_models_keep_distinct_keys():
    """Names one separator or digit apart stay apart (both ways)."""
    pairs = [("Command R", "Command R+"), ("Llama-3.1-70B-Instruct", "Llama-3.3-70B-Instruct"),
             ("Qwen2.5-7B-Instruct", "Qwen2-57B-Instruct"), ("text-davinci-002", "text-davinci-003"),
             ("GPT-4o", "GPT-4o-mini"), ("Gemma-2-9b-it", "Gemma-2-9b")]
    for a, b in pairs:
        assert model_key(a)[0] != model_key(b)[0] and model_key(b)[0] != model_key(a)[0]
    assert model_key("/models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf") == ("llama-3.1-8b-instruct", "q4_k_m")


def _result(path, model, judge, outcomes):
    records, docs = [{"outcome": o} for o in outcomes], [{"difficulty": 0} for _ in outcomes]
    result = precisewikiqa.BENCHMARK.summarize(records, docs)
    result.update(task="precisewikiqa", model=model, judges={"judge": judge},
                  dataset={"location": "sets/p", "revision": "unpinned", "fingerprint": "sha256:" + "ab" * 32})
    path.write_text(json.dumps(result))
    return path


def _line(output, start):
    return next(line for line in output.splitlines() if line.startswith(start))


def test_result_beside_the_paper_names_the_differing_judge(tmp_path, capsys):
    """8 of 10 refused, 1 of the 2 answers wrong: 80.0 / 50.0 / 10.0 % beside Table 2's 83.09 / 48.37 / 8.73; the
    gpt-4o-mini judge is named against the paper's Llama-3.1-70B-Instruct; a model not in the paper is listed."""
    mine = _result(tmp_path / "mine.json", "meta-llama/Llama-3.1-8B-Instruct", GPT_JUDGE,
                   ["abstained"] * 8 + ["hallucinated", "correct"])
    other = _result(tmp_path / "other.json", "my-finetune-7b", GPT_JUDGE, ["correct"] * 4)
    assert main(["report", "--paper", "precisewikiqa", str(mine), str(other)]) == 0
    out = capsys.readouterr().out
    row = _line(out, "| Llama-3.1-8B-Instruct")
    cells = [c.strip() for c in row.split("|")[2:-1]]
    assert cells[0] == "83.09" and cells[1].startswith("80.0 [")
    assert cells[2] == "48.37" and cells[3].startswith("50.0 [")
    assert cells[4] == "8.73" and cells[5].startswith("10.0 [")
    assert _line(out, "| Llama-3.1-70B-Instruct").count("|") == 8  # paper only: the "yours" cells are empty
    differs = _line(out, "- Llama-3.1-8B-Instruct ← mine.json")
    assert "judge: yours openai:gpt-4o-mini, paper Llama-3.1-70B-Instruct" in differs
    assert "set: yours abababababab" in differs and "decoding: not recorded" in differs
    assert "my-finetune-7b (precisewikiqa, other.json)" in _line(out, "Not in this table")


def test_paper_judge_and_decoding_differences_from_lm_eval_results(tmp_path, capsys):
    """The paper's judge model under another spelling is no difference; a recorded temperature of 0.7 is."""
    data = {
        "results": {"precisewikiqa": {"false_refusal_rate,none": 0.5, "hallucination_rate,none": 0.2,
                                      "correct_rate,none": 0.4}},
        "configs": {"precisewikiqa": {"generation_kwargs": {"temperature": 0.7, "do_sample": True, "top_p": 1.0},
                                      "metadata": {"hallubench_judges": {"judge": PAPER_JUDGE}}}},
        "config": {"model_args": "pretrained=Qwen/Qwen2.5-7B-Instruct"},
        "n-shot": {"precisewikiqa": 0},
        "n-samples": {"precisewikiqa": {"original": 20, "effective": 20}},
        "date": 1717243200.0,
    }
    path = tmp_path / "results_2024.json"
    path.write_text(json.dumps(data))
    assert main(["report", "--paper", "precisewikiqa", str(path)]) == 0
    out = capsys.readouterr().out
    # lm-eval keeps no count of conditional rates: no interval
    row = "| Qwen2.5-7B-Instruct (yours: Qwen/Qwen2.5-7B-Instruct, precisewikiqa) | 13.85 | 50.0 | 85.22 | 20.0 |"
    assert row in out
    differs = _line(out, "- Qwen2.5-7B-Instruct ← results_2024.json")
    assert "judge:" not in differs  # meta-llama/Llama-3.1-70B-Instruct is the paper's judge
    assert "decoding: yours temperature=0.7 (paper 0)" in differs and "top_p" not in differs


def test_paper_alone_without_results(capsys):
    assert main(["report", "--paper", "halueval"]) == 0
    out = capsys.readouterr().out
    for column in ("QA accuracy", "Dialogue accuracy", "Summa. accuracy", "General accuracy"):
        assert f"{column} (paper, %)" in out
    assert "| ChatGPT | 62.59 |" in out and "yours" not in out.split("|", 1)[1]


def test_unknown_benchmark_and_missing_results_are_one_line_errors(capsys):
    assert main(["report", "--paper", "truthfulqa"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--paper truthfulqa" in err and "precisewikiqa" in err
    assert main(["report"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--paper" in err


def test_out_writes_marked_paper_md_and_refuses_foreign_files(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", "--paper", "longwiki", "--out", str(out)]) == 0
    text = (out / "paper.md").read_text()
    assert text.splitlines()[0] == MARKDOWN_MARK and "| GPT-4o | 0.13 | 84.89 | 71.03 | 75.80 |" in text
    assert main(["report", "--paper", "longwiki", "--out", str(out)]) == 0  # its own file: replaced
    (out / "paper.md").write_text("my notes\n")
    assert main(["report", "--paper", "longwiki", "--out", str(out)]) == 2
    assert "not written by hallubench report" in capsys.readouterr().err
    assert (out / "paper.md").read_text() == "my notes\n"


def _pair(kind, expected, share=0.0, progression="none"):
    return {"id": "x", "reference": "r", "hypothesis": "h", "type": kind, "hallucinated_share": share,
            "expected_score": expected, "progression_kind": progression}


def test_breakdown_and_progression_columns_read_from_the_result(tmp_path, capsys):
    """Table 10's per-type residuals come from the result's type breakdown, Table 4's from its progression summary:
    |5-4| = 1.00 (gold full), |5-5| = 0.00, |1-2| = 1.00 (intrinsic), |1-1| = 0.00, mean 0.50; intrinsic progression
    5 at 0% and 2 at 100%, delta per step (2 - 5) / 5 = -0.60; no extrinsic progression pairs: n/a."""
    docs = [_pair("gold_full", 5), _pair("gold_sentence", 5), _pair("intrinsic", 1, 1.0), _pair("extrinsic", 1, 1.0)]
    replies = [4, 5, 2, 1]
    for step, score in enumerate((5, 4, 4, 3, 3, 2)):
        docs.append(_pair("progression", 5 - 4 * step / 5, step / 5, "intrinsic"))
        replies.append(score)
    result = RUBRIC_TASK.summarize([read_reply(f'Reasoning first.\n```json\n{{"score": {r}}}\n```') for r in replies],
                                   docs)
    result.update(task="faithfulness_rubric", model="openai/gpt-4", judges={},
                  dataset={"fingerprint": "sha256:" + "c" * 64})
    path = tmp_path / "gpt4.json"
    path.write_text(json.dumps(result))
    assert main(["report", "--paper", "faithfulness", str(path)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| GPT-4 (yours: openai/gpt-4")]
    table4, table10 = ([c.strip() for c in row.split("|")[2:-1]] for row in rows)
    assert table4 == ["4.90", "5.00", "1.06", "2.00", "-0.77", "-0.60", "4.90", "n/a", "1.29", "n/a", "-0.72", "n/a"]
    assert table10[:8] == ["0.23", "1.00", "0.77", "0.00", "0.43", "1.00", "0.89", "0.00"]
    assert table10[8] == "0.66" and table10[9].startswith("0.50")
    assert "| GPT-4 SO | 4.84 |" in out  # a score-only row: not this (reasoning) result
