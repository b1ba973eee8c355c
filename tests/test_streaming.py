"""Streaming judging pipelines: each item's chain runs as soon as its own previous step is done (no
barrier between steps), under the judge's bounded concurrency, with cache and resume unchanged."""

import asyncio
import multiprocessing as mp
import threading
import time

from loopback import LoopbackChatServer

from hallu_metrics.benchmarks import precisewikiqa
from hallu_metrics.judges import JudgeSet
from hallu_metrics.pipeline import judge_responses
from hallubench.core.backends import CallCache
from hallubench.core.backends.aio import in_cpu_lane


class Recorder:
    """A loopback judge reply function that logs (check, arrival time) and answers with variable delay:
    item 0's abstention call is slow, the others are fast."""

    def __init__(self):
        self.log, self.lock = [], threading.Lock()

    def __call__(self, messages):
        content = messages[-1]["content"]
        check = "abstention" if "Judgement:" in content else "correctness"
        with self.lock:
            self.log.append((check, time.perf_counter()))
        if check == "abstention" and "question 0?" in content:
            time.sleep(1.0)
        return '{"is_abstaining": false}' if check == "abstention" else '{"verdict": "CORRECT"}'


def test_second_step_starts_before_the_first_step_of_all_items_is_done(tmp_path):
    """With one slow first-step call, other items' second steps are sent while it is still running; no
    call waits for every item to finish the first step."""
    recorder = Recorder()
    docs = [{"question": f"question {i}?", "answer": "x"} for i in range(6)]
    with LoopbackChatServer(recorder) as server:
        judges = JudgeSet(
            {"judge": f"openai:base_url={server.base_url},model=j,concurrency=4"},
            cache=CallCache(tmp_path / "c.sqlite"),
        )
        records = judge_responses(precisewikiqa.BENCHMARK, ["x"] * 6, docs, judges)
        judges.close()
    assert [r["outcome"] for r in records] == ["correct"] * 6
    first_correctness = min(t for check, t in recorder.log if check == "correctness")
    last_abstention_sent = max(t for check, t in recorder.log if check == "abstention")
    slow_call_done = last_abstention_sent + 1.0  # item 0's call is the slow one; every abstention is sent at once
    assert first_correctness < slow_call_done - 0.5
    assert sum(check == "correctness" for check, _ in recorder.log) == 6


def test_cached_rerun_makes_no_calls_and_identical_in_flight_requests_are_sent_once(tmp_path):
    """A re-run over the same cache answers every step from it; duplicates in flight share one call."""
    recorder = Recorder()
    docs = [{"question": "same question?", "answer": "x"}] * 5
    cache_path = tmp_path / "c.sqlite"
    with LoopbackChatServer(recorder) as server:
        spec = f"openai:base_url={server.base_url},model=j,concurrency=8"
        judges = JudgeSet({"judge": spec}, cache=CallCache(cache_path))
        judge_responses(precisewikiqa.BENCHMARK, ["x"] * 5, docs, judges)
        first = judges.report()[spec]
        judges.close()
        assert first["calls"] == 2 and len(recorder.log) == 2  # one abstention + one correctness call
        rerun = JudgeSet({"judge": spec}, cache=CallCache(cache_path))
        judge_responses(precisewikiqa.BENCHMARK, ["x"] * 5, docs, rerun)
        assert rerun.report()[spec]["calls"] == 0 and len(recorder.log) == 2
        rerun.close()


def _lane_threads(n: int) -> list[str]:
    """Run ``n`` lane steps from concurrent coroutines; the thread names that ran them."""

    async def all_steps() -> list[str]:
        return list(await asyncio.gather(*(in_cpu_lane(lambda: threading.current_thread().name) for _ in range(n))))

    return asyncio.run(all_steps())


def _lane_in_child(queue) -> None:
    queue.put(_lane_threads(2))


def test_cpu_lane_is_one_thread_and_works_in_a_forked_child():
    """CPU-bound steps from concurrent coroutines all run in one "cpu-lane" thread; a child forked after the lane
    was used gets a lane of its own (it inherits none of its parent's threads, so the parent's lane would hang it)."""
    assert {name.rsplit("_", 1)[0] for name in _lane_threads(8)} == {"cpu-lane"}
    if "fork" not in mp.get_all_start_methods():
        return
    queue = mp.get_context("fork").Queue()
    child = mp.get_context("fork").Process(target=_lane_in_child, args=(queue,))
    child.start()
    child.join(timeout=30)
    if child.is_alive():  # hung on an executor whose thread does not exist in the child
        child.kill()
        child.join()
    assert child.exitcode == 0 and len(queue.get(timeout=5)) == 2
