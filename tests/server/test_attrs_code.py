"""attrs' generated methods reused from the table an earlier start wrote, compiled when the table cannot serve."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import zlib
from collections.abc import Callable
from importlib.util import MAGIC_NUMBER
from pathlib import Path

import attr._make
import attrs
import pytest

from smartsearch_ls.server import attrs_code
from smartsearch_ls.server.attrs_code import FORMAT, CodeTable, reused_attrs_code, table_path
from tests.support.model_servers import ModelServer
from tests.support.sessions import start_session

REPO = Path(__file__).resolve().parents[2]


def define_point() -> type:
    """A fresh attrs class with every generated method attrs writes for a mutable class."""

    @attrs.define(order=True)
    class Point:
        x: int
        y: int = 0

    return Point


def check_point(cls: type) -> None:
    point = cls(1, y=2)
    assert (point.x, point.y) == (1, 2)
    assert point == cls(1, 2) and point != cls(1, 3) and point < cls(2)
    assert repr(point) == "Point(x=1, y=2)"


def built_in(cache: Path) -> tuple[type, CodeTable]:
    with reused_attrs_code(cache) as table:
        cls = define_point()
    assert table is not None
    check_point(cls)
    return cls, table


def table_file(cache: Path) -> Path:
    path = table_path(cache)
    assert path is not None
    return path


def test_a_second_start_reuses_what_the_first_compiled(tmp_path: Path) -> None:
    _, first = built_in(tmp_path)
    assert first.compiled >= 1 and first.reused == 0
    assert table_file(tmp_path).is_file()
    written = table_file(tmp_path).stat().st_mtime_ns
    _, second = built_in(tmp_path)
    assert second.compiled == 0 and second.reused == first.compiled
    assert table_file(tmp_path).stat().st_mtime_ns == written  # nothing new to write
    assert "compile" not in vars(attr._make)  # the builtin again, once the block ends


def test_reused_methods_are_the_code_compiling_gives(tmp_path: Path) -> None:
    plain = define_point()
    compiled, _ = built_in(tmp_path)
    reused, table = built_in(tmp_path)
    assert table.reused >= 1
    for name in ("__init__", "__repr__", "__eq__", "__lt__"):
        expected = getattr(plain, name).__code__
        for cls in (compiled, reused):
            code = getattr(cls, name).__code__
            assert (code.co_code, code.co_flags, code.co_consts, code.co_names, code.co_varnames) == (
                expected.co_code,
                expected.co_flags,
                expected.co_consts,
                expected.co_names,
                expected.co_varnames,
            ), name


def test_compile_inherits_the_futures_of_its_caller_as_the_builtin_does() -> None:
    table = CodeTable({})
    source = "def f(x: undefined_name) -> None: pass\n"
    without_futures: dict[str, object] = {"table": table, "source": source}
    exec(  # a caller compiled without `from __future__ import annotations`, unlike this module
        compile(
            "ours = table.compile(source, '<t>', 'exec')\nbuiltin = compile(source, '<t>', 'exec')",
            "<c>",
            "exec",
            dont_inherit=True,
        ),
        without_futures,
    )
    ours, builtin = without_futures["ours"], without_futures["builtin"]
    assert isinstance(ours, type(builtin)) and ours.co_flags == builtin.co_flags
    with_futures = table.compile(source, "<t>", "exec")
    assert with_futures.co_flags == compile(source, "<t>", "exec").co_flags != builtin.co_flags
    assert table.compile(source, "<t>", "exec", dont_inherit=True).co_flags == builtin.co_flags


def test_what_the_table_cannot_hold_is_compiled_as_asked() -> None:
    table = CodeTable({})
    tree = table.compile("x = 1", "<t>", "exec", 0x400)  # ast.PyCF_ONLY_AST
    assert type(tree).__name__ == "Module"
    assert table.compile(b"x = 1", "<t>", "exec").co_names == ("x",)
    assert table.compile("x = 1", "<t>", "exec", _feature_version=8).co_names == ("x",)
    assert table.used == {} and table.compiled == 0


def write_table(path: Path, payload: bytes, magic: bytes = MAGIC_NUMBER) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(FORMAT + magic + zlib.crc32(payload).to_bytes(4, "little") + payload)


def valid_table(path: Path) -> bytes:
    """The table a start writes at `path` (under the cache folder two levels up)."""
    built_in(path.parents[1])
    return path.read_bytes()


def truncated(path: Path) -> None:
    data = valid_table(path)
    path.write_bytes(data[: len(data) // 2])


def flipped(path: Path) -> None:
    data = bytearray(valid_table(path))
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def garbage(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(os.urandom(4096))


def empty(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")


def another_python(path: Path) -> None:
    data = valid_table(path)
    write_table(path, data[len(FORMAT) + len(MAGIC_NUMBER) + 4 :], magic=b"\x00\x00\r\n")


def not_a_table(path: Path) -> None:
    write_table(path, marshal.dumps([1, 2, 3]))


def codes_that_are_not_code(path: Path) -> None:
    data = valid_table(path)
    table = marshal.loads(data[len(FORMAT) + len(MAGIC_NUMBER) + 4 :])
    write_table(path, marshal.dumps(dict.fromkeys(table, "not code")))


def unmarshallable(path: Path) -> None:
    write_table(path, b"\xff" + os.urandom(64))


def stale(path: Path) -> None:
    """Checksum-valid, this interpreter's, of the same class names with other text: another attrs, another version."""
    data = valid_table(path)
    table = marshal.loads(data[len(FORMAT) + len(MAGIC_NUMBER) + 4 :])
    write_table(path, marshal.dumps({(f"# older\n{s}", f, m, fl, o): c for (s, f, m, fl, o), c in table.items()}))


def fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


def link(path: Path) -> None:
    elsewhere = path.with_name("elsewhere")
    elsewhere.write_bytes(valid_table(path))
    path.unlink()
    path.symlink_to(elsewhere)


@pytest.mark.parametrize(
    "spoil",
    [
        truncated,
        flipped,
        garbage,
        empty,
        another_python,
        not_a_table,
        codes_that_are_not_code,
        unmarshallable,
        stale,
        fifo,
        link,
    ],
)
def test_a_table_that_cannot_serve_falls_back_to_compiling_and_is_written_again(
    tmp_path: Path, spoil: Callable[[Path], None]
) -> None:
    cache = tmp_path / "cache"
    spoil(table_file(cache))
    _, fallen_back = built_in(cache)
    assert fallen_back.reused == 0 and fallen_back.compiled >= 1
    assert table_file(cache).is_file() and not table_file(cache).is_symlink()
    _, next_start = built_in(cache)
    assert next_start.compiled == 0 and next_start.reused == fallen_back.compiled


def test_a_cache_that_cannot_be_written_only_costs_the_next_start_its_compilations(tmp_path: Path) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    for _ in range(2):
        _, table = built_in(blocked)
        assert table.compiled >= 1 and table.reused == 0


def test_a_directory_at_the_tables_path_is_left_alone(tmp_path: Path) -> None:
    table_file(tmp_path).mkdir(parents=True)
    _, table = built_in(tmp_path)
    assert table.compiled >= 1 and table_file(tmp_path).is_dir()


def test_an_attrs_with_a_compile_of_its_own_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = compile
    monkeypatch.setattr(attr._make, "compile", own, raising=False)
    with reused_attrs_code(tmp_path) as table:
        check_point(define_point())
    assert table is None and vars(attr._make)["compile"] is own
    assert not table_file(tmp_path).exists()


def known_table(count: int) -> dict[tuple[str, str, str, int, int], object]:
    table = CodeTable({})
    for n in range(count):
        table.compile(f"x = {n}", f"<class {n}>", "exec")
    return dict(table.used)


@pytest.mark.parametrize(
    ("changed", "new_names", "rewritten"),
    [(0, 0, False), (1, 0, False), (3, 0, True), (0, 1, True)],
)
def test_the_table_is_rewritten_when_the_next_start_gains_from_it(
    changed: int, new_names: int, rewritten: bool
) -> None:
    """A few classes whose text changed (a frozen class's `__hash__` holds a per-process hash) are not worth a
    rewrite; more than a tenth of them, or a class the table lacked, are."""
    table = CodeTable(known_table(20))
    for n in range(20):
        table.compile(f"x = {n}" + (" + 0" if n < changed else ""), f"<class {n}>", "exec")
    for n in range(new_names):
        table.compile("y = 1", f"<new class {n}>", "exec")
    assert table.compiled == changed + new_names
    assert table.worth_saving() is rewritten


FROZEN_START = """
import sys
from pathlib import Path
import attrs
from smartsearch_ls.server.attrs_code import reused_attrs_code

with reused_attrs_code(Path(sys.argv[1])) as table:
    others = [attrs.make_class(f"Other{n}", ["value"]) for n in range(19)]

    @attrs.frozen
    class Key:
        name: str

assert hash(Key("a")) == hash(Key("a"))
print(table.reused, table.compiled)
"""


def test_a_frozen_class_compiles_at_every_start_without_rewriting_the_table(tmp_path: Path) -> None:
    """attrs writes the hash of the class's name into its `__hash__`: its text differs from one process to the next.
    The other classes of a start are those the table serves."""

    def start(seed: str) -> tuple[int, int]:
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", FROZEN_START, str(tmp_path)], capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr
        reused, compiled = done.stdout.split()
        return int(reused), int(compiled)

    assert start("1") == (0, 20)
    written = table_file(tmp_path).stat().st_mtime_ns
    assert start("2") == (19, 1)
    assert start("1") == (20, 0)
    assert table_file(tmp_path).stat().st_mtime_ns == written


def test_temporaries_of_killed_writes_are_removed_once_stale(tmp_path: Path) -> None:
    path = table_file(tmp_path)
    path.parent.mkdir(parents=True)
    old, recent = path.with_name(f"{path.name}old.tmp"), path.with_name(f"{path.name}recent.tmp")
    for leftover in (old, recent):
        leftover.write_bytes(b"half a table")
    long_ago = os.stat(old).st_mtime - 2 * attrs_code.STALE_TEMPORARY_SECONDS
    os.utime(old, (long_ago, long_ago))
    built_in(tmp_path)
    assert not old.exists() and recent.exists()


@pytest.mark.parametrize("spoil", [garbage, stale])
async def test_a_server_whose_table_cannot_serve_still_answers_and_the_next_start_reuses_it(
    workspace: Path, model_server: ModelServer, tmp_path: Path, spoil: Callable[[Path], None]
) -> None:
    xdg = tmp_path / "xdg"
    path = table_file(xdg / "smartsearch-ls")
    spoil(path)
    spoiled = path.read_bytes()
    written = None
    for _ in range(2):
        session = await start_session(workspace, model_server, tmp_path / "cache", env={"XDG_CACHE_HOME": str(xdg)})
        try:
            await session.wait_for_log("index ready")
            assert (await session.query(query="reject expired sessions")).matches
        finally:
            await session.client.shutdown_session()
            await session.client.stop()
        assert path.read_bytes() != spoiled
        if written is None:  # the first start compiled lsprotocol's classes and wrote them down
            written = path.stat().st_mtime_ns
            assert len(attrs_code._read(path)) > 500
        else:  # the second reused them: it had next to nothing to add
            assert path.stat().st_mtime_ns == written
