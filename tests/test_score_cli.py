"""`hallubench score` on what lm-eval leaves in its output folder: `--samples` takes files and folders but one run
only (several are refused, newest first), a results file gets a hint, another task's samples are named; RESULT.json
records the set scored (location and revision from lm-eval's run, the fingerprint lm-eval's task computes) and the
time written; LongWiki without a knowledge store names score's own option; no prompt says "a answer"."""

import json
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from support import run_cli, save_set, task_manager

import hallu_metrics.registry  # noqa: F401  (builds every benchmark's checks)
from hallu_metrics.benchmarks import halueval
from hallu_metrics.registry import ALL_CHECKS
from hallubench.cli import main
from hallubench.reporting.scoring import find_samples

ROWS = [  # a unicode answer and a set without a difficulty for one question: the fingerprint must see both as stored
    {"id": "q0", "question": "What is the capital of France?", "answer": "Paris", "title": "France", "reference": "r",
     "difficulty": 0},
    {"id": "q1", "question": "Who painted Guernica?", "answer": "Pablo Picasso — Málaga-born", "title": "Guernica",
     "reference": "r", "difficulty": None},
    {"id": "q2", "question": "What is the chemical symbol of gold?", "answer": "Au", "title": "Gold",
     "reference": "r", "difficulty": 7},
]


def samples_line(row: dict, doc_id: int | None = None, response: str = "Paris.") -> str:
    return json.dumps({"doc_id": doc_id, "doc": row, "resps": [[response]]}, ensure_ascii=False) + "\n"


def write_run(folder: Path, date: str, task: str = "precisewikiqa") -> Path:
    """A samples file named as lm-eval names it, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{date}.jsonl"
    path.write_text("".join(samples_line(row, i) for i, row in enumerate(ROWS)), encoding="utf-8")
    return path


def score(*args: str) -> int:
    return main(["score", "--task", "precisewikiqa", "--judge", "rule", *args])


def task_fingerprint(dataset: str) -> str:
    """The fingerprint lm-eval's task records for ``dataset`` (``configs.<task>.metadata.hallubench_dataset``)."""
    task = task_manager({"dataset": dataset, "judge": "rule"}).load(
        ["precisewikiqa"])["tasks"]["precisewikiqa"]
    return task.config.metadata["hallubench_dataset"]["fingerprint"]


# ---------------------------------------------------------------- A: which samples file


def test_a_glob_over_two_runs_is_refused_listing_them_newest_first(tmp_path, capsys):
    """`--samples out/*/samples_precisewikiqa_*.jsonl` over two models' runs: one line, exit 2, nothing written."""
    older = write_run(tmp_path / "out" / "model-a", "2025-03-01T09-00-00.000001")
    newer = write_run(tmp_path / "out" / "model-b", "2025-03-02T09-00-00.000001")
    assert score("--samples", str(older), str(newer), "--out", str(tmp_path / "r.json")) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"hallubench: error: 2 samples files of precisewikiqa (newest first): {newer}, {older}; score one "
                   f"run at a time, e.g. the newest: --samples {newer}")
    assert not (tmp_path / "r.json").exists()


def test_a_folder_is_searched_for_the_tasks_samples_only(tmp_path, capsys):
    """`--samples out/`: lm-eval's layout, with another task's samples and the results file beside it."""
    samples = write_run(tmp_path / "out" / "model-a", "2025-03-01T09-00-00.000001")
    write_run(tmp_path / "out" / "model-a", "2025-03-01T09-00-00.000001", task="longwiki")
    (tmp_path / "out" / "model-a" / "results_2025-03-01T09-00-00.000001.json").write_text("{}")
    assert score("--samples", str(tmp_path / "out"), "--out", str(tmp_path / "r.json")) == 0, capsys.readouterr().err
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["samples"] == str(samples) and result["n"] == 3


def test_a_folder_without_the_tasks_samples_says_so(tmp_path, capsys):
    write_run(tmp_path / "out" / "model-a", "2025-03-01T09-00-00.000001", task="longwiki")
    assert score("--samples", str(tmp_path / "out"), "--out", str(tmp_path / "r.json")) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"hallubench: error: no samples_precisewikiqa_*.jsonl under {tmp_path / 'out'}"


def test_a_task_names_that_extend_another_are_told_apart(tmp_path):
    """A glob `samples_halueval_qa_*` also matches `halueval_qa_knowledge`'s samples; they are not halueval_qa's."""
    qa = write_run(tmp_path / "out", "2025-03-01T09-00-00.000001", task="halueval_qa")
    knowledge = write_run(tmp_path / "out", "2025-03-01T09-00-00.000001", task="halueval_qa_knowledge")
    assert find_samples([tmp_path / "out"], "halueval_qa") == qa
    assert find_samples([knowledge, qa], "halueval_qa") == qa
    assert find_samples([tmp_path / "out"], "halueval_qa_knowledge") == knowledge
    renamed = knowledge.rename(tmp_path / "samples_halueval_qa_knowledge.jsonl")  # not lm-eval's name: taken as given
    assert find_samples([renamed], "halueval_qa_knowledge") == renamed


def test_a_samples_of_another_task_are_named(tmp_path, capsys):
    other = write_run(tmp_path / "out", "2025-03-01T09-00-00.000001", task="longwiki")
    assert score("--samples", str(other), "--out", str(tmp_path / "r.json")) == 2
    assert capsys.readouterr().err.strip() == (f"hallubench: error: {other} holds samples of longwiki, not of --task "
                                               "precisewikiqa")


def test_a_results_file_passed_as_samples_gets_a_hint(tmp_path, capsys):
    results = tmp_path / "results_2025-03-01T09-00-00.000001.json"
    results.write_text(json.dumps({"results": {"precisewikiqa": {}}, "configs": {"precisewikiqa": {}}}, indent=2))
    assert score("--samples", str(results), "--out", str(tmp_path / "r.json")) == 2
    assert capsys.readouterr().err.strip() == (
        f"hallubench: error: {results} is lm-eval's results file; pass the samples_precisewikiqa_*.jsonl written "
        "beside it with --log_samples"
    )


def test_a_missing_path_is_still_not_found(tmp_path, capsys):
    assert score("--samples", str(tmp_path / "nosuch.jsonl"), "--out", str(tmp_path / "r.json")) == 2
    assert "samples file not found: " in capsys.readouterr().err


# ---------------------------------------------------------------- B: the set scored


def reply(messages: list[dict]) -> str:
    """The model under test, served over loopback HTTP: answers every question the same way."""
    return "Paris."


def test_b_score_records_the_set_as_lm_evals_run_did(tmp_path, monkeypatch, loopback_servers):
    """lm-eval (its own `local-chat-completions` model against a loopback server), then `score --samples out/`:
    location, revision and fingerprint equal `configs.precisewikiqa.metadata.hallubench_dataset`; the date is the
    time written, in UTC."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", sys.argv[:])  # `hallubench eval` hands lm-eval its arguments in sys.argv
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    dataset = str(save_set(tmp_path / "set", ROWS))
    server = loopback_servers.chat(reply)
    proc = run_cli("eval", "--model", "local-chat-completions", "--model_args",
                   f"base_url={server.base_url}/chat/completions,model=mut,num_concurrent=2,max_retries=1",
                   "--tasks", "precisewikiqa", "--apply_chat_template", "--log_samples", "--output_path", "out",
                   "--metadata", json.dumps({"dataset": dataset, "judge": "rule"}))
    assert proc.returncode == 0, proc.stderr[-3000:]
    [results] = (tmp_path / "out").rglob("results_*.json")
    recorded = json.loads(results.read_text())["configs"]["precisewikiqa"]["metadata"]["hallubench_dataset"]
    before = datetime.now(timezone.utc).replace(microsecond=0)
    assert score("--samples", str(tmp_path / "out"), "--out", str(tmp_path / "r.json")) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["dataset"] == {"location": dataset, "revision": "unpinned", "fingerprint": recorded["fingerprint"]}
    assert result["dataset"]["fingerprint"] == task_fingerprint(dataset)
    written = datetime.strptime(result["date"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    assert before <= written <= datetime.now(timezone.utc)


def test_b_docs_logged_out_of_order_give_the_sets_fingerprint(tmp_path):
    """lm-eval on two GPUs logs rank 0's docs, then rank 1's: ordered by doc_id they are the set again. Without
    lm-eval's results file beside them, location and revision are unknown (null)."""
    dataset = str(save_set(tmp_path / "set", ROWS))
    samples = tmp_path / "samples_precisewikiqa_2025-03-01T09-00-00.000001.jsonl"
    samples.write_text("".join(samples_line(ROWS[i], i) for i in (0, 2, 1)), encoding="utf-8")
    assert score("--samples", str(samples), "--out", str(tmp_path / "r.json")) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["dataset"] == {"location": None, "revision": None, "fingerprint": task_fingerprint(dataset)}


def test_b_dataset_option_records_the_set_it_loaded(tmp_path):
    dataset = str(save_set(tmp_path / "set", ROWS))
    assert score("--dataset", dataset, "--out", str(tmp_path / "r.json")) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["dataset"] == {"location": dataset, "revision": "unpinned", "fingerprint": task_fingerprint(dataset)}


def test_b_hand_written_docs_that_are_no_table_have_no_fingerprint(tmp_path):
    """Docs with different keys are not one set's rows: scored, fingerprint null (never a made-up one)."""
    samples = tmp_path / "mine.jsonl"
    samples.write_text(samples_line(ROWS[0]) + samples_line({**ROWS[2], "source": "handmade"}), encoding="utf-8")
    assert score("--samples", str(samples), "--out", str(tmp_path / "r.json")) == 0
    assert json.loads((tmp_path / "r.json").read_text())["dataset"]["fingerprint"] is None


# ---------------------------------------------------------------- C: LongWiki's knowledge store


def test_c_longwiki_without_a_knowledge_store_names_scores_option(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("HALLUBENCH_KNOWLEDGE", raising=False)
    monkeypatch.delenv("HALLUBENCH_KNOWLEDGE_LONGWIKI", raising=False)
    doc = {"id": "lw-1", "prompt": "Tell me about Sirius.", "title": "Sirius", "reference": "r", "level": 7}
    samples = tmp_path / "samples_longwiki.jsonl"
    samples.write_text(samples_line(doc, 0, "Sirius is the brightest star in the night sky."), encoding="utf-8")
    argv = ["score", "--task", "longwiki", "--samples", str(samples), "--judge", "rule", "--out", str(tmp_path / "r")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "longwiki needs a knowledge store for evidence: pass --knowledge PATH" in err and "--metadata" not in err


# ---------------------------------------------------------------- D: prompt wording

# "a" before a word spoken with a vowel sound; "a one-", "a unique", "a user", "a URL" are right as they are.
A_BEFORE_VOWEL = re.compile(r"\b[aA] (?!one\b|one-|uni|use|usu|eu)([aeiou][\w-]*)")


class Fields(dict):
    """An item whose every field reads as ``{name}``, except the evidence passages: a list of one such item (prompts
    format each passage)."""

    def __missing__(self, key: str) -> object:
        return [Fields()] if key == "passages" else "{" + key + "}"

    def get(self, key: str, default: object = None) -> object:
        return self[key]


def check_prompt(check) -> str:
    conversation = check.messages(Fields())
    return "\n".join(message["content"] for message in conversation) + "\n" + check.reminder


def halueval_prompts() -> list[str]:
    """HaluEval's recognition prompt (the model under test judges) for every task and variant."""
    specs = list(halueval.TASKS.values())
    return [
        halueval.recognition_prompt(spec, {f: "x" for f in spec.columns}, "y", variant,
                                    other="z" if variant == "contrast" else None)
        for spec in specs
        for variant in spec.variants()
    ]


def test_d_no_prompt_puts_a_before_a_vowel():
    from hallubench_generators.cli import GENERATORS, generator

    generated = [json.dumps(generator(name).sent_prompts(), ensure_ascii=False) for name in GENERATORS]
    prompts = [check_prompt(check) for check in ALL_CHECKS if check.messages is not None]
    prompts += halueval_prompts() + generated
    assert len(prompts) > 20
    mistakes = sorted({m.group(0) for text in prompts for m in A_BEFORE_VOWEL.finditer(text)})
    assert mistakes == []


def test_help_and_tasks_path_import_nothing_heavy():
    """Every subcommand imports only what it runs (a fresh interpreter): `hallubench --help` and `tasks-path` load no
    torch, datasets, spaCy or lm-eval (they took 34 s under load when the parser imported every generator), and
    `generate mixedentities --help` imports that generator alone."""
    code = ("import json, sys\nfrom hallubench.cli import main\nmain(['tasks-path'])\nmain(['--help'])\n"
            "heavy = sorted(m for m in ('torch', 'datasets', 'spacy', 'lm_eval', 'transformers', 'matplotlib')"
            " if m in sys.modules)\nmain(['generate', 'mixedentities', '--help'])\n"
            "print(json.dumps([heavy, sorted(m for m in sys.modules\n"
            "                              if m.startswith('hallubench_generators.') and m.count('.') == 1)]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    heavy, generators = json.loads(proc.stdout.strip().splitlines()[-1])
    assert heavy == []
    assert "--n-per-domain" in proc.stdout  # that generator's options, and no other generator imported
    others = {f"hallubench_generators.{name}" for name in ("longwiki", "faithfulness", "halueval")}
    assert generators and not others & set(generators)
