"""Reliability and security of the backend, spec, cache and output layers (issue 11): dead endpoints
fail fast, --overwrite never deletes foreign folders, no hidden files are left behind, odd text
(lone surrogates) passes through, secrets never reach error texts, caches shared by processes stay whole."""

from __future__ import annotations

import json
import multiprocessing as mp
import socket
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import datasets
import pytest

from hallubench.core.backends import CallCache, ChatRequest, backend_spec, make_client
from hallubench.core.backends.hf_local import HFLocalBackend
from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import check_output_file, replaced_atomically, write_text_atomic
from hallubench.core.specs import redact
from hallubench_generators.common.publishing import CardInfo, check_output_dir, save_test_set

FEATURES = datasets.Features({"id": datasets.Value("string"), "text": datasets.Value("string")})
CARD = CardInfo("Test set", "cc0-1.0", ["question-answering"], "A test set.")
KEY = "sk-test-0123456789abcdef"


def ok(messages):
    return "ok"


def echo_with_a_lone_surrogate(messages):
    return messages[-1]["content"] + " \udfff"


def answer_a(messages):
    return "a:" + messages[-1]["content"]


def requests(n: int, prefix: str = "q") -> list[ChatRequest]:
    return [ChatRequest.from_messages([{"role": "user", "content": f"{prefix}{i}"}]) for i in range(n)]


def closed_port() -> int:
    """A local port with nothing listening (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --- output folders and files -------------------------------------------------------------------


def test_overwrite_refuses_a_folder_that_is_not_a_test_set(tmp_path):
    """--overwrite on an unrelated folder (a thesis) is refused and the folder is left untouched."""
    thesis = tmp_path / "thesis"
    thesis.mkdir()
    (thesis / "chapter1.tex").write_text("years of work")
    with pytest.raises(HallubenchError, match="not a hallubench test set"):
        check_output_dir(thesis, overwrite=True)
    with pytest.raises(HallubenchError, match="not a hallubench test set"):
        save_test_set([{"id": "1", "text": "x"}], FEATURES, thesis, CARD, overwrite=True)
    assert (thesis / "chapter1.tex").read_text() == "years of work"
    assert listing(tmp_path) == ["thesis", "thesis/chapter1.tex"]


def test_overwrite_replaces_a_test_set_but_not_one_holding_foreign_files(tmp_path):
    """A folder written by save_test_set is replaced by --overwrite, leaving no hidden siblings; once a
    user file is added to it, it is refused."""
    out = tmp_path / "set"
    save_test_set([{"id": "1", "text": "old"}], FEATURES, out, CARD, overwrite=False)
    save_test_set([{"id": "2", "text": "new"}], FEATURES, out, CARD, overwrite=True)
    assert datasets.load_from_disk(str(out))["test"]["text"] == ["new"]
    assert [p.name for p in tmp_path.iterdir()] == ["set"]
    (out / "notes.txt").write_text("mine")
    with pytest.raises(HallubenchError, match="notes.txt, which hallubench did not write"):
        check_output_dir(out, overwrite=True)


def test_out_that_is_a_file_or_unwritable_is_refused(tmp_path):
    """--out naming a file, a path below a file, or an unwritable place is refused by the early check."""
    afile = tmp_path / "results.txt"
    afile.write_text("keep")
    with pytest.raises(HallubenchError, match="is a file; expected a folder"):
        check_output_dir(afile, overwrite=True)
    with pytest.raises(HallubenchError, match="is a file, not a folder"):
        check_output_dir(afile / "set", overwrite=False)
    if Path("/sys").is_dir():
        with pytest.raises(HallubenchError, match="cannot write in /sys"):
            check_output_dir(Path("/sys/hallubench-test/set"), overwrite=False)
    assert afile.read_text() == "keep"


def test_failed_swap_restores_the_previous_set_and_leaves_no_hidden_files(tmp_path, monkeypatch):
    """If moving the new set into place fails, the previous set is put back and .tmp/.old copies are gone."""
    out = tmp_path / "set"
    save_test_set([{"id": "1", "text": "old"}], FEATURES, out, CARD, overwrite=False)
    real_rename = Path.rename

    def failing_rename(self, target):
        if ".tmp-" in self.name:
            raise OSError(28, "No space left on device")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", failing_rename)
    with pytest.raises(HallubenchError, match="No space left on device"):
        save_test_set([{"id": "2", "text": "new"}], FEATURES, out, CARD, overwrite=True)
    monkeypatch.undo()
    assert datasets.load_from_disk(str(out))["test"]["text"] == ["old"]
    assert [p.name for p in tmp_path.iterdir()] == ["set"]


@pytest.mark.parametrize(
    "name, suffix, message",
    [
        (".", None, "expected a file name"),
        ("sub/", None, "expected a file name"),
        ("existing_dir", None, "is an existing folder"),
        ("plot.jpg", ".png", "ending in .png"),
        ("afile/result.json", None, "is a file, not a folder"),
    ],
)
def test_check_output_file_refuses_unusable_paths(tmp_path, monkeypatch, name, suffix, message):
    """score --out / --plot paths that cannot become the named file are refused, creating nothing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "existing_dir").mkdir()
    (tmp_path / "afile").write_text("x")
    before = listing(tmp_path)
    with pytest.raises(HallubenchError, match=message):
        check_output_file(name, "--out", suffix)
    assert listing(tmp_path) == before


def test_check_output_file_accepts_a_new_file_in_a_new_folder(tmp_path):
    """A fresh path below folders that do not exist yet is fine, and the probe leaves nothing behind."""
    check_output_file(tmp_path / "a" / "b" / "plot.png", "--plot", ".png")
    assert listing(tmp_path) == []


def test_atomic_replace_leaves_nothing_on_failure_and_writes_surrogates(tmp_path):
    """A failed write keeps the old file and removes its temporary; text with a lone surrogate is written
    (as a JSON-compatible escape) instead of crashing."""
    target = tmp_path / "result.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), replaced_atomically(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed mid-write")
    assert target.read_text() == "old" and listing(tmp_path) == ["result.json"]
    write_text_atomic(target, json.dumps({"response": "a\ud800b"}, ensure_ascii=False))
    assert json.loads(target.read_text())["response"] == "a\ud800b"
    assert listing(tmp_path) == ["result.json"]


# --- dead endpoints: the circuit breaker --------------------------------------------------------


def test_dead_endpoint_fails_all_calls_within_seconds():
    """24 calls at a closed port with default retries fail in seconds (111 s before the breaker), each with
    one line naming the endpoint; later calls fail at once."""
    url = f"http://127.0.0.1:{closed_port()}/v1"
    client = make_client(backend_spec(f"openai:base_url={url},model=m"), None)
    start = time.monotonic()
    out = client.complete(requests(24))
    assert time.monotonic() - start < 10
    assert all(not c.ok and c.error.startswith(f"endpoint {url} unreachable: ConnectError") for c in out)
    start = time.monotonic()
    assert not client.complete(requests(3, "later"))[0].ok
    assert time.monotonic() - start < 1


def test_dead_replica_is_skipped_while_another_lives(loopback_servers):
    """With base_url=live|dead every call succeeds: the dead replica is dropped after dead_after refusals."""
    live = loopback_servers.chat(ok)
    spec = f"openai:base_url={live.base_url}|http://127.0.0.1:{closed_port()}/v1,model=m,concurrency=2,backoff=0.05"
    client = make_client(backend_spec(spec), None)
    out = client.complete(requests(12))
    assert [c.text for c in out] == ["ok"] * 12 and len(live.requests) == 12


def test_server_errors_and_dropped_connections_keep_their_retries(loopback_servers):
    """5xx replies and connections closed without a reply are transient: even with dead_after=1 they are
    retried (and recovered), never reported as an unreachable endpoint."""
    server = loopback_servers.chat(ok, faults=["500", "503", "429"])
    client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m,dead_after=1,backoff=0"), None)
    assert client.complete(requests(1))[0].text == "ok"
    with socket.socket() as listener:  # accepts, reads, hangs up: a server that drops connections
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)

        def drop_all() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                conn.recv(65536)
                conn.close()

        threading.Thread(target=drop_all, daemon=True).start()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        client = make_client(backend_spec(f"openai:base_url={url},model=m,dead_after=1,max_retries=2,backoff=0"), None)
        error = client.complete(requests(1))[0].error
    assert "unreachable" not in error and "(after 3 attempts)" in error


# --- spec values ----------------------------------------------------------------------------------


def test_trust_remote_code_needs_the_opt_in(monkeypatch):
    """trust_remote_code=true is refused without HALLUBENCH_ALLOW_REMOTE_CODE=1 and passed on with it."""
    monkeypatch.delenv("HALLUBENCH_ALLOW_REMOTE_CODE", raising=False)
    with pytest.raises(HallubenchError, match="set HALLUBENCH_ALLOW_REMOTE_CODE=1"):
        HFLocalBackend.from_args(backend_spec("hf:pretrained=x,trust_remote_code=true").args)
    monkeypatch.setenv("HALLUBENCH_ALLOW_REMOTE_CODE", "1")
    backend = HFLocalBackend.from_args(backend_spec("hf:pretrained=x,trust_remote_code=true").args)
    assert backend.model_args["trust_remote_code"] is True
    assert "trust_remote_code" not in HFLocalBackend.from_args({"pretrained": "x"}).model_args


def test_valid_specs_keep_their_values():
    """Strict parsing keeps what worked: typed values, '=' inside a value, a trailing comma."""
    spec = backend_spec("openai:base_url=http://h/v1?a=b,model=7,concurrency=4,timeout=2.5,")
    assert spec.args == {"base_url": "http://h/v1?a=b", "model": 7, "concurrency": 4, "timeout": 2.5}
    backend = make_client(spec, None).backend
    assert backend.model == "7" and backend.concurrency == 4


# --- cache --------------------------------------------------------------------------------------


def test_lone_surrogates_pass_through_request_cache_and_response(tmp_path, loopback_servers):
    """A prompt and a reply holding a lone surrogate are sent, answered, cached and read back exactly."""
    cache = CallCache(tmp_path / "c.sqlite")
    request = ChatRequest.from_messages([{"role": "user", "content": "judge this: a\ud800b"}])
    server = loopback_servers.chat(echo_with_a_lone_surrogate)
    first = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), cache).complete([request])
    again = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), cache).complete([request])
    assert first[0].text == "judge this: a\ufffdb \udfff"  # the server saw U+FFFD; its reply kept its surrogate
    assert again[0].cached and again[0].text == first[0].text and len(server.requests) == 1


# --- secrets ------------------------------------------------------------------------------------


class EchoKeyServer:
    """Replies with the given statuses in turn, each body echoing the Authorization header it received."""

    def __init__(self, statuses: list[int]):
        self.statuses = statuses
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = server.statuses.pop(0) if server.statuses else 200
                auth = self.headers.get("Authorization", "")
                body = json.dumps({"error": f"bad credentials: {auth}", "api_key": KEY}).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.mark.parametrize("statuses", [[401], [403], [400], [500, 500, 500], [200]])
def test_a_server_echoing_the_key_never_gets_it_into_errors(monkeypatch, statuses):
    """401/403 bodies are not recorded; 400, 5xx and malformed 200 bodies that echo the key are redacted."""
    monkeypatch.setenv("ECHO_KEY", KEY)
    server = EchoKeyServer(list(statuses))
    try:
        spec = f"openai:base_url={server.base_url},model=m,api_key_env=ECHO_KEY,max_retries=2,backoff=0"
        error = make_client(backend_spec(spec), None).complete(requests(1))[0].error
    finally:
        server.close()
    assert error and KEY not in error and "0123456789abcdef" not in error
    if statuses[0] in (401, 403):
        assert "reply body not recorded" in error


def test_redact_removes_tokens_and_configured_secrets():
    """Bearer tokens, sk-/hf_ keys, api_key fields and a configured value are all replaced; prose stays."""
    text = 'Bearer abcdefghijklmnop sk-abcdefgh12345 hf_abcdefghijklmnopqrstu {"api_key": "zz-9999"} s3cr3t-value'
    out = redact(text, ["s3cr3t-value"])
    assert out == 'Bearer [redacted] [redacted] [redacted] {"api_key": "[redacted]"} [redacted]'
    prose = "The bearer of bad news is a risk-averse person."
    assert redact(prose) == prose
    assert redact("at http://bob:hunter2@h:8000/v1|https://x@h2/v1") == (
        "at http://[redacted]@h:8000/v1|https://[redacted]@h2/v1"
    )


def test_url_credentials_stay_out_of_public_specs_and_errors():
    """A password inside base_url never reaches the public spec (results, cards) or an error line."""
    spec = backend_spec(f"openai:base_url=http://bob:hunter2@127.0.0.1:{closed_port()}/v1,model=m,max_retries=0")
    client = make_client(spec, None)
    assert "hunter2" not in client.public_spec
    error = client.complete(requests(1))[0].error
    assert "ConnectError" in error and "hunter2" not in error


# --- processes sharing one cache ----------------------------------------------------------------


def _run_client(base_url: str, cache_path: Path) -> None:
    client = make_client(backend_spec(f"openai:base_url={base_url},model=m,concurrency=4"), CallCache(cache_path))
    assert [c.text for c in client.complete(requests(30))] == [f"a:q{i}" for i in range(30)]


def test_processes_sharing_a_cache_stay_consistent(tmp_path, loopback_servers):
    """Two processes on one cache both finish with correct answers; the cache holds each call once and a
    later run makes no calls. Calls in flight are not shared (docs/reliability.md): 30 to 60 requests."""
    cache_path = tmp_path / "shared.sqlite"
    server = loopback_servers.chat(answer_a, latency=0.01)
    context = mp.get_context("spawn")
    procs = [context.Process(target=_run_client, args=(server.base_url, cache_path)) for _ in range(2)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    assert [proc.exitcode for proc in procs] == [0, 0]
    assert 30 <= len(server.requests) <= 60
    with sqlite3.connect(cache_path) as db:
        assert db.execute("SELECT count(*), count(DISTINCT key) FROM calls").fetchone() == (30, 30)
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    again = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), CallCache(cache_path))
    again.complete(requests(30))
    assert again.stats.calls == 0 and again.stats.cached == 30
