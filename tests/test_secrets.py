"""Secrets are never written (issue #24, secrets): URL credentials in a judge spec do not reach lm-eval's results
metadata or a dataset card, and an API key a server echoes in its reply is redacted before the reply is cached or
used (the same text on the first run and on the cached re-run)."""

import json
import sqlite3
from pathlib import Path

from hallubench.core.backends import CallCache, ChatRequest, backend_spec, make_client
from hallubench.core.specs import REDACTED, redact_known, remember_secret

KEY = "sk-test-0123456789abcdefghij"


def echo_key(messages):
    return f"Your key is {KEY}; the answer is 42."


def test_an_echoed_api_key_is_redacted_before_caching(tmp_path, monkeypatch, loopback_servers):
    monkeypatch.setenv("ECHO_KEY", KEY)
    server = loopback_servers.chat(echo_key)
    spec = backend_spec(f"openai:base_url={server.base_url},model=m,api_key_env=ECHO_KEY,max_retries=0")
    client = make_client(spec, CallCache(tmp_path / "c.sqlite"))
    [first] = client.complete([ChatRequest(messages=[{"role": "user", "content": "hi"}])])
    [again] = client.complete([ChatRequest(messages=[{"role": "user", "content": "hi"}])])
    assert KEY not in first.text and REDACTED in first.text and first.text == again.text and again.cached
    stored = [row[0] for row in sqlite3.connect(tmp_path / "c.sqlite").execute("SELECT response FROM calls")]
    assert stored and all(KEY.encode() not in (s if isinstance(s, bytes) else s.encode()) for s in stored)


def test_url_credentials_never_reach_results_metadata_or_cards(tiny_set):
    from argparse import Namespace

    from support import task_manager

    from hallubench_generators.cli import generator, reproducibility

    judge = "openai:base_url=http://alice:hunter2pw@127.0.0.1:9/v1,model=m"
    task = task_manager({
        "dataset": str(tiny_set("precisewikiqa")), "judge": judge, "judge_probe_timeout": 0}).load(["precisewikiqa"])
    metadata = task["tasks"]["precisewikiqa"].config.metadata
    assert "hunter2pw" not in json.dumps(metadata, default=str)
    card = reproducibility(generator("precisewikiqa"),
                           Namespace(generator="openai:base_url=http://bob:s3cretpw@example.org/v1,model=m", seed=0))
    assert "s3cretpw" not in card and "example.org" in card
    # a generator option declared as a path collapses "//" ("http:/carol:pw@host"): still redacted
    card = reproducibility(generator("mixedentities"), Namespace(
        medicine_csv=Path("https://carol:t0psecretpw@example.org/drugs.csv"), seed=0))
    assert "t0psecretpw" not in card and "example.org" in card


def test_redact_known_touches_only_known_secrets():
    remember_secret("zz-known-secret-zz")
    remember_secret("EMPTY")  # a local server's placeholder key: a word, never removed from replies
    text = "id 0123456789abcdef0123456789abcdef, key zz-known-secret-zz, url https://u:p@h/x, EMPTY list"
    assert redact_known(text) == (f"id 0123456789abcdef0123456789abcdef, key {REDACTED}, url https://{REDACTED}@h/x, "
                                  "EMPTY list")


def test_an_error_body_is_redacted_before_it_is_cut():
    """A key that straddles the 200-character cut of an error body leaked its first characters when the body was
    cut first and redacted after."""
    from hallubench.core.backends.openai_http import BODY_CHARS_IN_ERRORS, _start

    body = ("e" * (BODY_CHARS_IN_ERRORS - 10) + KEY).encode()
    assert KEY[:10] not in _start(body, BODY_CHARS_IN_ERRORS, [KEY])
