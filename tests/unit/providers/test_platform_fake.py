"""The Bedrock fake's SigV4 check is not vacuous: a request signed with the test's key passes,
the same request with its body changed or signed with another secret does not; an event-stream
frame it sends decodes with botocore as Bedrock's does."""

from __future__ import annotations

import base64
import json

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.eventstream import EventStreamBuffer

from tests.fake_model.platforms import (
    AWS_KEY_ID,
    AWS_REGION,
    AWS_SECRET,
    chunk_frame,
    sigv4_problem,
)

URL = "http://127.0.0.1:9/model/m/invoke-with-response-stream"
BODY = b'{"anthropic_version": "bedrock-2023-05-31"}'


def signed(secret: str) -> dict[str, str]:
    request = AWSRequest("POST", URL, {"content-type": "application/json"}, BODY)
    SigV4Auth(Credentials(AWS_KEY_ID, secret), "bedrock", AWS_REGION).add_auth(request)
    headers = {k.lower(): v for k, v in request.headers.items()}
    return {**headers, "host": "127.0.0.1:9"}


def test_only_a_request_signed_with_the_test_key_passes():
    assert sigv4_problem("POST", URL, signed(AWS_SECRET), BODY) is None
    assert sigv4_problem("POST", URL, signed(AWS_SECRET), BODY + b" ") is not None
    assert sigv4_problem("POST", URL, signed("another-secret"), BODY) is not None
    assert sigv4_problem("POST", URL, {"authorization": "Bearer x"}, BODY) is not None


def test_a_chunk_frame_decodes_as_bedrock_s():
    event = {"type": "message_stop"}
    buffer = EventStreamBuffer()
    buffer.add_data(chunk_frame(event))
    [message] = list(buffer)
    assert message.headers[":event-type"] == "chunk"
    assert json.loads(base64.b64decode(json.loads(message.payload)["bytes"])) == event
