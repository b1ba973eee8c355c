"""HaluEval sampling-then-filtering generator against a scripted loopback model: seeded
determinism with cached responses, the filter's selection paths, the CLI writing a set
that the recognition task loads directly, and sources in a foreign schema (--source-columns)."""

import hashlib
import json

import datasets
import pytest
from conftest import SHARED_DATA
from loopback import LoopbackChatServer

from hallu_metrics.benchmarks.halueval import TASKS
from hallubench.cli import main
from hallubench.core.backends import CallCache, backend_spec, make_client
from hallubench_generators.halueval import SCHEMAS, Settings, generate, read_source
from hallubench_generators.halueval.prompts import LENGTH_RULE_TASKS, sampling_messages
from hallubench_tasks.dataset_loading import load as load_task


def load(task, **options):
    """The docs of ``halueval_<task>`` (both answers of each record, as these tests count pairs)."""
    return load_task(f"halueval_{task}", halueval_task=task, halueval_pairing="both", **options)


RECORDS = {
    "qa": [
        {"knowledge": f"k{i}", "question": f"q{i}?", "right_answer": f"a{i}", "hallucinated_answer": "old"}
        for i in range(6)
    ],
    "dialogue": [
        {
            "knowledge": f"k{i}",
            "dialogue_history": f"[Human]: h{i}",
            "right_response": f"r{i}",
            "hallucinated_response": "old",
        }
        for i in range(6)
    ],
    "summarization": [{"document": f"d{i}", "right_summary": f"s{i}", "hallucinated_summary": "old"} for i in range(6)],
}


def scripted(messages: list[dict]) -> str:
    """Candidates depend on the whole conversation (so the two schemas differ); the filter always picks 2."""
    last = messages[-1]["content"]
    if last.rstrip().endswith("#Your Choice#:"):
        return "The best one is number 2."
    return "#Hallucinated Answer#: fake-" + hashlib.sha256(json.dumps(messages).encode()).hexdigest()[:8]


def filter_fallback_reply(messages: list[dict]) -> str:
    """The right answer as the candidate for q0 (one pass), an unreadable filter reply."""
    last = messages[-1]["content"]
    if last.rstrip().endswith("#Your Choice#:"):
        return "Both are fine."
    if len(messages) == 1 and "q0?" in last:
        return "a0"
    return f"fake-{len(messages)}"


def _run(server, cache_path, task: str, seed: int, pattern_mode: str = "all") -> list[dict]:
    client = make_client(backend_spec(f"openai:base_url={server.base_url},model=m"), CallCache(cache_path))
    return generate(RECORDS[task], client, client, Settings(task=task, n=4, seed=seed, pattern_mode=pattern_mode))


@pytest.mark.parametrize("task", ["qa", "dialogue", "summarization"])
def test_same_seed_gives_identical_rows_from_the_cache(task, tmp_path, loopback_servers):
    """Same seed => identical rows, the re-run served entirely from the cache; another seed samples afresh."""
    server = loopback_servers.chat(scripted)
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
        assert row["pattern"] == "" and row["schema"] in SCHEMAS  # the model chose among all patterns
        assert row["selected_by"] == "filter" and row["rejected_candidate"].startswith("fake-")


@pytest.mark.parametrize("task", ["qa", "dialogue", "summarization"])
def test_default_instruction_offers_every_pattern_and_single_mode_one(task, tmp_path):
    """As in the paper's sampling instruction (Table 2), every pattern of the task is offered with its
    demonstration, as alternatives the model chooses from; --pattern-mode single shows one seeded pattern per
    candidate and records it in the row."""
    spec, record = TASKS[task], RECORDS[task][0]
    offered = sampling_messages(spec, record, "one-pass", spec.patterns)[0]["content"]
    assert all(p.produce in offered and p.demo[spec.hallucinated] in offered for p in spec.patterns)
    assert offered.count("\n\nor\n\n") == len(spec.patterns) - 1 and "one of the methods" in offered
    seen: list[str] = []

    def reply(messages):
        if messages[-1]["content"].rstrip().endswith("#Your Choice#:"):
            return "Answer 1"
        text = "\n".join(m["content"] for m in messages)
        seen.append(text)
        return f"fake-{len(text)}"

    with LoopbackChatServer(reply) as server:
        rows = _run(server, tmp_path / "c.sqlite", task, seed=3, pattern_mode="single")
    assert all(sum(p.produce in text for p in spec.patterns) == 1 for text in seen)
    for row in rows:
        shown = next(p for p in spec.patterns if p.name == row["pattern"])
        assert any(shown.produce in text and f"fake-{len(text)}" == row[spec.hallucinated] for text in seen)


@pytest.mark.parametrize("task", ["qa", "dialogue", "summarization"])
def test_length_rule_only_where_the_paper_states_it(task):
    """ "About 5 more words than the right text" is part of the QA (Table 2) and summarization (Table 12)
    instructions, not of the dialogue one (Table 11)."""
    spec = TASKS[task]
    text = sampling_messages(spec, RECORDS[task][0], "one-pass", spec.patterns)[0]["content"]
    assert ("five words longer" in text) == (task in LENGTH_RULE_TASKS) == (task != "dialogue")


def test_conversational_schema_teaches_in_turns():
    """One-pass is a single user message; conversational teaches the intention, then each method in its own
    acknowledged turn, then gives the input: the same parts in the same order."""
    spec, record = TASKS["qa"], RECORDS["qa"][0]
    one = sampling_messages(spec, record, "one-pass", spec.patterns)
    turns = sampling_messages(spec, record, "conversational", spec.patterns)
    assert len(one) == 1 and [m["role"] for m in turns] == ["user", "assistant"] * (1 + len(spec.patterns)) + ["user"]
    user_parts = [m["content"] for m in turns if m["role"] == "user"]
    assert one[0]["content"] == "\n\n".join([user_parts[0], "\n\nor\n\n".join(user_parts[1:-1]), user_parts[-1]])
    single = sampling_messages(spec, record, "conversational", spec.patterns[:1])
    assert len(single) == 5 and "Method:" in single[2]["content"]


def test_filter_fallbacks(tmp_path, loopback_servers):
    """A candidate repeating the right answer is discarded (the other wins unfiltered); an unreadable filter reply
    keeps the first shown."""
    server = loopback_servers.chat(filter_fallback_reply)
    client = make_client(
        backend_spec(f"openai:base_url={server.base_url},model=m"), CallCache(tmp_path / "c.sqlite")
    )
    rows = generate(RECORDS["qa"], client, client, Settings(task="qa", n=6, seed=0))
    by_index = {r["source_index"]: r for r in rows}
    assert by_index[0]["selected_by"] == "only_valid_candidate" and by_index[0]["schema"] == "conversational"
    assert by_index[0]["rejected_candidate"] == ""
    assert {r["selected_by"] for i, r in by_index.items() if i} == {"filter_unparsed_first_shown"}


@pytest.mark.skipif(not (SHARED_DATA / "halueval").is_dir(), reason="../shared/data/halueval is not present")
def test_cli_set_from_shared_qa_data_is_a_task_dataset(tmp_path, loopback_servers):
    """`hallubench generate halueval` on the shared QA file writes save_to_disk + card; the halueval_qa hook loads
    it as pairs."""
    out = tmp_path / "set"
    server = loopback_servers.chat(scripted)
    code = main(
        [
            "generate",
            "halueval",
            "--task",
            "qa",
            "--source",
            str(SHARED_DATA / "halueval" / "qa_data_first1000.json"),
            "--generator",
            f"openai:base_url={server.base_url},model=m",
            "--n",
            "3",
            "--seed",
            "1",
            "--out",
            str(out),
        ]
    )
    assert code == 0 and "schema" in (out / "README.md").read_text()
    saved = datasets.load_from_disk(str(out))["test"]
    assert saved.num_rows == 3 and saved.features["source_index"].dtype == "int64"
    items = load("qa", dataset_halueval_qa=str(out))["test"]
    assert items["label"] == ["No", "Yes"] * 3
    assert items[1]["candidate"] == saved[0]["hallucinated_answer"] and items[1]["pattern"] == saved[0]["pattern"]


VECTARA = SHARED_DATA / "vectara_leaderboard" / "source_documents.jsonl"
VECTARA_COLUMNS = "right_summary=deepseek_r1_summary,document=source"
needs_vectara = pytest.mark.skipif(not VECTARA.is_file(), reason="../shared/data/vectara_leaderboard is not present")


def _generate_summaries(out, generator: str, columns: str | None = VECTARA_COLUMNS) -> int:
    mapping = ["--source-columns", columns, "--license", "apache-2.0"] if columns is not None else []
    return main(
        [
            "generate",
            "halueval",
            "--task",
            "summarization",
            "--source",
            str(VECTARA),
            *mapping,
            "--generator",
            generator,
            "--n",
            "3",
            "--seed",
            "5",
            "--out",
            str(out),
        ]
    )


@needs_vectara
def test_source_columns_turn_news_documents_into_a_summarization_set(tmp_path, loopback_servers):
    """--source-columns maps the vectara file's source/deepseek_r1_summary onto document/right_summary: the rows
    carry those columns' text of the chosen lines and the official schema; the same seed and cache rewrite identical
    rows without a call; the card carries the given license; halueval_summarization loads the set as
    right/hallucinated pairs."""
    documents = [json.loads(line) for line in VECTARA.read_text(encoding="utf-8").splitlines()]
    server = loopback_servers.chat(scripted)
    generator = f"openai:base_url={server.base_url},model=m"
    assert _generate_summaries(tmp_path / "a", generator) == 0
    calls = len(server.requests)
    assert _generate_summaries(tmp_path / "b", generator) == 0
    assert len(server.requests) == calls == 3 * 2 + 3
    rows = datasets.load_from_disk(str(tmp_path / "a"))["test"].to_list()
    assert rows == datasets.load_from_disk(str(tmp_path / "b"))["test"].to_list() and len(rows) == 3
    provenance = {"source_index", "pattern", "schema", "selected_by", "rejected_candidate"}
    for row in rows:
        assert set(row) == set(TASKS["summarization"].columns) | provenance
        original = documents[row["source_index"]]
        assert row["document"] == original["source"] and row["right_summary"] == original["deepseek_r1_summary"]
        assert row["hallucinated_summary"].startswith("fake-")
    card = (tmp_path / "a" / "README.md").read_text()
    assert VECTARA_COLUMNS in card and "license: apache-2.0" in card
    items = load("summarization", dataset_halueval_summarization=str(tmp_path / "a"))["test"]
    assert items["label"] == ["No", "Yes"] * 3 and items[0]["candidate"] == rows[0]["right_summary"]


@needs_vectara
def test_a_json_array_source_reads_like_json_lines(tmp_path):
    """A .json file holding one JSON array gives the same mapped records as the same objects in JSON lines."""
    lines = VECTARA.read_text(encoding="utf-8").splitlines()[:4]
    array = tmp_path / "docs.json"
    array.write_text(json.dumps([json.loads(line) for line in lines]), encoding="utf-8")
    records = read_source("summarization", str(array), VECTARA_COLUMNS)
    assert records == read_source("summarization", str(VECTARA), VECTARA_COLUMNS)[:4]
    assert set(records[0]) == {"document", "right_summary"}


@needs_vectara
@pytest.mark.parametrize(
    "columns, message",
    [
        (None, "record 1 has no column 'document' for document"),
        ("right_summary=summary,document=source", "no column 'summary' for right_summary"),
        ("hallucinated_summary=deepseek_r1_summary", "'hallucinated_summary' is not a summarization source field"),
        ("right_summary", "'right_summary' is not FIELD=COLUMN"),
    ],
)
def test_bad_source_columns_give_a_one_line_error(tmp_path, capsys, columns, message):
    """A missing or unknown column, or a malformed mapping, exits 2 with one error line, before any model call
    (the generator endpoint is unreachable) and without writing the output folder."""
    assert (
        _generate_summaries(tmp_path / "o", "openai:base_url=http://127.0.0.1:9/v1,model=m,max_retries=0", columns) == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hallubench: error:") and message in err[0], err
    assert not (tmp_path / "o").exists()
