"""`generate ... --push-to-hub`: a pinned release. Against a loopback stand-in of the Hub HTTP API (the endpoints
huggingface_hub and datasets call: repo info/create, preupload, commit, tree, paths-info, resolve), the push keeps
the `configs` / `dataset_info` metadata datasets wrote, adds the card over it, prints and records the last commit,
reads the token only from HF_TOKEN and writes it nowhere."""

import base64
import hashlib
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import datasets
import pytest
import yaml
from huggingface_hub.repocard import metadata_load
from support import write_itis

from hallubench_generators.publishing import foreign_content

BIN = Path(sys.executable).parent
TOKEN = "hf_" + "fake" * 9  # no credential: the loopback Hub takes any token; hf_-shaped so redaction must catch it
REPO = "lab/mixed-release"
API = re.compile(r"/api/datasets/(?P<repo>[^/]+/[^/]+)(?:/(?P<verb>revision|preupload|commit|tree|paths-info)"
                 r"/(?P<rev>[^/]+)(?:/(?P<path>.*))?)?")
LFS_BATCH = re.compile(r"/datasets/(?P<repo>[^/]+/[^/]+)\.git/info/lfs/objects/batch")
RESOLVE = re.compile(r"/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)")


class FakeHub:
    """Dataset repos in memory: each a list of commits ``(oid, {path: bytes})``, newest last. Records every
    request line and Authorization header; anything it does not serve is a 404 it records in ``unserved``."""

    def __init__(self, refuse_commits: bool = False) -> None:
        self.refuse_commits = refuse_commits  # answer every commit as the Hub answers a token without write access
        self.repos: dict[str, list[tuple[str, dict[str, bytes]]]] = {}
        self.lfs: dict[str, bytes] = {}  # sha256 -> content, stored by the PUTs the LFS batch answer asks for
        self.requests: list[str] = []
        self.authorizations: set[str] = set()
        self.commit_bodies: list[list[dict]] = []
        self.unserved: list[str] = []
        self._lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                hub._handle(self, "GET")

            def do_HEAD(self) -> None:
                hub._handle(self, "HEAD")

            def do_POST(self) -> None:
                hub._handle(self, "POST")

            def do_PUT(self) -> None:
                hub._handle(self, "PUT")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def head(self, repo: str) -> tuple[str, dict[str, bytes]]:
        return self.repos[repo][-1]

    def commit(self, repo: str, files: dict[str, bytes]) -> str:
        oid = hashlib.sha1(f"{repo}:{len(self.repos.get(repo, []))}".encode()).hexdigest()
        self.repos.setdefault(repo, []).append((oid, files))
        return oid

    def snapshot(self, repo: str, rev: str) -> tuple[str, dict[str, bytes]] | None:
        for oid, files in self.repos.get(repo, []):
            if rev == oid:
                return oid, files
        return self.head(repo) if rev == "main" and repo in self.repos else None

    # --- HTTP ---
    def _handle(self, request: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(request.path)
        path, query = unquote(parts.path), parse_qs(parts.query)
        body = _read_body(request)
        with self._lock:
            self.requests.append(f"{method} {path}")
            if request.headers.get("Authorization"):
                self.authorizations.add(request.headers["Authorization"])
            status, payload, headers = self._route(method, path, query, body, request.headers)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        request.send_response(status)
        for key, value in {"Content-Type": "application/json", **headers}.items():
            request.send_header(key, value)
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        if method != "HEAD":
            request.wfile.write(data)

    def _route(self, method: str, path: str, query: dict, body: bytes, headers) -> tuple[int, object, dict]:
        if method == "POST" and path == "/api/repos/create":
            spec = json.loads(body)
            repo = f"{spec['organization']}/{spec['name']}"
            if repo not in self.repos:
                self.commit(repo, {".gitattributes": b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"})
            return 200, {"url": f"{self.url}/datasets/{repo}", "name": repo}, {}
        if method == "POST" and path == "/api/validate-yaml":  # create_commit checks a README.md's metadata first
            return 200, {"errors": [], "warnings": []}, {}
        match = LFS_BATCH.fullmatch(path)
        if match and method == "POST":
            objects = json.loads(body)["objects"]
            return 200, {"transfer": "basic", "objects": [
                {**o, "actions": {"upload": {"href": f"{self.url}/lfs-upload/{o['oid']}"}}} for o in objects]}, {}
        if method == "PUT" and path.startswith("/lfs-upload/"):
            oid = path.rsplit("/", 1)[1]
            if hashlib.sha256(body).hexdigest() != oid:
                return 400, {"error": "content does not match its sha256"}, {}
            self.lfs[oid] = body
            return 200, {}, {}
        match = API.fullmatch(path)
        if match:
            return self._api(method, match["repo"], match["verb"], match["rev"], match["path"] or "", query, body)
        match = RESOLVE.fullmatch(path)
        if match:
            found = self.snapshot(match["repo"], match["rev"])
            content = found[1].get(match["path"]) if found else None
            if content is None:
                return 404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"}
            return 200, content, {"ETag": f'"{hashlib.sha1(content).hexdigest()}"', "X-Repo-Commit": found[0],
                                  "Content-Type": "application/octet-stream"}
        self.unserved.append(f"{method} {path}")
        return 404, {"error": "not served by the loopback hub"}, {}

    def _api(self, method: str, repo: str, verb: str | None, rev: str | None, sub: str, query: dict,
             body: bytes) -> tuple[int, object, dict]:
        if repo not in self.repos:
            return 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"}
        found = self.snapshot(repo, rev or "main")
        if found is None:
            return 404, {"error": "Invalid rev id"}, {"X-Error-Code": "RevisionNotFound"}
        oid, files = found
        if verb in (None, "revision"):
            return 200, {"id": repo, "sha": oid, "private": False, "siblings": [{"rfilename": p} for p in files]}, {}
        if verb == "preupload":
            entries = json.loads(body)["files"]
            return 200, {"files": [{"path": e["path"], "shouldIgnore": False,
                                    "uploadMode": "lfs" if e["path"].endswith(".parquet") else "regular"}
                                   for e in entries], "commitOid": oid}, {}
        if verb == "commit":
            return self._commit(repo, body)
        if verb == "tree":
            entries = self._entries(files, sub, "recursive" in query and query["recursive"] == ["true"])
            if entries is None:
                return 404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"}
            return 200, entries, {}
        if verb == "paths-info":
            asked = parse_qs(body.decode()).get("paths", []) or json.loads(body or b"{}").get("paths", [])
            return 200, [e for p in asked for e in (self._entry(files, p),) if e], {}
        self.unserved.append(f"{method} {verb}")
        return 404, {"error": "not served"}, {}

    def _commit(self, repo: str, body: bytes) -> tuple[int, object, dict]:
        if self.refuse_commits:
            return 403, {"error": "You don't have the rights to create a commit in this repo"}, {}
        lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
        self.commit_bodies.append(lines)
        head_oid, files = self.head(repo)
        parent = lines[0]["value"].get("parentCommit")
        if parent and parent != head_oid:
            return 412, {"error": "parent commit is not the head"}, {}
        files = dict(files)
        for line in lines[1:]:
            if line["key"] == "file":
                files[line["value"]["path"]] = base64.b64decode(line["value"]["content"])
            elif line["key"] == "lfsFile" and line["value"]["oid"] in self.lfs:
                files[line["value"]["path"]] = self.lfs[line["value"]["oid"]]
            elif line["key"] == "deletedFile":
                files.pop(line["value"]["path"], None)
            else:
                return 400, {"error": f"unsupported operation {line['key']}"}, {}
        oid = self.commit(repo, files)
        return 200, {"commitUrl": f"{self.url}/datasets/{repo}/commit/{oid}", "commitOid": oid}, {}

    @staticmethod
    def _entry(files: dict[str, bytes], path: str) -> dict | None:
        path = path.strip("/")
        if path in files:
            return {"type": "file", "path": path, "size": len(files[path]),
                    "oid": hashlib.sha1(files[path]).hexdigest()}
        if any(p.startswith(path + "/") for p in files):
            return {"type": "directory", "path": path, "size": 0, "oid": hashlib.sha1(path.encode()).hexdigest()}
        return None

    def _entries(self, files: dict[str, bytes], folder: str, recursive: bool) -> list[dict] | None:
        folder = folder.strip("/")
        prefix = f"{folder}/" if folder else ""
        if folder and self._entry(files, folder) is None:
            return None
        names = set()
        for path in files:
            if path.startswith(prefix):
                rest = path[len(prefix):].split("/")
                names.update(prefix + "/".join(rest[:k]) for k in range(1, len(rest) + 1 if recursive else 2))
        return [self._entry(files, name) for name in sorted(names)]


def _read_body(request: BaseHTTPRequestHandler) -> bytes:
    """The request body, sent with a Content-Length or in chunks (a streamed upload)."""
    if request.headers.get("Transfer-Encoding", "").lower() != "chunked":
        return request.rfile.read(int(request.headers.get("Content-Length") or 0))
    body = b""
    while size := int(request.rfile.readline().strip().split(b";")[0], 16):
        body += request.rfile.read(size)
        request.rfile.readline()
    request.rfile.readline()
    return body


def hub_env(hub: FakeHub, tmp: Path) -> dict[str, str]:
    """The environment of a CLI process that talks to ``hub``: HF_ENDPOINT on it, the token in HF_TOKEN only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    env.update(HF_ENDPOINT=hub.url, HF_TOKEN=TOKEN, HF_HOME=str(tmp / "hf-home"), HF_HUB_DISABLE_TELEMETRY="1",
               HF_HUB_DISABLE_XET="1",  # legacy LFS uploads: the stand-in does not speak the Xet protocol
               HALLUBENCH_CACHE=str(tmp / "calls.sqlite"))
    return env


# A small ITIS taxonomy (tsn, parent, name) for the animal names: the shipped offline one takes ~10 s to scan per run.
ITIS = [(202423, 0, "Animalia"), (1, 202423, "Felidae"), (10, 1, "Panthera"), (100, 10, "Panthera leo"),
        (101, 10, "Panthera tigris"), (102, 10, "Panthera onca"), (11, 1, "Neofelis"), (110, 11, "Neofelis nebulosa"),
        (12, 1, "Felis"), (120, 12, "Felis catus"), (121, 12, "Felis chaus")]


def push(hub: FakeHub, tmp: Path, out: Path, seed: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "hallubench"), "generate", "mixedentities", "--n-per-domain", "2", "--domains", "animal",
         "--itis-db", str(write_itis(tmp / "ITIS.sqlite", ITIS)), "--seed", str(seed), "--out", str(out),
         "--push-to-hub", REPO],
        capture_output=True, text=True, env=hub_env(hub, tmp), timeout=600,
    )


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """One `generate mixedentities ... --push-to-hub` run (a CLI process with HF_ENDPOINT on the loopback hub)."""
    tmp = tmp_path_factory.mktemp("release")
    hub = FakeHub()
    out = tmp / "set"
    yield hub, out, push(hub, tmp, out, seed=0)
    hub.close()


def test_the_push_succeeds_and_commits_data_then_card(release):
    hub, out, proc = release
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert hub.unserved == []
    commits = hub.repos[REPO]
    assert len(commits) == 3  # the repo's creation, the data (datasets), the card and eval.yaml (hallubench)
    assert [line["value"]["path"] for line in hub.commit_bodies[-1][1:]] == ["README.md", "eval.yaml"]
    # the card commit names the data commit as its parent, so nothing can slip in between
    assert hub.commit_bodies[-1][0]["value"]["parentCommit"] == commits[1][0]
    assert any(p.startswith("data/test-") and p.endswith(".parquet") for p in commits[-1][1])


def test_the_hub_card_keeps_the_push_metadata_and_adds_the_card(release):
    hub, out, _ = release
    pushed_card = hub.head(REPO)[1]["README.md"].decode()
    data_card = hub.repos[REPO][1][1]["README.md"].decode()  # what datasets' push_to_hub wrote
    meta = yaml.safe_load(pushed_card.split("---\n")[1])
    data_meta = yaml.safe_load(data_card.split("---\n")[1])
    assert meta["configs"] == data_meta["configs"] == [
        {"config_name": "default", "data_files": [{"split": "test", "path": "data/test-*"}]}]
    assert meta["dataset_info"] == data_meta["dataset_info"]
    assert meta["dataset_info"]["splits"][0]["num_examples"] == 2  # --n-per-domain 2, one domain
    local = metadata_load(out / "README.md")
    for key in ("license", "pretty_name", "tags", "task_categories", "language"):
        assert meta[key] == local[key]
    assert "hallubench" in meta["tags"]
    body = pushed_card.split("---\n", 2)[2]
    local_body = (out / "README.md").read_text().split("---\n", 2)[2]
    assert "## Reproducibility" in body and local_body.startswith(body.rstrip())
    assert "## Release" not in body  # a commit cannot name itself


def test_the_revision_is_printed_pinned_and_recorded(release):
    hub, out, proc = release
    final = hub.head(REPO)[0]
    assert f"at revision {final}" in proc.stderr
    assert f"""--metadata '{{"dataset": "{REPO}", "dataset_revision": "{final}"}}'""" in proc.stderr
    card = (out / "README.md").read_text()
    release_part = card.split("## Release", 1)[1]
    assert f"- revision: `{final}`" in release_part and REPO in release_part
    assert f'"dataset_revision": "{final}"' in release_part
    assert foreign_content(out) is None  # still a hallubench set that --overwrite may replace
    assert len(datasets.load_from_disk(str(out))["test"]) == 2
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "dataset_dict.json", "test"]


def test_the_token_is_sent_from_the_environment_and_written_nowhere(release):
    hub, out, proc = release
    assert hub.authorizations == {f"Bearer {TOKEN}"}
    assert TOKEN not in proc.stdout + proc.stderr
    written = [p.read_bytes() for p in out.rglob("*") if p.is_file()]
    written += [content for _, files in hub.repos[REPO] for content in files.values()]
    assert not any(TOKEN.encode() in content for content in written)


def test_a_later_release_leaves_the_pinned_one_loadable(release, tmp_path):
    """A second push to the same repo (another seed) is a new revision; the task loader (what lm_eval runs) given
    the first revision as ``dataset_revision`` loads the first set's rows, given the second the second's."""
    hub, first_out, first = release
    assert first.returncode == 0, first.stderr[-3000:]
    first_revision = hub.head(REPO)[0]
    second_out = tmp_path / "second"
    second = push(hub, tmp_path, second_out, seed=1)
    assert second.returncode == 0, second.stderr[-3000:]
    second_revision = hub.head(REPO)[0]
    assert second_revision != first_revision and f"at revision {second_revision}" in second.stderr
    meta = yaml.safe_load(hub.head(REPO)[1]["README.md"].decode().split("---\n")[1])
    assert meta["tags"] == ["hallucination", "hallubench"] and len(meta["configs"]) == 1  # merged, not doubled
    # the first revision as a per-task key, the second as the plain key (both forms of a data setting)
    loader = ("import json, sys; from hallubench_tasks.dataset_loading import load_rows; "
              "print(json.dumps([list(load_rows('mixedentities', {'dataset': sys.argv[1], key: rev})['name']) "
              "for key, rev in zip(('dataset_revision_mixedentities', 'dataset_revision'), sys.argv[2:])]))")
    loaded = subprocess.run([sys.executable, "-c", loader, REPO, first_revision, second_revision],
                            capture_output=True, text=True, env=hub_env(hub, tmp_path), timeout=300)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert json.loads(loaded.stdout.splitlines()[-1]) == [names(first_out), names(second_out)]
    assert names(first_out) != names(second_out)


def names(out: Path) -> list[str]:
    return list(datasets.load_from_disk(str(out))["test"]["name"])


def test_a_refused_push_is_one_line_and_leaves_the_local_set_unreleased(tmp_path):
    """A token without write access: exit 2 with one line naming the repo, no token in it, the local set intact
    and without a Release section."""
    hub = FakeHub(refuse_commits=True)
    try:
        proc = push(hub, tmp_path, tmp_path / "set", seed=0)
    finally:
        hub.close()
    assert proc.returncode == 2
    error = proc.stderr[proc.stderr.index("hallubench: error:"):].rstrip("\n")
    assert "\n" not in error and f"push to {REPO} failed" in error and "403 Forbidden" in error
    assert "the rights to create a commit" in error  # the Hub's own reason survives
    assert TOKEN not in proc.stdout + proc.stderr
    assert foreign_content(tmp_path / "set") is None
    assert "## Release" not in (tmp_path / "set" / "README.md").read_text()


def test_the_release_declares_itself_a_hub_benchmark_pinned_to_its_data(release):
    """eval.yaml (https://huggingface.co/docs/hub/eval-results): the Hub's required fields, one leaderboard per task and
    headline metric, the data commit as the pinned revision (the final commit holds the same rows), the card's
    fingerprints and how to run each task in lm-eval and in Inspect."""
    from hallubench_generators.benchmark_yaml import leaderboard_metrics

    hub, out, _ = release
    (data_oid, data_files), (final_oid, final_files) = hub.repos[REPO][1], hub.repos[REPO][2]
    declared = yaml.safe_load(final_files["eval.yaml"])
    card = metadata_load(out / "README.md")
    assert declared["name"] == card["pretty_name"] and declared["description"].strip()
    assert declared["evaluation_framework"] == "inspect-ai"
    ids = [f"mixedentities.{m.name}" for m in leaderboard_metrics("mixedentities")]
    assert [t["id"] for t in declared["tasks"]] == ids == ["mixedentities.false_acceptance_rate"]
    columns = set(datasets.load_from_disk(str(out))["test"].column_names)
    for task in declared["tasks"]:  # inspect-ai benchmarks must also give these
        assert {"field_spec", "solvers", "scorers"} <= set(task) and task["field_spec"]["input"] in columns
    extra = declared["hallubench"]
    assert extra["revision"] == data_oid != final_oid and extra["dataset"] == REPO
    assert {p: c for p, c in data_files.items() if p.startswith("data/")} == {
        p: c for p, c in final_files.items() if p.startswith("data/")}
    assert extra["rows_fingerprint"] == card["hallubench"]["rows_fingerprint"]
    task = extra["tasks"]["mixedentities"]
    assert task["fingerprint"] == card["hallubench"]["results_fingerprint"]["mixedentities"]
    assert task["run"]["inspect"].startswith(
        f"inspect eval hallubench/mixedentities -T dataset={REPO} -T revision={data_oid}")
    assert f'"dataset_revision": "{data_oid}"' in task["run"]["lm_eval"]
    assert extra["version"] == importlib.metadata.version("hallubench")


def test_eval_yaml_tasks_are_entries_inspects_hub_loader_reads(release):
    """Inspect's `hf/` loader refuses unknown task keys: each entry passes its model but for the scorer, which is
    hallubench's judge chain (run through `inspect eval hallubench/<task>`, not one Inspect builds from eval.yaml)."""
    hf = pytest.importorskip("inspect_ai._eval.task.hf")
    hub, _, _ = release
    for task in yaml.safe_load(hub.head(REPO)[1]["eval.yaml"])["tasks"]:
        assert task["scorers"][0]["name"] == "hallubench_judge"
        hf.HFTask.model_validate({**task, "scorers": [{"name": "match"}]})
