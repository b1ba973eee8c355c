"""``openai-batch:`` judges against the loopback Batch API (tests/loopback_batch.py), driving PreciseWikiQA's two-step
chain (abstention, then correctness of attempted answers) through ``hallubench score``: waves (step 2 sent only after
step 1 came back), lines matched by ``custom_id`` whatever their order, the cache shared with the realtime ``openai:``
judge, failed lines retried (next wave or realtime), an expired batch's unfinished lines sent again, and a run killed
mid-poll resumed by its recorded batch id without a second upload."""

import json
import multiprocessing as mp
import os
import signal
import time

import pytest
from loopback_batch import LoopbackBatchServer
from support import run_cli, write_jsonl

from hallubench.core.backends import CallCache, ChatRequest, backend_spec, make_client
from hallubench.core.backends.openai_batch import BatchLedger
from hallubench.core.errors import HallubenchError

DOCS = [{"id": str(i), "question": f"Which river flows through the town of Example {i}?", "answer": "The Avon",
         "title": f"Example {i}", "reference": "Example is a town on the Avon.", "difficulty": i % 3}
        for i in range(6)]
RESPONSES = ["The Avon flows through it.", "It is the Avon.", "The Severn, I believe.", "The Avon.",
             "I'm sorry, I don't know which river that is.", "I cannot say."]
# abstention on all 6 items; then correctness on the 4 attempted answers and the abstention reminder of one item
FIRST_WAVE, SECOND_WAVE = 6, 5


def judge_reply(messages):
    """Replies as chat models write them: JSON in a fence after a sentence, a verdict with reasons around it, and for
    the item answered "I cannot say." first a reply that states no verdict (the reminder turn then gets one)."""
    system, item = messages[0]["content"], messages[1]["content"]
    reminded = len(messages) > 2
    if "ABSTAINED" in system:
        answer = item.rsplit("Now judge", 1)[-1]
        if "cannot say" in answer and not reminded:
            return "The reply is short; it is hard to tell what the chatbot meant."
        declines = "don't know" in answer or "cannot say" in answer
        return f"The chatbot {'declines' if declines else 'answers'}.\n```json\n{{\"is_abstaining\": " \
               f"{str(declines).lower()}}}\n```"
    if "Severn" in item:
        return '**Verdict:** {"verdict": "INCORRECT"}\nThe reference names the Avon.'
    return 'The answer names the same river as the reference.\n{"verdict": "CORRECT"}'


@pytest.fixture
def samples(tmp_path):
    return write_jsonl(tmp_path / "samples_precisewikiqa.jsonl",
                       ({"doc_id": i, "doc": d, "resps": [[r]]} for i, (d, r) in enumerate(zip(DOCS, RESPONSES))))


def batch_spec(server, **options):
    extra = "".join(f",{k}={v}" for k, v in {"poll": 0.02, "quiet": 0.1, **options}.items())
    return f"openai-batch:base_url={server.base_url},model=judge{extra}"


def score(samples, out, spec, *extra):
    return run_cli("score", "--task", "precisewikiqa", "--samples", samples, "--judge", spec, "--out", out, *extra)


def outcomes(path):
    return json.loads(path.read_text())["counts"]


def test_waves_follow_the_chain_and_the_cache_is_shared_with_the_realtime_judge(tmp_path, samples):
    with LoopbackBatchServer(judge_reply) as server:
        run = score(samples, tmp_path / "batch.json", batch_spec(server))
        assert run.returncode == 0, run.stderr
        assert [len(b["lines"]) for b in server.batches] == [FIRST_WAVE, SECOND_WAVE]
        first, second = ([line["body"]["messages"] for line in b["lines"]] for b in server.batches)
        assert all("ABSTAINED" in messages[0]["content"] for messages in first)  # every item's step 1 ...
        correctness = [m for m in second if "ABSTAINED" not in m[0]["content"]]  # ... then step 2 of the answered
        [reminder] = [m for m in second if "ABSTAINED" in m[0]["content"]]  # and the unreadable reply's reminder
        assert len(correctness) == 4 and reminder[-2] == {"role": "assistant", "content": judge_reply(reminder[:2])}
        assert len(server.uploads) == 2 and server.realtime == []
        result = json.loads((tmp_path / "batch.json").read_text())
        assert result["counts"]["correct"] == 3 and result["counts"]["hallucinated"] == 1
        assert result["counts"]["abstained"] == 2
        assert result["accounting"]["total"]["new"] == FIRST_WAVE + SECOND_WAVE
        realtime = f"openai:base_url={server.base_url},model=judge"
        again = score(samples, tmp_path / "realtime.json", realtime)
        assert again.returncode == 0, again.stderr
        assert server.realtime == [] and len(server.uploads) == 2  # every verdict from the batch run's cache
        assert json.loads((tmp_path / "realtime.json").read_text())["accounting"]["total"]["new"] == 0
        assert outcomes(tmp_path / "realtime.json") == result["counts"]


def test_a_realtime_cached_verdict_is_reused_by_a_batch_run(tmp_path, samples):
    with LoopbackBatchServer(judge_reply) as server:
        assert score(samples, tmp_path / "a.json", f"openai:base_url={server.base_url},model=judge").returncode == 0
        assert len(server.realtime) == FIRST_WAVE + SECOND_WAVE
        run = score(samples, tmp_path / "b.json", batch_spec(server))
        assert run.returncode == 0 and server.batches == [] and server.uploads == []


def test_failed_lines_go_to_the_next_wave_and_an_expired_batch_is_finished_there(tmp_path, samples):
    """Batch 1: two lines fail (500, no response), the batch expires before its last two lines; they join the
    correctness lines of the answered items in batch 2."""
    faults = [None, "500", None, "error", "expire"]
    with LoopbackBatchServer(judge_reply, line_faults=faults) as server:
        run = score(samples, tmp_path / "r.json", batch_spec(server))
        assert run.returncode == 0, run.stderr
        sizes = [len(b["lines"]) for b in server.batches]
        assert sizes[0] == FIRST_WAVE and sum(sizes) == FIRST_WAVE + 4 + SECOND_WAVE
        assert [b["status"] for b in server.batches][0] == "expired"
        retried = {line["custom_id"] for line in server.batches[0]["lines"][1:]} - {
            line["custom_id"] for line in server.batches[0]["lines"][2:3]}
        later = {line["custom_id"] for b in server.batches[1:] for line in b["lines"]}
        assert retried <= later and server.realtime == []
        assert outcomes(tmp_path / "r.json") == {**outcomes(tmp_path / "r.json"), "correct": 3, "abstained": 2}


def test_retry_realtime_sends_failed_lines_at_once_and_a_400_is_not_retried(tmp_path, samples):
    with LoopbackBatchServer(judge_reply, line_faults=["429", "429"]) as server:
        run = score(samples, tmp_path / "r.json", batch_spec(server, retry="realtime"))
        assert run.returncode == 0, run.stderr
        assert len(server.realtime) == 2 and [len(b["lines"]) for b in server.batches] == [FIRST_WAVE, SECOND_WAVE]
    with LoopbackBatchServer(judge_reply, line_faults=["400"]) as server:
        spec = batch_spec(server, retry="realtime", structured="false")
        run = score(samples, tmp_path / "s.json", spec)
        assert run.returncode == 2 and "1 verdicts failed" in run.stderr and "HTTP 400" in run.stderr
        assert server.realtime == []


def test_lines_expiring_every_time_fail_after_max_retries(tmp_path, samples):
    with LoopbackBatchServer(judge_reply, line_faults=["expire"] * 100) as server:
        run = score(samples, tmp_path / "r.json", batch_spec(server, max_retries=1))
        assert run.returncode == 2 and "batch_expired" in run.stderr
        assert [len(b["lines"]) for b in server.batches] == [FIRST_WAVE, FIRST_WAVE]


def _score_until_killed(samples, out, spec):
    from hallubench.cli import main

    main(["score", "--task", "precisewikiqa", "--samples", str(samples), "--judge", spec, "--out", str(out)])


def test_a_run_killed_mid_poll_resumes_by_its_batch_id_without_a_second_upload(tmp_path, samples, isolated_cache):
    with LoopbackBatchServer(judge_reply) as server:
        server.hold = True
        spec = batch_spec(server)
        process = mp.get_context("spawn").Process(target=_score_until_killed,
                                                  args=(samples, tmp_path / "killed.json", spec))
        process.start()
        deadline = time.time() + 180  # the child imports hallubench: seconds, minutes on a loaded machine
        while server.poll_count < 3 and time.time() < deadline:
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.join()
        assert len(server.uploads) == 1 and server.poll_count >= 3
        ledger = BatchLedger(CallCache(isolated_cache))
        assert len(ledger.keys_of("batch_1")) == FIRST_WAVE
        server.hold = False
        run = score(samples, tmp_path / "r.json", spec)
        assert run.returncode == 0, run.stderr
        assert "resuming 1 recorded batch(es)" in run.stderr
        assert [b["id"] for b in server.batches] == ["batch_1", "batch_2"] and len(server.uploads) == 2
        assert ledger.keys_of("batch_1") == [] and ledger.keys_of("batch_2") == []
        ledger.close()
        assert outcomes(tmp_path / "r.json")["correct"] == 3


def test_bad_batch_specs_are_one_line_errors():
    for spec, message in (("openai-batch:base_url=http://a/v1|http://b/v1,model=m", "one base_url"),
                          ("openai-batch:base_url=http://a/v1,model=m,retry=never", "retry must be wave or realtime"),
                          ("openai-batch:base_url=http://a/v1,model=m,window=1d", "window must be hours"),
                          ("openai-batch:base_url=http://a/v1,model=m,replicas=2", "unknown keys")):
        with pytest.raises(HallubenchError, match=message):
            make_client(backend_spec(spec), None)


def test_a_wave_of_lines_comes_back_matched_by_custom_id_not_by_order(tmp_path):
    """Twenty requests in one batch; the server shuffles its output file."""
    with LoopbackBatchServer(lambda messages: "echo " + messages[-1]["content"]) as server:
        client = make_client(backend_spec(batch_spec(server)), CallCache(tmp_path / "c.sqlite"))
        requests = [ChatRequest.from_messages([{"role": "user", "content": f"q{i}"}]) for i in range(20)]
        answers = client.complete(requests)
        client.close()
        output = server.files[server.batches[0]["output"]].splitlines()
    assert [a.text for a in answers] == [f"echo q{i}" for i in range(20)]
    assert [json.loads(line)["custom_id"] for line in output] != [r.cache_key("openai-chat/judge") for r in requests]
    assert all(a.usage is not None and a.usage.prompt_tokens > 0 for a in answers)


@pytest.mark.parametrize(("quiet", "batches"), [(0.0, 5), (0.2, 1)])
def test_a_quiet_period_gathers_chains_that_reach_their_call_at_different_times(quiet, batches):
    """Five chains reach their call 30 ms apart (a CPU step before it): with a quiet period of 0.2 s they form one
    wave; without, each goes alone."""
    import asyncio

    from hallubench.core.backends.aio import MicroBatcher

    sizes = []

    def run_batch(items):
        sizes.append(len(items))
        return items

    async def chains():
        batcher = MicroBatcher(run_batch, quiet=quiet)

        async def chain(i):
            await asyncio.sleep(0.03 * i)
            return await batcher.submit(i)

        try:
            return await asyncio.gather(*(chain(i) for i in range(5)))
        finally:
            batcher.close()

    assert asyncio.run(chains()) == list(range(5))
    assert len(sizes) == batches and sum(sizes) == 5


def test_closing_the_judge_ends_a_poll_at_once_and_the_batch_stays_recorded(tmp_path):
    """Ctrl-C closes the judges: a worker waiting on a day-long batch must not keep the process alive."""
    import threading

    from hallubench.core.backends.openai_batch import OpenAIBatchBackend

    with LoopbackBatchServer(judge_reply) as server:
        server.hold = True
        cache = CallCache(tmp_path / "c.sqlite")
        backend = OpenAIBatchBackend(server.base_url, "judge", cache, poll=60)
        answers = {}
        worker = threading.Thread(target=backend.complete_many, args=(
            [ChatRequest.from_messages([{"role": "user", "content": "q"}])], answers.__setitem__))
        worker.start()
        while server.poll_count < 1:
            time.sleep(0.01)
        started = time.perf_counter()
        backend.close()
        worker.join(timeout=5)
        assert not worker.is_alive() and time.perf_counter() - started < 2
        assert "submitted batches resume on a re-run" in answers[0].error  # closed in its wait or in a poll
        ledger = BatchLedger(cache)
        assert len(ledger.keys_of("batch_1")) == 1  # a re-run polls it
        ledger.close()
        cache.close()


def test_a_wave_over_the_file_size_limit_goes_out_as_several_batches(tmp_path, monkeypatch):
    monkeypatch.setattr("hallubench.core.backends.openai_batch.MAX_FILE_BYTES", 1000)  # about 3 lines a file
    with LoopbackBatchServer(lambda messages: "echo " + messages[-1]["content"]) as server:
        client = make_client(backend_spec(batch_spec(server)), CallCache(tmp_path / "c.sqlite"))
        requests = [ChatRequest.from_messages([{"role": "user", "content": f"q{i}"}]) for i in range(10)]
        answers = client.complete(requests)
        client.close()
        assert [a.text for a in answers] == [f"echo q{i}" for i in range(10)]
        assert len(server.batches) > 2 and all(len(server.files[f]) <= 1000 for f in server.uploads)


def test_a_new_run_reads_the_ended_batches_a_stopped_run_recorded_whatever_it_asks(tmp_path):
    import threading

    from hallubench.core.backends.openai_batch import OpenAIBatchBackend

    asked = [ChatRequest.from_messages([{"role": "user", "content": f"q{i}"}]) for i in range(3)]
    with LoopbackBatchServer(lambda messages: "echo " + messages[-1]["content"]) as server:
        server.hold = True
        cache = CallCache(tmp_path / "c.sqlite")
        stopped = OpenAIBatchBackend(server.base_url, "judge", cache, poll=60)
        worker = threading.Thread(target=stopped.complete_many, args=(asked, lambda i, c: None))
        worker.start()
        while server.poll_count < 1:
            time.sleep(0.01)
        stopped.close()
        worker.join()
        server.hold = False
        client = make_client(backend_spec(batch_spec(server)), cache)
        assert client.complete([ChatRequest.from_messages([{"role": "user", "content": "other"}])])[0].text == \
            "echo other"
        client.close()
        keys = [r.cache_key("openai-chat/judge") for r in asked]
        assert cache.get_many(keys) == dict(zip(keys, ["echo q0", "echo q1", "echo q2"]))
        assert len(server.uploads) == 2  # batch_1 read, not sent again; batch_2 holds "other" alone
        cache.close()
