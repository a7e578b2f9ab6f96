"""A `session/prompt`'s content blocks as the model's: text as it is, an image as a base64
image, a file the editor embedded as its text, a link to one by its path."""

from __future__ import annotations

from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from agent_cli.core.messages import Block

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)
IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _path(uri: str) -> str:
    return uri.removeprefix("file://")


def block(item: PromptBlock) -> Block | None:
    if isinstance(item, TextContentBlock):
        return {"type": "text", "text": item.text}
    if isinstance(item, ImageContentBlock) and item.mime_type in IMAGES:
        source = {"type": "base64", "media_type": item.mime_type, "data": item.data}
        return {"type": "image", "source": source}
    if isinstance(item, EmbeddedResourceContentBlock):
        resource = item.resource
        if isinstance(resource, TextResourceContents):
            text = f'<file path="{_path(resource.uri)}">\n{resource.text}\n</file>'
            return {"type": "text", "text": text}
        return {"type": "text", "text": f"(attached: {_path(resource.uri)}, binary, not shown)"}
    if isinstance(item, ResourceContentBlock):
        return {"type": "text", "text": f"(the user points at {_path(item.uri)})"}
    return None  # audio: not offered in our prompt capabilities


def content(prompt: list[PromptBlock]) -> tuple[str, list[Block]]:
    """The text the turn is recorded under (the user's own words) and the blocks sent."""
    blocks = [b for b in map(block, prompt) if b is not None]
    text = "\n".join(i.text for i in prompt if isinstance(i, TextContentBlock))
    return text, blocks or [{"type": "text", "text": "(empty prompt)"}]
