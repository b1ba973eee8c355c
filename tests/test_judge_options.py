"""Judge spec options: ``structured=true`` (each check's JSON schema sent as ``response_format``, round-tripped
through the loopback server) and ``template=PATH`` (prompts from a user file, its hash recorded)."""

from __future__ import annotations

import asyncio
import json

import jsonschema
import pytest

from hallu_metrics.judges import JudgeSet
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.kinds import check_judge_spec, make_judge, public_spec
from hallu_metrics.judges.parsing import parse_json_bool
from hallu_metrics.judges.structured import boolean, label, text_list
from hallu_metrics.registry import ALL_CHECKS
from hallubench.core.backends import CallCache, ChatRequest
from hallubench.core.errors import HallubenchError

SUPPORTED = Check(
    name="test_supported",
    fields=("claim", "golds"),
    messages=lambda item: [{"role": "user", "content": f"Is this supported? {item['claim']}"}],
    parse=lambda text: parse_json_bool(text, "is_supported"),
    reminder='Answer {"is_supported": true} or {"is_supported": false}.',
    structured=boolean("is_supported"),
)


def ask(judge, check, item):
    return asyncio.run(judge.ask(check, item))


def spec_for(server, **options):
    extra = "".join(f",{k}={v}" for k, v in options.items())
    return f"openai:base_url={server.base_url},model=m,max_retries=0{extra}"


# Judge replies, one loopback server each (conftest's session servers: module-level functions)
def not_supported(messages):
    return '{"is_supported": false}'


def supported(messages):
    return '{"is_supported": true}'


def claims_as_a_list(messages):
    return "- a is b\n- c is d"


def claims_as_json(messages):
    return '{"claims": ["a is b"]}'


def test_structured_sends_the_schema_and_reads_the_schema_reply(tmp_path, loopback_servers):
    """The request carries the check's schema in OpenAI's json_schema form; the reply a guided-decoding
    server returns conforms to it and is read by the check's own reader."""
    server = loopback_servers.chat(not_supported)
    judge = make_judge(spec_for(server, structured="true"), CallCache(tmp_path / "c.sqlite"))
    verdict = ask(judge, SUPPORTED, {"claim": "x"})
    judge.close()
    sent = server.requests[0]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
    schema = sent["json_schema"]["schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate({"is_supported": False}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"is_supported": "true|false"}, schema)  # the placeholder a free reply may echo
    assert verdict.ok and verdict.label is False
    assert judge.spec.endswith(",structured=true")


def test_structured_false_sends_no_response_format(tmp_path, loopback_servers):
    server = loopback_servers.chat(supported)
    judge = make_judge(spec_for(server, structured="false"), CallCache(tmp_path / "c.sqlite"))
    assert ask(judge, SUPPORTED, {"claim": "x"}).label is True
    judge.close()
    assert "response_format" not in server.requests[0]
    assert judge.spec.endswith(",structured=false")


def test_structured_is_part_of_the_cache_key_and_free_text_keys_are_unchanged():
    plain = ChatRequest.from_messages([{"role": "user", "content": "q"}])
    schema = ChatRequest.from_messages([{"role": "user", "content": "q"}], response_format=boolean("k").response_format)
    assert plain.cache_key("b") != schema.cache_key("b")
    # a free-text request's key is the one computed before response_format existed (pinned in test_cache_resume)
    assert ChatRequest(plain.messages).cache_key("b") == plain.cache_key("b")


def test_a_server_ignoring_the_schema_is_read_by_the_free_text_reader(tmp_path, loopback_servers):
    """Structured output is a constraint, not a different reader: a prose reply still reads."""
    check = Check(name="test_claims", messages=lambda item: [{"role": "user", "content": "list"}],
                  parse=lambda text: [line[2:] for line in text.splitlines() if line.startswith("- ")] or None,
                  structured=text_list("claims", "NO CLAIMS"))
    judge = make_judge(spec_for(loopback_servers.chat(claims_as_a_list), structured="true"),
                       CallCache(tmp_path / "c.sqlite"))
    assert ask(judge, check, {}).label == ["a is b", "c is d"]
    judge.close()
    judge = make_judge(spec_for(loopback_servers.chat(claims_as_json), structured="true"),
                       CallCache(tmp_path / "d.sqlite"))
    assert ask(judge, check, {}).label == ["a is b"]
    judge.close()


def test_label_schema_maps_to_the_readers_text_form():
    grade = label("grade", ["A", "B", "C"], as_text=lambda letter: letter)
    assert grade.reply_text('{"grade": "B"}') == "B"
    assert grade.reply_text("B, because") == "B, because"  # not JSON: the reply as it is
    assert grade.schema["properties"]["grade"]["enum"] == ["A", "B", "C"]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("smollm2:structured=true", "structured=true needs an OpenAI-compatible server"),
        ("openai:base_url=http://127.0.0.1:9/v1,model=m,structured=maybe", "structured must be true, false or auto"),
        ("openai:base_url=http://127.0.0.1:9/v1,model=m,template=/no/such/file.yaml", "cannot read judge template"),
    ],
)
def test_bad_judge_options_are_one_line_errors(spec, message):
    with pytest.raises(HallubenchError, match=message):
        make_judge(spec)


def write(tmp_path, text, name="grader.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_template_file_replaces_the_prompt_and_its_hash_is_recorded(tmp_path, loopback_servers):
    path = write(tmp_path, 'test_supported:\n  system: "You grade {{strictly}}."\n'
                           '  user: "Claim: {claim}\\nGolds:\\n{golds}\\nReply {{\\"is_supported\\": true}}"\n')
    server = loopback_servers.chat(supported)
    spec = spec_for(server, template=path)
    judge = make_judge(spec, CallCache(tmp_path / "c.sqlite"))
    verdict = ask(judge, SUPPORTED, {"claim": "Paris is in France", "golds": ["a", "b"]})
    judge.close()
    assert verdict.label is True
    assert server.requests[0]["messages"] == [
        {"role": "system", "content": "You grade {strictly}."},
        {"role": "user", "content": 'Claim: Paris is in France\nGolds:\na\nb\nReply {"is_supported": true}'},
    ]
    assert "template=grader.yaml@sha256:" in judge.spec and str(tmp_path) not in judge.spec
    assert public_spec(spec) == judge.spec
    write(tmp_path, "test_supported: 'Other wording {claim}'\n")
    assert public_spec(spec) != judge.spec  # another wording, another recorded hash


def test_checks_the_file_does_not_name_keep_their_prompt(tmp_path, loopback_servers):
    path = write(tmp_path, "test_supported: 'T {claim}'\n")
    other = Check(name="test_other", messages=lambda item: [{"role": "user", "content": "built-in"}],
                  parse=lambda text: text or None)
    server = loopback_servers.chat(supported)
    judges = JudgeSet({"judge": spec_for(server, template=path)}, cache=CallCache(tmp_path / "c.sqlite"))
    ask(judges.get(), other, {})
    judges.close()
    assert server.requests[0]["messages"] == [{"role": "user", "content": "built-in"}]


KNOWN = (SUPPORTED, *ALL_CHECKS)  # what template files may name here


@pytest.mark.parametrize(
    "text, message",
    [
        ("test_supported: 'Claim {claim.__class__}'\n", "fields are written"),
        ("test_supported: 'JSON {\"a\": 1}'\n", "fields are written"),
        ("no_such_check: 'x {claim}'\n", "unknown check"),
        ("- a\n- b\n", "expected a mapping"),
        ("test_supported: {user: 'x', extra: 'y'}\n", "must be a text or"),
        ("test_supported: [unclosed\n", "not UTF-8 YAML/JSON"),
    ],
)
def test_bad_template_files_are_refused_before_judging(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(HallubenchError, match=message):
        check_judge_spec(f"openai:base_url=http://127.0.0.1:9/v1,model=m,template={path}", checks=KNOWN)


def test_a_field_the_check_does_not_give_is_refused_when_the_judge_is_built(tmp_path):
    """Found from the check's declared fields when the spec is checked (before lm-eval generates anything), not when
    the first item renders; a field the check gives but its built-in prompt does not use is accepted."""
    path = write(tmp_path, "test_supported: 'Claim {claim} against {target}'\n")
    with pytest.raises(HallubenchError, match=r"inserts \{target\}, which this check does not give \(it gives: claim, "
                       r"golds\)"):
        check_judge_spec(f"openai:base_url=http://127.0.0.1:9/v1,model=m,template={path}", checks=KNOWN)
    golds = write(tmp_path, "test_supported: 'Golds {golds}'\n", name="golds.yaml")
    check_judge_spec(f"openai:base_url=http://127.0.0.1:9/v1,model=m,template={golds}", checks=KNOWN)


def test_every_llm_check_declares_a_reply_schema_that_its_reader_reads():
    """Each check an LLM judge can be asked has a schema; an instance of it reads as a label."""
    import hallu_metrics.registry  # noqa: F401  (builds every check)
    from hallu_metrics.registry import ALL_CHECKS

    llm_checks = [c for c in ALL_CHECKS if c.parse is not None and not c.name.startswith("test_")]
    assert len(llm_checks) >= 12
    missing = sorted(c.name for c in llm_checks if c.structured is None)
    assert not missing, f"checks without a structured-output schema: {missing}"
    for check in llm_checks:
        jsonschema.Draft202012Validator.check_schema(check.structured.schema)
        example = json.dumps(_instance(check.structured.schema))
        assert check.parse(check.structured.reply_text(example)) is not None, check.name


def _instance(schema: dict):
    """A valid instance of one of the project's schemas (objects of one typed property)."""
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][-1]
    if kind == "object":
        return {key: _instance(value) for key, value in schema["properties"].items()}
    if kind == "array":
        return ["Marie Curie was born in Warsaw."]
    if kind == "boolean":
        return True
    if kind == "integer":
        return schema.get("maximum", 1)
    return "Marie Curie was born in Warsaw."


def test_reply_conformance_agrees_with_jsonschema_on_every_schema():
    """StructuredOutput.conforms (no schema library on the judging path) gives jsonschema's answer on a valid
    instance and on replies that break each constraint, for every check's schema."""
    import hallu_metrics.registry  # noqa: F401  (builds every check)
    from hallu_metrics.registry import ALL_CHECKS

    for check in {c.name: c for c in ALL_CHECKS if c.structured is not None}.values():
        schema = check.structured.schema
        valid = _instance(schema)
        key = next(iter(schema["properties"]))
        replies = [valid, {**valid, "extra": 1}, {}, [valid], "text", {**valid, key: None}, {**valid, key: 7},
                   {**valid, key: True}, {**valid, key: -1}, {**valid, key: 99}, {**valid, key: "NOT A LABEL"},
                   {**valid, key: ["one", 2]}, {**valid, key: []}]
        for reply in replies:
            expected = jsonschema.Draft202012Validator(schema).is_valid(reply)
            assert check.structured.conforms(json.dumps(reply)) is expected, (check.name, reply)
        assert not check.structured.conforms("Verdict: yes")


def test_judge_templates_command_exports_a_builtin_prompt_that_reproduces_it(tmp_path, capsys):
    """`hallubench judge-templates --check correctness` writes a file that, used as template=PATH, sends exactly
    the built-in prompt; the listing names every check with its fields."""
    from hallu_metrics.benchmarks.precisewikiqa import CORRECTNESS
    from hallu_metrics.judges.templates import load_templates
    from hallubench.cli import main

    assert main(["judge-templates"]) == 0
    listing = capsys.readouterr().out
    assert "correctness | hallu_metrics.benchmarks.precisewikiqa.prompts | {question}, {gold}, {response}" in listing
    assert main(["judge-templates", "--check", "correctness"]) == 0
    path = write(tmp_path, capsys.readouterr().out)
    item = {"question": "Who wrote {this}?", "gold": "Ann", "response": "Bob, I think"}
    assert load_templates(str(path)).messages("correctness", item) == CORRECTNESS.messages(item)
    assert main(["judge-templates", "--check", "nope"]) == 2
