"""``hallubench plan`` against a real ``score`` run on the loopback judge (docs/cost.md): the planned calls and
prompt tokens are within 20% of what the run's server reported, for short-form benchmarks and for LongWiki with a
samples log; the run's completion tokens fall inside the planned range; calls are counted per role."""

import json
import re

import pytest
from loopback import LoopbackChatServer

from hallu_metrics.judges.prompts import block_texts
from hallu_metrics.longform.knowledge import write_store
from hallubench.cli import main
from hallubench.reporting.plan import load_counter
from hallubench.reporting.scoring import ScoreOptions, score

STAND_IN = "openai:base_url=http://127.0.0.1:9/v1,model=stand-in"


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    """The stand-in tokenizer, converted from SmolLM2's GGUF once for the module (10-15 s): plan keeps it in a
    ``tokenizers`` folder beside the call cache, and each test has a call cache of its own."""
    folder = tmp_path_factory.mktemp("plan-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HALLUBENCH_CACHE", str(folder / "calls.sqlite"))
        counter = load_counter(STAND_IN)
    assert (folder / "tokenizers").is_dir()
    return folder / "tokenizers", counter


@pytest.fixture(autouse=True)
def converted_tokenizer(stand_in, isolated_cache):
    """Each test's cache folder finds the converted tokenizer (its calls stay its own)."""
    (isolated_cache.parent / "tokenizers").symlink_to(stand_in[0], target_is_directory=True)


@pytest.fixture(scope="module")
def usage(stand_in):
    """The server counts like a real one: the chat template applied, with the tokenizer of the served model."""
    counter = stand_in[1]
    return lambda messages, reply: (counter.prompt(messages), counter.text(reply))


def close(planned: float, actual: float) -> bool:
    return abs(planned - actual) <= 0.2 * actual


def judge_reply(messages):
    """Replies in the shapes chat models use: reasons around JSON, fenced JSON, bullet lists with a preface."""
    system, prompt = messages[0]["content"], messages[-1]["content"]
    if "ABSTAINED" in system:
        abstains = "don't know" in block_texts(prompt, "chatbot")[-1]
        return f"The chatbot {'declines' if abstains else 'answers'}.\n```json\n{{\"is_abstaining\": " \
               f"{str(abstains).lower()}}}\n```"
    if "is_knowledgeable" in system:
        refuses = block_texts(prompt, "chatbot")[-1].startswith("I'm sorry")
        return f'Judgement: {{"is_knowledgeable": {str(not refuses).lower()}}}'
    if "Claims:" in prompt:
        sentence = re.findall(r"<SOS>(.*?)<EOS>", prompt)[-1].rstrip(".")
        parts = [p.strip() for p in re.split(r",| and ", sentence) if p.strip()]
        return "Here are the claims:\n" + "\n".join(f"- {p}." for p in parts)
    if "Judgement:" in prompt:
        return json.dumps({"is_supported": " 50 " not in block_texts(prompt, "claim")[-1]})
    if "verdict" in prompt:
        return 'The answer names the same year as the gold answer.\n{"verdict": "CORRECT"}'
    return "Grade: A\nThe reply gives the gold answer."


def run_and_compare(tmp_path, task, samples, usage, flags, plan_args=()):
    """Plan with the CLI, then score for real; the plan's expected figures against the server's usage."""
    with LoopbackChatServer(judge_reply, usage=usage) as server:
        spec = f"openai:base_url={server.base_url},model=judge,concurrency=4"
        extra = [a for key, value in flags.items() for a in ("--set", f"{key}={value}")]
        assert main(["plan", "--task", task, "--samples", str(samples), "--judge", spec, "--latency", "1.5",
                     "--price", "judge=1/2", *extra, *plan_args, "--out", str(tmp_path / "plan.json")]) == 0
        plan = json.loads((tmp_path / "plan.json").read_text())
        assert main(["score", "--task", task, "--samples", str(samples), "--judge", spec, "--rejudge", *extra,
                     *plan_args, "--out", str(tmp_path / "run.json")]) == 0
    run = json.loads((tmp_path / "run.json").read_text())["accounting"]
    planned, actual = plan["total"], run["total"]
    # the plan counts a request once (a repeat is answered by the cache or by the same call in flight)
    assert actual["usage_unknown"] == 0 and actual["new"] == len(server.requests)
    assert close(planned["expected"]["calls"], actual["new"]), (planned, actual)
    assert close(planned["expected"]["prompt_tokens"], actual["prompt_tokens"]), (planned, actual)
    assert planned["low"]["completion_tokens"] <= actual["completion_tokens"] <= planned["high"]["completion_tokens"]
    # cost and time follow the planned tokens and calls: $1/M in, $2/M out; 1.5 s per call at 4 at a time
    expected = planned["expected"]
    assert expected["cost_usd"] == pytest.approx((expected["prompt_tokens"] + 2 * expected["completion_tokens"]) / 1e6)
    assert expected["seconds"] == pytest.approx(expected["calls"] * 1.5 / 4)
    return plan, run, server


def write_samples(path, docs, replies, records=None):
    lines = []
    for i, (doc, reply) in enumerate(zip(docs, replies)):
        line = {"doc_id": i, "doc": doc, "resps": [[reply]]}
        if records and i < len(records):
            line["filtered_resps"] = [json.dumps(records[i])]
        lines.append(json.dumps(line) + "\n")
    path.write_text("".join(lines))
    return path


def test_plan_of_short_answer_grading_is_within_20_percent(tmp_path, usage):
    docs = [{"id": i, "question": f"In which year did the bridge over river number {i} open to road traffic?",
             "answer": "1932", "golds": ["1932", "in 1932"], "topic": "history", "answer_type": "Date"}
            for i in range(10)]
    replies = ["It opened in 1932.", "1932", "The bridge opened to traffic in 1932, after four years of work."] * 3
    samples = write_samples(tmp_path / "samples_simpleqa_hallu.jsonl", docs, replies + ["I don't know."])
    plan, run, _ = run_and_compare(tmp_path, "simpleqa_hallu", samples, usage, {})
    assert plan["total"]["expected"]["calls"] == run["total"]["new"] == 10


def test_plan_of_precisewikiqa_follows_abstentions_within_20_percent(tmp_path, usage):
    """Abstention on every item, correctness only on the 8 attempted answers: 18 calls."""
    docs = [{"id": str(i), "question": f"Which river flows through the town of Example {i}?", "answer": "The Avon",
             "title": f"Example {i}", "reference": "Example is a town on the Avon.", "difficulty": i % 3}
            for i in range(10)]
    replies = ["The Avon flows through it."] * 8 + ["I'm sorry, I don't know which river that is."] * 2
    samples = write_samples(tmp_path / "samples_precisewikiqa.jsonl", docs, replies)
    plan, run, _ = run_and_compare(tmp_path, "precisewikiqa", samples, usage, {})
    assert run["total"]["new"] == 18 and plan["total"]["low"]["calls"] == 10 and plan["total"]["high"]["calls"] == 20


PAGES = [
    ("Sirius", "Sirius is the brightest star in the night sky. It is a binary star in the constellation Canis Major. "
               "Its companion Sirius B is a white dwarf. Sirius lies 8.6 light-years from the Sun."),
    ("Vega", "Vega is the brightest star in the constellation Lyra. It lies 25 light-years from the Sun and it "
             "rotates rapidly."),
]
ANSWERS = [
    "Sirius is the brightest star in the night sky, and it is a binary star. Its companion Sirius B is a white dwarf. "
    "Sirius lies 50 light-years from the Sun.",
    "Vega is the brightest star in the constellation Lyra. It lies 25 light-years from the Sun, rotates rapidly and "
    "is bright. It was a pole star long ago.",
    "I'm sorry, but I don't have information about that star.",
]


def test_plan_of_longwiki_with_a_samples_log_is_within_20_percent(tmp_path, usage, monkeypatch):
    """Claims per sentence measured from the log's judged records (a pilot run on 3 items) carry over to all 12."""
    store = str(write_store(tmp_path / "kb", PAGES, progress=False).path)
    docs = [{"id": f"lw-{i}", "prompt": f"Tell me about {PAGES[i % 2][0]} (request {i}).", "title": PAGES[i % 2][0],
             "reference": PAGES[i % 2][1], "level": 7} for i in range(12)]
    replies = [ANSWERS[i % 3] for i in range(12)]
    flags = {"retrieval": "bm25"}
    (tmp_path / "pilot").mkdir()
    pilot_log = write_samples(tmp_path / "pilot" / "samples_longwiki.jsonl", docs[:3], replies[:3])
    with LoopbackChatServer(judge_reply, usage=usage) as server:
        spec = f"openai:base_url={server.base_url},model=judge"
        _, pilot = score("longwiki", pilot_log, ScoreOptions({"judge": spec, "knowledge": store, **flags}))
    # the judge splits sentences at commas and "and": 2 + 1 + 1 claims in the first answer, 1 + 3 + 1 in the second
    assert [r["n_claims"] for r in pilot] == [4, 5, 0] and [len(r["snippets"]) for r in pilot] == [3, 3, 0]
    monkeypatch.setenv("HALLUBENCH_CACHE", str(tmp_path / "fresh.sqlite"))  # the real run starts with no cache
    samples = write_samples(tmp_path / "samples_longwiki.jsonl", docs, replies, pilot)
    plan, run, server = run_and_compare(tmp_path, "longwiki", samples, usage, flags, ("--knowledge", store))
    assert plan["assumptions"]["claims_source"] == "samples log"
    # per role, as the server saw them: one refusal check per item, one extraction per snippet, one verification
    # per claim
    kinds = {"judge": "is_knowledgeable", "judge_claims": "Claims:", "judge_verify": "is_supported"}
    for role, mark in kinds.items():
        sent = sum(mark in (r["messages"][0]["content"] + r["messages"][-1]["content"]) for r in server.requests)
        assert run["roles"][role]["new"] == sent, role
        assert close(plan["roles"][role]["expected"]["calls"], sent), (role, plan["roles"][role], sent)
    assert run["roles"]["judge"]["calls"] == 12


def test_plan_from_a_set_alone_stands_in_for_responses_and_refuses_foreign_out(tmp_path, capsys):
    """Without a samples log each response is a one-sentence gold answer: 2 grader calls for 2 questions, cost at
    the given price; an --out file plan did not write is refused before any work."""
    csv = tmp_path / "simple_qa_test_set.csv"
    csv.write_text('metadata,problem,answer\n'
                   '"{\'topic\': \'Art\', \'answer_type\': \'Person\', \'urls\': []}",Who painted the Night Watch?,'
                   'Rembrandt\n'
                   '"{\'topic\': \'Geography\', \'answer_type\': \'Place\', \'urls\': []}",Where is Lake Baikal?,'
                   'Siberia\n')
    args = ["plan", "--task", "simpleqa_hallu", "--dataset", str(csv), "--judge", STAND_IN, "--price", "judge=1/1"]
    foreign = tmp_path / "mine.json"
    foreign.write_text('{"mine": true}')
    assert main([*args, "--out", str(foreign)]) == 2
    assert "was not written by hallubench plan" in capsys.readouterr().err and foreign.read_text() == '{"mine": true}'
    assert main([*args, "--out", str(tmp_path / "plan.json")]) == 0
    plan = json.loads((tmp_path / "plan.json").read_text())
    expected = plan["total"]["expected"]
    assert expected["calls"] == 2 and expected["cost_usd"] == pytest.approx(
        (expected["prompt_tokens"] + expected["completion_tokens"]) / 1e6)
    assert plan["assumptions"]["tokenizer"] == {STAND_IN: "SmolLM2-135M-Instruct (stand-in)"}
    assert "| **total** | 2 (2-2) |" in capsys.readouterr().out
