"""Structured outputs by default where the server honours them (issue 34, part 2): an `openai:` judge sends each
check's JSON schema unless told `structured=false`; a server that refuses response_format (HTTP 400) is judged
without it from then on, one that ignores it is read by the free-text readers; score's result says how every reply
was read. Schema replies' edge cases: a list item with a line break stays one item, a repeated bullet is dropped, and
an empty list or text means "none", not unreadable."""

import json

import pytest
from loopback import LoopbackChatServer
from support import run_cli, write_jsonl

from hallu_metrics.benchmarks.anah.checks import REFERENCE
from hallu_metrics.benchmarks.anah.prompts import NO_REFERENCE
from hallu_metrics.longform.atomic_facts import ATOMIC_FACTS
from hallu_metrics.longform.claims import CLAIM_EXTRACTION

ROWS = [{"id": f"q{i}", "question": f"Which river flows through Lyon {i}?", "answer": "Rhone", "title": "Lyon",
         "reference": "Lyon lies on the Rhone.", "difficulty": i} for i in range(3)]


def schema_following(messages):
    """What a guided-decoding server sends: exactly the schema's JSON."""
    return '{"is_abstaining": false}' if "is_abstaining" in messages[-1]["content"] else '{"verdict": "CORRECT"}'


def chatty(messages):
    """A chat model that ignores the schema: reasons in markdown around its answer."""
    if "is_abstaining" in messages[-1]["content"]:
        return 'It names a river, so it answers.\n\n```json\n{"is_abstaining": false}\n```'
    return "**Reasoning:** the gold answer is Rhone and so is the reply.\n\nVerdict: CORRECT"


def score(tmp_path, server, *options: str):
    samples = write_jsonl(tmp_path / "s.jsonl", [{"doc_id": i, "doc": row, "resps": [["It is the Rhone."]]}
                                                 for i, row in enumerate(ROWS)])
    spec = ",".join([f"openai:base_url={server.base_url},model=j,max_retries=0", *options])
    run = run_cli("score", "--task", "precisewikiqa", "--judge", spec, "--samples", samples,
                  "--out", tmp_path / "r.json")
    result = json.loads((tmp_path / "r.json").read_text()) if (tmp_path / "r.json").exists() else None
    return run, result, spec


@pytest.mark.parametrize("reply, reject, by_schema, refused, said", [
    (schema_following, False, 6, False, None),
    (chatty, False, 0, False, "ignored response_format (structured=auto)"),
    (chatty, True, 0, True, "refused response_format"),
])
def test_the_schema_is_sent_by_default_and_the_result_says_how_replies_were_read(
        tmp_path, reply, reject, by_schema, refused, said):
    with LoopbackChatServer(reply, reject_schema=reject) as server:
        run, result, spec = score(tmp_path, server)
    assert run.returncode == 0, run.stderr
    with_schema = [r for r in server.requests if "response_format" in r]
    if reject:  # only the calls already in flight when the first refusal came back carried the schema
        assert 1 <= len(with_schema) <= len(ROWS) and all("is_abstaining" in str(r["messages"]) for r in with_schema)
    else:
        assert len(with_schema) == 6
    assert with_schema[0]["response_format"]["type"] == "json_schema"
    assert result["judge_calls"][spec]["structured"] == {
        "mode": "auto", "refused": refused, "read_by_schema": by_schema, "read_as_free_text": 6 - by_schema}
    assert result["correct_rate"] == 1.0  # nothing lost whichever way the server went
    if said:
        assert run.stderr.count(said) == 1
    else:
        assert "response_format" not in run.stderr


def test_structured_true_fails_on_a_refusing_server_and_false_sends_nothing(tmp_path):
    with LoopbackChatServer(schema_following, reject_schema=True) as server:
        required, result, _ = score(tmp_path, server, "structured=true")
    assert required.returncode == 2 and result["judge_failed"] == 3 and "HTTP 400" in required.stderr
    with LoopbackChatServer(schema_following) as server:
        never, result, spec = score(tmp_path, server, "structured=false")
    assert never.returncode == 0 and not any("response_format" in r for r in server.requests)
    assert result["judge_calls"][spec]["structured"]["mode"] == "false"


@pytest.mark.parametrize("check, reply, expected", [
    (CLAIM_EXTRACTION, {"claims": ["The Nile flows north\ninto the Mediterranean."]},
     ["The Nile flows north into the Mediterranean."]),
    (CLAIM_EXTRACTION, {"claims": ["- The Nile is long.", "2. It flows north."]}, ["The Nile is long.",
                                                                                  "It flows north."]),
    (CLAIM_EXTRACTION, {"claims": [""]}, []),
    (CLAIM_EXTRACTION, {"claims": []}, []),
    (ATOMIC_FACTS, {"facts": ["  ", "Lyon is in France."]}, ["Lyon is in France."]),
])
def test_schema_lists_read_as_their_items(check, reply, expected):
    assert check.parse(check.structured.reply_text(json.dumps(reply))) == expected


def test_an_empty_schema_reference_means_none_not_unreadable():
    read = REFERENCE.parse(REFERENCE.structured.reply_text(json.dumps({"reference": ""})))
    assert read is not None and read == REFERENCE.parse(NO_REFERENCE)
