"""hallubench's benchmarks as Inspect AI tasks (hallubench/inspect_tasks/): found by name through the package's
``inspect_ai`` entry point, one per lm-eval task of the registry, with the lm-eval task's options, prompt and data;
judged by hallubench's chain (the rule judge, a loopback LLM judge, or Inspect's ``grader`` model role); and a run's
log read back by ``hallubench score`` (the same numbers), ``report`` and ``view``. The models under test are Inspect's
``mockllm/model`` answering each prompt by a function of it, so concurrency cannot reorder the replies; one slow test
runs the ``inspect eval`` command line with a loopback OpenAI-compatible model (``openai-api/loopback/...``)."""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from support import precisewikiqa_chat, run_cli, save_set

from hallu_metrics.registry import BENCHMARKS, TASKS
from hallu_metrics.settings import setting_keys
from hallubench.core.errors import HallubenchError
from hallubench.inspect_tasks import DATASET_KEY, SETTINGS_KEY
from hallubench.inspect_tasks.tasks import TASK_FUNCTIONS

ROOT = Path(__file__).resolve().parents[1]


def mock_model(reply: Callable[[str], str], name: str = "mockllm/model"):
    """Inspect's mock model answering the last user message by ``reply`` (usage set: mockllm would otherwise count
    tokens with a tokenizer it downloads)."""

    def answer(messages, tools, tool_choice, config) -> ModelOutput:
        output = ModelOutput.from_content(name, reply(messages[-1].text))
        output.usage = ModelUsage(input_tokens=3, output_tokens=2, total_tokens=5)
        return output

    return get_model(name, custom_outputs=answer)


def run_inspect(task, model, tmp_path: Path, **kwargs: Any):
    """One in-process Inspect eval, its log in tmp_path/logs; the finished log."""
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none", **kwargs)
    assert log.status == "success", log.error
    return log


def inspect_metrics(log) -> dict[str, float]:
    [scores] = log.results.scores
    return {name: metric.value for name, metric in scores.metrics.items()}


def score_log(log, task: str, tmp_path: Path, *flags: str) -> dict[str, Any]:
    out = tmp_path / f"score_{len(list(tmp_path.glob('score_*.json')))}.json"
    run = run_cli("score", "--task", task, "--samples", log.location, "--out", out, "--max-unreadable", "1", *flags)
    assert run.returncode == 0, run.stderr
    return json.loads(out.read_text())


def assert_same_numbers(inspect_values: dict[str, float], result: dict[str, Any], task: str) -> None:
    """Every metric of the benchmark: Inspect's value and stderr equal score's, and n/a on both or neither."""
    for metric in TASKS[task].metric_names:
        if result[metric] is None:
            assert metric not in inspect_values, metric
            continue
        assert inspect_values[metric] == pytest.approx(result[metric]), metric
        if result["stderr"][metric] is not None:
            assert inspect_values[f"{metric}_stderr"] == pytest.approx(result["stderr"][metric]), metric


# ---------------------------------------------------------------- discovery and options

def test_every_registry_task_is_an_inspect_task_with_its_settings_as_options():
    assert set(TASK_FUNCTIONS) == set(TASKS)
    for name, function in TASK_FUNCTIONS.items():
        probe = ["judge_probe_timeout"] if TASKS[name].judge_roles else []
        assert list(inspect.signature(function).parameters) == [*dict.fromkeys(setting_keys(TASKS[name])), *probe]


def test_the_package_declares_its_inspect_entry_point():
    [entry] = [ep for ep in importlib.metadata.entry_points(group="inspect_ai") if ep.name == "hallubench"]
    assert entry.value == "hallubench.inspect_tasks.tasks"


@pytest.mark.slow
@pytest.mark.parametrize("where", ["checkout", "elsewhere"])
def test_the_entry_point_registers_the_tasks_by_name(where, tmp_path):
    """Inspect finds `hallubench/<task>` by loading the package's `inspect_ai` entry point (a fresh interpreter, so
    nothing registered them before), run from the checkout (where hallubench.egg-info may shadow the install's
    metadata) or from elsewhere (about 10 s: inspect_ai's import)."""
    code = ("import json, sys\nfrom inspect_ai._util.registry import registry_lookup\n"
            "print(json.dumps({t: registry_lookup('task', 'hallubench/' + t) is not None for t in sys.argv[1:]}))")
    names = ["precisewikiqa", "halueval_qa_paired", "wildhallucinations_greedy"]
    found = subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True, timeout=120,
                           check=True, cwd=ROOT if where == "checkout" else tmp_path).stdout
    assert json.loads(found.splitlines()[-1]) == dict.fromkeys(names, True)


PRECISE_REPLIES = {"Q0?": "It is Paris.", "Q1?": "Lyon, I believe.", "Q2?": "I'm sorry, I don't know.",
                   "Q3?": "Paris, in France."}


def precise_answer(prompt: str) -> str:
    return PRECISE_REPLIES[prompt]


def test_a_task_found_by_name_takes_the_lm_eval_options_and_records_them(tmp_path, tiny_set):
    """`inspect eval hallubench/precisewikiqa -T dataset=SET -T judge=rule`: the lm-eval task's prompt (its
    doc_to_text), target and settings; the settings, judge and the set's fingerprint in the log."""
    from hallubench.core.provenance import dataset_fingerprint
    from hallubench_tasks.dataset_loading import load

    log = run_inspect("hallubench/precisewikiqa", mock_model(precise_answer), tmp_path,
                      task_args={"dataset": str(tiny_set("precisewikiqa")), "judge": "rule"})
    assert log.eval.task == "hallubench/precisewikiqa"
    assert log.eval.task_args["dataset"] == str(tiny_set("precisewikiqa"))
    metadata = log.eval.metadata
    assert metadata[SETTINGS_KEY] == {"dataset": str(tiny_set("precisewikiqa")), "dataset_revision": None,
                                      "judge": "rule"}
    docs = load("precisewikiqa", dataset=str(tiny_set("precisewikiqa")))["test"]
    assert metadata[DATASET_KEY]["fingerprint"] == dataset_fingerprint(docs)
    assert [(s.input, s.target) for s in log.samples] == [(d["question"], d["answer"]) for d in docs]
    assert [s.scores["precisewikiqa_judge"].explanation for s in log.samples] == [
        "correct", "hallucinated", "abstained", "correct"]
    assert inspect_metrics(log)["correct_rate"] == 0.5


def test_bad_options_are_refused_in_one_line(tiny_set):
    with pytest.raises(HallubenchError, match="precisewikiqa: -T judge: bad judge spec"):
        TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa")), judge="gpt4")
    with pytest.raises(HallubenchError, match="precisewikiqa: no test set given"):
        TASK_FUNCTIONS["precisewikiqa"]()
    dead = "openai:base_url=http://127.0.0.1:9/v1,model=m"  # nothing listens on port 9
    with pytest.raises(HallubenchError, match="-T judge: judge endpoint .* is unreachable.*judge_probe_timeout=0"):
        TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa")), judge=dead)
    TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa")), judge=dead, judge_probe_timeout=0)
    with pytest.raises(HallubenchError, match="-T judge holds credentials.*api_key_env=VAR"):  # the log keeps -T as is
        TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa")),
                                        judge="openai:base_url=http://user:hunter2@judge:8000/v1,model=m")


# ---------------------------------------------------------------- one test per family: Inspect vs hallubench score

def _rows(name: str, n: int) -> list[dict[str, Any]]:
    columns = {"knowledge": "K.", "question": "Who?", "right_answer": "Ann", "hallucinated_answer": "Bob",
               "document": "The Amazon is a river in South America. It is about 6,400 km long.", "language": "en",
               "metadata": "{'topic': 'geo', 'answer_type': 'place', 'urls': []}", "problem": "Capital of France?",
               "answer": "Paris", "reference": "A calm park plan.", "hypothesis": "A park plan.", "type": "intrinsic",
               "hallucinated_share": 0.5, "expected_score": 3.0, "progression_kind": ""}
    return [{column: (f"x{i}" if column == "id" else columns[column]) for column in BENCHMARKS[name].columns}
            for i in range(n)]


# family -> (task, its rows, the model's replies in turn by prompt number, options): one task of each family
FAMILIES: dict[str, tuple[str, Callable[[], list[dict]], list[str], dict[str, str]]] = {
    "hallulens": ("mixedentities", lambda: [
        {"id": f"m{i}", "name": "Aus bus", "domain": "animal", "type": "animal", "prompt": f"Aus bus {i}?"}
        for i in range(3)], ["It is a small beetle of Peru.", "I'm not aware of any animal by that name.",
                             "It lives in wet forests."], {}),
    "halueval": ("halueval_qa", lambda: _rows("halueval_qa", 2), ["Yes", "#Your Judgement#: No", "maybe"], {}),
    "wildhallucinations": ("wildhallucinations", None, [  # rows: the session's tiny set
        "Entity 0 is a place.", "I'm sorry, I could not find any information about it.", "Entity 2 is a river."],
        {"retrieval": "bm25"}),
    "faithfulness": ("faithfulness_rubric", lambda: _rows("faithfulness_rubric", 3),
                     ['{"score": 5}', "Score: 2", "no idea"], {}),
    "hallulens_intrinsic": ("anah_v2_ref", lambda: _rows("anah_v2_ref", 3), [
        "The Amazon is a river in South America.", "The Amazon is about 9,000 km long.", ""], {}),
    "hallulens_extrinsic_proxies": ("simpleqa_hallu", lambda: _rows("simpleqa_hallu", 3),
                                    ["It is Paris.", "Lyon.", "I don't know."], {}),
}


def test_every_family_has_an_inspect_run():
    assert set(FAMILIES) == {b.family for b in BENCHMARKS.values()}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_inspect_and_score_on_its_log_give_the_same_numbers(family, tmp_path, tiny_set):
    """An Inspect run of the family's task (rule judge) and `hallubench score` on its log: the same value and stderr
    of every metric, the verdicts reused from the log, the set's location and fingerprint carried over."""
    task, rows, replies, options = FAMILIES[family]
    dataset = tiny_set(task) if rows is None else save_set(tmp_path / "set", rows())
    prompts: list[str] = []

    def reply(prompt: str) -> str:  # each distinct prompt gets the next reply, whatever order samples run in
        if prompt not in prompts:
            prompts.append(prompt)
        return replies[prompts.index(prompt) % len(replies)]

    log = run_inspect(TASK_FUNCTIONS[task](dataset=str(dataset), **options), mock_model(reply), tmp_path)
    result = score_log(log, task, tmp_path)
    assert result["n"] == len(log.samples)
    if TASKS[task].judge_roles:
        assert result["verdicts"] == {"reused": len(log.samples), "judged": 0}
    assert result["dataset"]["location"] == str(dataset)
    assert result["dataset"]["fingerprint"] == log.eval.metadata[DATASET_KEY]["fingerprint"]
    assert_same_numbers(inspect_metrics(log), result, task)


# ---------------------------------------------------------------- LLM judges: hallubench spec or Inspect's grader role

CHATBOT_BLOCK = re.compile(r"<<<BEGIN CHATBOT[^>]*>>>\n(.*?)\n<<<END", re.S)


def judge_reply(text: str) -> str:
    """A chat model judging PreciseWikiQA's last chatbot block: reasons around the verdict, markdown, and for one
    answer a hedge it keeps after the reminder turn (which holds no block)."""
    answers = CHATBOT_BLOCK.findall(text)
    answer = answers[-1] if answers else ""
    if "is_abstaining" in text:
        abstains = "don't know" in answer
        return (f"The chatbot {'declines' if abstains else 'tries'} to answer.\n```json\n"
                f'{{"is_abstaining": {"true" if abstains else "false"}}}\n```')
    if "Lyon" in answer:
        return "Lyon is not the city the reference names.\n\n**Verdict:** INCORRECT"
    if "Paris" in answer and "France" not in answer:
        return "**CORRECT**. The answer names Paris, as the reference does."
    return "Hard to say: the answer could be read two ways."


def loopback_judge(messages: list[dict]) -> str:
    return judge_reply(messages[-1]["content"])


def test_a_loopback_llm_judge_spec_and_score_agree(tmp_path, tiny_set, loopback_servers):
    server = loopback_servers.chat(loopback_judge)
    spec = f"openai:base_url={server.base_url},model=stub"
    log = run_inspect(TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa")), judge=spec),
                      mock_model(precise_answer), tmp_path)
    calls = len(server.requests)
    assert calls >= 8  # abstention and correctness of every answering item, the reminder turn of the hedged one
    values = inspect_metrics(log)
    assert values["judge_unparseable_rate"] == 0.25 and values["hallucination_rate"] == pytest.approx(1 / 2)
    result = score_log(log, "precisewikiqa", tmp_path)
    assert len(server.requests) == calls  # verdicts reused: no call
    assert_same_numbers(values, result, "precisewikiqa")


def test_the_grader_role_judges_and_score_rejudges_with_another_judge(tmp_path, tiny_set, loopback_servers):
    """`-T judge=inspect --model-role grader=MODEL`: the judge's calls go to Inspect's grader model; `hallubench score`
    reuses its verdicts, and re-judges the log with a hallubench judge spec (a loopback server replying alike) to
    the same numbers."""
    log = run_inspect(TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa")), judge="inspect"),
                      mock_model(precise_answer), tmp_path,
                      model_roles={"grader": mock_model(judge_reply, "mockllm/grader")})
    values = inspect_metrics(log)
    assert values["judge_unparseable_rate"] == 0.25
    assert log.eval.metadata["hallubench_judges"] == {"judge": "inspect"}
    events = [e for s in log.samples for e in s.events if e.event == "model" and e.role == "grader"]
    assert len(events) >= 8
    assert_same_numbers(values, score_log(log, "precisewikiqa", tmp_path), "precisewikiqa")
    server = loopback_servers.chat(loopback_judge)
    rejudged = score_log(log, "precisewikiqa", tmp_path, "--judge", f"openai:base_url={server.base_url},model=stub")
    assert rejudged["verdicts"]["judged"] == 4 and server.requests
    assert_same_numbers(values, rejudged, "precisewikiqa")


def test_the_grader_judge_outside_inspect_says_what_to_do(tmp_path, tiny_set):
    log = run_inspect(TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa")), judge="inspect"),
                      mock_model(precise_answer), tmp_path,
                      model_roles={"grader": mock_model(judge_reply, "mockllm/grader")})
    run = run_cli("score", "--task", "precisewikiqa", "--samples", log.location, "--out", tmp_path / "r.json",
                  "--rejudge")
    assert run.returncode != 0 and "needs Inspect's model role 'grader'" in run.stderr and "--judge SPEC" in run.stderr


def test_epochs_average_each_samples_defined_values(tmp_path, tiny_set):
    """Two epochs, the second answer of Q1 an abstention: Q1's hallucination rate is its first epoch's (the second
    leaves it undefined, not 0), its false refusal rate the mean of the two; score reads the first epoch."""
    turns: dict[str, int] = {}

    def reply(prompt: str) -> str:
        turns[prompt] = turns.get(prompt, 0) + 1
        return "I'm sorry, I don't know." if prompt == "Q1?" and turns[prompt] == 2 else PRECISE_REPLIES[prompt]

    log = run_inspect(TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa"))), mock_model(reply),
                      tmp_path, epochs=2)
    values = inspect_metrics(log)
    assert values["hallucination_rate"] == pytest.approx(1 / 3)  # Q0, Q1 (epoch 1), Q3 answered; Q1 hallucinated
    assert values["false_refusal_rate"] == pytest.approx((0 + 0.5 + 1 + 0) / 4)
    first = score_log(log, "precisewikiqa", tmp_path)
    assert first["n"] == 4 and first["false_refusal_rate"] == 0.25


# ---------------------------------------------------------------- the command line with an OpenAI-compatible model

CLI_QUESTIONS = {"What is the capital of France?": ("Paris", "It is Paris."),
                 "Who wrote Hamlet?": ("William Shakespeare", "Christopher Marlowe wrote it."),
                 "What is the chemical symbol of gold?": ("Au", "I don't know, sorry."),
                 "Who painted the Mona Lisa?": ("Leonardo da Vinci", "Leonardo da Vinci painted it.")}
cli_chat = precisewikiqa_chat(CLI_QUESTIONS)


@pytest.mark.slow
def test_the_inspect_command_runs_a_loopback_openai_compatible_model_offline(tmp_path, loopback_servers):
    """`inspect eval hallubench/precisewikiqa --model openai-api/loopback/under-test -T judge=openai:...,model=judge`
    (the comma-split judge spec joined back), model and judge served by one loopback server; every other connection
    goes to a dead proxy and tiktoken's cache is empty, so nothing is fetched; `hallubench score` on the log agrees
    (about 10 s: a fresh interpreter importing inspect_ai)."""
    server = loopback_servers.chat(cli_chat)
    rows = [{"id": f"q{i}", "question": q, "answer": gold, "title": "T", "reference": "r", "difficulty": 0}
            for i, (q, (gold, _)) in enumerate(CLI_QUESTIONS.items())]
    dataset = save_set(tmp_path / "set", rows)
    dead = "http://127.0.0.1:9"  # nothing listens on port 9
    env = {**os.environ, "LOOPBACK_BASE_URL": server.base_url, "LOOPBACK_API_KEY": "unused",
           "HTTP_PROXY": dead, "HTTPS_PROXY": dead, "NO_PROXY": "127.0.0.1", "TIKTOKEN_CACHE_DIR": str(tmp_path / "tk")}
    run = subprocess.run([ROOT / ".venv/bin/inspect", "eval", "hallubench/precisewikiqa", "--display", "none",
                          "--model", "openai-api/loopback/under-test", "--log-dir", tmp_path / "logs", "--limit", "3",
                          "-T", f"dataset={dataset}", "-T", f"judge=openai:base_url={server.base_url},model=judge"],
                         capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [log_file] = (tmp_path / "logs").iterdir()
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.eval.model == "openai-api/loopback/under-test"
    assert log.eval.metadata["hallubench_judges"] == {"judge": f"openai:base_url={server.base_url},model=judge"}
    models = [request["model"] for request in server.requests]
    assert models.count("under-test") == 3 and models.count("judge") == len(models) - 3 >= 5
    assert [s.output.completion for s in log.samples] == [reply for _, reply in list(CLI_QUESTIONS.values())[:3]]
    values = inspect_metrics(log)
    assert values["correct_rate"] == pytest.approx(1 / 3) and values["hallucination_rate"] == 0.5
    assert_same_numbers(values, score_log(log, "precisewikiqa", tmp_path), "precisewikiqa")


# ---------------------------------------------------------------- logs: JSON format, report, view

def test_json_logs_report_and_view(tmp_path, tiny_set):
    log = run_inspect(TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa"))),
                      mock_model(precise_answer), tmp_path, log_format="json")
    assert log.location.endswith(".json")
    result = score_log(log, "precisewikiqa", tmp_path)
    assert_same_numbers(inspect_metrics(log), result, "precisewikiqa")
    report = run_cli("report", log.location, "--out", tmp_path / "report")
    assert report.returncode == 0, report.stderr
    table = (tmp_path / "report" / "report.md").read_text()
    assert "| mockllm/model | rule |" in table and "50.0" in table
    view = run_cli("view", tmp_path / "logs", "--out", tmp_path / "view")
    assert view.returncode == 0, view.stderr
    page = (tmp_path / "view" / "view.html").read_text()
    assert "Lyon, I believe." in page and "mockllm/model" in page


def test_a_log_of_another_task_is_refused_in_one_line(tmp_path, tiny_set):
    log = run_inspect(TASK_FUNCTIONS["precisewikiqa"](dataset=str(tiny_set("precisewikiqa"))),
                      mock_model(precise_answer), tmp_path)
    run = run_cli("score", "--task", "simpleqa_hallu", "--samples", log.location, "--out", tmp_path / "r.json")
    assert run.returncode != 0 and "is an Inspect log of precisewikiqa, not of --task simpleqa_hallu" in run.stderr
