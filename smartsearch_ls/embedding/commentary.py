"""The commentary of a snippet: what its doc comments, docstrings and comments say, as one short text to embed.

A question is prose, and MiniLM learned its meaning from pairs of sentences: a question meets a doc comment that
says the same thing more surely than it meets the code under it, whose vector also carries identifiers and
syntax. So besides the snippet's own vector (`snippet.snippet_text`), a snippet that says something in prose gets
a second vector of just those words, and the local judge weighs the question's cosine with both
(`judge/local/features.py`). Its first `MAX_WORDS` words are kept: a doc comment's summary comes first, and the
encoder would cut a longer text anyway. A snippet that says fewer than `MIN_WORDS` words has no commentary vector.
"""

from __future__ import annotations

import re

MAX_WORDS = 60
MIN_WORDS = 3

DOCSTRING_QUOTES = re.compile(r'"""|\'\'\'')
"""Python's docstring delimiters; a line holding an odd number of them opens or closes a docstring."""
_COMMENT_MARKER = re.compile(r"^\s*(?:///?!?|/\*\*?|\*/?|#(?![\[!])|--)\s?")
"""A line comment or a line of a block comment, and its marker: `//`, `///`, `//!`, `/*`, `/**`, `*`, `#`, `--`
(not Rust's `#[attribute]` nor a `#!` line)."""
_PREPROCESSOR = ("#include", "#define", "#!")
_MARKUP = re.compile(r"@\w+|[`*_<>{}\[\]]")
"""JSDoc and YARD tags, Markdown emphasis and code spans, brackets of links and types: not words."""
_STRING_PREFIX = re.compile(r"[rbuRBU]?")


def commentary_text(code: str) -> str | None:
    """The words of the snippet's docstrings and comments, in order, at most `MAX_WORDS`; None under
    `MIN_WORDS`."""
    words: list[str] = []
    in_docstring = False
    for line in code.split("\n"):
        quotes = len(DOCSTRING_QUOTES.findall(line))
        if in_docstring or quotes:
            said = DOCSTRING_QUOTES.sub(" ", line)
            in_docstring ^= quotes % 2 == 1
            if _STRING_PREFIX.fullmatch(said.strip()) is None:
                words.extend(_MARKUP.sub(" ", said).split())
        elif _COMMENT_MARKER.match(line) and not line.lstrip().startswith(_PREPROCESSOR):
            words.extend(_MARKUP.sub(" ", _COMMENT_MARKER.sub("", line, count=1)).split())
        if len(words) >= MAX_WORDS:
            break
    return " ".join(words[:MAX_WORDS]) if len(words) >= MIN_WORDS else None
