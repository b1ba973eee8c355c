"""Bad command-line input is one line and exit code 2, before any model loads or any call is made:
spec values, cache files and ``generate --out`` folders (issue 11). Each row: argv, expected exit
code, expected message fragment; every row also checks that no traceback is printed and that no file
is left behind (or changed) in the working folder."""

from __future__ import annotations

import json
import re
import shutil
import socket
from pathlib import Path

import pytest

from hallubench.cli import main
from hallubench.cli.eval_checks import own_tasks_only

WORK = "work"  # every row runs with this folder (under tmp_path) as its working directory


def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


OPENAI = f"openai:base_url={closed_url()},model=m"
GENERATE = ["generate", "precisewikiqa", "--source", "nosuch", "--n", "1", "--out", "set"]
MIXED = ["generate", "mixedentities", "--n-per-domain", "1", "--domains", "medicine"]
SCORE = ["score", "--task", "precisewikiqa", "--samples"]


def spec_row(spec: str, fragment: str):
    shown = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", spec.split(":", 1)[-1])  # one id in every process (xdist)
    return pytest.param([*GENERATE, "--generator", spec], 2, fragment, id=shown[:60])


def make_inputs(work: Path) -> None:
    """Files the rows point at: a thesis folder, a plain file, caches that are not SQLite databases."""
    (work / "thesis").mkdir()
    (work / "thesis" / "chapter1.tex").write_text("years of work")
    (work / "notes.txt").write_text("keep me")
    (work / "garbage.sqlite").write_bytes(b"this is not a database" * 50)
    (work / "folder.sqlite").mkdir()
    database = b"SQLite format 3\x00" + bytes([0x10, 0x00, 0x02, 0x02]) + b"\x00" * 80  # header only, no pages
    (work / "truncated.sqlite").write_bytes(database)
    doc = {"id": "a", "question": "Q?", "answer": "Paris", "title": "T", "reference": "r", "difficulty": 0}
    (work / "samples_latin1.jsonl").write_bytes(b'{"doc": {"question": "Caf\xe9?"}, "resps": [["x"]]}\n')
    (work / "samples_null.jsonl").write_text(json.dumps({"doc": {**doc, "answer": None}, "resps": [["x"]]}) + "\n")
    (work / "samples_ok.jsonl").write_text(json.dumps({"doc": doc, "resps": [["Paris."]]}) + "\n")
    (work / "samples_flat.jsonl").write_text(json.dumps({"doc": doc, "resps": "Paris."}) + "\n")
    (work / "samples_list.jsonl").write_text(json.dumps({"doc": {**doc, "question": ["Q?"]}, "resps": [["x"]]}) + "\n")
    (work / "samples_deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    for name, result in REPORT_INPUTS.items():
        (work / name).write_text(json.dumps(result))
    page = json.dumps({"title": "Paris", "text": "Paris is the capital of France."})
    (work / "pages_broken.jsonl").write_text(f"{page}\n\n{{broken\n")
    (work / "pages_no_text.jsonl").write_text(f"{page}\n" + json.dumps({"title": "Lyon", "body": "x"}) + "\n")
    (work / "pages_list_title.jsonl").write_text(json.dumps({"title": ["Paris"], "text": "x"}) + "\n")
    (work / "articles_no_markdown.jsonl").write_text(json.dumps({"title": "Paris", "body": "x"}) + "\n")


REPORT_INPUTS = {  # result files of the wrong shape: report names the file and the field
    "no_n.json": {"task": "precisewikiqa"},
    "text_rate.json": {"task": "precisewikiqa", "n": 3, "false_refusal_rate": "high"},
    "flat_breakdown.json": {"task": "precisewikiqa", "n": 2, "breakdowns": {"difficulty": [1, 2]}},
    "text_judges.json": {"task": "precisewikiqa", "n": 1, "judges": "x"},
    "lm_eval_flat.json": {"results": {"precisewikiqa": 5}, "configs": {"precisewikiqa": {}}},
}

CASES = [
    # backend spec values (validated before any model loads or call is made)
    spec_row(f"{OPENAI},timeout=abc", "timeout must be a finite number"),
    spec_row(f"{OPENAI},timeout=1e400", "timeout must be a finite number"),
    spec_row(f"{OPENAI},timeout=0", "timeout must be a finite number > 0"),
    spec_row(f"{OPENAI},concurrency=abc", "concurrency must be a whole number >= 1"),
    spec_row(f"{OPENAI},concurrency=2.5", "concurrency must be a whole number >= 1"),
    spec_row(f"{OPENAI},concurrency=0", "concurrency must be a whole number >= 1"),
    spec_row(f"{OPENAI},backoff=-1", "backoff must be a finite number >= 0"),
    spec_row(f"{OPENAI},max_retries=-2", "max_retries must be a whole number >= 0"),
    spec_row(f"{OPENAI},dead_after=0", "dead_after must be a whole number >= 1"),
    spec_row(f"openai:base_url={closed_url()},model=", "model= has no value"),
    spec_row(f"openai:base_url={closed_url()},model", "expected key=value pairs"),
    spec_row(f"{OPENAI},model=other", "model is given twice"),
    spec_row(f"{OPENAI},timeout=", "timeout= has no value"),
    spec_row(f"openai:base_url={closed_url()},model=none", "model must be text"),
    spec_row("openai:base_url=http://user:hunter2@/v1,model=m", "bad base_url"),
    spec_row("hf:pretrained=x,batch_size=auto", "batch_size must be a whole number >= 1"),
    spec_row("hf:pretrained=x,trust_remote_code=true", "set HALLUBENCH_ALLOW_REMOTE_CODE=1"),
    spec_row("hf:pretrained=x,trust_remote_code=maybe", "trust_remote_code must be true or false"),
    # cache files
    pytest.param(
        [*GENERATE, "--generator", OPENAI, "--cache", "garbage.sqlite"],
        2,
        "cannot open cache garbage.sqlite: file is not a database",
        id="cache-garbage",
    ),
    pytest.param(
        [*GENERATE, "--generator", OPENAI, "--cache", "truncated.sqlite"],
        2,
        "cannot open cache truncated.sqlite",
        id="cache-truncated",
    ),
    pytest.param(
        [*GENERATE, "--generator", OPENAI, "--cache", "folder.sqlite"],
        2,
        "cache folder.sqlite is a folder",
        id="cache-folder",
    ),
    pytest.param(
        [*GENERATE, "--generator", OPENAI, "--cache", "notes.txt/calls.sqlite"],
        2,
        "cannot open cache notes.txt/calls.sqlite",
        id="cache-below-a-file",
    ),
    pytest.param(
        [*GENERATE, "--generator", OPENAI, "--cache", "/sys/hallubench/calls.sqlite"],
        2,
        "cannot open cache /sys/hallubench/calls.sqlite",
        id="cache-unwritable",
    ),
    # generate --out
    pytest.param([*MIXED, "--out", "thesis", "--overwrite"], 2, "not a hallubench test set", id="out-foreign-folder"),
    pytest.param([*MIXED, "--out", "thesis"], 2, "already exists (pass --overwrite", id="out-existing-folder"),
    pytest.param([*MIXED, "--out", "notes.txt", "--overwrite"], 2, "is a file; expected a folder", id="out-file"),
    pytest.param([*MIXED, "--out", "notes.txt/set"], 2, "is a file, not a folder", id="out-below-a-file"),
    pytest.param([*MIXED, "--out", "/sys/hallubench/set"], 2, "cannot write in /sys", id="out-unwritable"),
    # score: samples files and outputs (checked before any judging)
    pytest.param([*SCORE, "samples_latin1.jsonl", "--out", "r.json"], 2, "is not UTF-8 text", id="score-not-utf8"),
    pytest.param(
        [*SCORE, "samples_null.jsonl", "--out", "r.json"], 2, "doc fields ['answer'] are null", id="score-null-answer"
    ),
    pytest.param([*SCORE, "samples_ok.jsonl", "--out", "thesis"], 2, "is an existing folder", id="score-out-folder"),
    pytest.param(
        [*SCORE, "samples_ok.jsonl", "--out", "r.json", "--plot", "."], 2, "expected a file name", id="score-plot-dot"
    ),
    pytest.param(
        [*SCORE, "samples_ok.jsonl", "--out", "r.json", "--plot", "/sys/x/p.png"],
        2,
        "cannot write in",
        id="score-plot-unwritable",
    ),
    pytest.param(
        [*SCORE, "samples_ok.jsonl", "--out", "r.json", "--judge", "gpt5"], 2, "bad judge spec", id="score-bad-judge"
    ),
    pytest.param([*SCORE, "samples_flat.jsonl", "--out", "r.json"], 2, "'resps' must be lm-eval's list",
                 id="score-resps-text"),
    pytest.param([*SCORE, "samples_list.jsonl", "--out", "r.json"], 2, "doc field 'question' must be str, got list",
                 id="score-list-question"),
    pytest.param([*SCORE, "samples_deep.jsonl", "--out", "r.json"], 2, "is not an lm-eval sample line",
                 id="score-deep-json"),
    pytest.param([*SCORE, "samples_ok.jsonl", "--out", "r.json", "--judge-role", "judge_grader=rule"], 2,
                 "has no such judge role", id="score-judge-role-typo"),
    # report: result files of the wrong shape
    pytest.param(["report", "no_n.json"], 2, "no_n.json: not a valid hallubench RESULT.json: $: 'n' is a required",
                 id="report-missing-n"),
    pytest.param(["report", "text_rate.json"], 2, "$.false_refusal_rate: 'high' is not of type", id="report-text-rate"),
    pytest.param(["report", "flat_breakdown.json"], 2, "$.breakdowns.difficulty[1]: 2 is not of type 'object'",
                 id="report-flat-breakdown"),
    pytest.param(["report", "text_judges.json"], 2, "$.judges: 'x' is not of type 'object'", id="report-text-judges"),
    pytest.param(["report", "lm_eval_flat.json"], 2, "not a valid lm-eval results file: $.results.precisewikiqa",
                 id="report-lm-eval-flat"),
    # knowledge build: source files (errors name the file, the line and the field; nothing is written)
    pytest.param(["knowledge", "build", "--source", "pages_broken.jsonl", "--out", "kb"], 2,
                 "pages_broken.jsonl:3: not a JSON object (Expecting property name", id="knowledge-broken-line"),
    pytest.param(["knowledge", "build", "--source", "pages_no_text.jsonl", "--out", "kb"], 2,
                 "pages_no_text.jsonl:2: no 'text' field", id="knowledge-missing-field"),
    pytest.param(["knowledge", "build", "--source", "pages_list_title.jsonl", "--out", "kb"], 2,
                 "pages_list_title.jsonl:1: 'title' must be text, got list", id="knowledge-list-title"),
    pytest.param(["generate", "precisewikiqa", "--source", "articles_no_markdown.jsonl", "--n", "1", "--out", "set",
                  "--generator", OPENAI], 2, "articles_no_markdown.jsonl:1: no 'markdown' field",
                 id="generate-source-field"),
    # eval: mistakes caught before lm-eval loads a model
    pytest.param(
        ["eval", "--model", "hf", "--tasks", "precisewikqa"], 2, "did you mean precisewikiqa", id="eval-task-typo"
    ),
    pytest.param(
        ["eval", "--model", "hf", "--tasks", "nosuch_task_at_all"],
        2,
        "unknown task 'nosuch_task_at_all'",
        id="eval-unknown-task",
    ),
    pytest.param(
        ["eval", "--model", "hf", "--tasks", "precisewikiqa", "--metadata", '{"dataset": "missing/dir/x"}'],
        2,
        "no such file or folder",
        id="eval-missing-dataset",
    ),
]


@pytest.mark.parametrize("argv, code, fragment", CASES)
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, argv, code, fragment):
    """The run stops with the expected exit code and one error line holding the fragment, no traceback,
    and the working folder is exactly as before (nothing created, nothing removed)."""
    if any(arg.startswith("/sys/") for arg in argv) and not Path("/sys").is_dir():
        pytest.skip("needs a read-only /sys")
    work = tmp_path / WORK
    work.mkdir()
    make_inputs(work)
    monkeypatch.chdir(work)
    monkeypatch.delenv("HALLUBENCH_ALLOW_REMOTE_CODE", raising=False)
    before = {p: (p.stat().st_size if p.is_file() else -1) for p in work.rglob("*")}
    # eval rows: lm-eval's task index over hallubench's tasks only (its ~15k built-in ones take 10-30 s to index;
    # test_contract.py's one full-index test, in the slow set, checks the typo hints against them)
    with own_tasks_only(argv[0] == "eval"):
        assert main(argv) == code
    stderr = capsys.readouterr().err
    errors = [line for line in stderr.splitlines() if line.startswith("hallubench: error:")]
    assert len(errors) == 1 and fragment in errors[0], stderr
    assert "Traceback" not in stderr
    assert {p: (p.stat().st_size if p.is_file() else -1) for p in work.rglob("*")} == before
    shutil.rmtree(work)
