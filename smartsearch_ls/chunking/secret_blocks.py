"""YAML block scalars whose name says secret, found on the whole file, so that a snippet starting inside one's body
knows it does.

`password: |` puts its value on the more-indented lines below, and such a value (a certificate, a list of
passwords, a `.netrc` kept in a Helm values file) can be longer than the lines two snippets share (windows overlap
by 10): the snippet after the one holding `password: |` may start in its body, and nothing in its own text names a
secret, so redacting each snippet on its own sent those lines to the judge. The chunker therefore marks each
snippet that starts below a block's `name: |` line and no later than its last line (`Snippet.secret_until`), and
the redactor (`judge.redact`) blanks those lines as it blanks the body of a block it sees whole.

The mark is given by the name alone, conservatively: whether a value is a secret is the redactor's decision
(`judge.secret_assignments.is_secret`, which reads the value's first line), chunking may not import the judge, and
a snippet that starts inside the body does not hold that first line. So every block scalar whose name holds a
secret word is marked, and a continuation of one whose value the redactor would have let through (`token: |`
above a sentence, `author: |`) is blanked too: a few lines of a config value lost to search, where the other way
would send a secret that the snippet above it was redacted of.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from smartsearch_ls.chunking.secret_words import SECRET_NAME_WORDS
from smartsearch_ls.chunking.snippet import Snippet

_KEY = (
    r"(?P<indent>[ \t]*)(?:-(?P<dash>[ \t]+))?"
    rf"(?P<nq>[\"']?)(?P<name>(?=[\w.-]{{0,80}}?(?i:{SECRET_NAME_WORDS}))[A-Za-z_][\w.-]{{0,80}})(?P=nq)"
)
"""A block scalar's key with a secret word in its name: a mapping's (`password`), a list item's (`- password`, whose
dash and the spaces after it count as the key's indentation), quoted or not (`"password"`, as JSON-like YAML writes
it)."""

BLOCK_INDICATOR = r"(?:(?:&\S{1,100}+|!\S{0,100}+)[ \t]+){0,2}[|>](?:[1-9][-+]?|[-+][1-9]?)?(?:[ \t]+#[^\n]*|[ \t]*)"
"""What follows a block scalar's `name:`, the rest of its head line: `|` or `>` with their chomping and indentation
indicators (`>-`, `|2+`: one of each at most, in either order, the indentation one digit), after the node's anchor or
tag if it has them (`&pw |`, `!!binary >-`, both in either order), and a comment or spaces after them. The redactor
reads such a rest of the line as no value of its own (`judge.secret_assignments.redacted`): the value is the
block's; so a run of digits is not an indicator, or `password: |1234` would be read as a head and sent."""

_VALUE_LINE = r"(?P=indent)(?(dash) (?P=dash))[ \t]+[^\n]*(?:\n|$)"
"""A line of the value: indented more than the key is (under a list item, more than the dash and its spaces are
wide, the dash counting as one space)."""

YAML_BLOCK = re.compile(
    rf"^(?P<lead>{_KEY}[ \t]*:[ \t]*{BLOCK_INDICATOR}\r?\n)"
    rf"(?P<body>(?:(?:[ \t]*\r?\n)*{_VALUE_LINE})+)",
    re.MULTILINE,
)
"""YAML's block scalar (`password: |` and the more-indented lines under it): the value is on the lines below, empty
lines above and between them included (a bundle of certificates, a value of several paragraphs), and a `\\r\\n`
line end is one (the redactor reads a snippet's text as the file writes it). Shared with the redactor
(`judge.secret_assignments`), which decides on the value when it sees the whole block."""


_HEAD = re.compile(rf":[ \t]*{BLOCK_INDICATOR}$", re.MULTILINE)
"""The end of a block scalar's `name: |` line. Chunking looks for it first and tries `YAML_BLOCK` only on the lines
it ends: nearly every source file holds a `|` or a `>`, and trying the name's look-ahead at every line start cost
as much as a fifth of chunking a tree of Python."""


def secret_blocks(lines: Sequence[str]) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each block scalar under a secret-sounding name: its `name: |` line to its
    body's last line. Lines are joined with `\\n`, so a file with `\\r\\n` line ends is read as any other."""
    text = "\n".join(lines)
    blocks: list[tuple[int, int]] = []
    line, at, after = 1, 0, 0
    for head in _HEAD.finditer(text):
        start = text.rfind("\n", 0, head.start()) + 1
        if start < after or (found := YAML_BLOCK.match(text, start)) is None:
            continue  # a line of a block already found, or no block (a name without a secret word, no body)
        line += text.count("\n", at, start)
        at, after = start, found.end()
        body = found["body"]
        blocks.append((line, line + body.count("\n") + (0 if body.endswith("\n") else 1)))
    return blocks


def mark_secret_continuations(snippets: Sequence[Snippet], blocks: Sequence[tuple[int, int]]) -> list[Snippet]:
    """The snippets, each one that starts inside a block's body (below its `name: |` line) carrying the block's
    last line."""
    firsts = [first for first, _ in blocks]  # in order and apart: a line's block is found by bisection
    marked = []
    for snippet in snippets:
        at = bisect_right(firsts, snippet.start_line - 1) - 1
        inside = blocks[at][1] if at >= 0 and snippet.start_line <= blocks[at][1] else 0
        marked.append(snippet.replace(secret_until=inside) if inside else snippet)
    return marked
