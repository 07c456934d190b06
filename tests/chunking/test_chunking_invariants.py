"""Invariants over generated and real inputs; windows for unknown files; a large-file smoke check."""

import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smartsearch_ls.chunking import chunk_file
from smartsearch_ls.chunking.snippet import split_lines

SITE_PACKAGES = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
EXTENSIONS = ["py", "ts", "tsx", "js", "go", "rs", "java", "rb", "md", "txt"]

CODE_LINES = [
    "",
    "   ",
    "\t",
    "\f",
    "def f(x):",
    "    return x",
    "class A:",
    "    def m(self):",
    "        pass",
    "X = 1",
    "# comment",
    "function g() {",
    "}",
    "class B {",
    "  m() { return 1; }",
    "func (s *S) Run() {}",
    "impl S {",
    "fn main() {}",
    "end",
    "module M",
    's = "\u2028"',
    "\u00e9t\u00e9 = 2",
    "if x:",
    "  for y in z:",
]
line_breaks = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def source_texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.one_of(st.sampled_from(CODE_LINES), st.text(max_size=12)), max_size=60))
    repeat = draw(st.integers(min_value=1, max_value=8))
    text = ""
    for line in lines * repeat:
        text += line + draw(line_breaks)
    return text + draw(st.sampled_from(["", "tail", "\n"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=source_texts(), extension=st.sampled_from(EXTENSIONS))
def test_invariants_on_generated_text(invariants, text, extension):
    invariants(text, chunk_file(f"dir/file.{extension}", text))


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=400), extension=st.sampled_from(EXTENSIONS))
def test_invariants_on_arbitrary_text(invariants, text, extension):
    invariants(text, chunk_file(f"file.{extension}", text))


def real_files() -> list[Path]:
    files = sorted(SITE_PACKAGES.glob("*/**/*.py"))[::25]
    files += sorted(SITE_PACKAGES.glob("*/**/*.js"))[::5]
    return files[:400]


@pytest.mark.skipif(not SITE_PACKAGES.is_dir(), reason="no site-packages to read")
def test_invariants_on_real_files(invariants):
    files = real_files()
    assert len(files) > 50
    with_declarations = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        names = [path.name, path.with_suffix(".ts").name] if path.suffix == ".js" else [path.name]
        for name in names:
            chunked = chunk_file(f"pkg/{name}", text)
            invariants(text, chunked)
            with_declarations += bool(chunked.declarations)
    assert with_declarations > 0.8 * len(files)


def test_unknown_files_get_overlapping_windows(invariants):
    text = "\n".join(f"line {n}" for n in range(1, 131)) + "\n"
    for path in ("README.md", "config.yaml", "data.json", "Makefile", "notes", ".env"):
        chunked = chunk_file(path, text)
        invariants(text, chunked, budget=None)
        assert chunked.declarations == ()
        assert [(s.start_line, s.end_line, s.symbol) for s in chunked.snippets] == [
            (1, 60, None),
            (51, 110, None),
            (101, 130, None),
        ]


def test_windows_skip_blank_stretches_and_trim_edges(invariants):
    text = "a\n" + "\n" * 200 + "  \n b\n\nc\n"
    chunked = chunk_file("notes.txt", text)
    invariants(text, chunked, budget=None)
    assert [(s.start_line, s.end_line) for s in chunked.snippets] == [(1, 1), (203, 205)]


def test_windows_count_lines_like_editors(invariants):
    text = "one\rtwo\r\nthree\fstill three\u2028same\nfour"
    chunked = chunk_file("x.txt", text)
    invariants(text, chunked, budget=None)
    assert [(s.start_line, s.end_line) for s in chunked.snippets] == [(1, 4)]
    assert split_lines(chunked.snippets[0].text)[2] == "three\fstill three\u2028same"


def test_extension_is_case_insensitive_and_last_suffix_wins():
    assert chunk_file("A.PY", "def f(): pass\n").declarations
    assert chunk_file("archive.tar.py", "def f(): pass\n").declarations
    assert not chunk_file("python.txt", "def f(): pass\n").declarations


@pytest.mark.parametrize("extension", ["py", "ts", "go", "txt"])
def test_hundred_thousand_lines_in_reasonable_time(invariants, extension):
    unit = {
        "py": "def f{n}(x):\n    return x + {n}\n\n",
        "ts": "function f{n}(x: number) {{\n  return x + {n};\n}}\n",
        "go": "func F{n}(x int) int {{\n\treturn x + {n}\n}}\n",
        "txt": "line {n}\nmore\n\n",
    }[extension]
    text = "".join(unit.format(n=n) for n in range(33_334))
    assert len(split_lines(text)) >= 100_000
    started = time.perf_counter()
    chunked = chunk_file(f"big.{extension}", text)
    elapsed = time.perf_counter() - started
    assert elapsed < 30, elapsed  # a smoke check against quadratic behaviour, not a benchmark
    invariants(text, chunked)
    assert len(chunked.snippets) > 30_000 if extension != "txt" else len(chunked.snippets) == 2000
