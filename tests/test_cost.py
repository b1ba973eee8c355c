"""Token and cost accounting (docs/cost.md): the server's ``usage`` read and stored with each cached call, old cache
entries without usage still answered (and counted as unknown), cached calls counted with no new tokens, prices by
role / spec / model, and score's result and summary line."""

import json
import sqlite3

import pytest
from loopback import LoopbackChatServer, prompt_pieces, rough_usage
from support import write_jsonl

from hallu_metrics.judges.accounting import Price, price_for
from hallubench.cli import main
from hallubench.core.backends import CallCache, ChatRequest, backend_spec, make_client
from hallubench.core.backends.base import Usage
from hallubench.core.backends.openai_http import reply_usage
from hallubench.core.errors import HallubenchError
from hallubench.reporting.costs import gather_prices, parse_price, summary_line

QUESTION = [{"role": "user", "content": "Is Paris in France?"}]


def test_reply_usage_reads_openai_fields_and_tolerates_their_absence():
    body = {"choices": [], "usage": {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020,
                                     "prompt_tokens_details": {"cached_tokens": 64}}}
    assert reply_usage(body) == Usage(1000, 20, 64)
    assert reply_usage({"usage": {"prompt_tokens": 5, "completion_tokens": 1}}) == Usage(5, 1, None)  # vLLM w/o cache
    assert reply_usage({"choices": []}) is None  # a server that sends no usage
    assert reply_usage({"usage": {"prompt_tokens": "5", "completion_tokens": 1}}) is None
    assert reply_usage({"usage": {"prompt_tokens": -1, "completion_tokens": 1}}) is None


def yes_it_is(messages):
    return "Yes, it is."


def never_asked(messages):
    return "never asked"


def test_new_calls_carry_the_servers_usage_and_cached_calls_spend_no_new_tokens(tmp_path, loopback_servers):
    """'Is Paris in France?' is 5 words and marks plus 4 template tokens = 9 prompt tokens; 'Yes, it is.' is 5."""
    assert rough_usage(QUESTION, "Yes, it is.") == (9, 5)
    cache = CallCache(tmp_path / "c.sqlite")
    server = loopback_servers.chat(yes_it_is)
    client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), cache)
    request = ChatRequest.from_messages(QUESTION)
    first = client.complete([request])[0]
    second = client.complete([request])[0]
    client.close()
    assert len(server.requests) == 1
    assert first.usage == Usage(9, 5, 0) and not first.cached
    assert second.cached and second.usage == Usage(9, 5, 0)  # the usage of the call that made the answer
    stats = client.stats
    assert (stats.calls, stats.cached, stats.prompt_tokens, stats.completion_tokens) == (1, 1, 9, 5)
    assert (stats.reused_prompt_tokens, stats.reused_completion_tokens, stats.usage_unknown) == (9, 5, 0)
    assert stats.call_seconds > 0
    cache.close()


def test_old_cache_entries_without_usage_still_answer_and_count_as_unknown(tmp_path, loopback_servers):
    path = tmp_path / "old.sqlite"
    backend = "openai-chat/m"
    request = ChatRequest.from_messages(QUESTION)
    with sqlite3.connect(path) as db:  # the table as hallubench wrote it before usage was recorded
        db.execute("CREATE TABLE calls (key TEXT PRIMARY KEY, backend TEXT, response TEXT NOT NULL)")
        db.execute("INSERT INTO calls VALUES (?, ?, ?)", (request.cache_key(backend), backend, "Yes."))
    cache = CallCache(path)
    server = loopback_servers.chat(never_asked)
    client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), cache)
    completion = client.complete([request])[0]
    client.close()
    assert server.requests == [] and completion.text == "Yes." and completion.usage is None
    assert (client.stats.cached, client.stats.usage_unknown, client.stats.prompt_tokens) == (1, 1, 0)
    assert "usage unknown for 1 calls" in client.stats.summary("m")
    cache.close()


def test_price_arithmetic_and_lookup_order(tmp_path):
    """1.2M prompt tokens at $0.15/M = $0.18, 40k completion tokens at $0.60/M = $0.024: $0.204."""
    assert Price(0.15, 0.60, "x").cost(1_200_000, 40_000) == pytest.approx(0.204)
    role, price = parse_price("judge_claims=3/15")
    assert role == "judge_claims" and (price.input, price.output) == (3.0, 15.0)
    prices_file = tmp_path / "prices.yaml"
    prices_file.write_text("gpt-4o-mini: 0.15/0.60\njudge: {input: 1, output: 2}\n")
    prices = gather_prices(["judge_verify=0.5/1.5"], prices_file, ("judge", "judge_claims", "judge_verify"))
    with pytest.raises(HallubenchError, match="'judge_facts' is not a judge role here"):
        gather_prices(["judge_facts=1/2"], None, ("judge", "judge_claims"))
    spec = "openai:base_url=http://h/v1,model=gpt-4o-mini"
    assert price_for("judge_verify", spec, prices).input == 0.5  # the role's own price first
    assert price_for("judge_claims", spec, prices).input == 0.15  # then the model's
    assert price_for("judge_claims", "openai:base_url=http://h/v1,model=other", prices).input == 1.0  # then judge's
    for bad in ("judge", "judge=0.15", "judge=a/b", "judge=-1/2", "=1/2"):
        with pytest.raises(HallubenchError, match="--price"):
            parse_price(bad)
    prices_file.write_text("- a list\n")
    with pytest.raises(HallubenchError, match="--price-file"):
        gather_prices(None, prices_file)


def test_summary_line_reads_like_the_issue():
    entry = {"calls": 412, "new": 300, "cached": 112, "failed": 0, "prompt_tokens": 1_200_000,
             "completion_tokens": 40_000, "prefix_cached_tokens": 0, "reused_prompt_tokens": 0,
             "reused_completion_tokens": 0, "usage_unknown": 0, "call_seconds": 500.0, "cost_usd": 0.54}
    assert summary_line("judge", entry, 192.0) == ("judge: 412 calls (300 new, 112 cached), 1.2M prompt + 40k "
                                                   "completion tokens, 3 min 12 s, $0.54")


SIMPLEQA_DOCS = [{"id": i, "question": f"In which year did bridge number {i} open to traffic?", "answer": "1932",
                  "golds": ["1932"], "topic": "history", "answer_type": "Date"} for i in range(4)]
REPLIES = ["It opened in 1932.", "1932", "I believe it opened in 1940, after the war.", "I'm not sure."]


def grader(messages):
    """Replies as chat models grade: a letter with reasons, sometimes in markdown."""
    prompt = messages[-1]["content"]
    if "not sure" in prompt:
        return "**C**\n\nThe reply does not attempt an answer."
    return "B" if "1940" in prompt else "Grade: A\nThe reply gives the gold year."


def test_score_records_tokens_and_cost_per_role_and_cached_reruns_cost_nothing(tmp_path, capsys):
    samples = tmp_path / "samples_simpleqa_hallu.jsonl"
    write_jsonl(samples, ({"doc": d, "resps": [[r]]} for d, r in zip(SIMPLEQA_DOCS, REPLIES)))
    with LoopbackChatServer(grader, usage=lambda messages, reply: (1000, 50)) as server:
        spec = f"openai:base_url={server.base_url},model=grader"
        args = ["score", "--task", "simpleqa_hallu", "--samples", str(samples), "--judge", spec,
                "--price", "judge=2/10"]
        assert main([*args, "--out", str(tmp_path / "a.json")]) == 0
        first = capsys.readouterr().out
        assert main([*args, "--out", str(tmp_path / "b.json")]) == 0
        second = capsys.readouterr().out
    assert len(server.requests) == 4
    fresh = json.loads((tmp_path / "a.json").read_text())["accounting"]
    # 4 calls x 1000 prompt tokens at $2/M = $0.008; 4 x 50 completion tokens at $10/M = $0.002
    assert fresh["roles"]["judge"]["spec"] == spec
    total = fresh["total"]
    assert (total["calls"], total["new"], total["cached"]) == (4, 4, 0)
    assert (total["prompt_tokens"], total["completion_tokens"]) == (4000, 200)
    assert total["cost_usd"] == pytest.approx(0.01) and total["cost_complete"]
    assert "judge calls: 4 calls (4 new, 0 cached), 4k prompt + 200 completion tokens" in first and "$0.01" in first
    rerun = json.loads((tmp_path / "b.json").read_text())["accounting"]["total"]
    assert (rerun["calls"], rerun["new"], rerun["cached"], rerun["prompt_tokens"]) == (4, 0, 4, 0)
    assert rerun["cost_usd"] == 0 and rerun["reused_prompt_tokens"] == 4000
    assert "4 calls (0 new, 4 cached), 0 prompt + 0 completion tokens" in second


def test_prompt_tokens_the_server_served_from_its_prefix_cache_are_in_the_accounting(tmp_path, capsys):
    """A server with a prefix cache reports ``prompt_tokens_details.cached_tokens``: the grader's fixed part
    (instructions before the item) comes back cached on every call after the first, and score's result and summary
    line carry the sum the server reported."""
    samples = tmp_path / "samples_simpleqa_hallu.jsonl"
    write_jsonl(samples, ({"doc": d, "resps": [[r]]} for d, r in zip(SIMPLEQA_DOCS, REPLIES)))
    with LoopbackChatServer(grader, prefix_cache=True) as server:
        assert main(["score", "--task", "simpleqa_hallu", "--samples", str(samples), "--judge",
                     f"openai:base_url={server.base_url},model=grader", "--out", str(tmp_path / "a.json")]) == 0
    fixed = len(prompt_pieces(server.requests[0]["messages"][:-1]))  # the system message, before the item
    assert server.cached_tokens[0] == 0 and all(cached > fixed for cached in server.cached_tokens[1:])
    total = json.loads((tmp_path / "a.json").read_text())["accounting"]["total"]
    assert total["prefix_cached_tokens"] == sum(server.cached_tokens)
    assert f"{sum(server.cached_tokens)} prompt tokens from the server's prefix cache" in capsys.readouterr().out


@pytest.mark.slow
def test_local_judge_counts_tokens_with_its_own_tokenizer(tmp_path):
    """The embedded SmolLM2 (GGUF through transformers) reports the chat-templated prompt and the reply in its own
    tokens, as the plan counts them, and stores them with the cached call."""
    from hallubench.reporting.plan import load_counter

    cache = CallCache(tmp_path / "c.sqlite")
    client = make_client(backend_spec("smollm2"), cache)
    messages = [{"role": "user", "content": "Name the capital of France in one word."}]
    completion = client.complete([ChatRequest.from_messages(messages, max_tokens=8)])[0]
    client.close()
    counter = load_counter("smollm2")
    assert completion.usage == Usage(counter.prompt(messages), counter.text(completion.text), None)
    assert 0 < completion.usage.completion_tokens <= 8
    key = ChatRequest.from_messages(messages, max_tokens=8).cache_key(client.backend.identity)
    assert cache.entries([key])[key][1] == completion.usage
    cache.close()
