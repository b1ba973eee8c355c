"""Budget caps on ``hallubench score`` (``--max-calls``, ``--max-cost``): refused up front, before any call, when the
plan's estimate passes a cap; stopped cleanly during the run when the new calls would pass it, every verdict so far
kept (result and cache: a re-run with a higher cap makes only the calls that were refused); ``plan`` prices a judge
realtime and through the Batch API."""

import json
import re

import pytest
from loopback_batch import LoopbackBatchServer
from support import run_cli, write_jsonl

from hallu_metrics.judges.accounting import Price
from hallubench.core.backends import ChatRequest
from hallubench.core.backends.base import Completion, Usage
from hallubench.core.backends.budget import Budget

DOCS = [{"id": str(i), "question": f"Which river flows through the town of Example {i}?", "answer": "The Avon",
         "title": f"Example {i}", "reference": "Example is a town on the Avon.", "difficulty": i % 3}
        for i in range(6)]
# hedged answers: the plan's rule stand-in reads them as abstentions (one call each), the judge as answers (two)
HEDGED = ["I don't know for sure, but I think it is the Avon."] * 6


def hedge_reading_judge(messages):
    """A judge that reads a hedged answer as an answer, in the shapes chat models use."""
    if "ABSTAINED" in messages[0]["content"]:
        return 'The chatbot hedges but names a river, so it answers.\n```json\n{"is_abstaining": false}\n```'
    return '**Verdict:** {"verdict": "CORRECT"} (it names the Avon)'


class WordCounter:
    """The plan's token counter without a tokenizer download: words and punctuation marks."""

    name = "words"

    def prompt(self, messages):
        return sum(len(re.findall(r"\w+|[^\w\s]", m["content"])) + 4 for m in messages)

    def text(self, text):
        return len(re.findall(r"\w+|[^\w\s]", text))


@pytest.fixture(autouse=True)
def word_counter(monkeypatch):
    monkeypatch.setattr("hallubench.reporting.plan.load_counter", lambda spec: WordCounter())


@pytest.fixture
def samples(tmp_path):
    return write_jsonl(tmp_path / "samples_precisewikiqa.jsonl",
                       ({"doc_id": i, "doc": d, "resps": [[r]]} for i, (d, r) in enumerate(zip(DOCS, HEDGED))))


def score(samples, out, spec, *extra):
    return run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--judge", spec, "--out", out, *extra)


def test_a_cap_below_the_plan_is_refused_before_any_call(tmp_path, samples):
    with LoopbackBatchServer(hedge_reading_judge) as server:
        spec = f"openai:base_url={server.base_url},model=judge"
        run = score(samples, tmp_path / "r.json", spec, "--max-calls", "5")
        assert run.returncode == 2 and "expects 6 judge calls" in run.stderr and "over --max-calls 5" in run.stderr
        run = score(samples, tmp_path / "r.json", spec, "--max-cost", "0.001", "--price", "judge=10/30")
        assert run.returncode == 2 and "over --max-cost 0.001" in run.stderr
        run = score(samples, tmp_path / "r.json", spec, "--max-cost", "1")
        assert run.returncode == 2 and "--max-cost needs the judge's prices" in run.stderr
        assert server.realtime == [] and not (tmp_path / "r.json").exists()
        assert run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--out", tmp_path / "r.json",
                       "--max-calls", "-1").returncode == 2


@pytest.mark.parametrize("kind", ["openai", "openai-batch"])
def test_a_run_stops_on_budget_keeping_its_verdicts_and_a_rerun_resumes(tmp_path, samples, kind):
    """6 abstention calls, then 3 of the 6 correctness calls fit under --max-calls 9; the plan expected 6."""
    with LoopbackBatchServer(hedge_reading_judge) as server:
        spec = f"{kind}:base_url={server.base_url},model=judge" + (",poll=0.02,quiet=0.1" if "batch" in kind else "")
        run = score(samples, tmp_path / "r.json", spec, "--max-calls", "9")
        assert run.returncode == 2
        assert "stopped on budget: 3 of 6 items judged (9 new calls" in run.stderr
        result = json.loads((tmp_path / "r.json").read_text())
        assert result["budget"]["stopped"] and result["budget"]["items_judged"] == 3
        assert result["counts"]["correct"] == 3 and result["accounting"]["total"]["new"] == 9
        sent = len(server.realtime) + sum(len(b["lines"]) for b in server.batches)
        assert sent == 9
        again = score(samples, tmp_path / "s.json", spec, "--max-calls", "20")
        assert again.returncode == 0, again.stderr
        assert len(server.realtime) + sum(len(b["lines"]) for b in server.batches) == 12  # only the 3 refused
        assert json.loads((tmp_path / "s.json").read_text())["counts"]["correct"] == 6


def test_the_cost_cap_counts_finished_calls_at_their_price_and_reserves_calls_in_flight():
    """$1/M in, $2/M out: a finished 1000 + 100 token call costs $0.0012; a call in flight is reserved at its prompt
    characters / 3 and max_tokens."""
    budget = Budget(max_cost=0.0025, price=lambda role, spec: Price(1, 2, "test"))
    request = ChatRequest.from_messages([{"role": "user", "content": "x" * 2997}], max_tokens=100)
    first = budget.admit(request, "judge", "openai:model=m")
    assert first == pytest.approx((1000 + 2 * 100) / 1e6)
    budget.settle(first, "judge", "openai:model=m", Completion("ok", usage=Usage(1000, 100)))
    assert budget.spent == pytest.approx(0.0012) and budget.reserved == pytest.approx(0)
    assert budget.admit(request, "judge", "openai:model=m") is not None  # 0.0012 + 0.0012 <= 0.0025
    assert budget.admit(request, "judge", "openai:model=m") is None and budget.stopped  # the reserved one counts
    assert budget.refusal().startswith("stopped on budget (--max-cost 0.0025: 2 calls made")


def test_plan_shows_the_realtime_and_the_batch_price(tmp_path, samples, capsys):
    out = tmp_path / "plan.json"
    args = ["plan", "--task", "precisewikiqa", "--samples", samples, "--price", "judge=2/8", "--out", out]
    realtime = run_cli(*args, "--judge", "openai:base_url=http://127.0.0.1:9/v1,model=judge")
    assert realtime.returncode == 0, realtime.stderr
    assert "| realtime cost | batch cost |" in realtime.stdout
    expected = json.loads(out.read_text())["total"]["expected"]
    assert expected["batch_cost_usd"] == pytest.approx(expected["realtime_cost_usd"] / 2)
    assert expected["cost_usd"] == expected["realtime_cost_usd"]
    batch = run_cli(*args, "--overwrite", "--judge", "openai-batch:base_url=http://127.0.0.1:9/v1,model=judge")
    assert batch.returncode == 0, batch.stderr
    assert json.loads(out.read_text())["total"]["expected"]["cost_usd"] == pytest.approx(expected["batch_cost_usd"])
    prices = tmp_path / "prices.yaml"
    prices.write_text("judge: 2/8\nbatch:judge: 0.5/2\n")  # the provider's own batch price
    run_cli(*args[:-4], "--price-file", prices, "--out", out, "--overwrite", "--judge",
            "openai:base_url=http://127.0.0.1:9/v1,model=judge")
    assert json.loads(out.read_text())["total"]["expected"]["batch_cost_usd"] == pytest.approx(
        expected["realtime_cost_usd"] / 4)


def model_and_judge(messages):
    """The model under test answers (the item about Example 2 with "I don't know"); as judge it replies as chat models
    do, and about Examples 0 and 1 first states no verdict (the reminder turn then gets one)."""
    system, last = messages[0]["content"], messages[-1]["content"]
    if "is_abstaining" in system:
        item = messages[1]["content"].rsplit("Now judge", 1)[-1]
        if len(messages) == 2 and ("Example 0" in item or "Example 1" in item):
            return "The reply is short; it is hard to tell what the chatbot meant."
        return '**Judgement:** {"is_abstaining": %s}' % ("true" if "I don't know, sorry." in item else "false")
    if "Grade a chatbot" in last:
        return 'Compared with the reference.\n\n```json\n{"verdict": "CORRECT"}\n```'
    return "I don't know, sorry." if "Example 2" in last else "The Avon."


def test_eval_refuses_a_cap_below_the_plan_and_stops_on_it_mid_run_keeping_its_verdicts(
        tmp_path, monkeypatch, loopback_servers):
    """3 items: the plan (stand-in answers) expects 3 abstention + 3 correctness calls. The run needs 7 (two reminder
    turns, one abstention): under --max-calls 6 its last correctness call is refused; score judges that item later."""
    import sys

    from support import save_set

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", sys.argv[:])
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    save_set(tmp_path / "set", DOCS[:3])
    server = loopback_servers.chat(model_and_judge)
    judge = f"openai:base_url={server.base_url},model=judge,max_retries=0"
    args = ["eval", "--model", "local-chat-completions", "--model_args",
            f"base_url={server.base_url}/chat/completions,model=mut,num_concurrent=2,max_retries=1",
            "--tasks", "precisewikiqa", "--apply_chat_template", "--log_samples", "--output_path", "out",
            "--metadata", json.dumps({"dataset": str(tmp_path / "set"), "judge": judge})]
    refused = run_cli(*args, "--max-calls", "5")
    assert refused.returncode == 2 and "expects 6 judge calls" in refused.stderr
    assert server.requests == []  # no generation, no judge call
    stopped = run_cli(*args, "--max-calls", "6")
    assert stopped.returncode == 2 and "stopped on budget (--max-calls 6: 6 new judge calls" in stopped.stderr
    [results] = (tmp_path / "out").rglob("results_*.json")
    budget = json.loads(results.read_text())["configs"]["precisewikiqa"]["metadata"]["hallubench_budget"]
    assert budget == {**budget, "calls": 6, "stopped": True, "items": 3, "items_judged": 2, "max_calls": 6}
    assert sum(r.get("model") == "judge" for r in server.requests) == 6
    [samples] = (tmp_path / "out" / "unjudged").glob("samples_precisewikiqa_*.jsonl")  # saved, as stderr says
    assert str(samples.relative_to(tmp_path)) in stopped.stderr
    resumed = run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--out", "r.json", "--max-calls", "2")
    assert resumed.returncode == 0, resumed.stderr  # 2 verdicts reused, 1 item judged: its one refused call
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["budget"] == {**result["budget"], "calls": 1, "stopped": False, "items": 1, "items_judged": 1}
    assert result["counts"] == {**result["counts"], "correct": 2, "abstained": 1}
