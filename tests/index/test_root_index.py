"""The warm index of one root: incremental, persisted, and always equal to the disk once settled."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from smartsearch_ls.chunking.snippet import Declaration
from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.discovery.reading import SkipReason
from smartsearch_ls.index import bulk, root_index, store
from smartsearch_ls.index.bm25 import COMPACT_AFTER
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope, shortlist
from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.support.postings import postings_of


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", SAMPLE_PROJECT)


def fingerprint(index: RootIndex) -> dict[str, list[tuple[int, int, str | None, str]]]:
    """Every file's snippets, comparable across indexes."""
    return {
        path: sorted(
            (s.start_line, s.end_line, s.symbol, s.text) for d in entry.docs if (s := index.snippets[d]) is not None
        )
        for path, entry in index.entries()
    }


def fresh(root: Path) -> RootIndex:
    index = RootIndex(root)
    index.refresh()
    return index


def test_refresh_indexes_listed_files_and_counts_skips(project: Path) -> None:
    index = fresh(project)
    assert "auth/sessions.py" in index.files and ".env" not in index.files
    assert "build/generated.py" not in index.files
    assert index.skipped() == {SkipReason.BINARY: 1, SkipReason.NOT_UTF8: 1, SkipReason.MINIFIED: 1}
    top = shortlist([Scope(index)], "reject expired sessions", 3).candidates[0]
    assert top.snippet.path in {"auth/sessions.py", "tests/test_sessions.py"}


def test_edits_creations_and_deletions_keep_the_index_equal_to_the_disk(project: Path) -> None:
    index = fresh(project)
    (project / "billing/invoice.py").write_text("def refund(order):\n    order.refund()\n")
    (project / "new_module.py").write_text("class Ledger:\n    def post(self, entry):\n        return entry\n")
    (project / "config/loader.py").unlink()
    os.rename(project / "auth/sessions.py", project / "auth/store.py")
    index.apply_changes(
        ["billing/invoice.py", "new_module.py", "config/loader.py", "auth/sessions.py", "auth/store.py"]
    )
    assert fingerprint(index) == fingerprint(fresh(project))
    assert "Ledger.post" in {d.qualified_name for d in index.declarations()}


def test_unsaved_text_replaces_the_file_until_reverted(project: Path) -> None:
    index = fresh(project)
    original = fingerprint(index)["billing/invoice.py"]
    assert index.update_text("billing/invoice.py", (project / "billing/invoice.py").read_text())
    assert not index.files["billing/invoice.py"].unsaved  # same text as on disk: nothing unsaved
    assert index.update_text("billing/invoice.py", "def issue_credit_note(invoice):\n    return -invoice.total\n")
    assert index.files["billing/invoice.py"].unsaved
    assert shortlist([Scope(index)], "credit note", 1).candidates[0].unsaved
    index.refresh()  # a refresh never clobbers a buffer
    assert index.files["billing/invoice.py"].unsaved
    index.revert("billing/invoice.py")
    assert fingerprint(index)["billing/invoice.py"] == original
    assert not index.update_text(".env", "SECRET=1")  # hidden: never indexed, even from a buffer


def test_a_new_buffer_not_on_disk_is_searched_when_rg_would_list_it_once_saved(project: Path) -> None:
    """A new file typed in the editor (or written by an agent through it) was dropped until saved."""
    (project / "billing" / ".gitignore").write_text("*.tmp.py\n!keep.tmp.py\n")
    index = fresh(project)
    assert index.update_text("billing/refunds.py", "def issue_refund(order):\n    return -order.total\n")
    found = shortlist([Scope(index)], "issue refund", 1).candidates[0]
    assert found.snippet.path == "billing/refunds.py" and found.unsaved
    assert index.update_text("billing/keep.tmp.py", "def kept():\n    pass\n")  # re-included by `!`
    for ignored in ("build/gen.py", "billing/draft.tmp.py", ".hidden/x.py", "config/.secret.py", "deploy/prod.env"):
        assert not index.update_text(ignored, "def nope():\n    pass\n"), ignored
    index.revert("billing/refunds.py")  # closed without saving: gone
    assert "billing/refunds.py" not in index.files
    assert all(c.snippet.path != "billing/refunds.py" for c in shortlist([Scope(index)], "issue refund", 5).candidates)


def test_a_shortlist_sees_each_change_made_since_the_last_one(project: Path) -> None:
    """A scope's snippets are listed once per generation of the index: every kind of change must be seen."""
    index = fresh(project)
    scope, query = Scope(index), "issue refund"
    before = shortlist([scope], query, 5)
    assert all(c.snippet.path != "billing/refunds.py" for c in before.candidates)
    assert index.update_text("billing/refunds.py", "def issue_refund(order):\n    return -order.total\n")
    typed = shortlist([scope], query, 1)
    assert typed.candidates[0].snippet.path == "billing/refunds.py" and typed.candidates[0].unsaved
    assert typed.files == before.files + 1
    index.revert("billing/refunds.py")
    reverted = shortlist([scope], query, 5)
    assert reverted.files == before.files and all(c.snippet.path != "billing/refunds.py" for c in reverted.candidates)
    (project / "billing/refunds.py").write_text("def issue_refund(order):\n    return -order.total\n")
    index.apply_changes(["billing/refunds.py"])
    saved = shortlist([scope], query, 1).candidates[0]
    assert saved.snippet.path == "billing/refunds.py" and not saved.unsaved
    (project / "billing/refunds.py").unlink()
    index.apply_changes(["billing/refunds.py"])
    assert all(c.snippet.path != "billing/refunds.py" for c in shortlist([scope], query, 5).candidates)
    # Other scopes of the same root, at the same generation, are listed apart.
    narrow = shortlist([Scope(index, prefix="auth")], query, 5)
    assert narrow.files < reverted.files and all(c.snippet.path.startswith("auth/") for c in narrow.candidates)
    python_only = shortlist([Scope(index, globs=GlobSet.of(["*.py"]))], "sample project", 50)
    assert python_only.files < reverted.files and all(c.snippet.path.endswith(".py") for c in python_only.candidates)
    with_docs = shortlist([scope], "sample project", 50)
    without_docs = shortlist([scope], "sample project", 50, documentation=False)
    assert "README.md" in {c.snippet.path for c in with_docs.candidates}
    assert "README.md" not in {c.snippet.path for c in without_docs.candidates}
    assert without_docs.documentation > 0 and without_docs.files == with_docs.files


def test_a_buffer_follows_the_rules_of_a_file_on_disk(project: Path) -> None:
    """A lone surrogate (valid JSON, no valid UTF-8) once broke every later search; a 6 MB buffer was indexed whole."""
    index = fresh(project)
    assert index.update_text("billing/invoice.py", 'def lone():\n    return "\ud800"\n')
    (snippet,) = [index.snippets[d] for d in index.files["billing/invoice.py"].docs]
    assert snippet is not None and "\ufffd" in snippet.text
    assert snippet.text.encode("utf-8")  # raised UnicodeEncodeError in the embedding cache's key before
    assert index.update_text("billing/invoice.py", "x = 1\n" * 200_000)
    entry = index.files["billing/invoice.py"]
    assert entry.skipped is SkipReason.OVERSIZED and entry.unsaved and not entry.docs
    index.refresh()  # still the buffer's state, not the disk's
    assert index.files["billing/invoice.py"].skipped is SkipReason.OVERSIZED
    index.revert("billing/invoice.py")
    assert index.files["billing/invoice.py"].skipped is None and index.files["billing/invoice.py"].docs


def test_a_warm_start_rereads_only_changed_files(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = RootIndex(project, cache_dir=cache)
    assert first.refresh().read == 11 - 3  # listed files; hidden and ignored ones never count
    assert first.persist()
    (project / "config/loader.py").write_text("def load(path):\n    return path\n")
    second = RootIndex(project, cache_dir=cache)
    assert second.load_persisted()
    stats = second.refresh()
    assert stats.read == 1 and stats.chunked == 1
    assert fingerprint(second) == fingerprint(fresh(project))


def test_an_unchanged_index_is_not_written_again(project: Path, tmp_path: Path) -> None:
    """A server persists its folders at exit: one whose session changed nothing keeps the file it loaded, and a
    touched file (new mtime, same content) still counts as a change, or every start would re-read it."""
    cache = tmp_path / "cache"
    first = RootIndex(project, cache_dir=cache)
    first.refresh()
    assert first.persist()
    saved = store.index_path(cache, project)
    written = saved.stat().st_mtime_ns, saved.stat().st_ino
    second = RootIndex(project, cache_dir=cache)
    assert second.load_persisted() and second.refresh().read == 0
    assert second.persist(only_if_changed=True)
    assert (saved.stat().st_mtime_ns, saved.stat().st_ino) == written
    path = project / "config/loader.py"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert second.refresh().chunked == 0
    assert second.persist(only_if_changed=True) and saved.stat().st_ino != written[1]
    third = RootIndex(project, cache_dir=cache)
    assert third.load_persisted() and third.refresh().read == 0


def test_a_same_size_edit_with_its_mtime_set_back_is_seen_at_the_next_start(project: Path, tmp_path: Path) -> None:
    """`cp -p` or `rsync -t` can write new content of the same size under the old mtime; only ctime tells."""
    cache = tmp_path / "cache"
    first = RootIndex(project, cache_dir=cache)
    first.refresh()
    assert first.persist()
    path = project / "config/loader.py"
    before = path.stat()
    original = path.read_text()
    edited = original.replace("def ", "def_", 1) if "def " in original else original.upper()
    assert len(edited) == len(original) and edited != original
    path.write_text(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns and path.stat().st_size == before.st_size
    second = RootIndex(project, cache_dir=cache)
    assert second.load_persisted()
    assert second.refresh().read == 1
    assert fingerprint(second) == fingerprint(fresh(project))


def declared_names(index: RootIndex) -> dict[str, list[str]]:
    """Every file's declarations' qualified names, comparable across indexes."""
    return {path: [d.qualified_name for d in entry.declarations] for path, entry in index.entries()}


def test_a_warm_start_builds_no_declaration_until_one_is_read(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart's first search needs none of them; the first reader gets every one of them, never an empty tuple."""
    cache = tmp_path / "cache"
    first = RootIndex(project, cache_dir=cache)
    first.refresh()
    assert first.persist()
    built: list[str] = []
    plain_init = Declaration.__init__

    def counted(self: Declaration, *fields: Any) -> None:
        built.append(fields[1])
        plain_init(self, *fields)

    monkeypatch.setattr(Declaration, "__init__", counted)
    second = RootIndex(project, cache_dir=cache)
    assert second.load_persisted() and second.refresh().read == 0
    assert shortlist([Scope(second)], "reject expired sessions", 3).candidates
    assert built in declared_names(first).values()  # one file's alone: the load's check that they still unpickle
    assert "SessionStore.get" in {d.qualified_name for d in second.declarations()}
    assert "SessionStore.get" in built
    assert declared_names(second) == declared_names(first)
    entry = second.files["auth/sessions.py"]
    assert isinstance(entry.declared, bytes), "read, and kept as loaded: the symbol index compares it by identity"


def test_declarations_never_read_are_saved_again_as_they_were(project: Path, tmp_path: Path) -> None:
    """An index saved before anything read its declarations writes back the pickles it loaded, and a file edited
    meanwhile has its new ones."""
    cache = tmp_path / "cache"
    first = RootIndex(project, cache_dir=cache)
    first.refresh()
    assert first.persist()
    second = RootIndex(project, cache_dir=cache)
    assert second.load_persisted()
    (project / "config/loader.py").write_text("def load_settings(path):\n    return path\n")
    assert second.refresh().read == 1
    assert isinstance(second.files["auth/sessions.py"].declared, bytes)
    assert second.persist()
    third = RootIndex(project, cache_dir=cache)
    assert third.load_persisted() and third.refresh().read == 0
    assert declared_names(third) == declared_names(fresh(project))
    assert declared_names(third)["config/loader.py"] == ["load_settings"]


def test_a_persisted_index_whose_declarations_no_longer_load_is_rebuilt(project: Path, tmp_path: Path) -> None:
    """They are unpickled when first read: a class they name that is gone since the save must fail the load, and
    the index be rebuilt, rather than every symbol look-up after it."""
    cache = tmp_path / "cache"
    first = RootIndex(project, cache_dir=cache)
    first.refresh()
    for entry in first.files.values():
        if entry.declarations:
            entry.declared = b"cno_such_module\nDeclaration\n."  # a pickle of a class no longer importable
    assert first.persist()
    second = RootIndex(project, cache_dir=cache)
    assert not second.load_persisted()
    second.refresh()
    assert declared_names(second) == declared_names(fresh(project))


def test_a_root_with_nothing_to_index_starts_warm_too(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"logo.png": b"\x89PNG\r\n\x1a\n\x00\x00"})
    first = RootIndex(root, cache_dir=tmp_path / "cache")
    assert first.refresh().files == 1 and first.snippet_count == 0
    assert first.persist()
    second = RootIndex(root, cache_dir=tmp_path / "cache")
    assert second.load_persisted()  # empty postings tables load back
    assert second.refresh().read == 0


def test_a_damaged_persisted_index_is_rebuilt(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = RootIndex(project, cache_dir=cache)
    first.refresh()
    first.persist()
    stored = next((cache / "index").iterdir())
    stored.write_bytes(stored.read_bytes()[:100])
    second = RootIndex(project, cache_dir=cache)
    assert not second.load_persisted()
    second.refresh()
    assert fingerprint(second) == fingerprint(first)


def add_handlers(project: Path, count: int = 30) -> None:
    (project / "pkg").mkdir(exist_ok=True)
    for i in range(count):
        (project / f"pkg/m{i}.py").write_text(f"def handler_{i}(event):\n    return event.id + {i}\n")


def spy_on_parallel_builds(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each cold build's `build_in_parallel` returned: True when worker processes did the indexing."""
    outcomes: list[bool] = []

    def recorded(*args: object) -> bool:
        outcomes.append(bulk.build_in_parallel(*args))  # type: ignore[arg-type]
        return outcomes[-1]

    monkeypatch.setattr(root_index, "build_in_parallel", recorded)
    return outcomes


def test_parallel_cold_build_equals_the_in_process_one(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_handlers(project)
    outcomes = spy_on_parallel_builds(monkeypatch)
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 5)
    parallel = fresh(project)
    assert outcomes == [True], "the workers did not run: this test would compare the in-process build with itself"
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 10**9)
    serial = fresh(project)
    assert fingerprint(parallel) == fingerprint(serial)
    ranked = [
        sorted((round(c.score, 4), c.snippet.path) for c in shortlist([Scope(index)], "handler 17", 50).candidates)
        for index in (parallel, serial)
    ]
    assert ranked[0] == ranked[1]


def test_a_parallel_build_reports_none_done_as_soon_as_the_workers_have_the_files(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server waits for that report to import a model judge's framework beside the workers rather than before
    them (`Folder.spared`); the in-process path reports only files done."""
    add_handlers(project)
    outcomes = spy_on_parallel_builds(monkeypatch)
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 5)
    reports: list[tuple[int, int]] = []
    RootIndex(project).refresh(lambda done, total: reports.append((done, total)))
    assert outcomes == [True]
    total = reports[-1][1]
    assert reports[0] == (0, total) and reports[-1] == (total, total)
    assert all(done > 0 for done, _ in reports[1:])
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 10**9)
    reports.clear()
    RootIndex(project).refresh(lambda done, total: reports.append((done, total)))
    assert reports and all(done > 0 for done, _ in reports)


ALIEN_SHARE = """import pickle, sys
sys.stdin.buffer.read()
class Alien: pass
pickle.dump(Alien(), sys.stdout.buffer)
sys.stdout.buffer.flush()
"""

HALF_A_SHARE = """import pickle, sys
sys.stdin.buffer.read()
share = pickle.dumps(list(range(100_000)))
sys.stdout.buffer.write(share[: len(share) // 2])
sys.stdout.buffer.flush()
"""


@pytest.mark.parametrize(
    ("worker", "logged"),
    [
        ("import sys; sys.stdin.buffer.read(); sys.exit(3)", "an indexing worker stopped early (exit code 3"),
        (ALIEN_SHARE, "AttributeError"),  # a share that does not unpickle: the reader thread must not die silently
        (HALF_A_SHARE, "an indexing worker stopped early (exit code 0"),  # its output ends mid-share
    ],
    ids=["worker dies", "share unreadable", "output cut short"],
)
def test_a_failing_worker_leaves_the_build_to_the_in_process_path_without_hanging(
    worker: str, logged: str, project: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    add_handlers(project)
    outcomes = spy_on_parallel_builds(monkeypatch)
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 5)
    monkeypatch.setattr(bulk, "WORKER_COMMAND", worker)
    built: list[RootIndex] = []
    builder = threading.Thread(target=lambda: built.append(fresh(project)), daemon=True)
    builder.start()
    builder.join(timeout=60)
    assert not builder.is_alive(), "the cold build hung on a failed worker"
    assert outcomes == [False] and logged in caplog.text
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 10**9)
    assert fingerprint(built[0]) == fingerprint(fresh(project))


def test_a_worker_that_cannot_start_stops_the_ones_started_and_the_build_goes_in_process(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_handlers(project)
    outcomes = spy_on_parallel_builds(monkeypatch)
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 5)
    monkeypatch.setattr(bulk, "worker_count", lambda: 2)
    started: list[subprocess.Popen[bytes]] = []
    popen = subprocess.Popen

    def second_refused(command: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        if bulk.WORKER_COMMAND not in command:  # rg's listing
            return popen(command, **kwargs)
        if started:
            raise OSError("fork refused (process limit)")
        started.append(popen(command, **kwargs))
        return started[-1]

    monkeypatch.setattr(bulk.subprocess, "Popen", second_refused)
    built = fresh(project)
    assert outcomes == [False] and started[0].poll() is not None  # no worker left running
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 10**9)
    assert fingerprint(built) == fingerprint(fresh(project))


def test_a_smartsearch_ls_folder_in_the_working_directory_is_not_what_the_workers_run(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoy = tmp_path / "decoy"
    marker = tmp_path / "decoy-ran"
    (decoy / "smartsearch_ls").mkdir(parents=True)
    (decoy / "smartsearch_ls/__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    add_handlers(project)
    outcomes = spy_on_parallel_builds(monkeypatch)
    monkeypatch.setattr(bulk, "PARALLEL_MIN_FILES", 5)
    monkeypatch.chdir(decoy)
    fresh(project)
    assert outcomes == [True] and not marker.exists()


def test_workers_import_the_indexer_only_not_the_judge_or_the_server() -> None:
    """A worker must not pay for the parent's imports (measured 1-5 s of a 10 s cold build when it did)."""
    heavy = ("pydantic_ai", "onnxruntime", "pygls", "smartsearch_ls.search", "smartsearch_ls.server")
    probe = f"{bulk.WORKER_COMMAND.split(';')[0]}; import sys; print([m for m in sys.modules if m.startswith({heavy})])"
    loaded = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def postings_entries(index: RootIndex) -> int:
    tables = (postings_of(index.bm25.body), postings_of(index.bm25.meta))
    return sum(len(values) for table in tables for values in table.values())


def test_a_built_index_holds_its_postings_as_a_loaded_one_does(project: Path) -> None:
    """A cold build left one array per term (a hundred thousand allocations on a large root) where a load holds
    one buffer: the same root cost more memory built than restarted."""
    index = RootIndex(project)
    index.refresh()
    assert index.bm25.body.arrays == {} and index.bm25.meta.arrays == {}
    found = shortlist([Scope(index)], "expired session", 5)
    assert found.candidates and index.bm25.body.arrays == {}  # a search reads the buffer, cutting nothing out


def test_a_refresh_that_re_reads_a_few_files_leaves_the_buffer_as_it_is(project: Path) -> None:
    """Laying the postings out copies all of them: after a build, not for one file changed on disk."""
    for i in range(12):  # enough other words that one file's are a small share of them
        words = " + ".join(f"value_{i}_{j}" for j in range(20))
        (project / f"extra_{i}.py").write_text(f"def total_{i}(value_{i}_0):\n    return {words}\n")
    index = RootIndex(project)
    index.refresh()
    buffer = index.bm25.body.packed().flat
    path = project / "auth" / "sessions.py"
    path.write_text(path.read_text() + "\ndef revoke_all_tokens(store):\n    store.clear()\n")
    assert index.refresh().chunked == 1
    assert index.bm25.body.packed().flat is buffer and index.bm25.body.arrays  # arrays of what the edit added, no more
    assert [c.snippet.symbol for c in shortlist([Scope(index)], "revoke all tokens", 1).candidates] == [
        "revoke_all_tokens"
    ]


def test_typing_in_a_buffer_does_not_grow_the_postings_for_good(project: Path) -> None:
    """Each edit retires every snippet of the file; 2,000 edits of one buffer grew the server by ~60 MB."""
    index = RootIndex(project)
    index.refresh()
    path = "auth/sessions.py"
    original = (project / path).read_text()
    settled = postings_entries(index)
    for keystroke in range(2000):
        assert index.update_text(path, original + f"\nLAST_KEY = {keystroke}\n")
    assert postings_entries(index) < 2 * settled + 40 * COMPACT_AFTER
    found = shortlist([Scope(index)], "LAST_KEY", 5)
    assert [c.snippet.path for c in found.candidates][:1] == [path]
