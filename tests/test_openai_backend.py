"""The OpenAI-compatible backend against a loopback server: retries on injected 5xx / 429 /
timeouts / garbage, clear failure after retries, replicas, secrets kept out of cache keys."""

import base64
import json
import socket
import sqlite3
import threading
import time

import pytest

from hallubench.core.backends import CallCache, ChatRequest, backend_spec, make_client
from hallubench.core.errors import HallubenchError


def echo(messages):
    return "echo:" + messages[-1]["content"]


def echo_too(messages):  # a second server with echo's answers (the session's servers are one per reply function)
    return echo(messages)


def client_for(server, cache=None, **extra):
    args = ",".join(f"{k}={v}" for k, v in {"max_retries": 3, "backoff": 0.01, "timeout": 1, **extra}.items())
    return make_client(backend_spec(f"openai:base_url={server.base_url},model=m,{args}"), cache)


def requests(n):
    return [ChatRequest.from_messages([{"role": "user", "content": f"q{i}"}]) for i in range(n)]


def test_transient_faults_are_retried_until_success(loopback_servers):
    server = loopback_servers.chat(echo, faults=["500", "429", "garbage", "timeout", "503"], hang_seconds=2)
    client = client_for(server, concurrency=1, max_retries=5)
    out = client.complete(requests(2))
    assert [c.text for c in out] == ["echo:q0", "echo:q1"]
    assert client.stats.failed == 0
    assert len(server.requests) == 7  # five injected failures + two answers


def test_persistent_failure_is_reported_not_crashing(loopback_servers):
    server = loopback_servers.chat(echo, faults=["500"] * 10)
    client = client_for(server, concurrency=1, max_retries=2)
    out = client.complete(requests(1))
    assert not out[0].ok and "HTTP 500" in out[0].error and "3 attempts" in out[0].error
    with pytest.raises(HallubenchError, match="failed after retries"):
        client.complete_or_raise(requests(1))


def test_unreachable_endpoint_gives_a_clear_error():
    client = make_client(backend_spec("openai:base_url=http://127.0.0.1:9/v1,model=m,max_retries=1,backoff=0.01"), None)
    with pytest.raises(HallubenchError, match="1 of 1 calls .* failed after retries"):
        client.complete_or_raise(requests(1))


def test_requests_spread_over_replicas(loopback_servers):
    a, b = loopback_servers.chat(echo), loopback_servers.chat(echo_too)
    client = make_client(backend_spec(f"openai:base_url={a.base_url}|{b.base_url},model=m,concurrency=4"), None)
    client.complete(requests(8))
    assert len(a.requests) == 4 and len(b.requests) == 4


def test_api_key_goes_to_the_header_only(tmp_path, monkeypatch, loopback_servers):
    monkeypatch.setenv("MY_KEY", "sk-secret-value-123")
    cache = CallCache(tmp_path / "c.sqlite")
    server = loopback_servers.chat(echo)
    client = client_for(server, cache, api_key_env="MY_KEY")
    client.complete(requests(1))
    assert server.headers[0]["Authorization"] == "Bearer sk-secret-value-123"
    assert "sk-secret" not in client.public_spec
    cache.close()
    assert b"sk-secret" not in (tmp_path / "c.sqlite").read_bytes()


def test_environment_proxy_carries_calls_unless_no_proxy_exempts_the_host(monkeypatch, loopback_servers):
    """HTTP_PROXY is honoured as httpx's clients honour it: a call to an address where nothing listens succeeds
    through the proxy (the loopback server answers the forwarded request, whose Host names the endpoint), and
    fails to connect once NO_PROXY exempts that host."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    endpoint = f"openai:base_url=http://127.0.0.1:{closed}/v1,model=m,max_retries=0"
    proxy = loopback_servers.chat(echo)
    monkeypatch.setenv("HTTP_PROXY", proxy.base_url.rsplit("/v1", 1)[0])
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert make_client(backend_spec(endpoint), None).complete(requests(1))[0].text == "echo:q0"
    assert proxy.headers[0]["Host"] == f"127.0.0.1:{closed}"
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert "ConnectError" in make_client(backend_spec(endpoint), None).complete(requests(1))[0].error
    assert len(proxy.requests) == 1


def test_credentials_in_the_url_are_sent_as_basic_auth(loopback_servers):
    """``user:password@`` in base_url becomes an HTTP basic Authorization header, as httpx sends it."""
    server = loopback_servers.chat(echo)
    url = server.base_url.replace("http://", "http://bob:hunter2@")
    make_client(backend_spec(f"openai:base_url={url},model=m"), None).complete(requests(1))
    assert server.headers[0]["Authorization"] == "Basic " + base64.b64encode(b"bob:hunter2").decode()


@pytest.mark.parametrize(
    "spec, message",
    [
        ("gpt:model=x", "unknown kind"),
        ("openai:model=x", r"base_url=\.\.\. is missing \(given: model\)"),
        ("openai:base_url=ftp://x,model=m", "bad base_url"),
        ("openai:base_url=http://x/v1,model=m,colour=red", "unknown keys"),
        ("openai:base_url=http://x/v1,model=m,api_key=sk-1", "environment variable"),
        ("hf:gguf_file=x", "pretrained=PATH_OR_ID is required"),
    ],
)
def test_bad_specs_are_rejected_with_a_reason(spec, message):
    with pytest.raises(HallubenchError, match=message):
        make_client(backend_spec(spec), None)


class _RawServer:
    """One-shot HTTP server on 127.0.0.1 that answers every POST with ``headers`` then ``chunks`` of the body, one
    every ``gap`` seconds (a server trickling its reply, or sending a huge one)."""

    def __init__(self, body: bytes, chunk: int, gap: float):
        self.body, self.chunk, self.gap, self.requests = body, chunk, gap, 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn):
        with conn:
            try:
                conn.recv(65536)
                self.requests += 1
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(self.body))
                for start in range(0, len(self.body), self.chunk):
                    conn.sendall(self.body[start:start + self.chunk])
                    time.sleep(self.gap)
            except OSError:
                return

    def close(self):
        self.sock.close()


def _reply(text: str) -> bytes:
    return json.dumps({"choices": [{"message": {"content": text}}]}).encode()


def test_timeout_is_a_deadline_for_the_whole_reply_not_per_read():
    """A server trickling a 60-byte reply at 10 bytes every 0.4 s (2.4 s in all) cannot hold a call with
    timeout=1 open: each attempt ends about 1 s after it started."""
    server = _RawServer(_reply("x" * 10), chunk=10, gap=0.4)
    try:
        client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m,timeout=1,max_retries=1,"
                                          "backoff=0.01"), None)
        started = time.monotonic()
        out = client.complete(requests(1))
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert not out[0].ok and "deadline" in out[0].error
    assert elapsed < 2 * 1.5 and server.requests == 2  # two attempts of about 1 s each, not 2 x 2.4 s


def test_a_reply_over_max_reply_bytes_is_refused_not_retried_or_cached(tmp_path):
    server = _RawServer(_reply("y" * 50_000), chunk=8192, gap=0)
    try:
        cache = CallCache(tmp_path / "calls.sqlite")
        client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m,max_reply_bytes=10000,"
                                          "max_retries=3,backoff=0.01"), cache)
        out = client.complete(requests(1))
    finally:
        server.close()
    assert not out[0].ok and "over 10000 bytes" in out[0].error and "max_reply_bytes" in out[0].error
    assert server.requests == 1
    with sqlite3.connect(tmp_path / "calls.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM calls").fetchone() == (0,)


def test_failure_causes_name_each_endpoint_once_with_the_key_variable():
    """score's explanation of failed verdicts: per endpoint and cause, counted; a refused key names the variable the
    judge's spec reads it from."""
    from hallubench.reporting.judge_failures import failure_causes

    errors = [
        "endpoint http://a:1/v1 unreachable: ConnectError: [Errno 111] Connection refused (3 consecutive ...)",
        "endpoint http://a:1/v1 unreachable: ConnectError: [Errno 111] Connection refused (3 consecutive ...)",
        "ConnectError: [Errno 111] Connection refused from http://a:1/v1/chat/completions (after 1 attempts)",
        "HTTP 401 from http://b:2/v1/chat/completions (authentication refused; reply body not recorded)",
        "HTTP 429 from http://b:2/v1/chat/completions (after 6 attempts)",
        "ReadTimeout from http://b:2/v1/chat/completions: no complete reply within the 1 s deadline (after 2 attempts)",
        "something else entirely",
    ]
    specs = {"judge": "openai:base_url=http://b:2/v1,model=m,api_key_env=GRADER_KEY", "judge_claims": "rule"}
    assert failure_causes(errors, specs) == [
        "3 judge calls to http://a:1/v1 failed: unreachable: nothing answers there (is the server running?)",
        "1 judge call to http://b:2/v1 failed: authentication refused (HTTP 401): check the key in $GRADER_KEY",
        "1 judge call to http://b:2/v1 failed: rate-limited (HTTP 429) on every retry: lower concurrency= or raise "
        "max_retries= / backoff=",
        "1 judge call to http://b:2/v1 failed: no complete reply within timeout=120 s: raise timeout= on the judge "
        "spec (for a slow server: concurrency=1,timeout=600)",
        "1 judge call failed: something else entirely",
    ]
