"""`focus`: the at most 12 lines of a matched snippet that a person reads to decide; `redacted_excerpt`: those
lines as they may leave the machine."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.search.excerpt import EXCERPT_LINES, focus, match_at, redacted_excerpt

PYTHON_HEADER = '''"""Sessions: who is signed in.

Expired sessions are rejected at every request and forgotten.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from shop.auth.sessions import (
    expire_sessions,
    reject_session,
)
from shop.auth.tokens import SessionToken, expired_token
from shop.clock import now

SESSION_SECONDS = 3600
'''

TYPESCRIPT_HEADER = """// Guard: the checks every request passes.

import { expireSessions, rejectSession } from "./sessions";
import type { SessionToken } from "./tokens";
import {
  expiredToken,
  sessionExpired,
} from "./expiry";
const rejectExpired = require("./reject-expired");

export const SESSION_SECONDS = 3600;
export const LOGIN_PAGE = "/login";
"""


def test_a_long_snippet_is_cut_to_the_window_with_most_query_words() -> None:
    body = [f"    step_{i}()" for i in range(40)]
    body[25:27] = ["    if session.expired:", "        reject(session)"]
    snippet = Snippet("auth.py", 10, 50, "def handle(session):\n" + "\n".join(body), "handle")
    start, end, text = focus(snippet, "reject expired sessions")
    assert end - start + 1 == EXCERPT_LINES and text.count("\n") == EXCERPT_LINES - 1
    assert start <= 10 + 26 and end >= 10 + 27 and "reject(session)" in text


def test_import_lines_do_not_draw_the_excerpt_in_python() -> None:
    """The header's imports name every query word, but its docstring says what the module does."""
    snippet = Snippet("shop/auth/guard.py", 1, 18, PYTHON_HEADER, None)
    start, end, text = focus(snippet, "reject expired sessions")
    assert (start, end) == (1, EXCERPT_LINES) and text.startswith('"""Sessions')


def test_import_lines_do_not_draw_the_excerpt_in_typescript() -> None:
    snippet = Snippet("src/guard.ts", 101, 117, TYPESCRIPT_HEADER + "\n" * 4 + "// expired sessions rejected\n", None)
    start, end, text = focus(snippet, "reject expired sessions")
    assert (start, end) == (106, 117) and text.endswith("// expired sessions rejected")


def test_typed_words_outweigh_synonyms() -> None:
    lines = ["x = 0"] * 30
    lines[3] = "remove(entry)"  # a synonym of the typed word `delete`
    lines[20] = "delete(entry)"
    snippet = Snippet("cache.py", 1, 30, "\n".join(lines), None)
    start, end, _ = focus(snippet, "delete the entry")
    assert start <= 21 <= end and not start <= 4 <= end


def test_a_passing_narrower_snippet_is_the_excerpt() -> None:
    text = "\n".join(f"line_{i} = {i}" for i in range(1, 41))
    snippet = Snippet("m.py", 1, 40, text, None)
    within = Snippet("m.py", 30, 33, "\n".join(f"line_{i} = {i}" for i in range(30, 34)), None)
    assert focus(snippet, "anything", within)[:2] == (30, 33)


def test_a_tie_keeps_the_first_window_however_the_weights_add_up() -> None:
    """Float weights drifted in the sliding sum, and a later window with the same score won the tie."""
    line = {0: "    x = 1", 3: "    drop()", 6: "    drop(); purge()", 10: "    delete()", 13: "    delete(); drop()"}
    tenths = [3, 13, 0, 0, 3, 0, 0, 6, 0, 10, 10, 0, 0, 0, 0, 6, 0, 0, 13, 0]
    lines = ["def drop_all():"] + [line[t] for t in tenths[1:]]
    sums = [sum(tenths[i : i + EXCERPT_LINES]) for i in range(len(tenths) - EXCERPT_LINES + 1)]
    assert sums[0] == max(sums)  # the declaration's window is among the best
    snippet = Snippet("m.py", 1, len(lines), "\n".join(lines), "drop_all")
    assert focus(snippet, "delete token")[0] == 1


def test_an_excerpt_inside_a_key_block_is_blanked_and_one_no_snippet_holds_is_redacted_alone(tmp_path: Path) -> None:
    body = [f"QUJD{n:060d}" for n in range(20)]
    lines = ['DEPLOY_KEY = """-----BEGIN RSA PRIVATE KEY-----', *body, '-----END RSA PRIVATE KEY-----"""']
    (tmp_path / "keys.py").write_text("\n".join([*lines, 'password = "hunter2hunter2"']) + "\n")
    index = RootIndex(tmp_path, cache_dir=tmp_path / ".cache")
    index.refresh()
    match = match_at(index, "keys.py", 5, 8, None, 1.0)  # body lines: nothing in them says they are a key
    assert match is not None and match.excerpt == "\n".join(body[3:7])
    redacted = redacted_excerpt(index, match)
    assert redacted.text == "\n\n\n" and redacted.kinds == ("private-key",)

    gone = replace(match, start_line=40, end_line=40, excerpt='password = "hunter2hunter2"')  # the file changed since
    assert redacted_excerpt(index, gone).text == 'password = "[REDACTED:secret]"'


def test_an_excerpt_inside_a_secret_block_scalar_no_snippet_with_its_name_holds_is_blanked(tmp_path: Path) -> None:
    """Lines 61-73 lie only in the second window (51-74), which starts inside the `password: |` body: an agent is
    returned them blanked, counted as secrets (the marker's kind), not as a private key."""
    secret = [f"hunter{n:02d}-chosen-pass-line" for n in range(70)]
    lines = ["service:", "  name: billing", "  password: |", *(f"    {line}" for line in secret), "  port: 8080"]
    (tmp_path / "values.yaml").write_text("\n".join(lines) + "\n")
    index = RootIndex(tmp_path, cache_dir=tmp_path / ".cache")
    index.refresh()
    match = match_at(index, "values.yaml", 62, 66, None, 1.0)
    assert match is not None and match.snippet_start_line > 3 and "hunter" in match.excerpt
    redacted = redacted_excerpt(index, match)
    assert "hunter" not in redacted.text and redacted.text.count("\n") == match.excerpt.count("\n")
    assert redacted.kinds and set(redacted.kinds) == {"secret"}


def test_a_redacted_excerpt_near_the_size_limit_keeps_every_line_of_its_range(tmp_path: Path) -> None:
    # Eleven URLs with passwords: each marker is longer than the password it stands for, so the redacted excerpt
    # outgrows the limit the excerpt was held to; cut there, it lost its last line and no longer spanned its range.
    urls = [f'URL{n:02d} = "https://user:pw{n:02d}abcd@h.example.com/{"x" * 100}"' for n in range(11)]
    (tmp_path / "conf.py").write_text("\n".join([*urls, "X = 1"]) + "\n")
    index = RootIndex(tmp_path, cache_dir=tmp_path / ".cache")
    index.refresh()
    match = match_at(index, "conf.py", 1, 12, None, 1.0)
    assert match is not None and len(match.excerpt.splitlines()) == 12
    redacted = redacted_excerpt(index, match)
    assert len(redacted.text.splitlines()) == 12 and redacted.text.endswith("X = 1")
    assert "pw00abcd" not in redacted.text


def test_a_doc_comment_that_repeats_the_question_does_not_hide_the_code_that_does_it() -> None:
    """A doc comment says the question's words in its own and drew the window above the lines that do them (a new
    user's trial: "strip the leading whitespace that all lines share" was shown the comment, never the loop)."""
    doc = [
        "/// Removes common leading whitespace from each line.",
        "///",
        "/// This function will look at each non-empty line and determine the",
        "/// maximum amount of whitespace that can be removed from all lines:",
        "///",
        "/// ```",
        '/// assert_eq!(dedent("  1st line\\n  2nd line\\n"), "1st line\\n2nd line\\n");',
        "/// ```",
        "/// Leading whitespace shared by every line is stripped; blank lines are kept.",
        "///",
    ]
    code = [
        "pub fn dedent(s: &str) -> String {",
        '    let mut prefix = "";',
        "    for line in s.lines() {",
        "        let whitespace = line.chars().take_while(|c| c.is_whitespace()).count();",
        "        if whitespace < prefix.len() || prefix.is_empty() {",
        "            prefix = &line[..whitespace];",
        "        }",
        "    }",
        "    let mut result = String::new();",
        "    for line in s.lines() {",
        "        result.push_str(line.strip_prefix(prefix).unwrap_or(line));",
        "        result.push('\\n');",
        "    }",
        "    result",
        "}",
    ]
    snippet = Snippet("src/indentation.rs", 77, 77 + len(doc + code) - 1, "\n".join(doc + code), "dedent")
    start, _, text = focus(snippet, "strip the leading whitespace that all lines share")
    assert start >= 77 + len(doc) - 2 and "pub fn dedent" in text and "take_while" in text


UPSERT = [
    "def upsert(self, document, cond=None):",
    '    """',
    "    Update documents, if they exist, insert them otherwise.",
    "",
    "    Note: This will update *all* documents matching the query. Document",
    "    argument can be a tinydb.table.Document object if you want to specify a",
    "    doc_id.",
    "",
    "    :param document: the document to insert or the fields to update",
    "    :param cond: which document to look for, optional if you've passed a",
    "    Document with a doc_id",
    "    :returns: a list containing the updated documents' IDs",
    '    """',
    "    if isinstance(document, self.document_class) and hasattr(document, 'doc_id'):",
    "        doc_ids = [document.doc_id]",
    "    else:",
    "        doc_ids = None",
    "    try:",
    "        updated_docs = self.update(document, cond, doc_ids=doc_ids)",
    "    except KeyError:",
    "        updated_docs = None",
    "    if updated_docs:",
    "        return updated_docs",
    "    return [self.insert(document)]",
]


def test_a_docstring_that_repeats_the_question_does_not_hide_the_code_that_does_it() -> None:
    """A docstring is not a comment line, so it counted as code: a new user's "update a record if it exists,
    otherwise insert it" was shown `upsert`'s docstring, not its try-update-else-insert."""
    lines = UPSERT
    snippet = Snippet("tinydb/table.py", 513, 513 + len(lines) - 1, "\n".join(lines), "Table.upsert")
    text = focus(snippet, "update a record if it exists, otherwise insert it")[2]
    assert "self.update(document" in text and "self.insert(document)" in text


def test_a_triple_quote_inside_a_one_line_literal_opens_no_docstring() -> None:
    """Triple quotes were counted on each line, so `QUOTE = '\"\"\"'` above a method turned its docstring into code
    and its code into docstring, and the window went back to the docstring."""
    lines = ["class Table:", '    QUOTE = \'"""\'', "    OTHER = \"'''\"  # '''", "", *UPSERT]
    snippet = Snippet("tinydb/table.py", 1, len(lines), "\n".join(lines), "Table")
    text = focus(snippet, "update a record if it exists, otherwise insert it")[2]
    assert "self.update(document" in text and "self.insert(document)" in text
