"""A loopback stand-in of the Hugging Face Hub HTTP API: the endpoints huggingface_hub and datasets call to create a
repo, upload files (regular and LFS) in one commit, list and read them; model and dataset repos alike."""

import base64
import hashlib
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

TOKEN = "hf_" + "fake" * 9  # no credential: the loopback Hub takes any token; hf_-shaped so redaction must catch it
API = re.compile(r"/api/(?:models|datasets)/(?P<repo>[^/]+/[^/]+)"
                 r"(?:/(?P<verb>revision|preupload|commit|tree|paths-info)/(?P<rev>[^/]+)(?:/(?P<path>.*))?)?")
LFS_BATCH = re.compile(r"/datasets/(?P<repo>[^/]+/[^/]+)\.git/info/lfs/objects/batch")
RESOLVE = re.compile(r"/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)")


class FakeHub:
    """Model and dataset repos in memory (by id): each a list of commits ``(oid, {path: bytes})``, newest last.
    Records every request line and Authorization header; anything it does not serve is a 404 it records in
    ``unserved``."""

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
