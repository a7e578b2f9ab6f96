"""An image file as the model sees it: one `image` block (base64), recognised by its bytes.

PNG, JPEG, GIF and WebP are sent; one larger than the API takes (5 MB of base64, which is
3.75 MB of file) or than the model looks at in detail (1,568 pixels on the long side) is
downscaled with Pillow first, and refused with its reason when even that does not fit. A file
over MAX_FILE_BYTES, or with more pixels than Pillow's decompression-bomb guard allows, is
refused without being decoded.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
)
MAX_SENT_BYTES = 3_750_000  # 5 MB once base64-encoded: the API's cap on one image
MAX_EDGE = 1_568  # the long side the model reads at full detail; larger is only tokens
MAX_FILE_BYTES = 64 * 1024 * 1024
TOKENS_PER_PIXEL = 1 / 750  # how the API counts an image's tokens


def image_kind(head: bytes) -> str | None:
    """PNG, JPEG, GIF or WEBP when the file's first bytes say so."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WEBP"
    return next((kind for magic, kind in MAGIC if head.startswith(magic)), None)


@dataclass(frozen=True)
class SentImage:
    block: dict[str, Any]
    note: str  # what the model and the user read beside it: "PNG 3000x2000, sent as 1568x1045"
    tokens: int  # what the model's view of it costs in the context


class ImageRefused(Exception):
    """The image cannot be sent; the message says why."""


def load_image(path: Path, kind: str) -> SentImage:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ImageRefused(f"{size:,} bytes is over the {MAX_FILE_BYTES:,}-byte limit for images")
    data = path.read_bytes()
    from PIL import Image  # imported only when an image is read

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if size <= MAX_SENT_BYTES and max(width, height) <= MAX_EDGE:
                return _sent(data, kind, (width, height), f"{kind} {width}x{height}")
            sent_kind, sent, shape = _downscaled(image, kind)
    except Image.DecompressionBombError as e:
        raise ImageRefused(f"too many pixels to decode safely ({e})") from e
    except (OSError, ValueError, SyntaxError) as e:  # what Pillow raises on a broken file
        raise ImageRefused(f"not a readable {kind} image ({e})") from e
    if len(sent) > MAX_SENT_BYTES:
        raise ImageRefused(
            f"{kind} {width}x{height} is still {len(sent):,} bytes downscaled to "
            f"{shape[0]}x{shape[1]}; the API takes at most {MAX_SENT_BYTES:,}"
        )
    note = f"{kind} {width}x{height} ({size:,} bytes), sent downscaled to {shape[0]}x{shape[1]}"
    return _sent(sent, sent_kind, shape, note)


def _downscaled(image: Any, kind: str) -> tuple[str, bytes, tuple[int, int]]:
    """The image shrunk to MAX_EDGE on its long side: as PNG when that fits, else as JPEG."""
    from PIL import Image

    image.seek(0)  # a GIF or WebP animation: its first frame
    small = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
    small.thumbnail((MAX_EDGE, MAX_EDGE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    target = kind if kind in ("PNG", "JPEG", "WEBP") else "PNG"
    small.save(out, format=target, optimize=True)
    if out.tell() > MAX_SENT_BYTES and target != "JPEG":
        out = io.BytesIO()
        small.convert("RGB").save(out, format="JPEG", quality=85)
        target = "JPEG"
    return target, out.getvalue(), small.size


def _sent(data: bytes, kind: str, shape: tuple[int, int], note: str) -> SentImage:
    source = {
        "type": "base64",
        "media_type": MEDIA_TYPES[kind],
        "data": base64.b64encode(data).decode("ascii"),
    }
    tokens = max(1, round(shape[0] * shape[1] * TOKENS_PER_PIXEL))
    return SentImage({"type": "image", "source": source}, note, tokens)
