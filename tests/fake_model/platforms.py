"""Amazon Bedrock and Google Vertex AI as the SDK's own clients reach them, on 127.0.0.1.

`PlatformFake("bedrock")` answers `POST /model/{id}/invoke[-with-response-stream]` only when
the request is SigV4-signed with the test's key (the signature recomputed with botocore from
what arrived: method, path, the signed headers, the body) and streams in AWS event-stream
frames, as Bedrock does. `PlatformFake("vertex")` answers
`POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{id}:streamRawPredict` (or
`:rawPredict`, with `stream` in the body to match) only with the test's bearer token, in SSE.
Both want `anthropic_version` in the body and the model in the path, not the body; the body is
then checked and answered as the Messages API's own (the base fake: its scripts, SPEC §16).
Every platform request is kept in `platform_requests`; anything wrong is a violation."""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from .script import ErrorReply
from .server import MESSAGES_PATH, Answer, FakeAnthropic, Violation, _error_answer, _Handler

AWS_KEY_ID = "AKIAFAKEFAKEFAKE0001"
AWS_SECRET = "fake/secret/for/tests/only/0000000000000"
AWS_REGION = "us-east-1"
VERTEX_TOKEN = "ya29.fake-vertex-token"
VERTEX_PROJECT = "fake-project"
VERTEX_REGION = "us-east5"

_BEDROCK = re.compile(r"^/model/(?P<model>[^/]+)/(?P<op>invoke|invoke-with-response-stream)$")
_VERTEX = re.compile(
    r"^/v1/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)/publishers/anthropic"
    r"/models/(?P<model>[^/:]+):(?P<op>rawPredict|streamRawPredict)$"
)
_SIGV4 = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[A-Z0-9]+)/(?P<date>\d{8})/(?P<region>[a-z0-9-]+)"
    r"/bedrock/aws4_request, SignedHeaders=(?P<signed>[a-z0-9;-]+), "
    r"Signature=(?P<signature>[0-9a-f]{64})$"
)


@dataclass(frozen=True)
class PlatformRequest:
    path: str
    model: str  # from the path, unquoted
    streamed: bool
    headers: dict[str, str]
    body: dict[str, Any]  # as it came (no model in it)


def event_frame(payload: bytes, headers: dict[str, str]) -> bytes:
    """One AWS event-stream message: prelude (lengths, CRC), string headers, payload, CRC."""
    head = b"".join(
        bytes([len(k)]) + k.encode() + b"\x07" + struct.pack(">H", len(v)) + v.encode()
        for k, v in headers.items()
    )
    prelude = struct.pack(">II", 12 + len(head) + len(payload) + 4, len(head))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + head + payload
    return message + struct.pack(">I", zlib.crc32(message))


def chunk_frame(event: dict[str, Any]) -> bytes:
    """A Messages API stream event as Bedrock sends it: a `chunk` whose bytes are its JSON."""
    data = base64.b64encode(json.dumps(event).encode()).decode()
    kinds = {":event-type": "chunk", ":content-type": "application/json"}
    return event_frame(json.dumps({"bytes": data}).encode(), {**kinds, ":message-type": "event"})


def sigv4_problem(method: str, url: str, headers: dict[str, str], body: bytes) -> str | None:
    """Why this request is not signed with the test's key; None when it is."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    found = _SIGV4.match(headers.get("authorization", ""))
    if found is None:
        return f"authorization is not a SigV4 header: {headers.get('authorization')!r}"
    signed = found["signed"].split(";")
    if found["key"] != AWS_KEY_ID or found["region"] != AWS_REGION:
        return f"signed with {found['key']} for {found['region']}"
    if "host" not in signed or "x-amz-date" not in signed:
        return f"host and x-amz-date not signed: {signed}"
    request = AWSRequest(method, url, {k: headers[k] for k in signed if k in headers}, body)
    request.context["timestamp"] = headers.get("x-amz-date", "")
    signer = SigV4Auth(Credentials(AWS_KEY_ID, AWS_SECRET), "bedrock", AWS_REGION)
    canonical = signer.canonical_request(request)
    expected = signer.signature(signer.string_to_sign(request, canonical), request)
    return None if expected == found["signature"] else "the SigV4 signature does not verify"


class PlatformFake(FakeAnthropic):
    def __init__(self, platform: Literal["bedrock", "vertex"]) -> None:
        super().__init__()
        self.platform = platform
        self.platform_requests: list[PlatformRequest] = []

    def start(self) -> PlatformFake:
        super().start()
        assert self._httpd is not None
        self._httpd.RequestHandlerClass = _PlatformHandler
        return self

    @property
    def platform_url(self) -> str:
        """ANTHROPIC_BEDROCK_BASE_URL / ANTHROPIC_VERTEX_BASE_URL."""
        return self.base_url + ("/v1" if self.platform == "vertex" else "")

    def answer(self, raw_path: str, headers: dict[str, str], raw: bytes) -> Answer:
        path = urlsplit(raw_path).path
        found = (_BEDROCK if self.platform == "bedrock" else _VERTEX).match(path)
        problem = self._problem(found, path, headers, raw)
        if problem is not None or found is None:
            with self._lock:
                self.violations.append(Violation(len(self.platform_requests), problem or path))
            step = ErrorReply(400, "invalid_request_error", problem or path, should_retry=False)
            return _error_answer(step, "req_platform")
        body = json.loads(raw)
        streamed = found["op"] in ("invoke-with-response-stream", "streamRawPredict")
        with self._lock:
            model = unquote(found["model"])
            self.platform_requests.append(PlatformRequest(path, model, streamed, headers, body))
        as_api = {k: v for k, v in body.items() if k != "anthropic_version"}
        data = json.dumps({**as_api, "model": model, "stream": streamed}).encode()
        return super().answer(MESSAGES_PATH, {**headers, "content-length": str(len(data))}, data)

    def _problem(
        self, found: re.Match[str] | None, path: str, headers: dict[str, str], raw: bytes
    ) -> str | None:
        if found is None:
            return f"not a {self.platform} path: {path}"
        try:
            body = json.loads(raw)
        except ValueError:
            return "the body is not JSON"
        if "model" in body or not body.get("anthropic_version"):
            return "the model goes in the path, anthropic_version in the body"
        if self.platform == "vertex":
            if body.get("stream", False) != (found["op"] == "streamRawPredict"):
                return f"stream {body.get('stream')} sent to :{found['op']}"
            if headers.get("authorization") != f"Bearer {VERTEX_TOKEN}":
                return f"not the test's bearer token: {headers.get('authorization')!r}"
            if (found["project"], found["region"]) != (VERTEX_PROJECT, VERTEX_REGION):
                return f"project {found['project']}, region {found['region']}"
            return None
        if "stream" in body:
            return "Bedrock streams by its path: no stream in the body"
        url = f"http://{headers.get('host', '')}{path}"
        return sigv4_problem("POST", url, headers, raw)


class _PlatformHandler(_Handler):
    def _write_stream(self, answer: Answer) -> None:
        fake = self.server.fake
        if not isinstance(fake, PlatformFake) or fake.platform != "bedrock":
            super()._write_stream(answer)
            return
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/vnd.amazon.eventstream")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        for event in answer.events or []:
            data = chunk_frame(event)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")


__all__ = ["PlatformFake", "PlatformRequest", "chunk_frame"]
