"""GET /v1/models as Anthropic's API answers it (one page), or a 404 as an endpoint without the
models API (Ollama, llama.cpp's server) does: `ModelsFake(listed=[...])` / `ModelsFake(None)`."""

from __future__ import annotations

from urllib.parse import urlsplit

from .server import Answer, FakeAnthropic
from .wire import model_info

LIST_PATH = "/v1/models"


class ModelsFake(FakeAnthropic):
    def __init__(self, listed: list[str] | None) -> None:
        super().__init__()
        self.listed = listed
        self.list_requests = 0

    def answer(self, raw_path: str, headers: dict[str, str], raw: bytes) -> Answer:
        if urlsplit(raw_path).path != LIST_PATH:
            return super().answer(raw_path, headers, raw)
        with self._lock:
            self.list_requests += 1
        if self.listed is None:
            body = {"type": "error", "error": {"type": "not_found_error", "message": "404"}}
            return Answer(404, body, headers={"x-should-retry": "false"})
        data = [model_info(m, False) for m in self.listed]
        first, last = (self.listed[0], self.listed[-1]) if self.listed else (None, None)
        return Answer(200, {"data": data, "has_more": False, "first_id": first, "last_id": last})
