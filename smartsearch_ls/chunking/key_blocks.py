"""Private key blocks found on the whole file, so that a snippet starting inside one knows it does.

A key block can be longer than the lines two snippets share (a 4096-bit RSA key is 50 lines of base64, line
windows overlap by 10), so the snippet after the one holding `BEGIN ... PRIVATE KEY` may start in the middle of
the body: nothing in its own text says that its first lines are key material, and redacting each snippet on its
own sent them to the judge with the `END` line. The chunker therefore marks each snippet that starts below a
block's `BEGIN` line and no later than its last line (`Snippet.key_until`), and the redactor (`judge.redact`)
blanks those lines before the snippet is framed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from smartsearch_ls.chunking.snippet import Snippet

KEY_BEGIN = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
KEY_END = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
"""PEM, OpenSSH and PGP private key armor lines (`BEGIN RSA PRIVATE KEY`, `BEGIN PGP PRIVATE KEY BLOCK`, ...)."""

_BEGIN = re.compile(KEY_BEGIN)
_END = re.compile(KEY_END)


def key_blocks(lines: Sequence[str]) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each private key block: its `BEGIN` line to its `END` line, or to the
    file's last line when the block is never closed."""
    blocks: list[tuple[int, int]] = []
    number, count = 1, len(lines)
    while number <= count:
        line = lines[number - 1]
        begin = _BEGIN.search(line) if "-----BEGIN" in line else None
        if begin is None:
            number += 1
            continue
        last = number if _END.search(line, begin.end()) else _closing_line(lines, number + 1)
        blocks.append((number, last))
        number = last + 1
    return blocks


def _closing_line(lines: Sequence[str], start: int) -> int:
    for number in range(start, len(lines) + 1):
        if "-----END" in lines[number - 1] and _END.search(lines[number - 1]):
            return number
    return len(lines)


def mark_key_continuations(snippets: Sequence[Snippet], blocks: Sequence[tuple[int, int]]) -> list[Snippet]:
    """The snippets, each one that starts inside a block below its `BEGIN` line carrying the block's last line."""
    marked = []
    for snippet in snippets:
        inside = next((last for first, last in blocks if first < snippet.start_line <= last), 0)
        marked.append(snippet.replace(key_until=inside) if inside else snippet)
    return marked
