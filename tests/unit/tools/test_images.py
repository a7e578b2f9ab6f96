"""Images end to end: read_file of a PNG/JPEG/GIF/WebP is an image block the fake model checks
(§16: media type matching the bytes, at most 5 MB); a huge one is downscaled or refused with its
reason, never sent whole; `@shot.png` attaches one to the prompt.

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli


def picture(path: Path, size: tuple[int, int], fmt: str, noise: bool = False) -> None:
    if noise:  # incompressible: the file is as large as its pixels
        image = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    else:
        image = Image.new("RGB", size, (200, 30, 30))
    image.save(path, format=fmt, **({"compress_level": 1} if fmt == "PNG" else {}))


def result_of(body: dict[str, Any]) -> dict[str, Any]:
    block = body["messages"][-1]["content"][0]
    assert block["type"] == "tool_result"
    return block


def read(fake: FakeAnthropic, env: dict[str, str], ws: Path, name: str) -> dict[str, Any]:
    fake.script.tool_use("read_file", path=name).text("seen")
    proc = run_cli(env, ws, "run", "-p", f"look at {name}")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return result_of(fake.bodies()[-1])


@pytest.mark.parametrize(
    ("fmt", "media"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_an_image_read_is_an_image_block_of_its_media_type(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, fmt: str, media: str
):
    picture(tmp_path / "shot.img", (40, 30), fmt)
    result = read(fake_model, fake_env, tmp_path, "shot.img")
    text, image = result["content"]
    assert text == {"type": "text", "text": f"Image shot.img: {fmt} 40x30."}
    assert image["type"] == "image"
    assert image["source"]["media_type"] == media  # by its bytes, not its name
    data = base64.b64decode(image["source"]["data"])
    assert data == (tmp_path / "shot.img").read_bytes()


def test_a_20_mb_png_is_downscaled_or_refused_never_sent_whole(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    picture(tmp_path / "huge.png", (2_600, 2_600), "PNG", noise=True)
    assert (tmp_path / "huge.png").stat().st_size > 20_000_000
    result = read(fake_model, fake_env, tmp_path, "huge.png")
    body_size = len(json.dumps(fake_model.bodies()[-1]))
    assert body_size < 5_500_000  # 20 MB would be 27 MB of base64
    if result.get("is_error"):
        assert "cannot be sent" in result["content"]
        return
    text, image = result["content"]
    assert "PNG 2600x2600" in text["text"]
    assert "sent downscaled to 1568x1568" in text["text"]
    sent = Image.open(io.BytesIO(base64.b64decode(image["source"]["data"])))
    assert max(sent.size) == 1_568
    assert image["source"]["media_type"] == f"image/{str(sent.format).lower()}"


def test_a_large_photo_is_downscaled_to_the_detail_the_model_reads(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    picture(tmp_path / "wide.png", (4_000, 1_000), "PNG")
    text, image = read(fake_model, fake_env, tmp_path, "wide.png")["content"]
    assert text["text"].endswith("sent downscaled to 1568x392.")
    assert Image.open(io.BytesIO(base64.b64decode(image["source"]["data"]))).size == (1568, 392)


def test_a_broken_image_and_a_text_file_named_png(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really" * 10)
    result = read(fake_model, fake_env, tmp_path, "broken.png")
    assert result["is_error"] is True
    assert "broken.png is an image that cannot be sent: not a readable PNG image" in str(
        result["content"]
    )
    (tmp_path / "notes.png").write_text("just text\n")
    result = read(fake_model, fake_env, tmp_path, "notes.png")
    assert "just text" in result["content"]  # its bytes say text: read as text


def test_an_image_counts_by_its_pixels_in_the_context() -> None:
    from agent_cli.context.tokens import value_tokens
    from agent_cli.tools.image_file import load_image

    folder = Path(os.environ.get("TMPDIR", "/tmp"))
    path = folder / f"count-{os.getpid()}.png"
    picture(path, (750, 100), "PNG", noise=True)
    block = load_image(path, "PNG").block
    path.unlink()
    assert len(block["source"]["data"]) > 200_000
    result = {"type": "tool_result", "tool_use_id": "t", "content": [block]}
    assert 100 <= value_tokens([{"role": "user", "content": [result]}]) < 140


def test_at_mention_attaches_an_image_to_the_prompt(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    picture(tmp_path / "shot.png", (16, 16), "PNG")
    fake_model.script.text("a red square")
    proc = run_cli(fake_env, tmp_path, "chat", stdin="what is in @shot.png?\n")
    assert proc.returncode == 0, proc.stderr
    blocks = fake_model.bodies()[0]["messages"][0]["content"]
    assert [b["type"] for b in blocks] == ["text", "text", "image"]
    assert blocks[1]["text"] == "@shot.png: Image shot.png: PNG 16x16."
    assert blocks[2]["source"]["media_type"] == "image/png"
