"""GeneratedEntities: round robin over three scripted generator servers, existence checkers
(offline lists, Brave against a loopback server), counts and card."""

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import datasets
import pytest

from hallubench.cli import main
from hallubench.core.backends import backend_spec, make_client
from hallubench.core.errors import HallubenchError
from hallubench_generators.nonexistent_refusal import generatedentities as ge
from hallubench_generators.nonexistent_refusal import places
from hallubench_generators.nonexistent_refusal import prompts as request_prompts
from hallubench_generators.nonexistent_refusal.checkers import BraveChecker, OfflineChecker
from hallubench_generators.nonexistent_refusal.places import TIERS

KNOWN = "Velvet Known House"  # every combiner proposes it; the known-names file says it exists


def scripted(server_id: int):
    """Brainstorm: a list tagged with the server; combine: a list derived from the prompt, plus KNOWN."""

    def reply(messages):
        prompt = messages[-1]["content"]
        digest = hashlib.sha256(prompt.encode()).hexdigest()[:6]
        if prompt.startswith("Invent"):
            return ", ".join(f"Brain{server_id} {digest} {i}" for i in range(3))
        return f"1. Combo{server_id} {digest} A\n2. Combo{server_id} {digest} B, {KNOWN}"

    return reply


REPLIES = [scripted(i) for i in range(3)]  # one reply function per server, made once (servers are shared)


@pytest.fixture
def servers(loopback_servers):
    return [loopback_servers.chat(reply) for reply in REPLIES]


def spec(server) -> str:
    return f"openai:base_url={server.base_url},model=gen,max_retries=1,backoff=0.01"


def test_round_robin_keeps_only_combiner_names_and_drops_known_ones(tmp_path, servers):
    """Through the CLI: exact counts per domain, each model combines, brainstormers are the other
    two, only combiner names are kept, known names are dropped and counted, places carry tiers."""
    known = tmp_path / "known.txt"
    known.write_text(KNOWN + "\n")
    out = tmp_path / "set"
    argv = [
        "generate",
        "generatedentities",
        "--n-business",
        "4",
        "--n-event",
        "3",
        "--n-product",
        "2",
        "--seed",
        "3",
        "--generators",
        *map(spec, servers),
        "--known-names",
        str(known),
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    rows = datasets.load_from_disk(str(out))["test"].to_list()
    assert [r["domain"] for r in rows] == ["business"] * 4 + ["event"] * 3 + ["product"] * 2
    specs = [make_client(backend_spec(spec(s)), None).public_spec for s in servers]
    for row in rows:
        combiner = specs.index(row["combiner"])
        assert row["name"].startswith(f"Combo{combiner} ")
        assert sorted(row["brainstormers"]) == sorted(s for s in specs if s != row["combiner"])
        assert row["name"] in row["prompt"]
        assert (row["place_tier"] in TIERS and row["place"]) if row["domain"] != "product" else row["place"] == ""
    assert all(len(s.requests) > 0 for s in servers)
    assert {r["combiner"] for r in rows} == set(specs)
    card = (out / "README.md").read_text()
    assert "exists: " in card and "quota_full" in card
    paper_places = {n for lists in (places.PAPER_CITIES, places.PAPER_COUNTRIES) for v in lists.values() for n in v}
    assert {r["place"] for r in rows if r["place"]} <= paper_places
    assert all(r["type"] in ge.PAPER_TYPES[r["domain"]] for r in rows)
    assert "`--pools paper` (the paper's)" in card and "- business, low: " in card


def test_generation_is_deterministic_under_the_seed(servers):
    """Same seed and scripted replies: identical rows (requests, places and templates are seeded)."""
    clients = [make_client(backend_spec(spec(s)), None) for s in servers]
    checker = OfflineChecker(builtin=False)
    first, _ = ge.generate({"business": 3, "product": 2}, clients, checker, seed=9)
    second, _ = ge.generate({"business": 3, "product": 2}, clients, checker, seed=9)
    other, _ = ge.generate({"business": 3, "product": 2}, clients, checker, seed=10)
    assert first == second and first != other


def test_fewer_than_three_generators_or_all_names_existing_fail_clearly(tmp_path, servers):
    """Two generators are refused; when every proposed name exists the run stops naming the drop counts."""
    clients = [make_client(backend_spec(spec(s)), None) for s in servers]
    with pytest.raises(HallubenchError, match="at least 3"):
        ge.generate({"event": 1}, clients[:2], OfflineChecker(builtin=False), seed=0)

    class EverythingExists:
        source = "all"

        def existing(self, entries):
            return [True] * len(entries)

    for allow_shortfall in (False, True):  # nothing accepted: an error naming the drops, even with --allow-shortfall
        with pytest.raises(HallubenchError, match=r"^generatedentities: no name was accepted \(rejections: \w+ \d+"):
            ge.generate({"event": 2}, clients, EverythingExists(), seed=0, allow_shortfall=allow_shortfall)


def test_parse_names_handles_bullets_numbers_quotes_and_repeats():
    """List replies in common shapes give clean, distinct names."""
    text = '1. "Aurora Vale"\n2) Brindle Works,\n- aurora vale; * Cobalt Ember.\n\n' + "x " * 10
    assert ge.parse_names(text) == ["Aurora Vale", "Brindle Works", "Cobalt Ember"]


def test_parse_names_drops_fragments_of_the_reply_prose():
    """Small models wrap or replace the list with prose; those fragments (seen from SmolLM2) are not names."""
    text = (
        "Here is the updated list:\nIn the text, Invent 6:, One 5-character code: QNJJH, Aurora Vale, and more, Zentra"
    )
    assert ge.parse_names(text) == ["Aurora Vale", "Zentra"]


def test_a_spec_given_three_times_is_one_client_and_the_card_says_so(tmp_path, servers):
    """The same spec three times loads one model (one client object) and still fills every role of
    the round robin; the run warns and the card notes that only one distinct model was used."""
    from argparse import Namespace

    from hallubench_generators.cli import open_clients

    clients = open_clients(ge, Namespace(generators=[spec(servers[0])] * 3, cache=tmp_path / "calls.sqlite"))
    assert clients[0] is clients[1] is clients[2]
    rows, report = ge.generate({"product": 4}, clients, OfflineChecker(builtin=False), seed=2)
    assert len(rows) == 4 and report.requests["product"] == 3
    assert len(servers[0].requests) == 3 * 3  # two brainstorms and one combine per request
    card = ge.card_for(2, report, [c.public_spec for c in clients], "none").render(len(rows))
    assert "only 1 distinct generator model" in card


def test_offline_checker_rejects_real_places_articles_and_common_words(offline_checker):
    """Built-in lists know real cities, countries and Vital Article titles; common one-word brands count as existing."""
    found = offline_checker.existing(
        [
            ("Tokyo", "cafe"),
            ("france", "event"),
            ("Sony", "headphone"),
            ("Albert Einstein", "museum"),
            ("Zentravox Qelmora", "headphone"),
        ]
    )
    assert found == [True, True, True, True, False]


class BraveStub:
    """A loopback stand-in for the Brave Search API: canned results per query, then a 429 once."""

    def __init__(self, results, faults=()):
        self.results, self.faults, self.seen = results, list(faults), []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                query = parse_qs(urlparse(self.path).query)["q"][0].strip('"')
                stub.seen.append((query, self.headers.get("X-Subscription-Token")))
                status = stub.faults.pop(0) if stub.faults else 200
                body = json.dumps({"web": {"results": stub.results.get(query, [])}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/res/v1/web/search"

    def close(self):
        self.server.shutdown()


def test_brave_checker_uses_title_and_type_word_and_keeps_the_key_out_of_outputs(monkeypatch, servers):
    """A name exists when a top-3 title holds it and that result's description the type word; the
    key goes in the request header only; a 429 is retried."""
    monkeypatch.setenv("BRAVE_API_KEY", "brave-secret-123")
    stub = BraveStub(
        {
            "Aurora Vale": [{"title": "Aurora Vale | Home", "description": "A cozy cafe in Oslo."}],
            "Brindle Works": [{"title": "Brindle Works", "description": "Furniture maker."}],
        },
        faults=[429],
    )
    try:
        checker = BraveChecker(stub.url)
        assert checker.existing([("Aurora Vale", "cafe"), ("Brindle Works", "cafe"), ("Cobalt Ember", "cafe")]) == [
            True,
            False,
            False,
        ]
        assert {token for _, token in stub.seen} == {"brave-secret-123"}
        clients = [make_client(backend_spec(spec(s)), None) for s in servers]
        rows, report = ge.generate({"product": 2}, clients, checker, seed=1)
        card = ge.card_for(1, report, [c.public_spec for c in clients], checker.source).render(len(rows))
    finally:
        stub.close()
    assert "brave-secret-123" not in card + json.dumps(rows)


def test_brave_checker_needs_the_key(monkeypatch):
    """Without $BRAVE_API_KEY the Brave checker refuses to start."""
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    with pytest.raises(HallubenchError, match="BRAVE_API_KEY"):
        BraveChecker("http://127.0.0.1:9")


def test_request_subjects_use_english_plurals():
    """Prompts ask for "bakeries in X" and "economic crises in Y", not "bakerys" / "crisiss"."""
    assert [request_prompts.plural(t) for t in ("bakery", "economic crisis", "bar", "peace treaty")] == [
        "bakeries",
        "economic crises",
        "bars",
        "peace treaties",
    ]


def test_names_copied_from_the_worked_example_are_dropped():
    """A name reusing a word of the domain's demonstration ("Tirúa ...", seen from SmolLM2) is not an invention."""
    assert ge.DEMONSTRATIONS["event"].copied_by("Tirua Stallion Influenza Pandemic")
    assert not ge.DEMONSTRATIONS["event"].copied_by("Mea Nui Drought")
    clients = [make_client(backend_spec("openai:base_url=http://127.0.0.1:9,model=m"), None)] * 3
    run = ge.Run({"product": 2}, clients, OfflineChecker(builtin=False), 0, ge.Report(), rows={"product": []})
    request = ge.plan_requests("product", 1, 0, 3, 0, ge.combinations("product", ge.PAPER_TYPES["product"], None, 0))[0]
    run.keep("product", [(request, "Kettlecraft Nova"), (request, "Zentravox Qelmora")])
    assert [r["name"] for r in run.rows["product"]] == ["Zentravox Qelmora"]
    assert run.report.dropped[("product", "copies_example")] == 1


def test_paper_configuration_types_and_places():
    """The paper's counts (3.3.2): 6 business, 6 event and 25 product types; 90 cities and 90 countries in tiers
    of 30, of which each set samples 20 per tier under its seed."""
    assert [len(ge.PAPER_TYPES[d]) for d in ("business", "event", "product")] == [6, 6, 25]
    for lists in (places.PAPER_CITIES, places.PAPER_COUNTRIES):
        assert list(lists) == list(TIERS) and [len(set(v)) for v in lists.values()] == [30, 30, 30]
        assert len({n for v in lists.values() for n in v}) == 90 and all(n.isascii() for v in lists.values() for n in v)
    chosen = places.for_domain("event", "paper", seed=4)
    assert {t: len(v) for t, v in chosen.items()} == {t: 20 for t in TIERS}
    assert all(p.name in places.PAPER_COUNTRIES[t] and p.tier == t for t, v in chosen.items() for p in v)
    assert chosen == places.for_domain("event", "paper", seed=4) != places.for_domain("event", "paper", seed=5)


def test_requests_cover_type_place_combinations_alternating_tiers():
    """Request i takes the i-th seeded (type, place) combination; tiers alternate high, mid, low, and the first
    6 x 60 requests use every combination of the set once."""
    tiers = places.for_domain("business", "paper", seed=1)
    combos = ge.combinations("business", ge.PAPER_TYPES["business"], tiers, seed=1)
    assert [p.tier for _, p in combos[:6]] == ["high", "mid", "low"] * 2
    assert len(combos) == len(set(combos)) == 6 * 60
    requests = ge.plan_requests("business", 4, 358, 3, 1, combos)
    assert [(r.type, r.place) for r in requests] == combos[358:] + combos[:2]
    assert [r.combiner for r in requests] == [358 % 3, 359 % 3, 360 % 3, 361 % 3]


def test_large_pools_stay_available_with_ascii_names(servers):
    """--pools large: 10 business and 10 event types, every GeoNames city >= 100k (ASCII names only: no untranslated
    "Quận Mười Một") and every country; the card says which configuration was used."""
    tiers = places.for_domain("business", "large", seed=0)
    names = {p.name for v in tiers.values() for p in v}
    assert min(len(v) for v in tiers.values()) > 1000 and all(n.isascii() for n in names)
    assert {"Bogota", "Sao Paulo", "Tokyo"} <= names and not any(n.startswith("Quan ") for n in names)
    assert len(ge.LARGE_TYPES["business"]) == len(ge.LARGE_TYPES["event"]) == 10
    clients = [make_client(backend_spec(spec(s)), None) for s in servers]
    rows, report = ge.generate({"event": 3}, clients, OfflineChecker(builtin=False), seed=0, pools="large")
    card = ge.card_for(0, report, [c.public_spec for c in clients], "none").render(len(rows))
    assert "`--pools large` (larger than the paper's)" in card and len(rows) == 3


def test_place_names_read_as_english_inside_prompts():
    """Countries that take an article get it in lower case ("a pandemic in the Netherlands", "in the United States");
    "an" precedes vowel types; accents of Latin names are folded, other scripts and Vietnamese letters dropped."""
    netherlands = places.Place("The Netherlands", "high", country=True)
    event = ge.Request("event", "economic crisis", netherlands, 0, (1, 2), 0)
    assert event.entity("Velmora Slump") == "the Velmora Slump, an economic crisis in the Netherlands"
    assert ge.Request("event", "pandemic", places.Place("United States", "high", True), 0, (1, 2), 0).subject == (
        "pandemics in the United States"
    )
    assert places.Place("Georgia", "high", True).in_sentence == "Georgia"
    assert places.Place("Marshall", "high").in_sentence == "Marshall"  # a city: no article rule
    local = ("Bogotá", "Łódź", "Timișoara", "Quận Mười Một", "Đà Nẵng", "Москва")
    assert [places.ascii_name(n) for n in local] == ["Bogota", "Lodz", "Timisoara", None, None, None]


def test_offline_checker_knows_subdivisions_counties_continents_and_alternate_names(offline_checker):
    """Real places that are not cities or countries are rejected: Guatemala's Izabal department (an embedded-run
    name), a Canadian province, a US county, a continent, an official country name and a city's alternate name."""
    names = ["Izabal", "Ontario", "Autauga County", "Europe", "Kingdom of the Netherlands", "Saigon", "Velmora Quay"]
    assert offline_checker.existing([(n, "museum") for n in names]) == [True] * 6 + [False]
