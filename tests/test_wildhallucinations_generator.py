"""WildHallucinations generator end to end offline: WildChat-format conversations (English, non-English,
toxic), a scripted extractor/verifier over loopback HTTP, a loopback server acting as Brave and as the
web, then the Hub schema, the drop counts, determinism (identical Arrow files), no repeated calls or
fetches, exclusion of an earlier set, folder search, the offline Wikipedia source and perplexity."""

import argparse
import json
import math
import re
from pathlib import Path

import datasets
import pytest
from loopback_pages import Route

from hallubench.core.errors import HallubenchError
from hallubench_generators import wildhallucinations as wh
from hallubench_generators.cli import open_clients
from hallubench_generators.common.publishing import save_test_set
from hallubench_generators.wildhallucinations.categories import (
    CATEGORIES,
    TOPIC_TO_CATEGORY,
    parse_category,
)
from hallubench_generators.wildhallucinations.entities import parse_names, parse_yes_no


def turn(role, content, language="English", toxic=False):
    return {"role": role, "content": content, "language": language, "toxic": toxic, "redacted": False}


CONVERSATIONS = [
    {"conversation_hash": "c-en-1", "language": "English", "toxic": False, "conversation": [
        turn("user", "Who founded Quuxly and Nobody Inc? Tell me about Lake Baikal."),
        turn("assistant", "Lake Baikal is in Siberia. Also: Hidden Assistant Name."),
        turn("user", "Remind me of the Tuesday Meeting with Ada Lovelace.")]},
    {"conversation_hash": "c-en-2", "language": "English", "toxic": False, "conversation": [
        turn("user", "Compare lake baikal with Loch Ness. Is Zorblax real?")]},
    {"conversation_hash": "c-en-3", "language": "English", "toxic": False, "conversation": [
        turn("user", "gibberish request"), turn("assistant", "?"), turn("user", "And what about Mercury?")]},
    {"conversation_hash": "c-fr", "language": "French", "toxic": False, "conversation": [
        turn("user", "Parlez-moi de la Tour Eiffel.", language="French")]},
    {"conversation_hash": "c-toxic", "language": "English", "toxic": True, "conversation": [
        turn("user", "Insults aimed at Shadowfax Limited", toxic=True)]},
]
# Every conversation order puts the page-less and unclassifiable names before the third kept entity.
NAMES = ["Nobody Inc", "Quuxly", "Lake Baikal", "Tuesday Meeting", "Ada Lovelace", "Mercury", "Loch Ness", "Zorblax",
         "Tour Eiffel", "Shadowfax Limited", "Hidden Assistant Name"]
CATEGORY_OF = {"Lake Baikal": "geographic", "Ada Lovelace": "people & personal attributes",
               "Loch Ness": "Geographic.", "Quuxly": "I am not sure."}
EXPECTED = ["Lake Baikal", "Ada Lovelace", "Loch Ness"]


def scripted(messages):
    """Extract: names of the message (plus one invented name); verify: No for 'Tuesday Meeting',
    unreadable for 'Zorblax'; ambiguity: Yes for 'Mercury'; category: table (one unreadable)."""
    prompt = messages[-1]["content"]
    if prompt.startswith("List every proper noun"):
        message = prompt.split('"""')[1]
        if "gibberish" in message:
            return "Sure, here are the names: none really."
        found = [n for n in NAMES if n.lower() in message.lower()]
        return json.dumps(found + (["Atlantis Corp"] if "Quuxly" in message else []))
    name = re.search(r'"([^"]+)"', prompt).group(1)
    if prompt.startswith("Is "):
        return {"Tuesday Meeting": "No.", "Zorblax": "Perhaps, hard to say."}.get(name, "Yes.")
    if prompt.startswith("Taken on its own"):
        return "Yes" if name == "Mercury" else "No, it is specific."
    return CATEGORY_OF.get(name, "visual")


def page(title, text):
    return f"<html><body><article><h1>{title}</h1><p>{text}</p></article></body></html>".encode()


ROUTES = {
    "/baikal": Route(page("Lake Baikal", "Lake Baikal is the deepest lake in the world, in Siberia.")),
    "/baikal-wall": Route(page("Lake Baikal forum", "You're signed out. Log in to read the thread.")),
    "/huge": Route(b"<p>" + b"z" * 300_000 + b"</p>", length=False),
    "/photo.png": Route(b"\x89PNG" + b"\0" * 64, content_type="image/png"),
    "/moved": Route(status=301, location="/baikal-2"),
    "/baikal-2": Route(page("Baikal facts", "Baikal holds about a fifth of the fresh surface water.")),
    "/slow": Route(page("Slow", "too late"), delay=2.0),
    "/scripted": Route(page("Baikal seal", "The Baikal seal lives only in Lake Baikal.").replace(
        b"<body>", b"<body><script>document.write('SCRIPT OUTPUT')</script>")),
    "/ada": Route(page("Ada Lovelace", "Ada Lovelace wrote the first published algorithm for a machine.")),
    "/loch.txt": Route(b"Loch Ness is a deep freshwater loch in the Scottish Highlands.", content_type="text/plain"),
    "/quux": Route(page("Quuxly", "Quuxly is a small software company.")),
}
RESULTS = {
    "Lake Baikal": ["/baikal", "/baikal-wall", "/missing", "/huge", "/photo.png", "/moved", "/slow", "/scripted"],
    "Ada Lovelace": ["/ada", "https://www.youtube.com/watch?v=ada"],
    "Loch Ness": ["/loch.txt"],
    "Nobody Inc": ["/missing", "/baikal-wall"],
    "Quuxly": ["/quux"],
}


@pytest.fixture
def web(loopback_servers):
    return loopback_servers.pages(ROUTES, results=RESULTS)


@pytest.fixture
def llm(loopback_servers):
    return loopback_servers.chat(scripted)


@pytest.fixture
def conversations(tmp_path):
    path = tmp_path / "wildchat.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in CONVERSATIONS) + "\n")
    return path


def run_parsed(args):
    """The generator as `hallubench generate` runs it: clients opened by the CLI's open_clients."""
    return wh.run(args, open_clients(wh, args))


def parse(argv):
    """The generator's options plus the shared ones, as generators/cli.py builds them."""
    parser = argparse.ArgumentParser()
    wh.add_arguments(parser)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--overwrite", action="store_true")
    parser.add_argument("--cache", type=Path)
    return parser.parse_args(argv)


def generate(argv):
    args = parse(argv)
    rows, card = run_parsed(args)
    save_test_set(rows, wh.FEATURES, args.out, card, args.overwrite)
    return datasets.load_from_disk(str(args.out))["test"], (args.out / "README.md").read_text()


def web_args(llm, web, conversations, tmp_path, out, *extra):
    spec = f"openai:base_url={llm.base_url},model=scripted,max_retries=0"
    return ["--conversations", str(conversations), "--extractor", spec, "--search", "brave",
            "--search-endpoint", web.search_url, "--n", "3", "--seed", "1", "--out", str(tmp_path / out),
            "--cache", str(tmp_path / "calls.sqlite"), "--fetch-timeout", "0.5", "--max-page-bytes", "100000", *extra]


def test_conversations_to_entities_with_web_knowledge(llm, web, conversations, tmp_path, monkeypatch):
    """Only English, non-toxic user turns reach the extractor; invented, common, unreadable, ambiguous,
    page-less and unclassifiable names are dropped and counted; each kept entity has only usable pages,
    a paper category, its conversations and the fetch date; the card reports all of it."""
    monkeypatch.setenv("BRAVE_API_KEY", "test-key")
    table, card = generate(web_args(llm, web, conversations, tmp_path, "set"))
    rows = table.to_list()
    assert sorted(r["entity"] for r in rows) == sorted(EXPECTED)
    by_entity = {r["entity"]: r for r in rows}
    baikal = by_entity["Lake Baikal"]
    assert [i["url"].rsplit("/", 1)[1] for i in baikal["info"]] == ["baikal", "moved", "scripted"]
    assert all(i["status_code"] == 200 and i["text"] for r in rows for i in r["info"])
    assert "SCRIPT OUTPUT" not in json.dumps(rows) and "fifth of the fresh" in baikal["info"][1]["text"]
    assert sorted(baikal["conversation_ids"]) == ["c-en-1", "c-en-2"]
    assert by_entity["Ada Lovelace"]["info"][0]["url"].endswith("/ada")
    assert {r["category"] for r in rows} <= set(CATEGORIES) and by_entity["Loch Ness"]["category"] == "geographic"
    assert all(r["perplexity"] is None and r["search_backend"] == "brave" and len(r["fetch_date"]) == 10 for r in rows)
    prompts = json.dumps([m for request in llm.requests for m in request["messages"]])
    for unseen in ("Tour Eiffel", "Shadowfax", "Hidden Assistant Name"):
        assert unseen not in prompts
    for count in ("extract_unreadable: 1", "extracted_not_in_turn: 1", "not_proper_noun: 1", "verify_unreadable: 1",
                  "ambiguous: 1", "no_page: 1", "category_unreadable: 1", "duplicates: 1",
                  "turns_skipped_non_english: 1", "turns_skipped_toxic: 1", "login_wall: 2", "timeout: 1"):
        assert count in card, count
    assert "HF" not in card.split("## Source")[1].split("##")[0] and "wildchat.jsonl" in card
    assert "test-key" not in card and web.search_headers[0]["X-Subscription-Token"] == "test-key"


def test_same_seed_and_caches_give_identical_arrow_files_without_new_calls(
    llm, web, conversations, tmp_path, monkeypatch
):
    """A second run with the same seed reads every model reply, search and page from the caches: no
    request reaches either server and the Arrow data files are byte-identical."""
    monkeypatch.setenv("BRAVE_API_KEY", "test-key")
    generate(web_args(llm, web, conversations, tmp_path, "first"))
    llm_calls, web_hits = len(llm.requests), dict(web.hits)
    generate(web_args(llm, web, conversations, tmp_path, "second"))
    assert len(llm.requests) == llm_calls and dict(web.hits) == web_hits
    arrows = [sorted((tmp_path / run / "test").glob("*.arrow")) for run in ("first", "second")]
    assert arrows[0] and [p.read_bytes() for p in arrows[0]] == [p.read_bytes() for p in arrows[1]]


def test_schema_matches_the_hub_dataset(llm, web, conversations, tmp_path, monkeypatch):
    """The Hub dataset's columns (wentingzhao/WildHallucinations: entity, perplexity float64, info list of
    {status_code int64, text, url}, category) come first with the same types; provenance columns follow."""
    monkeypatch.setenv("BRAVE_API_KEY", "test-key")
    table, _ = generate(web_args(llm, web, conversations, tmp_path, "set"))
    hub = datasets.Features({
        "entity": datasets.Value("string"),
        "perplexity": datasets.Value("float64"),
        "info": datasets.List({"status_code": datasets.Value("int64"), "text": datasets.Value("string"),
                               "url": datasets.Value("string")}),
        "category": datasets.Value("string"),
    })
    assert list(table.features)[:4] == list(hub) == list(wh.HUB_COLUMNS)
    assert all(table.features[name] == hub[name] for name in hub)
    assert list(table.features)[4:] == ["conversation_ids", "search_backend", "fetch_date"]


def test_exclude_an_earlier_set(llm, web, conversations, tmp_path, monkeypatch):
    """Entities of a saved set are dropped (case folded) and counted, so the next set holds the others;
    when too few are left the run fails with one line naming the counts."""
    monkeypatch.setenv("BRAVE_API_KEY", "test-key")
    first, _ = generate(web_args(llm, web, conversations, tmp_path, "first", "--n", "1"))
    second, card = generate(web_args(llm, web, conversations, tmp_path, "second", "--n", "2",
                                     "--exclude", str(tmp_path / "first")))
    assert sorted(list(first["entity"]) + list(second["entity"])) == sorted(EXPECTED)
    assert "excluded_earlier_set: 1" in card
    args = web_args(llm, web, conversations, tmp_path, "third", "--exclude", str(tmp_path / "first"),
                    "--exclude", str(tmp_path / "second"))
    with pytest.raises(HallubenchError, match=r"only 0 of 3 entities survived .*excluded_earlier_set: 3"):
        generate(args)


def test_folder_search_runs_offline(llm, conversations, tmp_path):
    """--search folder:PATH reads <slug>/*.html|*.txt with urls.json; no search key or network needed."""
    pages = tmp_path / "pages"
    for entity, files in {"Lake Baikal": {"a.html": page("Baikal", "Lake Baikal is in Siberia.")},
                          "Ada Lovelace": {"bio.txt": b"Ada Lovelace was a mathematician."},
                          "Loch Ness": {"1.html": page("Loch", "Loch Ness is in Scotland."),
                                        "2.html": page("Login", "Log in to continue.")},
                          "Quuxly": {"q.html": page("Quuxly", "Quuxly makes software.")}}.items():
        folder = pages / entity.lower().replace(" ", "-")
        folder.mkdir(parents=True)
        for name, body in files.items():
            (folder / name).write_bytes(body)
    (pages / "lake-baikal" / "urls.json").write_text(json.dumps({"a.html": "https://example.org/baikal"}))
    spec = f"openai:base_url={llm.base_url},model=scripted,max_retries=0"
    table, card = generate(["--conversations", str(conversations), "--extractor", spec, "--search", f"folder:{pages}",
                            "--n", "3", "--out", str(tmp_path / "set"), "--cache", str(tmp_path / "calls.sqlite")])
    rows = {r["entity"]: r for r in table.to_list()}
    assert sorted(rows) == sorted(EXPECTED)
    assert rows["Lake Baikal"]["info"] == [{"status_code": 200, "text": "Baikal\nLake Baikal is in Siberia.",
                                            "url": "https://example.org/baikal"}]
    assert [i["url"] for i in rows["Loch Ness"]["info"]] == ["loch-ness/1.html"]
    assert rows["Ada Lovelace"]["search_backend"] == "folder:pages" and "login_wall: 1" in card


def test_wiki_offline_needs_no_model_and_is_seeded(tmp_path):
    """--entities-from wiki-offline: Wikipedia entities with their lead as the one page, categories from
    the topic mapping, the same seed giving the same entities and another seed others."""
    def run(seed, out):
        table, card = generate(["--entities-from", "wiki-offline", "--n", "6", "--seed", str(seed),
                                "--out", str(tmp_path / out)])
        return table.to_list(), card

    rows, card = run(3, "a")
    again, _ = run(3, "b")
    other, _ = run(4, "c")
    assert rows == again and [r["entity"] for r in rows] != [r["entity"] for r in other]
    assert len(rows) == 6 and {r["category"] for r in rows} <= set(TOPIC_TO_CATEGORY.values())
    for row in rows:
        assert row["info"][0]["url"] == "https://en.wikipedia.org/wiki/" + row["entity"].replace(" ", "_")
        assert row["info"][0]["status_code"] == 200 and len(row["info"][0]["text"]) > 50
    assert "All entities are Wikipedia entities" in card and "skipped_unmapped_topic" in card


def test_wiki_offline_asks_the_model_only_for_unmapped_topics(llm, tmp_path):
    """With a model spec, articles of topics without a mapping are eligible and classified by the model;
    mapped topics never cost a call."""
    spec = f"openai:base_url={llm.base_url},model=scripted,max_retries=0"
    table, card = generate(["--entities-from", "wiki-offline", "--verifier", spec, "--n", "20", "--seed", "0",
                            "--out", str(tmp_path / "set"), "--cache", str(tmp_path / "calls.sqlite")])
    rows = table.to_list()
    by_llm = [r for r in rows if r["category"] == "visual"]  # the scripted classifier's default answer
    assert len(rows) == 20 and by_llm and len(llm.requests) == len(by_llm)
    assert f"category_by_llm: {len(by_llm)}" in card


@pytest.mark.parametrize("reply, expected", [
    ('["Lake Baikal", " Ada  Lovelace "]', ["Lake Baikal", "Ada Lovelace"]),
    ('Here you go: ["GraphQL"] hope it helps', ["GraphQL"]),
    ("[]", []),
    ("Lake Baikal, Ada Lovelace", None),
    ("[1, 2]", None),
])
def test_parse_names(reply, expected):
    """Extraction replies are read only from a JSON array of strings; anything else is unreadable."""
    assert parse_names(reply) == expected


@pytest.mark.parametrize("reply, expected", [
    ("Yes.", True), ("no, it is a common noun", False), ("I would say yes", True), ("Maybe yes, maybe no", None),
    ("", None),
])
def test_parse_yes_no(reply, expected):
    """Verdicts: the first word, else the only yes/no present; both or neither are unreadable."""
    assert parse_yes_no(reply) == expected


@pytest.mark.parametrize("reply, expected", [
    ("geographic", "geographic"), ("Culture & Entertainment.", "culture & entertainment"),
    ("The domain is life science", "life science"), ("medical or organism", None), ("sports", None),
])
def test_parse_category(reply, expected):
    """Category replies must name exactly one of the paper's 20 categories."""
    assert parse_category(reply) == expected


def test_bad_inputs_fail_with_one_clear_line(conversations, tmp_path, monkeypatch):
    """Missing extractor, unknown search backend, missing API key and a non-WildChat file are user errors."""
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    base = ["--conversations", str(conversations), "--n", "2", "--out", str(tmp_path / "x")]
    spec = ["--extractor", "openai:base_url=http://127.0.0.1:9/v1,model=m"]
    with pytest.raises(HallubenchError, match="needs --extractor"):
        run_parsed(parse(base + ["--search", "brave"]))
    with pytest.raises(HallubenchError, match="unknown --search"):
        run_parsed(parse(base + spec + ["--search", "bing"]))
    with pytest.raises(HallubenchError, match="BRAVE_API_KEY"):
        run_parsed(parse(base + spec + ["--search", "brave"]))
    other = tmp_path / "other.jsonl"
    other.write_text('{"text": "hello"}\n')
    with pytest.raises(HallubenchError, match="not in WildChat's format"):
        run_parsed(parse(["--conversations", str(other), "--n", "1", "--out", str(tmp_path / "y"), *spec,
                          "--search", "brave"]))


def tiny_model(folder: Path) -> Path:
    """A randomly initialised 1-layer GPT-2 with a word-level tokenizer, saved for HFLM to load."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = ["lake", "baikal", "ada", "lovelace", "loch", "ness"]
    vocab = {"<eos>": 0, "<unk>": 1, **{w: i + 2 for i, w in enumerate(words)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<eos>", unk_token="<unk>")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=32, n_embd=16, n_layer=1, n_head=2,
                                       bos_token_id=0, eos_token_id=0))
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def test_rarity_is_the_perplexity_of_the_bare_entity(tmp_path):
    """EntityPerplexity (lm-eval HFLM loglikelihood_rolling) equals exp(-mean log p) of the entity's tokens,
    each predicted from the prefix token and the tokens before it, computed here by hand."""
    import torch
    from transformers import AutoTokenizer, GPT2LMHeadModel

    from hallubench_generators.wildhallucinations.rarity import EntityPerplexity

    folder = tiny_model(tmp_path / "tiny")
    scorer = EntityPerplexity(f"hf:pretrained={folder},batch_size=2")
    entities = ["Lake Baikal", "ada lovelace loch ness"]
    got = scorer.perplexities(entities)
    model, tokenizer = GPT2LMHeadModel.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)
    for entity, value in zip(entities, got):
        ids = tokenizer(entity)["input_ids"]
        with torch.no_grad():
            logits = model(torch.tensor([[0] + ids[:-1]])).logits[0]
        logp = torch.log_softmax(logits, -1)[range(len(ids)), ids].sum().item()
        assert value == pytest.approx(math.exp(-logp / len(ids)), rel=1e-4)
    with pytest.raises(HallubenchError, match="local model"):
        EntityPerplexity("openai:base_url=http://x/v1,model=m")
