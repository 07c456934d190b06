"""The table's slots are reused: a look-up or a reader that holds slot numbers while a sync runs must not read another
declaration, or a freed one, in their place.

The syncs land where a server's would: an unsaved edit applied and synced by the look-up's own context callback (what
`declaration_terms` does), a sync between two stages of a look-up (each stage takes the lock anew, so another
thread's can run there; here the look-up's own thread runs it, deterministically), and another thread's sync while
`declarations_named` reads (held back by a profile hook until the sync has had its chance).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import pytest

from smartsearch_ls.chunking.snippet import Declaration
from smartsearch_ls.index.entries import FileEntry
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.search.symbols import ranking
from smartsearch_ls.search.symbols.index import symbol_index
from smartsearch_ls.search.symbols.ranking import find_symbols
from smartsearch_ls.search.symbols.table import DeclarationTable
from tests.conftest import write_tree

RUNNERS = {"a.py": "def run_fast():\n    pass\n\ndef run_slow():\n    pass\n", "b.py": "def fast_run_b():\n    pass\n"}
EDITS = {
    "other names in the freed slots": "def zzz_other():\n    pass\n\n\n\n\n\ndef qqq():\n    pass\n",
    "fewer declarations than slots": "x = 1\n",
}


def _indexed(tmp_path: Path) -> RootIndex:
    index = RootIndex(write_tree(tmp_path / "root", RUNNERS))
    index.refresh()
    symbol_index(index)
    return index


def _assert_as_matched(declarations: list[Declaration]) -> None:
    for declaration in declarations:
        assert "run" in declaration.name, declaration
        assert declaration.path in RUNNERS and declaration.qualified_name == declaration.name, declaration


@pytest.mark.parametrize("edit", EDITS.values(), ids=list(EDITS))
def test_an_edit_synced_by_the_context_callback_leaves_the_hits_as_matched(tmp_path: Path, edit: str) -> None:
    index = _indexed(tmp_path)
    seen: list[Declaration] = []

    def context(root: RootIndex, declaration: Declaration) -> float:
        if not seen:
            root.update_text("a.py", edit)  # an unsaved edit lands while the look-up runs
            symbol_index(root)  # and the callback syncs, as `declaration_terms` does
        seen.append(declaration)
        return 0.0

    hits, count, _ = find_symbols([Scope(index)], "run", 10, context=context)
    _assert_as_matched([h.declaration for h in hits] + seen)
    assert sorted(h.declaration.name for h in hits) == ["fast_run_b", "run_fast", "run_slow"] and count == 3


def _on_call(
    name: str, when: Callable[[FrameType], bool], then: Callable[[], None], *, once: bool = True
) -> Callable[..., None]:
    """A profile function running `then` (once, or every time) when this thread calls a function `name` for which
    `when` holds."""
    done: list[bool] = []

    def profile(frame: FrameType, event: str, _: object) -> None:
        if event == "call" and frame.f_code.co_name == name and not (done and once) and when(frame):
            done.append(True)
            then()

    return profile


def _stage_one(frame: FrameType) -> bool:
    return frame.f_code is ranking._stage.__code__ and frame.f_locals.get("stage") == 1


def _run_edited_at_stage_one(tmp_path: Path, texts: list[str], *, once: bool = True) -> tuple[list[Declaration], int]:
    """The hits and count of `run` in RUNNERS, a.py edited (to each of `texts` in turn) and synced as the look-up's
    second stage starts: the first run's only, or every run's."""
    index = _indexed(tmp_path)

    def sync_an_edit() -> None:
        index.update_text("a.py", texts[0])
        texts.reverse()
        symbol_index(index)

    sys.setprofile(_on_call("_stage", _stage_one, sync_an_edit, once=once))
    try:
        hits, count, _ = find_symbols([Scope(index)], "run", 10)
    finally:
        sys.setprofile(None)
    return [h.declaration for h in hits], count


@pytest.mark.parametrize("edit", EDITS.values(), ids=list(EDITS))
def test_a_sync_between_two_stages_does_not_reuse_a_slot_the_first_matched(tmp_path: Path, edit: str) -> None:
    """`run` matches `run_fast` and `run_slow` by prefix (stage 0), fewer than the limit, so shared words run next
    (stage 1, `fast_run_b`); the edit of a.py lands as that stage starts."""
    hits, _ = _run_edited_at_stage_one(tmp_path, [edit])
    _assert_as_matched(hits)
    assert [h.name for h in hits] == ["fast_run_b"]


def test_a_sync_between_two_stages_that_moves_the_matched_names_runs_the_look_up_again(tmp_path: Path) -> None:
    """The edit keeps `run_fast` and `run_slow`, learned again into other slots: only a look-up run again shows them
    (leaving the stale matches out, as a single run would, gives `fast_run_b` alone)."""
    hits, count = _run_edited_at_stage_one(tmp_path, ["def zzz_other():\n    pass\n\n" + RUNNERS["a.py"]])
    assert sorted(h.name for h in hits) == ["fast_run_b", "run_fast", "run_slow"] and count == 3
    assert [h.start_line for h in hits if h.name == "run_fast"] == [4]


def test_a_look_up_synced_under_at_every_stage_leaves_out_what_changed(tmp_path: Path) -> None:
    """a.py is edited back and forth as every run of the look-up reaches its second stage, its `run_` functions
    learned again into other slots each time: the last run shows the matches whose slots held still (`fast_run_b`),
    not what took the others'."""
    texts = ["def zzz_other():\n    pass\n\n" + RUNNERS["a.py"], RUNNERS["a.py"]]
    hits, _ = _run_edited_at_stage_one(tmp_path, texts, once=False)
    _assert_as_matched(hits)
    assert [h.name for h in hits] == ["fast_run_b"]


def test_declarations_named_reads_a_file_as_one_version_while_another_thread_syncs(tmp_path: Path) -> None:
    """Another thread applies an edit and syncs as `declarations_named` makes the first of a file's two `run`s; the
    reader gives it a fifth of a second (without the lock the sync takes milliseconds) before reading on."""
    index = _indexed(tmp_path)
    index.update_text(
        "a.py", "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n        pass\n"
    )
    symbols = symbol_index(index)
    before = symbols.declarations_named("a.py", "run")
    assert [d.qualified_name for d in before] == ["A.run", "B.run"]
    synced = threading.Event()

    def sync_an_edit() -> None:
        index.update_text("a.py", "def run():\n    pass\n\n\n\n\n\ndef qqq():\n    pass\n")
        symbols.sync()
        synced.set()

    def after_the_first_read() -> None:
        threading.Thread(target=sync_an_edit, daemon=True).start()
        synced.wait(0.2)

    def table_get(frame: FrameType) -> bool:
        return frame.f_code is DeclarationTable.get.__code__

    sys.setprofile(_on_call("get", table_get, after_the_first_read))
    try:
        read = symbols.declarations_named("a.py", "run")
    finally:
        sys.setprofile(None)
    assert synced.wait(5.0)
    assert read == before
    assert [d.qualified_name for d in symbols.declarations_named("a.py", "run")] == ["run"]


def test_a_slot_dropped_twice_goes_to_one_declaration() -> None:
    table = DeclarationTable()
    slots = table.add("a.py", table.convert((Declaration("f", "f", "function", "a.py", 1, 2, 1, 4),) * 2))
    table.drop(slots)
    table.drop(slots)  # no caller drops twice (`convert` comes before any `drop`); the table does not rely on it
    files = {
        path: (Declaration(f"{stem}1", f"{stem}1", "function", path, 1, 2, 1, 4),) * 2
        for path, stem in (("b.py", "g"), ("c.py", "h"))
    }
    taken = {path: table.add(path, table.convert(declarations)) for path, declarations in files.items()}
    assert len({slot for slots in taken.values() for slot in slots}) == 4
    for path, declarations in files.items():
        assert [table.get(slot) for slot in taken[path]] == list(declarations)


def test_an_edit_that_cannot_be_added_leaves_the_file_its_slots_and_no_other_file_takes_them(tmp_path: Path) -> None:
    """An edited file's new declarations fail to convert (a line past the table's range: no chunker makes one today,
    a stand-in for any failure of `add`). Freeing the old slots first left a.py holding free slots, which c.py took
    next; a.py's next edit then freed c.py's (the review's D2)."""
    index = RootIndex(write_tree(tmp_path / "root", {"a.py": RUNNERS["a.py"], "b.py": RUNNERS["b.py"]}))
    index.refresh()
    symbols = symbol_index(index)
    with index.lock:
        entry = index.files["a.py"]
        bad = (Declaration("run_fast", "run_fast", "function", "a.py", 1, 2**31, 1, 4),)
        index.files["a.py"] = FileEntry(entry.stamp, entry.digest, None, entry.docs, bad, entry.lines)
        index.generation += 1
    with pytest.raises(OverflowError):
        symbols.sync()
    assert [symbols.table.get(slot).name for slot in symbols.files["a.py"].slots] == ["run_fast", "run_slow"]
    (tmp_path / "root" / "c.py").write_text("def c1():\n    pass\n\ndef c2():\n    pass\n")
    index.apply_changes(["c.py"])
    index.update_text("a.py", "def f3():\n    pass\n")
    symbols.sync()
    taken = {path: set(file.slots) for path, file in symbols.files.items()}
    assert not taken["a.py"] & taken["c.py"] and not taken["a.py"] & taken["b.py"]
    assert [d.name for path in ("a.py", "c.py") for d in map(symbols.table.get, symbols.files[path].slots)] == [
        "f3",
        "c1",
        "c2",
    ]
    assert [(h.declaration.name, h.declaration.path) for h in find_symbols([Scope(index)], "c1", 1)[0]] == [
        ("c1", "c.py")
    ]
    assert "run_fast" not in symbols.by_name and "run_slow" not in symbols.by_name
