"""Files that break naive readers: each is skipped or chunked by windows and counted, never a crash.

Engine level first (exact reasons and counts), then the real server on the same tree: indexing ends, the
end message counts the skips by reason, and a search on a CRLF/form-feed file reports the lines an editor
shows.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from smartsearch_ls.chunking.chunker import chunk_file
from smartsearch_ls.discovery.reading import MAX_FILE_BYTES, SkipReason, read_file
from smartsearch_ls.index.root_index import RootIndex
from tests.support.faults import FaultServer, launch

CRLF_SOURCE = (
    "import os\r\n"
    "\f\r\n"
    "def first():\r\n"
    "    return 1\r\n"
    "\r\n"
    "\f\r\n"
    "def rotate_the_audit_log(path):\r\n"
    "    '''Rotate the audit log file.'''\r\n"
    "    os.rename(path, path + '.1')\r\n"
)
AUDIT_LINE = 7
"""1-based line of `def rotate_the_audit_log` as an editor counts: form feeds do not break lines."""


def bad_tree(root: Path) -> dict[str, SkipReason | None]:
    """Write the bad files; what each should become (None: indexed, maybe by windows)."""
    files: dict[str, tuple[bytes, SkipReason | None]] = {
        "binary.dat": (bytes(range(256)) * 64, SkipReason.BINARY),
        "nul_inside.py": (b"def f():\n    return 1\n\0\0\0\n", SkipReason.BINARY),
        "latin1.py": ("café = 'naïve'\n".encode("latin-1"), SkipReason.NOT_UTF8),
        "broken_utf8.py": (b"x = '\xff\xfe\xfa'\n", SkipReason.NOT_UTF8),
        "bundle.min.js": (b"var a=1;" * 100_000, SkipReason.MINIFIED),  # 800 kB on one line
        "many_lines.py": (b"".join(b"x%d = 1\n" % (i % 1000) for i in range(100_000)), None),  # 800 kB
        # Nesting deep enough to break recursive parsers and tree walkers; short lines, so not "minified".
        "deep_parens.py": (b"x = " + b"(\n" * 30_000 + b"1\n" + b")\n" * 30_000, None),
        "deep_unary.py": (b"x = (\n" + b"-\n" * 100_000 + b"1)\n", None),
        "deep_lists.py": (b"x = " + b"[\n" * 3_000 + b"]\n" * 3_000, None),
        "deep_nest.js": (b"function f(){\n" * 3_000 + b"}\n" * 3_000, None),
        "deep_blocks.rs": (b"fn f() {\n" + b"{\n" * 20_000 + b"}\n" * 20_000 + b"}\n", None),
        "deep_classes.py": (
            b"".join(b"    " * i + b"class C%d:\n" % i for i in range(99)) + b"    " * 99 + b"pass\n",
            None,
        ),
        "crlf_ff.py": (CRLF_SOURCE.encode(), None),
        "bom.py": ("\ufeffdef with_bom():\n    return 'bom'\n".encode(), None),
        "empty.py": (b"", None),
    }
    for name, (data, _) in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    with open(root / "huge_one_line.js", "wb") as handle:  # 50 MB minified: never read, its size says enough
        chunk = b"var a=1;" * 131_072
        for _ in range(50):
            handle.write(chunk)
    expected = {name: reason for name, (_, reason) in files.items()}
    expected["huge_one_line.js"] = SkipReason.OVERSIZED
    return expected


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, SkipReason | None]]:
    root = tmp_path_factory.mktemp("bad-files") / "project"
    root.mkdir()
    return root, bad_tree(root)


def test_each_bad_file_is_skipped_or_chunked_and_counted(tree: tuple[Path, dict[str, SkipReason | None]]) -> None:
    root, expected = tree
    index = RootIndex(root)
    stats = index.refresh()
    assert stats.files == len(expected)
    entries = dict(index.entries())
    for name, reason in expected.items():
        assert entries[name].skipped == reason, name
        if reason is None and name != "empty.py":
            assert entries[name].docs, f"{name} was indexed with no snippet"
    counted = index.skipped()
    assert counted == {r: list(expected.values()).count(r) for r in set(expected.values()) if r is not None}
    assert (root / "huge_one_line.js").stat().st_size > 50 * MAX_FILE_BYTES - 1


def test_a_thousand_branch_elif_chain_keeps_every_declaration() -> None:
    """`elif` nests in the tree without indenting, so a valid file can hold a thousand levels: the walk that
    found declarations recursed once a level and hit the recursion limit, and the file lost all of them."""
    text = "def before():\n    return 0\n\n\ndef dispatch(x):\n    if x == 0:\n        return 0\n"
    text += "".join(f"    elif x == {n}:\n        return {n}\n" for n in range(1, 1000))
    text += "    else:\n        return -1\n\n\nclass After:\n    def method(self):\n        return 1\n"
    chunked = chunk_file("dispatch.py", text)
    assert [d.qualified_name for d in chunked.declarations] == ["before", "dispatch", "After", "After.method"]
    assert {s.symbol for s in chunked.snippets} == {"before", "dispatch", "After"}
    covered = {n for s in chunked.snippets for n in range(s.start_line, s.end_line + 1)}
    assert all(n in covered for n, line in enumerate(text.splitlines(), 1) if line.strip())


def test_line_numbers_survive_crlf_and_form_feeds() -> None:
    chunked = chunk_file("crlf_ff.py", CRLF_SOURCE)
    audit = next(d for d in chunked.declarations if d.name == "rotate_the_audit_log")
    assert (audit.start_line, audit.end_line) == (AUDIT_LINE, AUDIT_LINE + 2)
    snippet = next(s for s in chunked.snippets if s.symbol == "rotate_the_audit_log")
    assert snippet.text.splitlines()[0].startswith("def rotate_the_audit_log")


def test_unreadable_files_are_skipped(tmp_path: Path) -> None:
    """A FIFO or a directory where a listed file was (swapped in after listing) is never opened; a file the
    process may not read is skipped. Root reads through chmod 000, so that sub-case needs another user."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    assert read_file(fifo).skipped is SkipReason.UNREADABLE  # and did not block: opening it would
    (tmp_path / "dir.py").mkdir()
    assert read_file(tmp_path / "dir.py").skipped is SkipReason.UNREADABLE
    (tmp_path / "target.py").write_text("x = 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "target.py")
    assert read_file(tmp_path / "link.py").skipped is SkipReason.UNREADABLE  # symlinks are never followed
    assert read_file(tmp_path / "gone.py").skipped is SkipReason.VANISHED
    if os.geteuid() == 0:
        pytest.skip("running as root: chmod 000 does not stop root from reading; FIFO and directory cases ran")
    locked = tmp_path / "locked.py"
    locked.write_text("secret = 1\n")
    locked.chmod(0)
    assert read_file(locked).skipped is SkipReason.UNREADABLE


async def test_the_server_indexes_the_bad_tree_and_reports_the_lines_an_editor_shows(
    tree: tuple[Path, dict[str, SkipReason | None]], fault_judge: FaultServer, tmp_path: Path
) -> None:
    root, expected = tree
    server = await launch(root, fault_judge, tmp_path / "cache", settings={"semantic": False})
    try:
        message = await server.wait_for_log("index ready", timeout=120)
        skipped = sum(r is not None for r in expected.values())
        assert f"{len(expected)} files ({skipped} skipped" in message
        for reason in {r for r in expected.values() if r is not None}:
            assert f"{list(expected.values()).count(reason)} {reason}" in message
        result = await server.query(query="rotate the audit log file", mode="behavior")
        top = result.matches[0]
        assert top.path == "crlf_ff.py" and top.symbol == "rotate_the_audit_log"
        assert top.snippetRange.start.line == AUDIT_LINE - 1  # 0-based LSP line of the declaration
        assert result.coverage.skippedFiles == skipped
        symbols = await server.query(query="rotate_the_audit_log", mode="symbol")
        assert (
            symbols.matches[0].location.range.start.line <= AUDIT_LINE - 1 <= symbols.matches[0].location.range.end.line
        )
    finally:
        await server.stop()
