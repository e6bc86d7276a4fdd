"""A real HTTP server on loopback speaking OpenAI chat completions (POST /v1/chat/completions)
and Anthropic messages (POST /v1/messages), answering from a script of replies, then with a
default answer. It counts requests and the most it had in flight at once."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_TEXT = "```python\nclass ModelNew:\n    pass\n```"


@dataclass
class Reply:
    status: int = 200
    text: str = DEFAULT_TEXT
    reasoning: str = ""
    headers: dict = field(default_factory=dict)
    delay_s: float = 0.0
    raw: bytes | None = None  # sent as is, instead of a protocol body


class LoopbackLLM:
    def __init__(self):
        self.replies: deque[Reply] = deque()
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01},
                         daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def next_reply(self, body: dict) -> Reply:
        with self.lock:
            self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return self.replies.popleft() if self.replies else Reply()

    def done(self) -> None:
        with self.lock:
            self.in_flight -= 1


def _handler(server: LoopbackLLM):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            body["_path"] = self.path
            body["_auth"] = self.headers.get("authorization") or self.headers.get("x-api-key")
            reply = server.next_reply(body)
            try:
                time.sleep(reply.delay_s)
                self._send(reply, body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left
            finally:
                server.done()

        def _send(self, reply: Reply, body: dict):
            data = reply.raw if reply.raw is not None else json.dumps(
                _body(self.path, reply, body)).encode()
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return Handler


def _body(path: str, reply: Reply, request: dict) -> dict:
    if reply.status != 200:
        return _error_body(path, reply.status)
    if path.endswith("/messages"):
        return anthropic_body(reply, request["model"])
    return openai_body(reply, request["model"], request.get("n", 1))


def openai_body(reply: Reply, model: str, n: int = 1) -> dict:
    message = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    return {
        "id": "chatcmpl-loopback", "object": "chat.completion", "created": int(time.time()),
        "model": f"{model}-2024-08-06", "system_fingerprint": "fp_loopback",
        "choices": [{"index": i, "message": message, "logprobs": None, "finish_reason": "stop"}
                    for i in range(n)],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 500 * n,
                  "total_tokens": 1000 + 500 * n,
                  "prompt_tokens_details": {"cached_tokens": 200, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 100, "audio_tokens": 0}},
    }


def anthropic_body(reply: Reply, model: str) -> dict:
    content = [{"type": "text", "text": reply.text}]
    if reply.reasoning:
        content.insert(0, {"type": "thinking", "thinking": reply.reasoning,
                           "signature": "loopback"})
    return {
        "id": "msg_loopback", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 800, "output_tokens": 500, "cache_read_input_tokens": 200,
                  "cache_creation_input_tokens": 0},
    }


def _error_body(path: str, status: int) -> dict:
    message = f"loopback error {status}"
    if path.endswith("/messages"):
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": "server_error", "code": None}}
