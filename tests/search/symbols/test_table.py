"""`table.DeclarationTable` and the symbol index that keeps its declarations there, not in the root index's entries."""

from __future__ import annotations

from pathlib import Path

from smartsearch_ls.chunking.snippet import Declaration
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope
from smartsearch_ls.search.symbols.index import symbol_index
from smartsearch_ls.search.symbols.ranking import find_symbols
from smartsearch_ls.search.symbols.table import DeclarationTable
from tests.conftest import write_tree
from tests.search.fixtures.projects import PY_PROJECT


def test_a_declaration_comes_back_as_it_went_in_and_a_freed_slot_takes_the_next() -> None:
    first = (
        Declaration("Cache", "Cache", "class", "core/cache.py", 1, 40, 1, 6),
        Declaration("get", "Cache.get", "method", "core/cache.py", 3, 9, 4, 8),
        Declaration("hit", "Cache.get.hit", "function", "core/cache.py", 5, 6, 5, 12),
        Declaration("run", "run$1", "function", "core/cache.py", 70_000, 70_001, 70_000, 0),  # not `scope.name`
        Declaration("main", "main", "function", "other/path.py", 2, 3, 2, 4),  # a path that is not the key
    )
    table = DeclarationTable()
    slots = table.add("core/cache.py", table.convert(first))
    assert [table.get(slot) for slot in slots] == list(first)
    table.drop(slots[1:3])
    second = (Declaration("put", "Store.put", "method", "core/store.py", 8, 12, 9, 8),)
    (slot,) = table.add("core/store.py", table.convert(second))
    assert slot in slots[1:3] and table.get(slot) == second[0]
    assert [table.get(s) for s in (slots[0], *slots[3:])] == [first[0], *first[3:]]


def test_a_restarted_index_keeps_its_declarations_pickled_and_looks_up_the_same(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "py", PY_PROJECT)
    built = RootIndex(root, cache_dir=tmp_path / "cache")
    built.refresh()
    assert built.persist()
    loaded = RootIndex(root, cache_dir=tmp_path / "cache")
    assert loaded.load_persisted() and loaded.refresh().read == 0
    symbols = symbol_index(loaded)
    assert all(isinstance(entry.declared, bytes) for entry in loaded.files.values()), "read, and kept as loaded"
    for path, entry in built.files.items():
        assert [symbols.table.get(slot) for slot in symbols.files[path].slots] == list(entry.declarations)
        for name in {d.name for d in entry.declarations} | {"missing"}:
            assert symbols.declarations_named(path, name) == [d for d in entry.declarations if d.name == name]
    for query in ("index_repo", "Cache.get", "cache", "idx rep"):
        ours, theirs = find_symbols([Scope(loaded)], query, 20), find_symbols([Scope(built)], query, 20)
        assert [h.declaration for h in ours[0]] == [h.declaration for h in theirs[0]] and ours[1:] == theirs[1:]


def test_an_edited_file_keeps_its_place_among_the_files_declaring_a_name(tmp_path: Path) -> None:
    """Equally ranked declarations come in the order their files were learned: an edit does not move a file last."""
    files = {f"m{n}.py": "def run():\n    pass\n" for n in range(3)}
    index = RootIndex(write_tree(tmp_path / "root", files))
    index.refresh()
    symbols = symbol_index(index)
    before = [symbols.table.paths[slot] for slot in symbols.by_name["run"]]
    index.update_text(before[0], "def run():\n    return 1\n\ndef stop():\n    pass\n")
    symbols.sync()
    assert [symbols.table.paths[slot] for slot in symbols.by_name["run"]] == before
    assert [d.name for d in symbols.declarations_named(before[0], "stop")] == ["stop"]
