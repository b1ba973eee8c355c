"""Knowledge store: FActScore's database format read and written, the sidecar title index (substring, case,
cap, built once, rebuilt when stale, user db untouched), atomic writes, and ``hallubench knowledge build``."""

import argparse
import hashlib
import json
import random
import sqlite3
import threading
from pathlib import Path

import pytest

from hallu_metrics.longform import title_index
from hallu_metrics.longform.knowledge import SEPARATOR, KnowledgeStore, write_store
from hallu_metrics.longform.passages import cut_passages
from hallubench.cli.knowledge import add_parser
from hallubench.core.errors import HallubenchError


def factscore_db(path: Path, pages: dict[str, list[str]]) -> Path:
    """A database written the way FActScore's DocDB.build_db writes it: decoded RoBERTa passages carrying
    <s>/</s> markers, joined by the special separator."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE documents (title PRIMARY KEY, text);")
    rows = [(title, SEPARATOR.join(f"<s>{p}</s>" for p in passages)) for title, passages in pages.items()]
    conn.executemany("INSERT INTO documents VALUES (?,?)", rows)
    conn.commit()
    conn.close()
    return path


PAGES = {
    "Paris": ["Paris is the capital of France.", " It lies on the Seine."],
    "Paris Saint-Germain F.C.": ["PSG is a football club based in Paris."],
    "PARIS (band)": ["PARIS was an American rock band."],
    "Comparison of parish systems": ["Parishes differ between churches."],
    "Lyon": ["Lyon is a city in France."],
}


def cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="hallubench")
    add_parser(parser.add_subparsers(dest="command", required=True), "knowledge", None)
    args = parser.parse_args(argv)
    return args.handler(args)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_reads_a_factscore_database_as_is(tmp_path):
    """Passages come back split on FActScore's separator with the <s>/</s> markers removed; unknown titles
    give None / [] (lookups are exact, as FActScore's get_text_from_title)."""
    store = KnowledgeStore.open(factscore_db(tmp_path / "enwiki.db", PAGES))
    passages = store.passages("Paris")
    assert [(p.title, p.text, p.index) for p in passages] == [
        ("Paris", "Paris is the capital of France.", 0),
        ("Paris", "It lies on the Seine.", 1),
    ]
    assert store.get("Paris") == "Paris is the capital of France. It lies on the Seine."
    assert "Lyon" in store and "lyon" not in store
    assert store.get("Atlantis") is None and store.passages("Atlantis") == []
    store.close()


def test_opening_and_indexing_leave_the_users_database_untouched(tmp_path):
    """The title index goes to a sidecar file; the database bytes do not change."""
    db = factscore_db(tmp_path / "enwiki.db", PAGES)
    before = digest(db)
    with KnowledgeStore.open(db) as store:
        assert store.titles_containing("lyo") == ["Lyon"]
    assert digest(db) == before
    assert (tmp_path / "enwiki.db.titles.fts.sqlite").is_file()


def test_a_store_in_a_read_only_folder_gets_its_index_in_the_cache_folder(tmp_path, monkeypatch):
    """A shared FActScore database in a folder the user cannot write: the title index is built under the cache folder
    (named after the store's path), and the store is used as is. (Tests run as root, for whom every folder is
    writable: the folder's permission is simulated.)"""
    (tmp_path / "shared").mkdir()
    db = factscore_db(tmp_path / "shared" / "enwiki.db", PAGES)
    monkeypatch.setenv("HALLUBENCH_CACHE", str(tmp_path / "cache" / "calls.sqlite"))
    writable = title_index.os.access
    monkeypatch.setattr(title_index.os, "access", lambda path, mode: Path(path) != db.parent and writable(path, mode))
    with KnowledgeStore.open(db) as store:
        assert store.titles_containing("lyo") == ["Lyon"]
        assert store.index_path.parent == tmp_path / "cache" / "title_indexes"
    assert not (db.parent / "enwiki.db.titles.fts.sqlite").exists()
    assert [p.name.endswith("-enwiki.db.titles.fts.sqlite") for p in (tmp_path / "cache" / "title_indexes").iterdir()] \
        == [True]


def test_titles_containing_is_case_insensitive_substring_search_with_a_cap(tmp_path):
    """Substring anywhere in the title, any case, store order, capped; under 3 characters gives nothing."""
    with KnowledgeStore.open(factscore_db(tmp_path / "enwiki.db", PAGES)) as store:
        assert store.titles_containing("paris") == [
            "Paris", "Paris Saint-Germain F.C.", "PARIS (band)", "Comparison of parish systems"
        ]
        assert store.titles_containing("PARIS", limit=2) == ["Paris", "Paris Saint-Germain F.C."]
        assert store.titles_containing("saint-germain f.c") == ["Paris Saint-Germain F.C."]
        assert store.titles_containing("Pa") == []
        assert store.titles_containing('say "hi"') == []


def test_rarest_trigram_lookup_returns_what_the_phrase_search_returned(tmp_path):
    """The lookup through the rarest trigrams plus a substring check gives, for every query and cap, the titles
    the previous FTS5 phrase query over all the query's trigrams gave (and plain case-folded substring search
    gives), on titles of shared syllables, punctuation, quotes and non-ASCII letters."""
    rng = random.Random(7)
    syllables = ["an", "ber", "cis", "don", "er", "fan", "lis", "ton", "zo"]
    words = ["".join(rng.choices(syllables, k=rng.randint(1, 3))).capitalize() for _ in range(300)]
    titles = list(dict.fromkeys(" ".join(rng.choices(words, k=rng.randint(1, 3))) + rng.choice(
        ["", " (film)", " F.C.", " River"]) for _ in range(1500)))
    titles += ["Zürich", "ZÜRICH Airport", "São Paulo F.C.", 'The "Ber" Show', "Ångström (unit)", "Straße Ber"]
    db = factscore_db(tmp_path / "enwiki.db", {title: [f"{title} is a page."] for title in titles})
    queries = rng.sample([word for word in words if len(word) >= 3], 40) + [
        "river", "n (fil", "f.c.", "zür", "SÃO PAU", '"ber"', "ångström", "straße", "nothing like it", "bercis ton"]
    with KnowledgeStore.open(db) as store:
        phrase_search = sqlite3.connect(store.title_index().path)
        for query, limit in ((q, cap) for q in queries for cap in (3, 100)):
            phrase = '"' + query.replace('"', '""') + '"'
            before = [title for (title,) in phrase_search.execute(
                "SELECT title FROM titles_fts WHERE titles_fts MATCH ? ORDER BY rowid LIMIT ?", (phrase, limit))]
            assert store.titles_containing(query, limit) == before, query
            assert before == [t for t in titles if query.casefold() in t.casefold()][:limit], query
        phrase_search.close()


def test_an_index_of_the_previous_schema_is_rebuilt(tmp_path):
    """A sidecar written before the trigram counts existed is replaced on open, not read half-built."""
    db = factscore_db(tmp_path / "enwiki.db", PAGES)
    with KnowledgeStore.open(db) as store:
        index_path = store.title_index().path
    conn = sqlite3.connect(index_path)
    conn.execute("DROP TABLE trigram_docs")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    with KnowledgeStore.open(db) as store:
        assert store.titles_containing("lyo") == ["Lyon"]


def test_find_titles_is_exact_but_ignores_case(tmp_path):
    """Case variants all match, in the order of the names asked for; partial names do not."""
    with KnowledgeStore.open(factscore_db(tmp_path / "enwiki.db", PAGES)) as store:
        assert store.find_titles(["lyon", "paris", "Pari", "Paris"]) == ["Lyon", "Paris"]
        assert store.find_titles(["paris (BAND)", "nowhere"]) == ["PARIS (band)"]


def test_find_titles_returns_every_case_variant(tmp_path):
    """Pages whose titles differ only by case are all returned, in store order."""
    pages = {"Mercury": ["Planet."], "MERCURY": ["Acronym."], "mercury": ["Element."]}
    with KnowledgeStore.open(factscore_db(tmp_path / "m.db", pages)) as store:
        assert store.find_titles(["Mercury"]) == ["Mercury", "MERCURY", "mercury"]


def test_title_index_is_built_once_and_reused(tmp_path, monkeypatch):
    """A second open finds the sidecar and does not rebuild it; changing the database makes it stale."""
    db = factscore_db(tmp_path / "enwiki.db", PAGES)
    builds = []
    real_build = title_index.build_title_index
    monkeypatch.setattr(title_index, "build_title_index", lambda *a: builds.append(1) or real_build(*a))
    for _ in range(2):
        with KnowledgeStore.open(db) as store:
            assert store.titles_containing("lyon") == ["Lyon"]
    assert len(builds) == 1
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO documents VALUES ('Lyon Airport', 'Lyon Airport serves Lyon.')")
    conn.commit()
    conn.close()
    with KnowledgeStore.open(db) as store:
        assert store.titles_containing("lyon") == ["Lyon", "Lyon Airport"]
    assert len(builds) == 2


def test_index_path_can_be_placed_elsewhere(tmp_path):
    """For a read-only database folder, the sidecar can live anywhere."""
    db = factscore_db(tmp_path / "enwiki.db", PAGES)
    elsewhere = tmp_path / "cache" / "titles.sqlite"
    elsewhere.parent.mkdir()
    assert cli(["knowledge", "index", str(db), "--index-path", str(elsewhere)]) == 0
    assert elsewhere.is_file() and not (tmp_path / "enwiki.db.titles.fts.sqlite").exists()
    with KnowledgeStore.open(db, index_path=elsewhere) as store:
        assert store.find_titles(["LYON"]) == ["Lyon"]


def test_rejects_files_that_are_not_factscore_stores(tmp_path):
    """A missing file, a non-SQLite file and a database without documents(title, text) are clear errors."""
    with pytest.raises(HallubenchError, match="not found"):
        KnowledgeStore.open(tmp_path / "missing.db")
    (tmp_path / "junk.db").write_text("not a database at all, just some text" * 10)
    with pytest.raises(HallubenchError, match="not an SQLite database"):
        KnowledgeStore.open(tmp_path / "junk.db")
    conn = sqlite3.connect(tmp_path / "other.db")
    conn.execute("CREATE TABLE pages (name, body)")
    conn.close()
    with pytest.raises(HallubenchError, match=r"documents\(title, text\)"):
        KnowledgeStore.open(tmp_path / "other.db")


def test_written_store_is_readable_the_way_factscore_reads_it(tmp_path):
    """The schema is FActScore's, each page is its passages joined by the separator, the first of two pages
    with one title wins and empty pages are skipped."""
    words = " ".join(f"w{i}" for i in range(10))
    stats = write_store(
        tmp_path / "kb", [("A", words), ("B", "only  three\nwords"), ("A", "second A"), ("C", "  ")],
        passage_words=4, progress=False,
    )
    assert (stats.pages, stats.passages, stats.duplicates, stats.empty) == (2, 4, 1, 1)
    conn = sqlite3.connect(tmp_path / "kb" / "knowledge.db")
    (schema,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'documents'").fetchone()
    assert schema == "CREATE TABLE documents (title PRIMARY KEY, text)"
    text = dict(conn.execute("SELECT title, text FROM documents"))
    conn.close()
    assert text["A"].split(SEPARATOR) == ["w0 w1 w2 w3", "w4 w5 w6 w7", "w8 w9"]
    assert text["B"] == "only  three\nwords"
    assert cut_passages("", 4) == []


def test_failed_build_leaves_nothing_behind(tmp_path):
    """The database is written to a temporary file and renamed only on success; the folder the build made goes too."""
    def pages():
        yield "A", "some text"
        raise RuntimeError("source broke")

    with pytest.raises(RuntimeError):
        write_store(tmp_path / "kb", pages(), progress=False)
    assert list(tmp_path.iterdir()) == []


def test_existing_store_needs_overwrite(tmp_path):
    """A second build into the same place is refused unless --overwrite is given, which also renews the index."""
    write_store(tmp_path / "kb", [("A", "alpha text")], progress=False)
    with pytest.raises(HallubenchError, match="--overwrite"):
        write_store(tmp_path / "kb", [("B", "beta text")], progress=False)
    write_store(tmp_path / "kb", [("B", "beta text")], overwrite=True, progress=False)
    with KnowledgeStore.open(tmp_path / "kb") as store:
        assert store.titles_containing("alpha") == [] and store.find_titles(["b"]) == ["B"]


def test_unwritable_output_is_a_clear_error(tmp_path):
    """An output under a regular file cannot be created: a one-line HallubenchError, not a traceback."""
    (tmp_path / "file").write_text("x")
    with pytest.raises(HallubenchError, match="cannot write the knowledge store"):
        write_store(tmp_path / "file" / "kb", [("A", "alpha")], progress=False)


def test_passages_can_be_read_from_many_threads(tmp_path):
    """Worker threads share one store; each gets its own read connection."""
    with KnowledgeStore.open(factscore_db(tmp_path / "enwiki.db", PAGES)) as store:
        results, errors = [], []

        def work():
            try:
                for _ in range(50):
                    results.append(store.get("Lyon"))
                    store.find_titles(["paris"])
            except Exception as exc:  # collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == [] and set(results) == {"Lyon is a city in France."} and len(results) == 400


def test_cli_builds_from_a_goodwiki_folder(tmp_path, goodwiki_sample):
    """Every sample article becomes a page; passages hold at most 187 words; the index is ready."""
    assert cli(["knowledge", "build", "--source", str(goodwiki_sample), "--out", str(tmp_path / "kb")]) == 0
    with KnowledgeStore.open(tmp_path / "kb") as store:
        titles = {json.loads((p / "props.json").read_text())["title"] for p in goodwiki_sample.iterdir()}
        assert all(title in store for title in titles)
        passages = store.passages("Elvis Presley")
        assert len(passages) > 20 and max(len(p.text.split()) for p in passages) == 187
        assert passages[0].text.startswith("Elvis Aaron Presley")
        assert store.titles_containing("presley") == ["Elvis Presley"]


def test_cli_builds_from_a_title_text_jsonl(tmp_path):
    """FActScore's input format: (title, text) lines, where text may also be a list of sentences."""
    source = tmp_path / "pages.jsonl"
    lines = [{"title": "Alpha", "text": "one two three four five"}, {"title": "Beta", "text": ["First.", "Second."]}]
    source.write_text("\n".join(json.dumps(line) for line in lines))
    assert cli(["knowledge", "build", "--source", str(source), "--out", str(tmp_path / "kb"),
                "--passage-words", "2"]) == 0
    with KnowledgeStore.open(tmp_path / "kb") as store:
        assert [p.text for p in store.passages("Alpha")] == ["one two", "three four", "five"]
        assert store.get("Beta") == "First. Second."
    with pytest.raises(HallubenchError, match="already exists"):
        cli(["knowledge", "build", "--source", str(source), "--out", str(tmp_path / "kb")])


def test_cli_reports_an_unknown_source(tmp_path):
    """A source that is neither a known name nor a file or folder is a one-line error."""
    with pytest.raises(HallubenchError, match="unknown source"):
        cli(["knowledge", "build", "--source", str(tmp_path / "nope"), "--out", str(tmp_path / "kb")])
