"""lm-eval integration without a model: YAML validity and discovery, dataset resolution from
--metadata / env vars with clear errors, and the judging filter's records."""

import json

import datasets
import pytest
from loopback import LoopbackChatServer
from support import task_manager

from hallu_metrics.benchmarks.precisewikiqa import BENCHMARK as PRECISEWIKIQA
from hallubench.core.errors import HallubenchError
from hallubench_tasks.dataset_loading import load
from hallubench_tasks.judged_task import JudgeFilter


def echo_a_bearer_token(messages):
    return 'Bearer sk-secret-value-123456 says {"is_abstaining": maybe}'


def load_precisewikiqa(**metadata):
    return load("precisewikiqa", **metadata)


def test_task_builds_with_dataset_and_judge_from_metadata(tiny_set):
    manager = task_manager({"dataset": str(tiny_set("precisewikiqa")), "judge": "rule"})
    task = manager.load(["precisewikiqa"])["tasks"]["precisewikiqa"]
    docs = list(task.test_docs())
    assert len(docs) == 4 and task.doc_to_text(docs[0]) == "Q0?"
    assert task.config.generation_kwargs["max_gen_toks"] == 256 and task.config.generation_kwargs["do_sample"] is False


def test_dataset_falls_back_to_env_and_per_task_keys_win(tmp_path, monkeypatch, tiny_set):
    monkeypatch.setenv("HALLUBENCH_DATASET", str(tiny_set("precisewikiqa")))
    assert len(load_precisewikiqa()["test"]) == 4
    with pytest.raises(HallubenchError, match="--metadata dataset_precisewikiqa"):
        load_precisewikiqa(dataset_precisewikiqa=str(tmp_path / "missing-dir"))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: None, "no test set given"),
        (lambda p: str(p / "nope"), "neither a folder, a file nor a hub id"),
        (lambda p: (p / "junk").mkdir() or str(p / "junk"), "not a saved dataset"),
        (
            lambda p: (
                datasets.DatasetDict({"test": datasets.Dataset.from_list([{"name": "x"}])}).save_to_disk(str(p / "w"))
                or str(p / "w")
            ),
            "lacks columns",
        ),
    ],
)
def test_bad_dataset_setting_names_the_key(tmp_path, monkeypatch, make, message):
    monkeypatch.delenv("HALLUBENCH_DATASET", raising=False)
    value = make(tmp_path)
    with pytest.raises(HallubenchError, match=message):
        load_precisewikiqa(**({"dataset": value} if value else {}))


def test_bad_judge_spec_fails_before_the_model_runs(tiny_set):
    manager = task_manager({"dataset": str(tiny_set("precisewikiqa")), "judge": "gpt5"})
    with pytest.raises(Exception, match="bad judge spec"):
        manager.load(["precisewikiqa"])


def test_judge_filter_returns_one_json_record_per_response():
    docs = [{"question": "Capital of France?", "answer": "Paris"}] * 2
    records = [
        json.loads(r)
        for r in JudgeFilter(PRECISEWIKIQA, {"judge": "rule"}, "precisewikiqa").apply(
            ["Paris.", "I'm sorry, I don't know."], docs
        )
    ]
    assert [r["outcome"] for r in records] == ["correct", "abstained"]
    assert records[0]["abstention"] == {"label": False, "status": "ok",
                                        "raw": "rule: nothing the rule looks for was found"}
    assert records[0]["correctness"]["raw"] == 'rule: gold "Paris" found in the response as words'
    assert records[1]["abstention"]["raw"].startswith("rule: ") and "know" in records[1]["abstention"]["raw"]


def test_score_rejects_unknown_task_and_missing_file(tmp_path, capsys):
    """`hallubench score` answers bad input with one line and exit 2, writing nothing."""
    from hallubench.cli import main

    assert (
        main(["score", "--task", "nosuch", "--samples", str(tmp_path / "s.jsonl"), "--out", str(tmp_path / "r.json")])
        == 2
    )
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err
    assert (
        main(
            [
                "score",
                "--task",
                "precisewikiqa",
                "--samples",
                str(tmp_path / "s.jsonl"),
                "--out",
                str(tmp_path / "r.json"),
            ]
        )
        == 2
    )
    assert "samples file not found" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_unreachable_judge_fails_score_but_not_the_lm_eval_filter(tmp_path, capsys):
    """`score` finishes, writes the result with the failures counted as unjudged and exits 2 naming the
    count; inside lm-eval the samples survive as unjudged and the failure is announced."""
    from hallubench.cli import main

    judge = "openai:base_url=http://127.0.0.1:9/v1,model=j,max_retries=0"
    doc = {
        "id": "a",
        "question": "Capital of France?",
        "answer": "Paris",
        "title": "T",
        "reference": "r",
        "difficulty": 0,
    }
    samples = tmp_path / "samples_precisewikiqa_x.jsonl"
    samples.write_text(json.dumps({"doc": doc, "resps": [["Paris."]]}) + "\n")
    assert (
        main(
            [
                "score",
                "--task",
                "precisewikiqa",
                "--samples",
                str(samples),
                "--judge",
                judge,
                "--out",
                str(tmp_path / "r.json"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    cause = "1 judge call to http://127.0.0.1:9/v1 failed: unreachable: nothing answers there (is the server running?)"
    assert f"[hallubench] precisewikiqa: {cause}\n" in err  # the cause, once per endpoint
    assert f"hallubench: error: 1 verdicts failed ({cause}); fix that and re-run to resume" in err
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["judge_unparseable_rate"] == 1.0 and result["judge_failed"] == 1
    records = [
        json.loads(r) for r in JudgeFilter(PRECISEWIKIQA, {"judge": judge}, "precisewikiqa").apply(["Paris."], [doc])
    ]
    assert records[0]["outcome"] == "unjudged" and records[0]["abstention"]["status"] == "failed"
    assert "JUDGE VERDICTS FAILED" in capsys.readouterr().err


def test_retry_unparseable_reasks_cached_unreadable_replies(tmp_path, capsys, monkeypatch):
    """An unreadable judge reply stays cached (a plain re-run reads it again: still unjudged); with
    --retry-unparseable the cached unreadable replies are asked again, and the now readable verdicts count.
    The printed table names the judge."""
    from hallubench.cli import main

    state = {"readable": False}

    def reply(messages):
        if not state["readable"]:
            return "hmm, hard to say"
        return '{"is_abstaining": false}' if "Judgement:" in messages[-1]["content"] else '{"verdict": "CORRECT"}'

    doc = {"id": "a", "question": "Capital of France?", "answer": "Paris", "title": "T", "reference": "r",
           "difficulty": 0}
    samples = tmp_path / "samples_precisewikiqa_x.jsonl"
    samples.write_text(json.dumps({"doc": doc, "resps": [["Paris."]]}) + "\n")
    with LoopbackChatServer(reply) as server:
        judge = f"openai:base_url={server.base_url},model=j,max_retries=0"
        argv = ["score", "--task", "precisewikiqa", "--samples", str(samples), "--judge", judge,
                "--out", str(tmp_path / "r.json")]
        monkeypatch.setenv("HALLUBENCH_CACHE", str(tmp_path / "c.sqlite"))
        assert main(argv) == 2  # every verdict unreadable: above --max-unreadable, the result is still written
        assert json.loads((tmp_path / "r.json").read_text())["judge_unparseable_rate"] == 1.0
        state["readable"] = True
        assert main(argv) == 2  # cached unreadable replies are read again: still unjudged
        assert json.loads((tmp_path / "r.json").read_text())["judge_unparseable_rate"] == 1.0
        assert main([*argv, "--retry-unparseable"]) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["judge_unparseable_rate"] == 0.0 and result["correct_rate"] == 1.0
    assert f"judge: judge={judge}" in capsys.readouterr().out


def test_a_key_echoed_in_a_judge_reply_is_redacted_from_the_record(tmp_path, monkeypatch, loopback_servers):
    """A judge reply that repeats the API key (or any bearer token) never reaches the samples log verbatim."""
    monkeypatch.setenv("JUDGE_KEY", "sk-secret-value-123456")
    doc = {"question": "Capital of France?", "answer": "Paris"}
    server = loopback_servers.chat(echo_a_bearer_token)
    judge = f"openai:base_url={server.base_url},model=j,max_retries=0,api_key_env=JUDGE_KEY"
    records = [json.loads(r) for r in JudgeFilter(PRECISEWIKIQA, {"judge": judge}, "precisewikiqa").apply(
        ["Paris."], [doc])]
    assert records[0]["outcome"] == "unjudged" and "sk-secret-value-123456" not in json.dumps(records)
