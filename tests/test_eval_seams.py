"""What an lm-eval run keeps and says (issue 33, items 2, 3 and 8): responses with failed or unreadable verdicts are
saved under the run's --output_path even without --log_samples, and the banner names that file; hallubench eval warns
before any model loads when no samples will be logged or when a model that ships a chat template runs without
--apply_chat_template; an interrupted run says exactly what is kept and where."""

import json
import sys
from pathlib import Path

import pytest
from loopback import LoopbackChatServer
from support import run_cli, save_set

from hallubench.cli.eval_checks import check_eval_args, ships_chat_template
from hallubench.core.backends.cache import default_cache_path
from hallubench_tasks import TASKS_DIR
from hallubench_tasks.judged_task import run_output_folder

ROWS = [{"id": f"q{i}", "question": f"Which river flows through Lyon {i}?", "answer": "Rhone", "title": "Lyon",
         "reference": "Lyon lies on the Rhone.", "difficulty": i} for i in range(3)]


@pytest.mark.parametrize("argv, expected", [
    (["lm_eval", "--tasks", "t", "--output_path", "out/run"], "out/run"),
    (["/venv/bin/lm_eval", "--output_path=out/results.json"], "out"),
    (["/venv/lib/lm_eval/__main__.py", "-o", "out"], "out"),
    (["lm-eval", "run", "--output_path", "o2"], "o2"),
    (["lm_eval", "--tasks", "t"], None),  # no output folder: beside the call cache
    (["pytest", "-o", "addopts=", "tests"], None),  # not lm_eval's command line: -o means something else there
])
def test_the_run_output_folder_is_read_from_lm_evals_command_line(argv, expected):
    assert run_output_folder(argv) == (Path(expected) if expected else default_cache_path().parent)


def test_unreadable_verdicts_keep_the_responses_under_output_path_without_log_samples(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", sys.argv[:1])
    dataset = save_set(tmp_path / "set", ROWS)
    with LoopbackChatServer(lambda messages: "**Hmm.** Hard to say, honestly.") as server:
        judge = f"openai:base_url={server.base_url},model=j,max_retries=0"
        run = run_cli("eval", "--model", "dummy", "--tasks", "precisewikiqa", "--output_path", tmp_path / "out",
                      "--metadata", json.dumps({"dataset": str(dataset), "judge": judge}))
    assert run.returncode == 0, run.stderr
    warning = run.stderr.index("without --log_samples lm-eval keeps no responses")
    [saved] = (tmp_path / "out" / "unjudged").glob("samples_precisewikiqa_*.jsonl")
    assert warning < run.stderr.index(str(saved))  # warned before the run, the file named after judging
    assert f"--samples {saved}" in run.stderr
    lines = [json.loads(line) for line in saved.read_text().splitlines()]
    assert [line["doc"]["id"] for line in lines] == ["q0", "q1", "q2"] and lines[0]["resps"] == [["lol"]]
    rejudged = run_cli("score", "--task", "precisewikiqa", "--samples", saved, "--judge", "rule",
                       "--out", tmp_path / "r.json")
    assert rejudged.returncode == 0, rejudged.stderr


def test_no_warning_with_log_samples(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", sys.argv[:1])
    run = run_cli("eval", "--model", "dummy", "--tasks", "precisewikiqa", "--output_path", tmp_path / "out",
                  "--log_samples", "--metadata", json.dumps({"dataset": str(save_set(tmp_path / "s", ROWS)),
                                                             "judge": "rule"}))
    assert run.returncode == 0, run.stderr
    assert "--log_samples" not in run.stderr and not (tmp_path / "out" / "unjudged").exists()


def model_folder(path: Path, config: dict) -> Path:
    path.mkdir()
    (path / "tokenizer_config.json").write_text(json.dumps(config))
    return path


def test_a_chat_template_is_found_without_loading_the_model(tmp_path):
    with_template = model_folder(tmp_path / "chat", {"chat_template": "{% for m in messages %}{% endfor %}"})
    without = model_folder(tmp_path / "base", {"model_max_length": 2048})
    gguf = tmp_path / "gguf"
    gguf.mkdir()
    (gguf / "m.gguf").write_bytes(b"GGUF\x03\0\0\0" + b"\0" * 64 + b"tokenizer.chat_template" + b"\0" * 64)
    (gguf / "base.gguf").write_bytes(b"GGUF\x03\0\0\0" + b"\0" * 256)
    assert ships_chat_template({"pretrained": str(with_template)})
    assert ships_chat_template({"pretrained": "base-model", "tokenizer": str(with_template)})
    assert not ships_chat_template({"pretrained": str(without)})
    assert ships_chat_template({"pretrained": str(gguf), "gguf_file": "m.gguf"})
    assert not ships_chat_template({"pretrained": str(gguf), "gguf_file": "base.gguf"})
    assert not ships_chat_template({"pretrained": "no-such/model-offline"})


def test_an_instruct_model_without_its_template_is_warned_about_before_it_loads(tmp_path, capsys):
    """hallubench eval's checks (made before lm-eval builds the model) warn; with the template applied they do not."""
    folder = model_folder(tmp_path / "chat", {"chat_template": "{{ messages }}"})
    args = ["--model", "hf", "--model_args", f"pretrained={folder}", "--tasks", "precisewikiqa", "--log_samples",
            "--output_path", str(tmp_path / "o"), "--metadata",
            json.dumps({"dataset": str(save_set(tmp_path / "s", ROWS)), "judge": "rule"})]
    check_eval_args(args, TASKS_DIR)
    assert "ships a chat template but --apply_chat_template is not given" in capsys.readouterr().err
    check_eval_args([*args, "--apply_chat_template"], TASKS_DIR)
    assert "chat template" not in capsys.readouterr().err


@pytest.mark.parametrize("command, generations", [("eval", True), ("score", False)])
def test_an_interrupted_run_says_what_is_kept_and_where(monkeypatch, command, generations):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("hallubench.cli.eval.run_lm_eval", interrupted)
    monkeypatch.setattr("hallubench.cli.score._score", interrupted)
    argv = ["eval", "--tasks", "precisewikiqa"] if command == "eval" else [
        "score", "--task", "precisewikiqa", "--samples", "s.jsonl", "--out", "r.json"]
    run = run_cli(*argv)
    assert run.returncode == 130
    assert f"finished judge calls are cached in {default_cache_path()}" in run.stderr
    assert ("--use_cache" in run.stderr) is generations
    assert "finished model calls are cached" not in run.stderr
