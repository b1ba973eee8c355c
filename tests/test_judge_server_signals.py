"""What a judge server's behaviour tells the user (issue 33, items 9 and 10): a server that ignores response_format
under structured=true is named once (and the unreadable banner stops advising structured=true when it is on); a slow
server whose attempts time out gets one warning with the fix, and no call is sent more than 1 + max_retries times."""

import json
import time

import pytest
from loopback import LoopbackChatServer
from support import run_cli, write_jsonl

from hallubench.core.backends.base import ChatRequest
from hallubench.core.backends.openai_http import OpenAIChatBackend

ROWS = [{"id": f"q{i}", "question": f"Which river flows through Lyon {i}?", "answer": "Rhone", "title": "Lyon",
         "reference": "Lyon lies on the Rhone.", "difficulty": i} for i in range(3)]
IGNORED = "ignored response_format (structured=true)"


def samples(tmp_path):
    return write_jsonl(tmp_path / "s.jsonl", [{"doc_id": i, "doc": row, "resps": [["It is the Rhone."]]}
                                              for i, row in enumerate(ROWS)])


def chatty(messages):
    """A chat model that ignores the schema: reasons in markdown around the JSON (readable by the free-text readers)."""
    prompt = messages[-1]["content"]
    if "is_abstaining" in prompt:
        return 'The reply names a river, so it does not abstain.\n\n```json\n{"is_abstaining": false}\n```'
    return "**Reasoning:** the gold answer is Rhone and the reply says the Rhone.\n\nCORRECT"


def schema_following(messages):
    prompt = messages[-1]["content"]
    return '{"is_abstaining": false}' if "is_abstaining" in prompt else '{"verdict": "CORRECT"}'


@pytest.mark.parametrize("reply, warned", [(chatty, True), (schema_following, False)])
def test_a_server_ignoring_the_schema_is_named_once(tmp_path, reply, warned):
    with LoopbackChatServer(reply) as server:
        spec = f"openai:base_url={server.base_url},model=j,structured=true"
        run = run_cli("score", "--task", "precisewikiqa", "--judge", spec, "--samples", samples(tmp_path),
                      "--out", tmp_path / "r.json")
    assert run.returncode == 0, run.stderr
    assert run.stderr.count(IGNORED) == (1 if warned else 0)
    if warned:
        assert f"judge openai:base_url={server.base_url},model=j,structured=true: its server" in run.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["correct_rate"] == 1.0  # the free-text readers are the fallback: nothing was lost


def test_the_unreadable_banner_advises_on_structured_outputs_as_they_are(tmp_path):
    with LoopbackChatServer(lambda messages: "Let me think about it.") as server:
        base = f"openai:base_url={server.base_url},model=j,max_retries=0"
        plain = run_cli("score", "--task", "precisewikiqa", "--judge", f"{base},structured=false", "--samples",
                        samples(tmp_path),
                        "--out", tmp_path / "a.json", "--max-unreadable", "1")
        on = run_cli("score", "--task", "precisewikiqa", "--judge", f"{base},structured=true", "--samples",
                     samples(tmp_path), "--out", tmp_path / "b.json", "--max-unreadable", "1")
    assert "structured=false is set: without it each check's JSON schema is sent" in plain.stderr
    assert "structured=false is set" not in on.stderr
    assert "each check's JSON schema was sent" in on.stderr and IGNORED in on.stderr


def test_a_slow_server_gets_one_warning_and_no_more_attempts_than_the_retries(capsys):
    with LoopbackChatServer(lambda messages: "{}", latency=1.5) as server:
        backend = OpenAIChatBackend(server.base_url, "j", concurrency=1, timeout=0.2, max_retries=2, backoff=0.0)
        start = time.perf_counter()
        results = [backend.complete_one(ChatRequest.from_messages([{"role": "user", "content": f"q{i}"}],
                                                                   temperature=0.0, max_tokens=8)) for i in range(2)]
        elapsed = time.perf_counter() - start
        sent = [r["messages"][0]["content"] for r in server.requests]
    assert all(not r.ok and "after 3 attempts" in (r.error or "") for r in results)
    assert sent.count("q0") == 3 and sent.count("q1") == 3  # 1 + max_retries each, never more
    err = capsys.readouterr().err
    assert err.count("attempts got no reply within timeout=0.2 s") == 1
    assert "concurrency=1,timeout=600" in err and "max_retries=2" in err
    assert elapsed < 6 * 1.5  # abandoned at the deadline, not waited out
