"""Empty evidence is said, not silently scored (issue 33, item 5): a source without pages builds no store, a store
without pages is refused when a run opens it, and a LongWiki run whose every evidence lookup came back empty warns
that its precision says nothing (lm-eval and hallubench score alike)."""

import json
import sqlite3

from support import run_cli, write_jsonl

from hallu_metrics.benchmarks.longwiki import BENCHMARK as LONGWIKI
from hallu_metrics.settings import resolve_settings
from hallubench_tasks.judged_task import JudgeFilter

PAGES = [{"title": "Lyon", "text": "Lyon is a city in France. It lies on the Rhone and the Saone."}]
RESPONSE = ("Kaliningrad Oblast is the westernmost federal subject of Russia. Its capital is Kaliningrad. "
            "The region borders Poland and Lithuania.")
DOC = {"id": "lw0", "prompt": "Tell me about Kaliningrad Oblast.", "title": "Kaliningrad Oblast",
       "reference": "Kaliningrad Oblast is an exclave of Russia.", "level": 7}
WARNING = "claims were verified against no evidence"


def test_a_source_without_pages_builds_no_store(tmp_path):
    for name, rows in (("empty", []), ("blank", [{"title": "A", "text": "   "}, {"title": "", "text": "words"}])):
        run = run_cli("knowledge", "build", "--source", write_jsonl(tmp_path / f"{name}.jsonl", rows),
                      "--out", tmp_path / name / "kb")
        assert run.returncode == 2 and "the source gave no page with a title and text" in run.stderr
        assert not (tmp_path / name).exists()  # nothing half-written, not even the folder


def test_a_run_refuses_a_store_without_pages(tmp_path):
    with sqlite3.connect(tmp_path / "enwiki.db") as conn:  # a FActScore-format database with no rows
        conn.execute("CREATE TABLE documents (title PRIMARY KEY, text)")
    conn.close()
    samples = write_jsonl(tmp_path / "s.jsonl", [{"doc_id": 0, "doc": DOC, "resps": [[RESPONSE]]}])
    run = run_cli("score", "--task", "longwiki", "--judge", "rule", "--knowledge", tmp_path / "enwiki.db",
                  "--samples", samples, "--out", tmp_path / "r.json")
    assert run.returncode == 2 and "holds no pages" in run.stderr


def unrelated_store(tmp_path):
    assert run_cli("knowledge", "build", "--source", write_jsonl(tmp_path / "pages.jsonl", PAGES),
                   "--out", tmp_path / "kb").returncode == 0
    return tmp_path / "kb"


def test_score_warns_when_every_evidence_lookup_is_empty(tmp_path):
    kb = unrelated_store(tmp_path)
    samples = write_jsonl(tmp_path / "s.jsonl", [{"doc_id": 0, "doc": DOC, "resps": [[RESPONSE]]}])
    run = run_cli("score", "--task", "longwiki", "--judge", "rule", "--knowledge", kb, "--samples", samples,
                  "--out", tmp_path / "r.json")
    assert run.returncode == 0, run.stderr
    assert WARNING in run.stderr and "check --metadata knowledge / --knowledge" in run.stderr
    lyon = write_jsonl(tmp_path / "lyon.jsonl", [{"doc_id": 0, "doc": {**DOC, "title": "Lyon", "prompt": "Lyon?"},
                                                  "resps": [["Lyon is a city in France. It lies on the Rhone."]]}])
    found = run_cli("score", "--task", "longwiki", "--judge", "rule", "--knowledge", kb, "--samples", lyon,
                    "--out", tmp_path / "r2.json")
    assert found.returncode == 0 and WARNING not in found.stderr


def test_the_lm_eval_filter_warns_too(tmp_path, capsys):
    """The judging filter lm-eval runs (the same records as score's) prints the same warning."""
    kb = unrelated_store(tmp_path)
    settings = resolve_settings(LONGWIKI, "longwiki", {"knowledge": str(kb)}, flags={"judge": "rule"})
    judged = JudgeFilter(LONGWIKI, {"judge": "rule"}, "longwiki", settings=settings).apply([RESPONSE], [DOC])
    assert json.loads(judged[0])["n_claims"] > 0
    assert f"longwiki: warning: all {json.loads(judged[0])['n_claims']} {WARNING}" in capsys.readouterr().err
