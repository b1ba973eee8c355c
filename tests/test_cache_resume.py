"""The call cache: a run killed half-way keeps its finished calls, and the re-run makes no
repeat calls for them; decoding parameters are part of the key."""

import multiprocessing as mp
import os
import signal
import time
from dataclasses import fields

from hallubench.core.backends import CallCache, ChatRequest, backend_spec, make_client


def answer_a(messages):
    return "a:" + messages[-1]["content"]


def same(messages):
    return "same"


def _run_and_get_killed(base_url, cache_path):
    client = make_client(backend_spec(f"openai:base_url={base_url},model=m,concurrency=1"), CallCache(cache_path))
    client.complete([ChatRequest.from_messages([{"role": "user", "content": f"q{i}"}]) for i in range(20)])


def test_killed_run_resumes_without_repeating_finished_calls(tmp_path, loopback_servers):
    cache_path = tmp_path / "calls.sqlite"
    server = loopback_servers.chat(answer_a, latency=0.05)
    proc = mp.get_context("spawn").Process(target=_run_and_get_killed, args=(server.base_url, cache_path))
    proc.start()
    deadline = time.time() + 60
    while len(server.requests) < 8 and time.time() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    first = len(server.requests)
    assert 8 <= first < 20
    cache = CallCache(cache_path)
    client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m,concurrency=4"), cache)
    out = client.complete([ChatRequest.from_messages([{"role": "user", "content": f"q{i}"}]) for i in range(20)])
    assert [c.text for c in out] == [f"a:q{i}" for i in range(20)]
    # Only calls that had not finished before the kill were made again (at most the one in flight).
    assert client.stats.cached >= first - 1
    assert len(server.requests) - first == 20 - client.stats.cached
    again = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), cache)
    again.complete([ChatRequest.from_messages([{"role": "user", "content": f"q{i}"}]) for i in range(20)])
    assert again.stats.calls == 0 and again.stats.cached == 20


def test_cache_key_covers_model_messages_and_decoding():
    base = ChatRequest.from_messages([{"role": "user", "content": "x"}])
    assert base.cache_key("openai-chat/a") != base.cache_key("openai-chat/b")
    assert base.cache_key("b") != ChatRequest.from_messages([{"role": "user", "content": "y"}]).cache_key("b")
    assert base.cache_key("b") != ChatRequest(base.messages, temperature=0.7, seed=1).cache_key("b")
    assert ChatRequest(base.messages, temperature=0.7, seed=1).cache_key("b") != ChatRequest(
        base.messages, temperature=0.7, seed=2
    ).cache_key("b")
    assert base.cache_key("b") == ChatRequest(base.messages, seed=5).cache_key("b")  # greedy ignores seed


def test_cache_keys_stay_stable_across_versions():
    """Caches written by earlier versions stay valid: the key covers every request field, and two keys
    computed when the format was fixed (sampled, with non-ASCII and a lone surrogate; greedy) still match."""
    assert {field.name for field in fields(ChatRequest)} == {
        "messages", "temperature", "top_p", "max_tokens", "seed", "response_format"  # the last keyed only when set
    }
    sampled = ChatRequest.from_messages(
        [{"role": "system", "content": "Judge."}, {"role": "user", "content": "Is \u00e9t\u00e9 \ud800 ok?"}],
        temperature=0.7, top_p=0.9, max_tokens=64, seed=3,
    )
    greedy = ChatRequest.from_messages([{"role": "user", "content": "x"}], seed=9)
    assert sampled.cache_key("openai-chat/judge") == "648d3a3c9b69c22babb1a8e442472b658ffc346b7e2212cb273ea910d0f2ea8d"
    assert greedy.cache_key("hf/smol") == "4e101195c2a0a4a7544ad359a9a0cb6c12446d97f76b5f055f8139c7ede354fe"


def test_duplicate_requests_are_sent_once(tmp_path, loopback_servers):
    server = loopback_servers.chat(same)
    client = make_client(
        backend_spec(f"openai:base_url={server.base_url},model=m"), CallCache(tmp_path / "c.sqlite")
    )
    out = client.complete([ChatRequest.from_messages([{"role": "user", "content": "x"}])] * 5)
    assert [c.text for c in out] == ["same"] * 5 and len(server.requests) == 1
