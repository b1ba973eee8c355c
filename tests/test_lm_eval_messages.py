"""Refusals where plain lm_eval users meet them (issue 33, items 6 and 7): a hallubench refusal raised while lm-eval
builds a task ends the lm_eval process with one line and exit status 1, not a traceback; the comma-split hint never
takes the keys lm-eval copied from --model_args (the model under test's URL) for pieces of the judge spec, and its
suggestion is a spec that is accepted whole; a spec missing a key names what is missing."""

import json
import os
import subprocess
import sys

import pytest
from support import ROOT, load_task, save_set

from hallu_metrics.judges.kinds import check_judge_spec
from hallubench.core.errors import HallubenchError, TaskRefusal
from hallubench_tasks import TASKS_DIR

ROWS = [{"id": "q0", "question": "Which river flows through Lyon?", "answer": "Rhone", "title": "Lyon",
         "reference": "Lyon lies on the Rhone.", "difficulty": 0}]
UNDER_TEST = "http://127.0.0.1:8000/v1"  # the model under test's server, named in --model_args
JUDGE = "http://127.0.0.1:9000/v1"


def test_an_uncaught_refusal_is_one_line_and_exit_status_1():
    code = "from hallubench.core.errors import TaskRefusal\nraise TaskRefusal('precisewikiqa: bad judge spec')"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert run.stderr == "hallubench: error: precisewikiqa: bad judge spec\n"


def test_a_task_refused_at_build_is_a_plain_refusal(tmp_path):
    with pytest.raises(TaskRefusal) as refused:
        load_task("precisewikiqa", {"dataset": str(save_set(tmp_path / "s", ROWS)), "judge": "gpt5"})
    assert isinstance(refused.value, HallubenchError) and isinstance(refused.value, SystemExit)
    assert refused.value.code.startswith("hallubench: error: ") and "\n" not in refused.value.code
    assert "unknown kind 'gpt5'" in refused.value.code


def test_the_cut_spec_hint_leaves_out_what_model_args_brought(tmp_path, monkeypatch):
    """`lm_eval --model local-completions --model_args base_url=UNDER_TEST,model=m,max_retries=3 --metadata
    judge=openai:base_url=JUDGE,model=j,...`: lm-eval cuts the spec at the commas and merges --model_args into the
    metadata; the hint rebuilds the judge's spec from the judge's own pieces only."""
    model_args = f"base_url={UNDER_TEST},model=m,max_retries=3"
    monkeypatch.setattr(sys, "argv", ["lm_eval", "--model", "local-completions", "--model_args", model_args])
    merged = {"base_url": UNDER_TEST, "model": "j", "max_retries": 3, "concurrency": 8,
              "judge": f"openai:base_url={JUDGE}", "dataset": str(save_set(tmp_path / "s", ROWS))}
    with pytest.raises(TaskRefusal) as refused:
        load_task("precisewikiqa", merged)
    message = str(refused.value)
    assert "model=... is missing (given: base_url)" in message
    assert UNDER_TEST not in message and "max_retries" not in message
    suggested = json.loads(message.split("--metadata '", 1)[1].rsplit("'", 1)[0])
    assert suggested == {"judge": f"openai:base_url={JUDGE},model=j,concurrency=8"}
    check_judge_spec(suggested["judge"])  # pasting the suggestion is accepted


@pytest.mark.slow
def test_plain_lm_eval_prints_a_refusal_as_one_line(tmp_path):
    """The real lm_eval command (its full task index: tens of seconds): no traceback, exit status 1."""
    lm_eval = os.path.join(os.path.dirname(sys.executable), "lm_eval")
    metadata = json.dumps({"dataset": str(save_set(tmp_path / "s", ROWS)), "judge": "gpt5"})
    run = subprocess.run([lm_eval, "--model", "dummy", "--tasks", "precisewikiqa", "--include_path", str(TASKS_DIR),
                          "--metadata", metadata], capture_output=True, text=True, timeout=600, cwd=ROOT,
                         env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.rstrip().splitlines()[-1].startswith("hallubench: error: --metadata judge: bad judge spec 'gpt5'")
