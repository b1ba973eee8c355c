"""Nothing of the user's is overwritten (issue 24, items 1-4): one table of (command, pre-existing user file, expected
refusal) in which the file must be byte-for-byte unchanged afterwards; hallubench's own earlier outputs are replaced
without --overwrite; a saved set that lm-eval read (datasets' cache files) is still recognised as hallubench's; the
temporaries of killed runs are removed (a moved-aside test set put back) by the next run of the same command."""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from support import save_generated_set

from hallu_metrics.benchmarks.precisewikiqa import BENCHMARK as PRECISEWIKIQA
from hallubench.cli import main
from hallubench.core.outputs import remove_stale_temporaries

ROWS = [{"id": f"q{i}", "question": f"What is item {i}?", "answer": "Paris", "title": "France", "reference": "r",
         "difficulty": i} for i in range(3)]


def dead_pid() -> int:
    """The pid of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def write_samples(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"doc_id": i, "doc": row, "resps": [["Paris."]]}) + "\n"
                            for i, row in enumerate(ROWS)), encoding="utf-8")
    return path


def user_sqlite(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE mine (x)")
        conn.execute("INSERT INTO mine VALUES ('precious')")
    conn.close()
    return path


def user_png(path: Path) -> Path:
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + bytes(17) + b"\0\0\0\0IEND\xaeB`\x82")
    return path


def score(work: Path, *args: str) -> int:
    return main(["score", "--task", "precisewikiqa", "--judge", "rule", "--samples", str(work / "s.jsonl"), *args])


def result_file(work: Path) -> Path:
    """A RESULT.json written by hallubench score (an input of report)."""
    assert score(work, "--out", str(work / "result.json")) == 0
    return work / "result.json"


def report(work: Path, *args: str) -> int:
    return main(["report", str(result_file(work)), "--out", str(work / "rep"), *args])


def knowledge(work: Path, *args: str) -> int:
    pages = work / "pages.jsonl"
    pages.write_text(json.dumps({"title": "France", "text": "France is a country in Europe. Paris is its capital."})
                     + "\n", encoding="utf-8")
    return main(["knowledge", "build", "--source", str(pages), *args])


# (case, pre-existing file (relative to the work folder) -> how to make it, command, expected message fragment)
REFUSALS = [
    ("score --out names its own samples", "s.jsonl", None,
     lambda w: score(w, "--out", str(w / "s.jsonl"), "--overwrite"), "is also an input of this run"),
    ("score --out is a knowledge store", "kb/knowledge.db", user_sqlite,
     lambda w: score(w, "--out", str(w / "kb/knowledge.db")), "was not written by hallubench score"),
    ("score --out is the knowledge store the run reads", "kb/knowledge.db", user_sqlite,
     lambda w: score(w, "--knowledge", str(w / "kb/knowledge.db"), "--out", str(w / "kb/knowledge.db"), "--overwrite"),
     "is also an input of this run"),
    ("score --out is a user's JSON", "mine.json", lambda p: p.write_text('{"mine": 1}\n'),
     lambda w: score(w, "--out", str(w / "mine.json")), "pass --overwrite"),
    ("score --plot is a user's PNG", "photo.png", user_png,
     lambda w: score(w, "--out", str(w / "r.json"), "--plot", str(w / "photo.png")), "--plot"),
    ("score --plot is --out", "r.png", None,
     lambda w: score(w, "--out", str(w / "r.png"), "--plot", str(w / "r.png")), "choose two different files"),
    ("report --out holds a user's report.md", "rep/report.md", lambda p: p.write_text("# my notes\n"),
     lambda w: report(w), "was not written by hallubench report"),
    ("report --out holds a user's report.csv", "rep/report.csv", lambda p: p.write_text("a,b\n1,2\n"),
     lambda w: report(w), "report.csv exists"),
    ("report --out holds a user's plot", "rep/precisewikiqa_difficulty.png", user_png,
     lambda w: report(w), "precisewikiqa_difficulty.png exists"),
    ("knowledge build --overwrite over a user's database", "mydata.db", user_sqlite,
     lambda w: knowledge(w, "--out", str(w / "mydata.db"), "--overwrite"), "not a file hallubench built"),
    ("knowledge build --overwrite over a user's title index", "kb/knowledge.db.titles.fts.sqlite", user_sqlite,
     lambda w: knowledge(w, "--out", str(w / "kb"), "--overwrite"), "not a file hallubench built"),
]


@pytest.mark.parametrize("case, existing, make, command, fragment", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_user_file_is_refused_and_left_unchanged(tmp_path, capsys, case, existing, make, command, fragment):
    write_samples(tmp_path / "s.jsonl")
    target = tmp_path / existing
    target.parent.mkdir(parents=True, exist_ok=True)
    if make is not None:
        make(target)
    before = target.read_bytes() if target.exists() else None
    capsys.readouterr()
    assert command(tmp_path) == 2
    err = capsys.readouterr().err.strip()  # report's case first writes its input with score: earlier lines
    assert err.count("hallubench: error:") == 1 and err.splitlines()[-1].startswith("hallubench: error: "), err
    assert fragment in err.splitlines()[-1]
    assert (target.read_bytes() if target.exists() else None) == before


def test_score_replaces_its_own_result_and_plot_without_overwrite(tmp_path):
    write_samples(tmp_path / "s.jsonl")
    out, plot = tmp_path / "r.json", tmp_path / "r.png"
    assert score(tmp_path, "--out", str(out), "--plot", str(plot)) == 0
    assert json.loads(out.read_text())["written_by"] == "hallubench score"
    first = out.stat().st_mtime_ns
    assert score(tmp_path, "--out", str(out), "--plot", str(plot)) == 0
    assert out.stat().st_mtime_ns >= first and plot.stat().st_size > 0


def test_overwrite_replaces_a_user_file_that_is_not_an_input(tmp_path):
    write_samples(tmp_path / "s.jsonl")
    mine = tmp_path / "mine.json"
    mine.write_text('{"mine": 1}\n')
    assert score(tmp_path, "--out", str(mine), "--overwrite") == 0
    assert json.loads(mine.read_text())["task"] == "precisewikiqa"


def test_report_replaces_its_own_folder_and_refuses_an_input_as_output(tmp_path, capsys):
    write_samples(tmp_path / "s.jsonl")
    assert report(tmp_path) == 0
    assert (tmp_path / "rep/report.md").read_text().startswith("<!-- written by hallubench -->\n")
    assert report(tmp_path) == 0  # its own report.md, report.csv and PNGs
    source = tmp_path / "rep" / "report.csv"
    source.write_text(json.dumps(json.loads((tmp_path / "result.json").read_text())))  # a result named report.csv
    capsys.readouterr()
    assert main(["report", str(source), "--out", str(tmp_path / "rep"), "--overwrite"]) == 2
    assert "is also an input of this run" in capsys.readouterr().err


def test_knowledge_build_overwrites_only_its_own_store(tmp_path):
    assert knowledge(tmp_path, "--out", str(tmp_path / "kb")) == 0
    store = tmp_path / "kb" / "knowledge.db"
    assert knowledge(tmp_path, "--out", str(tmp_path / "kb"), "--overwrite") == 0
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT title FROM documents").fetchall() == [("France",)]
    conn.close()


def test_generate_overwrite_accepts_a_set_that_lm_eval_has_read(tmp_path):
    """datasets writes cache-<fingerprint>.arrow into a saved split that a reader maps or filters."""
    out = tmp_path / "set"
    save_generated_set(out, ROWS, PRECISEWIKIQA.columns)
    split = datasets.load_from_disk(str(out))["test"]
    split.map(lambda row: {"question": row["question"].upper()})
    split.filter(lambda row: row["difficulty"] > 0)
    assert any(p.name.startswith("cache-") for p in (out / "test").iterdir())
    save_generated_set(out, ROWS, PRECISEWIKIQA.columns, overwrite=True)
    assert datasets.load_from_disk(str(out))["test"].num_rows == 3


def test_stale_temporaries_of_dead_processes_are_removed_and_announced(tmp_path, capsys):
    pid = dead_pid()
    out = tmp_path / "set"
    stale_dir = tmp_path / f".set.tmp-{pid}"
    (stale_dir / "test").mkdir(parents=True)
    live = tmp_path / f".set.tmp-{os.getpid()}-other"  # not this path's temporary: never touched
    live.mkdir()
    store = tmp_path / "knowledge.db"
    stale_store = tmp_path / f".knowledge.tmp140000-{pid}.db"
    stale_store.write_bytes(b"x" * 1024)
    running = tmp_path / f".knowledge.tmp140000-{os.getpid()}.db"  # a live process's temporary
    running.write_bytes(b"y")
    save_generated_set(out, ROWS, PRECISEWIKIQA.columns)
    remove_stale_temporaries(store)
    err = capsys.readouterr().err
    assert not stale_dir.exists() and not stale_store.exists()
    assert live.exists() and running.exists()
    assert f".set.tmp-{pid}" in err and f".knowledge.tmp140000-{pid}.db" in err and "killed runs" in err


def test_a_set_moved_aside_by_a_killed_run_is_put_back(tmp_path, capsys):
    """A run killed between moving the old set aside and renaming the new one in leaves only ``.set.old-PID``."""
    out = tmp_path / "set"
    save_generated_set(out, ROWS, PRECISEWIKIQA.columns)
    aside = tmp_path / f".set.old-{dead_pid()}"
    out.rename(aside)
    remove_stale_temporaries(out)
    assert out.is_dir() and not aside.exists()
    assert "restored" in capsys.readouterr().err
