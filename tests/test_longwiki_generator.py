"""LongWiki generator (HalluLens 3.2.2): levels 5-9 with N/5 prompts each, the prompt-writer and mock-answer
rejections ([NO QUESTION], unanswerable, "Unfortunately", under 4 sentences, leaning on the text), pages absent
from the knowledge store skipped, top-up and shortfall, the offline writer, the card, and byte-identical
regeneration through the CLI."""

import hashlib
import json
import re

import datasets
import pytest

from hallu_metrics.longform.knowledge import write_store
from hallubench.cli import main
from hallubench.core.backends import CallCache, backend_spec, make_client
from hallubench.core.errors import HallubenchError
from hallubench_generators import longwiki as gen
from hallubench_generators.common.articles import Article, LoadedSource
from hallubench_generators.longwiki.checks import mock_answer_problem, parse_prompt
from hallubench_generators.longwiki.offline import offline_prompt

SENTENCES = " ".join(f"Fact number {i} about this topic is stated here in full." for i in range(6))


def article(i: int) -> Article:
    markdown = f"Page {i} is a test subject of the sample.\n\n## History\n\n{SENTENCES}"
    return Article(f"Page {i}", markdown, pageid=i, revid=100 + i)


ARTICLES = [article(i) for i in range(40)]
SOURCE = LoadedSource(ARTICLES, "test pages", "r1", "cc-by-sa-4.0")


def reply(messages):
    """Scripted writer: behaviour picked by the page number in the request."""
    text = messages[-1]["content"]
    page = int(re.search(r"Page (\d+)", text).group(1))
    if "[NO QUESTION]" in text:  # prompt-writer call
        return {1: "[NO QUESTION]", 2: "What does the section say about Page 2?"}.get(
            page, f"Question: How did Page {page} come to be, and what followed?")
    kinds = {3: "unanswerable", 4: "Unfortunately, the reference does not say.", 5: "Page 5 began. It ended."}
    return kinds.get(page, f"Page {page} began long ago. It grew. It changed. It is still studied today.")


def never_a_question(messages):
    return "[NO QUESTION]"


@pytest.fixture
def server(loopback_servers):
    return loopback_servers.chat(reply)


@pytest.fixture
def wikirank(tmp_path):
    """Scores 0-39 in page order: deciles put four pages in each bin, pages 20-39 in levels 5-9."""
    titles, scores = tmp_path / "w.titles", tmp_path / "w-h.txt"
    titles.write_text("\n".join(a.title for a in ARTICLES) + "\n")
    scores.write_text("\n".join(str(float(i)) for i in range(len(ARTICLES))) + "\n")
    return str(titles), str(scores)


def run_llm(server, tmp_path, n, centrality=None, in_store=None, allow_shortfall=False, articles=ARTICLES):
    client = make_client(backend_spec(f"openai:base_url={server.base_url},model=writer"),
                         CallCache(tmp_path / "calls.sqlite"))
    settings = gen.Settings(n=n, seed=0, allow_shortfall=allow_shortfall)
    source = LoadedSource(articles, "test pages", "r1", "cc-by-sa-4.0")
    return gen.generate(source, client, settings, centrality, in_store)


def test_levels_five_to_nine_get_n_over_five_and_bad_items_are_rejected(server, tmp_path, wikirank):
    """Only the easier half (levels 5-9) is used, N/5 per level; each paper rejection is counted."""
    rows, report, _ = run_llm(server, tmp_path, 10, wikirank)  # pages 1-5 misbehave but sit in the hard half
    assert sorted(r["level"] for r in rows) == [5, 5, 6, 6, 7, 7, 8, 8, 9, 9]
    assert all(int(r["title"].split()[1]) >= 20 for r in rows)
    assert report.quotas == dict.fromkeys(range(5, 10), 2) and not report.rejected
    row = rows[0]
    assert row["h_score"] is not None and row["pageid"] == int(row["title"].split()[1])
    assert row["prompt"].startswith("How did Page") and row["mock_answer"].startswith(row["title"])


def test_rejections_follow_the_paper_and_the_escape_reply(server, tmp_path):
    """[NO QUESTION], prompts leaning on the text, unanswerable / 'Unfortunately' answers and mock answers under
    4 sentences are rejected, counted, and replaced from further pages."""
    rows, report, _ = run_llm(server, tmp_path, 6, articles=ARTICLES[:12])
    assert len(rows) == 6 and not {"Page 1", "Page 2", "Page 3", "Page 4", "Page 5"} & {r["title"] for r in rows}
    assert report.rejected == {"no_question_marker": 1, "not_self_contained": 1, "unanswerable": 2,
                               "mock_answer_too_short": 1}
    prompts = [r for r in server.requests if "[NO QUESTION]" in r["messages"][-1]["content"]]
    answers = [r for r in server.requests if "[NO QUESTION]" not in r["messages"][-1]["content"]]
    assert {(r["temperature"], r["top_p"]) for r in prompts} == {(0.7, 0.9)}
    assert {r["temperature"] for r in answers} == {0.0}


def test_pages_absent_from_the_knowledge_store_are_skipped(server, tmp_path):
    """A page the verification store lacks is never asked about, and the card counts it."""
    in_store = {a.title for a in ARTICLES if a.title != "Page 0"}
    rows, report, _ = run_llm(server, tmp_path, 3, in_store=in_store, articles=[ARTICLES[0], *ARTICLES[6:9]])
    assert "Page 0" not in {r["title"] for r in rows} and report.skipped_not_in_store == 1
    assert not [r for r in server.requests if "Page 0" in r["messages"][-1]["content"]]


def test_shortfall_names_each_level_or_is_reported(server, tmp_path, wikirank):
    """Too few usable pages: one error naming the short levels, or a smaller set with --allow-shortfall."""
    with pytest.raises(HallubenchError, match=r"level 5: \d/5.*--allow-shortfall"):
        run_llm(server, tmp_path, 25, wikirank)
    rows, report, _ = run_llm(server, tmp_path, 25, wikirank, allow_shortfall=True)
    assert len(rows) == 20 and report.accepted[5] == 4 and report.quotas[5] == 5


def test_no_item_accepted_is_one_error_with_the_rejections_even_with_allow_shortfall(tmp_path, wikirank,
                                                                                     loopback_servers):
    """A writer that never answers in the expected format: a clear error naming the rejection counts, nothing
    written (was a datasets 'Keys mismatch' traceback)."""
    refusing = loopback_servers.chat(never_a_question)
    with pytest.raises(HallubenchError, match=r"^no item was accepted \(rejections: no_question_marker \d+\); "
                                              r"nothing was written$"):
        run_llm(refusing, tmp_path, 10, wikirank, allow_shortfall=True)


def test_offline_writer_uses_headings_or_the_lead_definition_and_needs_four_sentences():
    """Offline prompts name the page and the section heading (or the lead's defining phrase); the section is the
    mock answer, so a section under 4 sentences is rejected."""
    assert offline_prompt("Page 1", "Page 1 is a page.", "## History\nIt began.") == (
        'Tell me about Page 1, in particular "History".')
    assert offline_prompt("Sirius", "Sirius is the brightest star in the night sky. It is bright.",
                              "Sirius is the brightest star in the night sky.") == (
        "Tell me about Sirius, the brightest star in the night sky.")
    assert offline_prompt("Tea", "Tea is drunk.", "Tea is drunk.") == "Tell me about Tea."
    short = Article("Short", "Short is a page. It has two sentences.")
    rows, report, _ = gen.generate(LoadedSource([short, *ARTICLES[:3]], "t", "r", "x"), None,
                                   gen.Settings(n=3, seed=0), None, None)
    assert len(rows) == 3 and report.rejected == {"mock_answer_too_short": 1}
    assert all(r["level"] is None and r["mock_answer"] == r["reference"] for r in rows)


def test_parse_prompt_and_mock_answer_rules():
    """The escape reply anywhere, labels stripped, and the 4-sentence minimum."""
    assert parse_prompt("Sure. [NO QUESTION]") == (None, "no_question_marker")
    assert parse_prompt("**Question:** Why did Rome fall?") == ("Why did Rome fall?", None)
    assert parse_prompt("  ") == (None, "empty_question")
    assert mock_answer_problem("A. B. C.") == "mock_answer_too_short"
    assert mock_answer_problem("One is. Two is. Three is. Four is.") is None
    assert mock_answer_problem("UNANSWERABLE") == "unanswerable"


def _arrow_digest(folder):
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted((folder / "test").glob("*.arrow")))).hexdigest()


def test_cli_regeneration_is_byte_identical_and_the_card_reports_the_run(tmp_path, monkeypatch):
    """Same seed and source: identical Arrow data and card (offline writer, knowledge store check)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    source = tmp_path / "pages.jsonl"
    source.write_text("\n".join(json.dumps({"title": a.title, "markdown": a.markdown, "pageid": a.pageid,
                                            "revid": a.revid}) for a in ARTICLES[:8]) + "\n")
    store = write_store(tmp_path / "kb", [(a.title, a.markdown) for a in ARTICLES[1:8]], progress=False).path
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        assert main(["generate", "longwiki", "--source", str(source), "--question-writer", "offline", "--n", "4",
                     "--knowledge", str(store), "--out", str(out)]) == 0
    assert _arrow_digest(outs[0]) == _arrow_digest(outs[1])
    assert (outs[0] / "README.md").read_text() == (outs[1] / "README.md").read_text()
    test = datasets.load_from_disk(str(outs[0]))["test"]
    assert len(test) == 4 and "Page 0" not in test["title"]
    assert {"prompt", "title", "reference", "level", "mock_answer"} <= set(test.column_names)
    card = (outs[0] / "README.md").read_text()
    assert "pages absent from it skipped: 1" in card and "offline stand-in" in card and "no levels" in card
    assert main(["generate", "longwiki", "--source", str(source), "--n", "2", "--out", str(tmp_path / "c")]) == 2
