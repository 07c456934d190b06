"""What a snippet says of itself in prose, the text its commentary vector is embedded from."""

from __future__ import annotations

import pytest

from smartsearch_ls.embedding.commentary import MAX_WORDS, commentary_text


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (
            'def parse(text):\n    """Parse a version string\n    into its parts."""\n    return text.split(".")\n',
            "Parse a version string into its parts.",
        ),
        (
            "/**\n * Send a frame to the peer.\n * @param {Buffer} data the `payload`\n */\nfunction send(data) {}\n",
            "Send a frame to the peer. Buffer data the payload",
        ),
        (
            "// Match reports whether the route matches.\nfunc (r *Route) Match() bool {\n",
            "Match reports whether the route matches.",
        ),
        ("/// Parses a semantic version.\n#[inline]\npub fn parse() {}\n", "Parses a semantic version."),
        (
            "# Returns the user's full name.\ndef full_name\n  [first, last].join(' ')\nend\n",
            "Returns the user's full name.",
        ),
        ("def f():\n    x = 1  # a trailing comment is not read\n    return x\n", None),
        ("#!/usr/bin/env python\n#[derive(Debug)]\n#include <stdio.h>\nint main() {}\n", None),
        ("// too short\nfn f() {}\n", None),
    ],
)
def test_doc_comments_docstrings_and_comments_are_read_and_code_is_not(code: str, said: str | None) -> None:
    assert commentary_text(code) == said


def test_only_the_first_words_are_kept() -> None:
    code = "".join(f"# word{i} word{i} word{i}\n" for i in range(40)) + "x = 1\n"
    said = commentary_text(code)
    assert said is not None and len(said.split()) == MAX_WORDS and said.startswith("word0 word0")
