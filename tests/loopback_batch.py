"""A loopback stand-in for the OpenAI Batch API on 127.0.0.1, for tests: ``POST /v1/files`` (multipart, purpose
``batch``), ``POST /v1/batches``, ``GET /v1/batches/{id}``, ``GET /v1/files/{id}/content``, and the realtime
``POST /v1/chat/completions`` (for ``retry=realtime``) and ``GET /v1/models``.

A batch answers ``in_progress`` to its first ``polls`` polls, then runs every line through ``reply(messages)`` and
ends. Its output lines come in a shuffled order (as the API's do), each with ``usage`` counted as ``LoopbackChatServer``
counts it. ``line_faults`` is a queue of faults, one taken per line as batches run: ``"500"`` / ``"429"`` / ``"400"``
(an error-file line with that status), ``"error"`` (a line without a response), ``"expire"`` (the batch expires
before this line and every line after it: they get ``batch_expired`` error lines, as the API writes them).
``hold`` keeps every batch ``in_progress`` until cleared (a run killed mid-poll).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import random
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from loopback import rough_usage


def form_parts(content_type: str, body: bytes) -> dict[str, bytes]:
    """The parts of a ``multipart/form-data`` body by field name."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    return {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
            for part in message.iter_parts()}


class LoopbackBatchServer:
    """The Batch API stand-in (module docstring); ``batches``: each created batch's input lines, in creation
    order; ``uploads``: files uploaded; ``polls``: batch polls answered; ``realtime``: realtime requests' messages."""

    def __init__(self, reply: Callable[[list[dict]], str], polls: int = 1, line_faults: list[str] | None = None):
        self.reply, self.polls = reply, polls
        self.line_faults = deque(line_faults or [])
        self.hold = False
        self.files: dict[str, str] = {}
        self.uploads: list[str] = []
        self.batches: list[dict] = []  # {"id", "lines", "status", "polled", "output", "error"}
        self.poll_count = 0
        self.realtime: list[list[dict]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/v1/files":
                    parts = form_parts(self.headers["Content-Type"], body)
                    if parts.get("purpose") != b"batch":
                        self._send(400, {"error": {"message": "purpose must be batch"}})
                        return
                    self._send(200, server._new_file(parts["file"].decode("utf-8"), upload=True))
                elif self.path == "/v1/batches":
                    self._send(200, server._new_batch(json.loads(body)))
                elif self.path == "/v1/chat/completions":
                    messages = json.loads(body)["messages"]
                    with server._lock:
                        server.realtime.append(messages)
                    self._send(200, server._completion(messages))
                else:
                    self._send(404, {"error": {"message": "no such endpoint"}})

            def do_GET(self) -> None:
                parts = self.path.strip("/").split("/")
                if parts[:2] == ["v1", "batches"] and len(parts) == 3:
                    batch = server._poll(parts[2])
                    self._send(200 if batch else 404, batch or {"error": {"message": "no such batch"}})
                elif parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
                    text = server.files.get(parts[2])
                    if text is None:
                        self._send(404, {"error": {"message": "no such file"}})
                    else:
                        self._send(200, text.encode("utf-8"), "application/jsonl")
                elif self.path == "/v1/models":
                    self._send(200, {"data": [{"id": "judge"}]})
                else:
                    self._send(404, {"error": {"message": "no such endpoint"}})

            def _send(self, status: int, payload: dict | bytes, content_type: str = "application/json") -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _completion(self, messages: list[dict]) -> dict:
        text = self.reply(messages)
        prompt, completion = rough_usage(messages, text)
        return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion}}

    def _new_file(self, text: str, upload: bool = False) -> dict:
        with self._lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = text
            if upload:
                self.uploads.append(file_id)
        return {"id": file_id, "object": "file", "purpose": "batch"}

    def _new_batch(self, body: dict) -> dict:
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines() if line.strip()]
        assert body["endpoint"] == "/v1/chat/completions" and all(line["url"] == body["endpoint"] for line in lines)
        with self._lock:
            batch = {"id": f"batch_{len(self.batches) + 1}", "lines": lines, "status": "validating", "polled": 0,
                     "window": body["completion_window"], "output": None, "error": None}
            self.batches.append(batch)
        return self._public(batch)

    def _poll(self, batch_id: str) -> dict | None:
        batch = next((b for b in self.batches if b["id"] == batch_id), None)
        if batch is None:
            return None
        with self._lock:
            self.poll_count += 1
            batch["polled"] += 1
            if batch["status"] in ("validating", "in_progress") and not self.hold and batch["polled"] > self.polls:
                self._run(batch)
            elif batch["status"] == "validating":
                batch["status"] = "in_progress"
        return self._public(batch)

    def _run(self, batch: dict) -> None:
        """Answer the batch's lines (under the lock); output files hold them shuffled."""
        output, errors, expired = [], [], False
        for line in batch["lines"]:
            fault = self.line_faults.popleft() if self.line_faults else None
            expired = expired or fault == "expire"
            request_id = f"req_{line['custom_id'][:8]}"
            if expired:
                errors.append({"custom_id": line["custom_id"], "response": None,
                               "error": {"code": "batch_expired", "message": "This request could not be executed "
                                         "before the completion window expired."}})
            elif fault in ("500", "429", "400"):
                errors.append({"custom_id": line["custom_id"], "error": None, "response": {
                    "status_code": int(fault), "request_id": request_id,
                    "body": {"error": {"message": "injected", "type": "server_error"}}}})
            elif fault == "error":
                errors.append({"custom_id": line["custom_id"], "response": None,
                               "error": {"code": "server_error", "message": "injected"}})
            else:
                output.append({"custom_id": line["custom_id"], "error": None, "response": {
                    "status_code": 200, "request_id": request_id,
                    "body": self._completion(line["body"]["messages"])}})
        random.Random(batch["id"]).shuffle(output)
        random.Random(batch["id"]).shuffle(errors)
        for name, lines in (("output", output), ("error", errors)):
            if lines:
                file_id = f"file-{len(self.files) + 1}"
                self.files[file_id] = "".join(json.dumps(line) + "\n" for line in lines)
                batch[name] = file_id
        batch["status"] = "expired" if expired else "completed"

    @staticmethod
    def _public(batch: dict) -> dict:
        return {"id": batch["id"], "object": "batch", "endpoint": "/v1/chat/completions", "status": batch["status"],
                "completion_window": batch["window"], "output_file_id": batch["output"],
                "error_file_id": batch["error"], "request_counts": {"total": len(batch["lines"])}}

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LoopbackBatchServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
