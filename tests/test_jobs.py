"""``hallubench jobs`` (issue 37, item 4): one ``hallubench eval`` per model x set, printed for a job runner or run
by index; two jobs run at once as separate processes against one loopback server (model under test and LLM judge,
one shared call cache) and ``hallubench report`` merges their output folders."""

import csv
import json
import os
import shlex
import subprocess
import sys
import time

import pytest
from support import precisewikiqa_chat, run_cli, save_set

from hallubench.reporting.jobs import results_files

QUESTIONS = {"What is the capital of France?": ("Paris", "It is Paris."),
             "Who wrote Hamlet?": ("William Shakespeare", "Christopher Marlowe wrote it."),
             "What is the chemical symbol of gold?": ("Au", "I don't know, sorry."),
             "Who painted the Mona Lisa?": ("Leonardo da Vinci", "Leonardo da Vinci painted it.")}

reply = precisewikiqa_chat(QUESTIONS)


def write_lists(tmp_path, models, sets):
    (tmp_path / "models.txt").write_text("# models under test\n" + "\n".join(models) + "\n")
    (tmp_path / "sets.txt").write_text("\n".join(sets) + "\n\n")
    return ["--models", tmp_path / "models.txt", "--sets", tmp_path / "sets.txt", "--output-root", tmp_path / "out"]


def test_print_gives_one_eval_command_per_model_and_set_each_with_its_folder(tmp_path):
    lists = write_lists(tmp_path, ["pretrained=org/Model-A", "pretrained=org/Model-B,dtype=bfloat16"],
                        ["sets/pwqa-v1", "me/pwqa abc123  # pinned"])
    proc = run_cli("jobs", *lists, "--print", "--", "--model", "vllm", "--tasks", "precisewikiqa",
                   "--metadata", '{"judge": "rule"}', "--log_samples")
    assert proc.returncode == 0, proc.stderr
    commands = [shlex.split(line) for line in proc.stdout.splitlines()]
    assert len(commands) == 4 and all(c[:2] == ["hallubench", "eval"] for c in commands)

    def value(command, flag):
        return command[command.index(flag) + 1]

    assert [value(c, "--model_args") for c in commands] == ["pretrained=org/Model-A"] * 2 + [
        "pretrained=org/Model-B,dtype=bfloat16"] * 2
    assert json.loads(value(commands[1], "--metadata")) == {"judge": "rule", "dataset": "me/pwqa",
                                                            "dataset_revision": "abc123"}
    folders = [value(c, "--output_path") for c in commands]
    assert folders[0] == str(tmp_path / "out" / "org_Model-A" / "sets_pwqa-v1") and len(set(folders)) == 4
    assert value(commands[0], "--use_cache") == f"{folders[0]}/lm-cache"  # lm-eval's responses kept per job
    assert all(value(c, "--tasks") == "precisewikiqa" and "--log_samples" in c for c in commands)


def test_bad_lists_and_arguments_are_one_line_errors(tmp_path):
    lists = write_lists(tmp_path, ["pretrained=a/M", "pretrained=a_M"], ["sets/x"])  # both a_M
    for extra, message in [
        (["--index", "1", "--", "--model", "hf"], "would share the folder"),
        (["--print", "--", "--output_path", "o"], "--output_path is set per job"),
        (["--print", "--", "--metadata", '{"dataset": "d"}'], "leave dataset out of the shared --metadata"),
        (["--print", "--", "--metadata", "judge=rule"], "--metadata must be a JSON object"),
    ]:
        proc = run_cli("jobs", *lists, *extra)
        assert proc.returncode == 2 and message in proc.stderr, (extra, proc.stderr)
    lists = write_lists(tmp_path, ["pretrained=a/M"], ["sets/x"])
    proc = run_cli("jobs", *lists, "--index", "1", "--", "--model", "hf")
    assert proc.returncode == 2 and "--index 1 is outside the list's 1 jobs" in proc.stderr
    (tmp_path / "sets.txt").write_text("# nothing yet\n")
    assert "names nothing" in run_cli("jobs", *lists, "--print").stderr


def test_a_folder_given_to_report_stands_for_the_newest_results_file_of_each_run(tmp_path):
    """A re-run job leaves two results files in its folder: the newer counts; files given directly pass through."""
    old, new, other = (tmp_path / "out/m/a/x/results_1.json", tmp_path / "out/m/a/x/results_2.json",
                       tmp_path / "out/m/b/x/results_1.json")
    for path in (old, new, other):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    os.utime(old, (time.time() - 60, time.time() - 60))
    assert results_files([tmp_path / "out", tmp_path / "r.json"]) == [new, other, tmp_path / "r.json"]
    (tmp_path / "empty").mkdir()
    assert "holds no lm-eval results file" in run_cli("report", tmp_path / "empty").stderr


@pytest.mark.slow  # two lm-eval processes: 15-45 s on a shared 2-core machine
def test_two_jobs_run_in_parallel_and_report_merges_their_folders(tmp_path, loopback_servers):
    rows = [{"id": f"q{i}", "question": q, "answer": gold, "title": "T", "difficulty": i, "reference": "r"}
            for i, (q, (gold, _)) in enumerate(QUESTIONS.items())]
    save_set(tmp_path / "set-a", rows[:2])
    save_set(tmp_path / "set-b", rows[2:])
    server = loopback_servers.chat(reply)
    lists = write_lists(tmp_path, [f"base_url={server.base_url}/chat/completions,model=mut,max_retries=1"],
                        [str(tmp_path / "set-a"), str(tmp_path / "set-b")])
    shared = ["--", "--model", "local-chat-completions", "--tasks", "precisewikiqa", "--apply_chat_template",
              "--log_samples", "--metadata", json.dumps({"judge": f"openai:base_url={server.base_url},model=judge"})]
    env = {**os.environ, "HALLUBENCH_CACHE": str(tmp_path / "calls.sqlite")}  # one call cache for both jobs
    argv = [sys.executable, "-m", "hallubench.cli", "jobs", *map(str, lists)]
    procs = [subprocess.Popen([*argv, "--index", str(i), *shared], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in (0, 1)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
    judged = [r for r in server.requests if r.get("model") == "judge"]
    assert len(judged) == 4 + 3  # set a: 2 abstention + 2 graded; set b: 2 abstention + 1 graded (one abstains)
    [rerun] = [subprocess.run([*argv, "--index", "1", *shared], env=env, capture_output=True, text=True)]
    assert rerun.returncode == 0 and "is done" in rerun.stdout  # a finished job is skipped when the array re-runs

    found = results_files([tmp_path / "out"])
    assert len(found) == 2 and [p.parent.parent.name[-5:] for p in found] == ["set-a", "set-b"]
    report = run_cli("report", tmp_path / "out", "--out", tmp_path / "report")
    assert report.returncode == 0, report.stderr
    table = [line for line in report.stdout.splitlines() if line.startswith("| mut")]
    assert len(table) == 2  # one row per job: the same model on the two sets
    with (tmp_path / "report" / "report.csv").open() as f:
        cells = list(csv.DictReader(f))
    assert {row["model"] for row in cells} == {"mut"} and len({row["set"] for row in cells}) == 2  # by fingerprint
    assert {row["n"] for row in cells} == {"2"}
