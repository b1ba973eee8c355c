"""PreciseWikiQA generator: chunking, centrality deciles, filters, top-up, shortfall, determinism
(byte-identical Arrow data for the same seed and responses), the card and the CLI errors."""

import hashlib
import json
import re
from pathlib import Path

import datasets
import pytest

from hallubench.cli import main
from hallubench_generators.common.chunking import chunk_article, count_tokens, split_sentences
from hallubench_generators.common.difficulty import bin_by_centrality
from hallubench_generators.precisewikiqa.checks import parse_answer, parse_question


def scripted_generator(messages):
    """Questions name the page; pages whose title starts with A-F are 'unanswerable', G-L get a long answer,
    the others the longest of the reference's first 20 words (a span of the reference)."""
    text = messages[-1]["content"]
    title = re.search(r'article "([^"]+)"', text)
    if title:
        return f"Question: What is one documented fact about {title.group(1)}?"
    subject = re.search(r"fact about (.+)\?", text).group(1)
    if subject[0].upper() in "ABCDEF":
        return "unanswerable"
    if subject[0].upper() in "GHIJKL":
        return "a very long answer that goes on for far more than ten words in total"
    reference = text.split("Reference text:\n", 1)[1].split("\n\nQuestion:", 1)[0]
    return max(re.findall(r"[A-Za-z]+", reference)[:20], key=len) + "."


@pytest.fixture
def server(loopback_servers):
    return loopback_servers.chat(scripted_generator)


@pytest.fixture
def wikirank(tmp_path, goodwiki_sample):
    titles = sorted(json.loads((p / "props.json").read_text())["title"] for p in goodwiki_sample.iterdir())
    kept = titles[:-2]  # two pages without a score
    (tmp_path / "t.titles").write_text("\n".join(t.replace(" ", "_") for t in kept) + "\nUnrelated page\n")
    (tmp_path / "h.txt").write_text("\n".join(str(float(i * 7 % 31)) for i in range(len(kept))) + "\n99.0\n")
    return tmp_path / "t.titles", tmp_path / "h.txt", titles


def generate(server, out, source, n, seed=0, extra=()):
    return main(["generate", "precisewikiqa", "--source", str(source), "--n", str(n), "--seed", str(seed),
                 "--generator", f"openai:base_url={server.base_url},model=scripted,max_retries=0",
                 "--out", str(out), *extra])


def test_chunks_respect_bounds_and_drop_the_trailing_chunk(goodwiki_sample):
    markdown = (goodwiki_sample / "pi" / "markdown.md").read_text()
    chunks = chunk_article(markdown)
    assert len(chunks) > 2
    assert all(count_tokens(c) >= 200 for c in chunks)
    assert "Approximations of" not in chunks[-1]  # the see-also chunk was dropped
    assert chunk_article("One short lead sentence.") == ["One short lead sentence."]


def test_deciles_come_from_the_data_and_unmatched_pages_stay_out():
    titles = [f"P{i}" for i in range(25)]
    binning = bin_by_centrality(titles, {f"P{i}": float(i) for i in range(20)})
    assert sorted(binning.unmatched) == sorted(f"P{i}" for i in range(20, 25))
    assert binning.bins["P0"] == 0 and binning.bins["P19"] == 9
    assert [sum(1 for b in binning.bins.values() if b == k) for k in range(10)] == [2] * 10


@pytest.mark.parametrize("text, expected", [
    ("Question: Who built it?\n", "Who built it?"),
    ('1. "In what year was the bridge opened?" (answer: 1890)', "In what year was the bridge opened?"),
    ("Here is my question", None),
])
def test_question_parsing(text, expected):
    assert parse_question(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Answer: 1890.", ("1890", None)),
    ("Unfortunately the text does not say", (None, "unanswerable")),
    ("UNANSWERABLE", (None, "unanswerable")),
    ("one two three four five six seven eight nine ten eleven", (None, "answer_too_long")),
    ("   ", (None, "empty_answer")),
])
def test_answer_filters(text, expected):
    assert parse_answer(text) == expected


def _arrow_digest(folder: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted((folder / "test").glob("*.arrow")))).hexdigest()


def test_binned_generation_meets_quotas_filters_and_is_deterministic(
    server, tmp_path, goodwiki_sample, wikirank, monkeypatch
):
    titles_file, scores_file, _ = wikirank
    extra = ["--wikirank-titles", str(titles_file), "--wikirank-scores", str(scores_file)]
    assert generate(server, tmp_path / "a", goodwiki_sample, 5, seed=7, extra=extra) == 0
    test = datasets.load_from_disk(str(tmp_path / "a"))["test"]
    assert len(test) == 5
    assert {"id", "question", "answer", "title", "reference", "difficulty", "pageid", "revid"} <= set(test.column_names)
    assert all(row["title"][0].upper() not in "ABCDEFGHIJKL" for row in test)  # filtered pages never appear
    assert all(len(row["answer"].split()) <= 10 for row in test)
    assert len(set(test["difficulty"])) == 5  # 5 questions over 10 bins: bins 0-4 get one each
    card = (tmp_path / "a" / "README.md").read_text()
    assert card.startswith("---\n") and "license: cc-by-sa-4.0" in card and "seed: 7" in card
    assert "2 pages had no score" in card and "unanswerable:" in card
    # Same seed, fresh cache, same responses: identical data. Another seed: another set.
    monkeypatch.setenv("HALLUBENCH_CACHE", str(tmp_path / "other.sqlite"))
    assert generate(server, tmp_path / "b", goodwiki_sample, 5, seed=7, extra=extra) == 0
    assert _arrow_digest(tmp_path / "a") == _arrow_digest(tmp_path / "b")
    assert generate(server, tmp_path / "c", goodwiki_sample, 5, seed=8, extra=extra) == 0
    assert datasets.load_from_disk(str(tmp_path / "c"))["test"]["id"] != test["id"]


def test_rerun_is_served_from_the_cache(server, tmp_path, goodwiki_sample, capsys):
    assert generate(server, tmp_path / "a", goodwiki_sample, 3) == 0
    calls = len(server.requests)
    assert generate(server, tmp_path / "a", goodwiki_sample, 3, extra=["--overwrite"]) == 0
    assert len(server.requests) == calls
    assert "0 calls made" in capsys.readouterr().err


def test_shortfall_is_an_error_and_writes_nothing(server, tmp_path, goodwiki_sample, capsys):
    # 32 pages, of which those starting with M-Z survive the scripted filters: far fewer than 30.
    assert generate(server, tmp_path / "short", goodwiki_sample, 30) == 2
    err = capsys.readouterr().err
    assert "ran out of usable pages" in err and "unbinned:" not in err
    assert not (tmp_path / "short").exists()
    assert generate(server, tmp_path / "short", goodwiki_sample, 30, extra=["--allow-shortfall"]) == 0
    assert 0 < len(datasets.load_from_disk(str(tmp_path / "short"))["test"]) < 30


@pytest.mark.parametrize("args, message", [
    (["--source", "nowhere", "--n", "3", "--generator", "smollm2"], "unknown source"),
    (["--source", "wiki-offline", "--n", "3", "--generator", "gpt4"], "unknown kind"),
    (["--source", "wiki-offline", "--n", "0", "--generator", "openai:base_url=http://127.0.0.1:9/v1,model=m"],
     "--n must be at least 1"),
    (["--source", "wiki-offline", "--n", "3", "--generator",
      "openai:base_url=http://127.0.0.1:9/v1,model=m,max_retries=0", "--wikirank-titles", "x"], "go together"),
])
def test_bad_input_gives_one_line_error(tmp_path, capsys, args, message):
    assert main(["generate", "precisewikiqa", *args, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hallubench: error:") and message in err[0]
    assert not (tmp_path / "o").exists()


def test_unreachable_generator_fails_cleanly(tmp_path, capsys, goodwiki_sample):
    spec = "openai:base_url=http://127.0.0.1:9/v1,model=m,max_retries=1,backoff=0.01"
    assert main(["generate", "precisewikiqa", "--source", str(goodwiki_sample), "--n", "2", "--generator", spec,
                 "--out", str(tmp_path / "o")]) == 2
    assert "failed after retries" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_existing_output_is_not_overwritten_by_default(server, tmp_path, goodwiki_sample, capsys):
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "notes.txt").write_text("mine")
    assert generate(server, tmp_path / "o", goodwiki_sample, 2) == 2
    assert "already exists" in capsys.readouterr().err


def test_jsonl_source_with_goodwiki_columns(server, tmp_path, goodwiki_sample):
    """A .jsonl with GoodWiki's columns is a source like the article folder."""
    lines = []
    for page in sorted(goodwiki_sample.iterdir()):
        props = json.loads((page / "props.json").read_text())
        lines.append(json.dumps({"title": props["title"], "markdown": (page / "markdown.md").read_text(),
                                 "pageid": props["pageid"], "revid": props["revid"]}))
    (tmp_path / "pages.jsonl").write_text("\n".join(lines) + "\n")
    assert generate(server, tmp_path / "o", tmp_path / "pages.jsonl", 2) == 0
    test = datasets.load_from_disk(str(tmp_path / "o"))["test"]
    assert all(isinstance(p, int) for p in test["pageid"])


def test_chunks_of_the_shared_sample_stay_within_200_to_500_tokens(goodwiki_sample):
    """On all 32 GoodWiki sample articles every chunk has 200-500 word+punctuation tokens, except a chunk that
    is one sentence longer than 500 (the reference's merging produced chunks of up to 1,269 tokens)."""
    sizes = []
    for page in sorted(goodwiki_sample.iterdir()):
        for chunk in chunk_article((page / "markdown.md").read_text()):
            tokens = count_tokens(chunk)
            sizes.append(tokens)
            assert tokens >= 200, (page.name, tokens)
            assert tokens <= 500 or len(split_sentences(chunk)) == 1, (page.name, tokens)
    assert len(sizes) > 600 and sum(t > 500 for t in sizes) <= 1


def test_chunks_follow_sections_and_join_a_short_section_to_a_neighbour():
    """A short section is joined to a neighbour rather than left below 200 tokens, a long one is cut at sentence
    ends, and a short section after a 420-token one moves the cut instead of pushing a chunk past 500."""
    sentence = "The quick brown fox jumps over the lazy dog again and again today."  # 14 tokens
    section = lambda name, n: f"## {name}\n" + " ".join([sentence] * n)
    markdown = "\n\n".join([" ".join([sentence] * 20), section("Short", 3), section("Long", 60), section("Mid", 30),
                            section("Tail", 8), section("End", 20)])
    chunks = chunk_article(markdown)
    assert [count_tokens(c) for c in chunks][:1] == [20 * 14 + count_tokens(section("Short", 3))]
    assert all(200 <= count_tokens(c) <= 500 for c in chunks)
    assert all(c.count("## ") <= 1 for c in chunks) and chunks[1].startswith("## Long")


BAD_QUESTIONS = {  # first letter of the title -> (question, reason it must be rejected for)
    "ABCDEF": ("When was it first described?", "not_self_contained"),
    "GHIJKL": ("How many people lived in the city in 2010?", "subject_not_named"),
    "MNOPQR": ("What is {name}?", "answer_repeats_question"),
    "STUVWXYZ": ("Who wrote the first study of {name}?", "answer_not_in_reference"),
}


def bad_question_generator(messages):
    """Per title group a question/answer pair that fails one usability check; titles starting with a digit get
    a usable pair (the longest of the reference's first 20 words)."""
    text = messages[-1]["content"]
    title = re.search(r'article "([^"]+)"', text)
    if title:
        name = title.group(1)
        return next((q.format(name=name) for letters, (q, _) in BAD_QUESTIONS.items() if name[0].upper() in letters),
                    f"Which long word appears early in the lead of {name}?")
    question = text.split("Question: ", 1)[1].split("\n", 1)[0]
    if repeated := re.fullmatch(r"What is (.+)\?", question):
        return repeated.group(1)
    if question.startswith("Who wrote"):
        return "Zyxwvut Qwerty"
    reference = text.split("Reference text:\n", 1)[1].split("\n\nQuestion:", 1)[0]
    return max(re.findall(r"[A-Za-z]+", reference)[:20], key=len)


def test_llm_questions_failing_the_usability_checks_are_rejected_and_counted(tmp_path, goodwiki_sample,
                                                                            loopback_servers):
    """LLM output that is not self-contained, does not name its subject, answers with the question's own words
    or gives an answer absent from the reference never enters the set; the card counts each reason."""
    titles = [json.loads((p / "props.json").read_text())["title"] for p in goodwiki_sample.iterdir()]
    bad = loopback_servers.chat(bad_question_generator)
    assert generate(bad, tmp_path / "o", goodwiki_sample, len(titles), extra=["--allow-shortfall"]) == 0
    test = datasets.load_from_disk(str(tmp_path / "o"))["test"]
    assert sorted(test["title"]) == sorted(t for t in titles if t[0].isdigit())
    card = (tmp_path / "o" / "README.md").read_text()
    for letters, (_, reason) in BAD_QUESTIONS.items():
        expected = sum(t[0].upper() in letters for t in titles)
        assert expected and f"- {reason}: {expected}\n" in card, reason
