"""A window of lines from a file of any size, read in bounded pieces.

read_file shows at most `limit` lines of at most MAX_LINE_CHARS characters, so that is all it
keeps: the file is read once, in pieces, for those lines, the count of the rest and the hash
edit_file's guard compares. Memory stays flat for a 2 GB file; the binary check looks at the
first 8 KiB before anything else is read.
"""

from __future__ import annotations

import codecs
import hashlib
from dataclasses import dataclass, field
from typing import BinaryIO

PIECE = 1 << 16  # bytes read at a time
SNIFF = 8_192  # bytes searched for a NUL: a binary file is refused before it is read


@dataclass
class Window:
    lines: list[str] = field(default_factory=list)  # the shown lines, each cut to `keep` chars
    cut: list[int] = field(default_factory=list)  # characters dropped from each shown line
    total: int = 0  # lines in the whole file
    digest: str = ""  # sha256 of the whole file
    binary: bool = False


@dataclass
class _Line:
    text: list[str] = field(default_factory=list)
    kept: int = 0
    dropped: int = 0
    ends_cr: bool = False


def read_window(f: BinaryIO, start: int, limit: int, keep: int) -> Window:
    """Lines `start` (0-based) to `start + limit` of `f`, split on \\n only (a CRLF line's \\r
    is not shown), each cut to `keep` characters, plus the whole file's line count and hash."""
    head = f.read(SNIFF)
    if b"\0" in head:
        return Window(binary=True)
    if len(head) < SNIFF:  # the whole file, unless more still comes (a pipe): read on to see
        more = f.read(PIECE)
        small = _whole(head, start, limit, keep) if not more and start >= 0 else None
        if small is not None:
            return small
        head += more
    return _in_pieces(f, head, start, limit, keep)


def _whole(data: bytes, start: int, limit: int, keep: int) -> Window | None:
    """The window of a file read whole in its first piece, when it is valid UTF-8 (as most
    files read are): the same lines as piece by piece, with one decode and one split. None
    for anything else."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    if lines[-1] == "":  # a last newline ends a line, it starts none (an empty file: none)
        lines.pop()
    window = Window(total=len(lines), digest=hashlib.sha256(data).hexdigest())
    wanted = lines[start : start + max(0, limit)]
    if "\r" not in text and max(map(len, wanted), default=0) <= keep:  # most files: as they are
        window.lines, window.cut = wanted, [0] * len(wanted)
        return window
    for line in wanted:
        shown = line[: max(0, keep)]
        dropped = len(line) - len(shown)
        if line.endswith("\r"):  # a CRLF line: its \r is not shown, nor counted
            if dropped:
                dropped -= 1
            else:
                shown = shown[:-1]
        window.lines.append(shown)
        window.cut.append(dropped)
    return window


def _in_pieces(f: BinaryIO, head: bytes, start: int, limit: int, keep: int) -> Window:
    window = Window()
    hasher = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    line, index, last = _Line(), 0, b""
    piece = head
    while piece:
        hasher.update(piece)
        for n, part in enumerate(piece.split(b"\n")):
            if n > 0:  # a newline ended the line before this part
                _finish(window, line, index in range(start, start + limit), decoder, keep)
                line, index = _Line(), index + 1
            if part and start <= index < start + limit:
                _grow(line, decoder.decode(part), keep)
        last = piece[-1:]
        piece = f.read(PIECE)
    if last and last != b"\n":  # a last line without its newline
        _finish(window, line, index in range(start, start + limit), decoder, keep)
        index += 1
    window.total = index
    window.digest = hasher.hexdigest()
    return window


def _grow(line: _Line, text: str, keep: int) -> None:
    if not text:
        return
    line.ends_cr = text.endswith("\r")
    room = keep - line.kept
    if room > 0:
        line.text.append(text[:room])
        line.kept += min(room, len(text))
    line.dropped += max(0, len(text) - max(room, 0))


def _finish(
    window: Window, line: _Line, shown: bool, decoder: codecs.IncrementalDecoder, keep: int
) -> None:
    if not shown:
        return
    _grow(line, decoder.decode(b"", final=True), keep)
    decoder.reset()
    text = "".join(line.text)
    if line.ends_cr:  # a CRLF line: its \r is not shown, nor counted
        if line.dropped:
            line.dropped -= 1
        else:
            text = text[:-1]
    window.lines.append(text)
    window.cut.append(line.dropped)
