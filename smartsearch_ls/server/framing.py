"""LSP's message framing read leniently: one mis-framed message costs that message, never the connection.

pygls reads `Content-Length: N\\r\\n` exactly. Anything else left its reader waiting for a header that never
came (a non-numeric or wrong length, a length counted in characters instead of bytes, LF-only line ends, no
space after the colon), so the server stayed alive and answered nothing ever again, logging nothing.
`Reframer` stands between stdin and pygls: it finds each message in the client's bytes as leniently as clients
write them, hands pygls a canonical frame per message, and says what it dropped in the log. What cannot be a
message is answered as JSON-RPC asks: a body that is not JSON with Parse error (-32700), one whose `id` is an
object or an array, or that is not an object at all, with Invalid Request (-32600), both with `id: null`.
Those answers travel through pygls like any message, as a notification of `FRAMING_ERROR_METHOD` that the
protocol turns into the error response (`app.SmartSearchProtocol`), so only pygls's thread writes to stdout.

Recovery, by case:
- header names in any case, with or without a space after the colon, lines ending in LF or CRLF;
- no usable `Content-Length` (missing, not a number): the body is taken to be the JSON value that follows the
  headers, when one does;
- a length shorter than the body because it counted characters: when the body read does not decode and holds
  non-ASCII bytes, bytes are read on until it holds that many characters;
- a length longer than the body: a body that already decodes and ends in `}` is not waited on further, so a
  client waiting for this message's answer is not waited on for bytes that will never come;
- anything else that does not decode is dropped up to the next `Content-Length` header.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, BinaryIO

log = logging.getLogger(__name__)

FRAMING_ERROR_METHOD = "$/smartSearch/framingError"
"""What a message that must be answered with an error becomes for pygls; its params are the error's code,
message and the id to answer."""

_HEADER_START = re.compile(rb"(?i)content-(?:length|type)[ \t]*:")
"""Where a header block starts; anywhere, since a dropped body may end on the same line as the next header."""
_BLOCK_END = re.compile(rb"\r?\n[ \t]*\r?\n")
NOT_JSON = object()
"""What `_loaded` returns for a body that is not JSON (`null` is JSON, and is not a message either)."""
_MAX_HEADER_BYTES = 64 * 1024
"""A header block longer than this is not one: its bytes are dropped up to the next `Content-Length`."""


class Reframer:
    """A binary stream for pygls's reader (`readline`, `read`) that yields canonical frames of `raw`'s messages."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._pending = bytearray()
        """Bytes read from `raw` and not yet taken into a message."""
        self._out = bytearray()
        """Canonical frames ready for pygls."""

    # -- what pygls calls ----------------------------------------------------------------------------------

    def readline(self) -> bytes:
        if not self._out and not self._frame_next():
            return b""
        end = self._out.find(b"\n") + 1 or len(self._out)
        line = bytes(self._out[:end])
        del self._out[:end]
        return line

    def read(self, size: int) -> bytes:
        data = bytes(self._out[:size])
        del self._out[:size]
        return data

    # -- finding messages ----------------------------------------------------------------------------------

    def _frame_next(self) -> bool:
        """Put the next message's canonical frame in `_out`; False at the end of the stream."""
        while True:
            headers = self._headers()
            if headers is None:
                return False
            body = self._body(headers)
            if body is not None:
                self._out += b"Content-Length: %d\r\n\r\n" % len(body) + body
                return True

    def _fill(self) -> bool:
        """Read what `raw` has (at least one byte, waiting if needed); False at its end."""
        chunk = self._raw.read1(65536) if hasattr(self._raw, "read1") else self._raw.read(1)
        self._pending += chunk
        return bool(chunk)

    def _headers(self) -> dict[bytes, bytes] | None:
        """The next header block (names in lower case), with what does not start one dropped; None at the end."""
        while True:
            start = _HEADER_START.search(self._pending)
            if start is None:
                # Only the last, unfinished line may still become a header.
                self._drop(self._pending.rfind(b"\n") + 1, "bytes that are not a header")
            elif start.start() > 0:
                self._drop(start.start(), "bytes before a header")  # garbage, or the rest of a dropped body
                continue
            elif (end := _BLOCK_END.search(self._pending)) is not None:
                block = bytes(self._pending[: end.start()])
                del self._pending[: end.end()]
                return _parse_headers(block)
            if len(self._pending) > _MAX_HEADER_BYTES:
                self._drop(len(self._pending), "a header block too long")
            if not self._fill():
                self._drop(len(self._pending), "a message the stream ended inside")
                return None

    def _body(self, headers: dict[bytes, bytes]) -> bytes | None:
        """The message the headers announce, as one canonical body (maybe a framing error's); None when dropped."""
        declared = headers.get(b"content-length", b"").strip()
        if not declared.isdigit():
            log.warning("a message with Content-Length %r: reading the JSON value that follows", declared.decode())
            return self._value_that_follows()
        length, scanned = int(declared), 0
        while len(self._pending) < length:
            if (whole := self._whole_in_pending(scanned)) is not None:
                length = whole  # the length was too large, and no byte more may come before the client has an answer
                break
            scanned = len(self._pending)
            if not self._fill():
                log.warning("the client's stream ended inside a message of %d bytes", length)
                return None
        body = bytes(self._pending[:length])
        del self._pending[:length]
        try:
            return _checked(body, json.loads(body))
        except ValueError:
            return _checked(*self._recovered(body, length))

    def _whole_in_pending(self, scanned: int) -> int | None:
        """The length of a whole JSON body at the start of the pending bytes (all of them, or up to the next
        message's header), while fewer have come than declared: the declared length was too large. `scanned`:
        how many pending bytes were searched for a header already (a body of a megabyte comes in many reads)."""
        following = _HEADER_START.search(self._pending, max(0, scanned - len(b"content-length:")))
        end = following.start() if following is not None else len(self._pending)
        if following is None and not self._pending.endswith(b"}"):
            return None
        if _loaded(bytes(self._pending[:end])) is NOT_JSON:
            return None
        log.warning("a message shorter than its Content-Length: its %d bytes taken as they are", end)
        return end

    def _recovered(self, body: bytes, length: int) -> tuple[bytes, Any]:
        """A body that does not decode as read, and its message when a framing mistake explains it: the next
        message's header inside it (the length was too large), or characters counted instead of bytes."""
        following = _HEADER_START.search(body)
        if following is not None and (message := _loaded(body[: following.start()])) is not NOT_JSON:
            self._pending[:0] = body[following.start() :]
            log.warning("a message shorter than its Content-Length %d: taken as it is", length)
            return body[: following.start()], message
        if max(body, default=0) < 0x80:  # all ASCII: as many characters as bytes, so not that either
            return body, NOT_JSON
        grown = bytearray(body)
        while (missing := length - len(grown.decode("utf-8", errors="ignore"))) > 0:
            while len(self._pending) < missing and self._fill():
                pass  # every missing character is one byte at least: that many are wanted, no fewer
            if not self._pending:
                break
            grown += self._pending[:missing]
            del self._pending[:missing]
        if (message := _loaded(bytes(grown))) is not NOT_JSON:
            log.warning("a message whose Content-Length %d counted characters, not bytes: read whole", length)
            return bytes(grown), message
        self._pending[:0] = grown[len(body) :]  # not that: leave those bytes for the next header
        return body, NOT_JSON

    def _value_that_follows(self) -> bytes | None:
        """The JSON value at the start of what follows (after a header without a usable length)."""
        decoder = json.JSONDecoder()
        while True:
            text = self._pending.decode("utf-8", errors="replace")
            stripped = text.lstrip()
            try:
                _, end = decoder.raw_decode(stripped)
            except ValueError:
                following = _HEADER_START.search(self._pending)
                if following is not None or len(self._pending) > _MAX_HEADER_BYTES or not self._fill():
                    self._drop(following.start() if following is not None else len(self._pending), "a body")
                    return None
                continue
            used = len(stripped[:end].encode("utf-8")) + len(text) - len(stripped)
            body = bytes(self._pending[:used]).strip()
            del self._pending[:used]
            return _checked(body, _loaded(body))

    def _drop(self, count: int, what: str) -> None:
        dropped = bytes(self._pending[:count])
        del self._pending[:count]
        if dropped.strip():
            log.warning("dropped %d bytes of %s from the client: %r", len(dropped), what, dropped[:200])


def _parse_headers(block: bytes) -> dict[bytes, bytes]:
    headers = {}
    for line in block.replace(b"\r\n", b"\n").split(b"\n"):
        name, colon, value = line.partition(b":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    return headers


def _loaded(body: bytes) -> Any:
    """The JSON value of a body, or `NOT_JSON`."""
    try:
        return json.loads(body)
    except ValueError:
        return NOT_JSON


def _checked(body: bytes, message: Any) -> bytes:
    """The body, or the framing error a message of it is answered with (`message`: its JSON value, or `NOT_JSON`)."""
    if message is NOT_JSON:
        log.warning("a message that is not JSON: answered with Parse error; it began %r", body[:200])
        return _error(-32700, "Parse error: the message is not JSON.")
    if not isinstance(message, dict):
        log.warning("a message that is not a JSON object: answered with Invalid Request; it began %r", body[:200])
        return _error(-32600, "Invalid Request: a message must be a JSON object.")
    if isinstance(message.get("id"), dict | list):
        log.warning("a message whose id is an object or an array: answered with Invalid Request")
        return _error(-32600, "Invalid Request: an id must be a string, a number or null.")
    return body


def _error(code: int, message: str) -> bytes:
    params = {"code": code, "message": message}
    return json.dumps({"jsonrpc": "2.0", "method": FRAMING_ERROR_METHOD, "params": params}).encode()
