"""HaluEval sampling-then-filtering generator against a scripted loopback model: seeded
determinism with cached responses, the filter's selection paths, and the CLI writing a set
that the recognition task loads directly."""

import hashlib
import json

import datasets
import pytest
from conftest import SHARED_DATA

from generators.halueval import SCHEMAS, Settings, generate, sampling_messages
from hallu_metrics.halueval import TASKS
from hallubench.backends import CallCache, backend_spec, make_client
from hallubench.cli import main
from hallubench.loopback import LoopbackChatServer
from lm_eval_tasks.halueval.loading import load

RECORDS = {
    "qa": [{"knowledge": f"k{i}", "question": f"q{i}?", "right_answer": f"a{i}", "hallucinated_answer": "old"} for i in range(6)],
    "dialogue": [{"knowledge": f"k{i}", "dialogue_history": f"[Human]: h{i}", "right_response": f"r{i}", "hallucinated_response": "old"} for i in range(6)],
    "summarization": [{"document": f"d{i}", "right_summary": f"s{i}", "hallucinated_summary": "old"} for i in range(6)],
}


def scripted(messages: list[dict]) -> str:
    """Candidates depend on the whole conversation (so the two schemas differ); the filter always picks 2."""
    last = messages[-1]["content"]
    if last.rstrip().endswith("#Your Choice#:"):
        return "The best one is number 2."
    return "#Hallucinated Answer#: fake-" + hashlib.sha256(json.dumps(messages).encode()).hexdigest()[:8]


def _run(server, cache_path, task: str, seed: int) -> list[dict]:
    client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), CallCache(cache_path))
    return generate(RECORDS[task], client, client, Settings(task=task, n=4, seed=seed))


@pytest.mark.parametrize("task", ["qa", "dialogue", "summarization"])
def test_same_seed_gives_identical_rows_from_the_cache(task, tmp_path):
    """Same seed => identical rows, the re-run served entirely from the cache; another seed samples afresh."""
    with LoopbackChatServer(scripted) as server:
        first = _run(server, tmp_path / "c.sqlite", task, seed=7)
        calls = len(server.requests)
        assert calls == 4 * 2 + 4  # two samples + one filter call per source example
        assert _run(server, tmp_path / "c.sqlite", task, seed=7) == first
        assert len(server.requests) == calls
        other = _run(server, tmp_path / "c.sqlite", task, seed=8)
        assert len(server.requests) > calls  # the sampling seed is part of the cache key
    spec = TASKS[task]
    assert other != first
    for row in first:
        assert set(spec.columns) <= set(row) and row[spec.hallucinated].startswith("fake-")
        assert row["pattern"] in {p.name for p in spec.patterns} and row["schema"] in SCHEMAS
        assert row["selected_by"] == "filter" and row["rejected_candidate"].startswith("fake-")


def test_conversational_schema_teaches_in_turns():
    """One-pass is a single user message; conversational splits the same text into acknowledged turns."""
    spec, record = TASKS["qa"], RECORDS["qa"][0]
    pattern = spec.patterns[0]
    one = sampling_messages(spec, record, "one-pass", pattern)
    turns = sampling_messages(spec, record, "conversational", pattern)
    assert len(one) == 1 and [m["role"] for m in turns] == ["user", "assistant", "user", "assistant", "user"]
    assert one[0]["content"] == "\n\n".join(m["content"] for m in turns if m["role"] == "user")


def test_filter_fallbacks(tmp_path):
    """A candidate repeating the right answer is discarded (the other wins unfiltered); an unreadable filter reply keeps the first shown."""
    def reply(messages):
        last = messages[-1]["content"]
        if last.rstrip().endswith("#Your Choice#:"):
            return "Both are fine."
        if len(messages) == 1 and "q0?" in last:
            return "a0"
        return f"fake-{len(messages)}"

    with LoopbackChatServer(reply) as server:
        client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), CallCache(tmp_path / "c.sqlite"))
        rows = generate(RECORDS["qa"], client, client, Settings(task="qa", n=6, seed=0))
    by_index = {r["source_index"]: r for r in rows}
    assert by_index[0]["selected_by"] == "only_valid_candidate" and by_index[0]["schema"] == "conversational"
    assert by_index[0]["rejected_candidate"] == ""
    assert {r["selected_by"] for i, r in by_index.items() if i} == {"filter_unparsed_first_shown"}


@pytest.mark.skipif(not (SHARED_DATA / "halueval").is_dir(), reason="../shared/data/halueval is not present")
def test_cli_set_from_shared_qa_data_is_a_task_dataset(tmp_path):
    """`hallubench generate halueval` on the shared QA file writes save_to_disk + card; the halueval_qa hook loads it as pairs."""
    out = tmp_path / "set"
    with LoopbackChatServer(scripted) as server:
        code = main([
            "generate", "halueval", "--task", "qa", "--source", str(SHARED_DATA / "halueval" / "qa_data_first1000.json"),
            "--generator", f"openai:base_url={server.base_url},model=m", "--n", "3", "--seed", "1", "--out", str(out),
        ])
    assert code == 0 and "schema" in (out / "README.md").read_text()
    saved = datasets.load_from_disk(str(out))["test"]
    assert saved.num_rows == 3 and saved.features["source_index"].dtype == "int64"
    items = load("qa", dataset_halueval_qa=str(out))["test"]
    assert items["label"] == ["No", "Yes"] * 3
    assert items[1]["candidate"] == saved[0]["hallucinated_answer"] and items[1]["pattern"] == saved[0]["pattern"]
