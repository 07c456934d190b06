"""The stripped copy keeps every line number and parses, and the queries point at their functions."""

import ast
import json

from bench.quality.docstrings import build, first_sentence, function_queries, strip_python

SOURCE = '''#!/usr/bin/env python
"""Module doc."""
import os  # a comment

CONSTANT = 1
"""An attribute docstring."""


def only_doc(x):
    """Only a docstring here, nothing else."""


class Thing:
    """Doc
    on two lines."""

    text = "# not a comment"

    @staticmethod
    def method(self):  # trailing
        """Return the answer to the question of everything. More text."""
        return 42  # é


def semi():
    """Doc."""; return 1
'''


def test_strip_keeps_lines_code_and_strings_but_drops_prose():
    out = strip_python(SOURCE)
    assert len(out.split("\n")) == len(SOURCE.split("\n"))
    ast.parse(out)
    assert '"# not a comment"' in out
    for gone in ("Module doc", "# a comment", "attribute docstring", "Only a docstring", "on two lines", "answer"):
        assert gone not in out
    lines = out.split("\n")
    assert lines[9] == "    pass"  # the docstring-only body
    assert lines[21] == "        return 42"
    assert lines[25] == "    pass; return 1"


def test_first_sentence_and_function_queries():
    assert first_sentence("Return the  answer.\nMore.") == "Return the answer."
    assert first_sentence("First para\nwraps here\n\nSecond") == "First para wraps here"
    queries = function_queries("m.py", SOURCE)
    assert [(q.qualified_name, q.start_line, q.end_line) for q in queries] == [
        ("only_doc", 9, 10),
        ("Thing.method", 19, 22),
    ]
    assert queries[1].query == "Return the answer to the question of everything."


def test_build_writes_stripped_tree_and_sampled_queries(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "m.py").write_text(SOURCE)
    (src / "pkg" / "broken.py").write_text("def (:\n")
    (src / "README.md").write_text("Return the answer to the question of everything.\n")
    built = build(src, tmp_path / "nodoc", tmp_path / "q.jsonl", "t-nodoc", sample=1, seed=3)
    assert (built.files, built.candidates, built.sampled) == (1, 2, 1)
    assert not (tmp_path / "nodoc" / "README.md").exists()
    row = json.loads((tmp_path / "q.jsonl").read_text())
    assert row["corpus"] == "t-nodoc" and len(row["gold"]) == 1
    gold = row["gold"][0]
    stripped = (tmp_path / "nodoc" / gold["path"]).read_text().split("\n")
    assert stripped[gold["start_line"] - 1].lstrip().startswith(("def", "@"))
