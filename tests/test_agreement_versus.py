"""`hallubench agreement --judge rule --vs LLM --samples LOG` (issue 25): both judges through PreciseWikiQA's real chain
on a small samples log; the LLM judge is a loopback server replying as chat models do (JSON in a fence, reasons
around a label, markdown emphasis, and one reply that states no verdict even after the reminder). Per-check agreement
and the headline moves are worked out by hand below; a re-run makes no calls (the call cache)."""

import json

import pytest

from hallubench.cli import main

# (question, gold, response, LLM's abstention reply, LLM's correctness reply or None when it is not asked)
ITEMS = [
    ("Who wrote Ulysses?", "James Joyce", "James Joyce wrote it.",
     '{"is_abstaining": false}', 'The answer names James Joyce, as the reference does.\n\n{"verdict": "CORRECT"}'),
    ("What is the capital of Peru?", "Lima", "I'm sorry, I don't know.",
     '```json\n{"is_abstaining": true}\n```', None),
    ("What is the capital of Chad?", "N'Djamena", "I'm not sure, but I think it is Abuja.",
     'The chatbot hedges but still names a city.\n\n```json\n{"is_abstaining": false}\n```',
     '**INCORRECT.** Abuja is the capital of Nigeria, not of Chad.'),
    ("What is the capital of France?", "Paris", "Paris is the capital.",
     '{"is_abstaining": false}', '### Verdict\n\n{"verdict": "CORRECT"}'),
    ("Which planet is the largest?", "Jupiter", "The largest is the fifth planet from the Sun.",
     '{"is_abstaining": false}',
     'The fifth planet from the Sun is Jupiter, so the answer agrees with the reference.\n\n{"verdict": "CORRECT"}'),
    ("Who painted Guernica?", "Pablo Picasso", "Pablo Picasso painted it in 1937.",
     "Hmm, the reply names a painter; whether that settles it depends on what the user wanted to know.", None),
    ("What is the capital of Australia?", "Canberra", "I don't know for certain, but it is probably Canberra.",
     '{"is_abstaining": false}', '{"verdict": "CORRECT"}'),
]
UNDECIDED = "It is hard to say from this conversation alone."  # the reply to the reminder for Guernica


def reply(messages: list[dict]) -> str:
    text = "\n".join(m["content"] for m in messages)
    [item] = [i for i in ITEMS if i[2] in text]
    if "is_abstaining" not in messages[0]["content"]:
        return item[4]
    reminded = messages[-2]["role"] == "assistant"  # the judge's reminder turn follows the reply it could not read
    return UNDECIDED if reminded and item[0] == "Who painted Guernica?" else item[3]


def write_log(path):
    lines = [json.dumps({"doc_id": i, "doc": {"id": f"q{i}", "question": q, "answer": gold, "title": "t",
                                               "reference": "r", "difficulty": 1}, "resps": [[response]]})
             for i, (q, gold, response, _, _) in enumerate(ITEMS)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_rule_against_an_llm_judge_per_check_and_headline(tmp_path, capsys, loopback_servers):
    """By hand. The rule judge: abstentions on items 2 and 7 ("I don't know"), gold found in 1, 4, 6 (CORRECT), not in
    3, 5 (INCORRECT). The LLM: abstention only on 2, none readable on 6; CORRECT on 1, 4, 5, 7, INCORRECT on 3.

    abstention, asked of both on all 7 items, the LLM (B, the labels) unreadable on 6: 6 pairs, 5 agree (item 7:
    B false, A true). B: true 1, false 5; A: true 2, false 4. p_o = 5/6, p_e = 1/6 * 2/6 + 5/6 * 4/6 = 11/18,
    kappa = (15/18 - 11/18) / (7/18) = 4/7.
    correctness, asked of both only where neither saw an abstention: items 1, 3, 4, 5 (A asked 6 too, B 7 too):
    B: C I C C, A: C I C I; 3 of 4 agree; p_e = 3/4 * 2/4 + 1/4 * 2/4 = 1/2, kappa = 1/2.
    Headline: false refusals A 2/7, B 1/6 (B judged 6); hallucination A 2 of 5 attempted, B 1 of 5; correct A 3/7,
    B 4/6; unreadable A 0, B 1/7."""
    log = write_log(tmp_path / "samples_precisewikiqa.jsonl")
    out = tmp_path / "vs.json"
    server = loopback_servers.chat(reply)
    judge = f"openai:base_url={server.base_url},model=judge-m,max_retries=0"
    argv = ["agreement", "--task", "precisewikiqa", "--judge", "rule", "--vs", judge, "--samples", str(log),
            "--out", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    calls = len(server.requests)
    assert calls == 7 + 1 + 5  # abstention on 7, the reminder for Guernica, correctness on 5
    assert main(argv) == 0
    assert len(server.requests) == calls  # the re-run is answered by the call cache
    written = json.loads(out.read_text())
    assert written["written_by"] == "hallubench agreement"
    checks = {c["check"]: c for c in written["checks"]}
    abstention, correctness = checks["abstention"], checks["correctness"]
    assert (abstention["asked_both"], abstention["b_unreadable"]) == (7, 1)
    assert abstention["figures"]["accuracy"] == pytest.approx(5 / 6)
    assert abstention["figures"]["kappa"] == pytest.approx(4 / 7)
    assert (correctness["asked_both"], correctness["b_unreadable"]) == (4, 0)
    assert correctness["figures"]["accuracy"] == 0.75 and correctness["figures"]["kappa"] == pytest.approx(0.5)
    moves = written["headline"]
    expected = {"false_refusal_rate": (2 / 7, 1 / 6), "hallucination_rate": (2 / 5, 1 / 5),
                "correct_rate": (3 / 7, 4 / 6), "judge_unparseable_rate": (0.0, 1 / 7)}
    for name, (a, b) in expected.items():
        move = moves[name]
        assert (move["a"], move["b"]) == (pytest.approx(a), pytest.approx(b))
        assert move["difference"] == pytest.approx(b - a)
        low, high = move["interval95"]
        assert low <= b - a <= high
    report = capsys.readouterr().out
    assert "## precisewikiqa / abstention (categorical): rule vs openai:" in report
    assert "| correct_rate | 42.9% | 66.7% | 23.8% |" in report


def test_check_and_role_narrow_and_a_folder_of_lm_eval_output_is_searched(tmp_path, capsys):
    """The same judge on both sides agrees with itself on every shared question and moves no headline."""
    (tmp_path / "out" / "model").mkdir(parents=True)
    write_log(tmp_path / "out" / "model" / "samples_precisewikiqa_2026-01-02T03-04-05.000001.jsonl")
    out = tmp_path / "vs.json"
    assert main(["agreement", "--task", "precisewikiqa", "--judge", "rule", "--vs", "rule", "--samples",
                 str(tmp_path / "out"), "--role", "judge", "--check", "abstention", "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    [section] = written["checks"]
    assert section["check"] == "abstention" and section["asked_both"] == 7 and section["figures"]["accuracy"] == 1.0
    assert all(move["difference"] == 0 and move["interval95"] == [0.0, 0.0] for move in written["headline"].values())
    assert main(["agreement", "--task", "precisewikiqa", "--judge", "rule", "--vs", "rule", "--samples",
                 str(tmp_path / "missing.jsonl")]) == 2
    assert "samples file not found" in capsys.readouterr().err
