"""Listing, reading and scoping: what a search may see, and what it must never see."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from smartsearch_ls.discovery.errors import OutsideWorkspace
from smartsearch_ls.discovery.file_kinds import is_test
from smartsearch_ls.discovery.globs import GlobSet, compile_any, glob_problem, is_credential
from smartsearch_ls.discovery.reading import MAX_FILE_BYTES, SkipReason, read_buffer, read_file
from smartsearch_ls.discovery.ripgrep import find_rg, list_files
from smartsearch_ls.discovery.workspace_paths import resolve_directory
from tests.conftest import SAMPLE_PROJECT, write_tree


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", SAMPLE_PROJECT)


def test_rg_is_found_next_to_the_interpreter() -> None:
    assert Path(find_rg()).name == "rg"


def test_listing_honours_gitignore_and_hides_dotfiles(project: Path) -> None:
    listed = set(list_files(project).paths)
    assert "auth/sessions.py" in listed
    assert "build/generated.py" not in listed  # .gitignore, even without a .git folder
    assert ".env" not in listed and ".gitignore" not in listed


def test_exclude_globs_and_secret_files_are_never_listed(project: Path) -> None:
    (project / "keys").mkdir()
    (project / "keys" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    listed = set(list_files(project, ["billing/**"]).paths)
    assert not any(p.startswith("billing/") for p in listed)
    assert "keys/server.pem" not in listed


def test_credential_files_are_never_listed_nor_admitted_whatever_their_case(project: Path) -> None:
    names = {"server.PEM", "deploy.Key", ".ENV.production", "ID_RSA", "prod.Env", "Deploy.PPK", "credentials"}
    for name in names:
        (project / name).write_text("-----BEGIN PRIVATE KEY-----\n")
    listed = set(list_files(project).paths)
    assert not listed & names
    assert is_credential("keys/Server.PEM") and is_credential("ID_RSA.pub") and not is_credential("src/keys.py")
    assert is_credential("deploy/prod.env") and is_credential(".aws/Credentials")
    assert not is_credential("src/credentials.py") and not is_credential("src/env.py")


def test_a_name_that_is_not_utf8_is_skipped_and_a_line_break_in_a_name_is_kept(project: Path) -> None:
    odd = os.fsencode(project) + b"/caf\xe9.py"
    with open(odd, "wb") as handle:
        handle.write(b"def weird():\n    return 1\n")
    (project / "two\nlines.py").write_text("x = 1\n")
    listed = set(list_files(project).paths)
    assert "two\nlines.py" in listed and "two" not in listed
    (undecodable,) = [p for p in listed if p.startswith("caf")]
    assert read_file(project / undecodable).skipped is SkipReason.NOT_UTF8
    assert GlobSet.of(["caf?.py"]).matches(undecodable) and not GlobSet.of(["!*.py"]).matches(undecodable)
    assert read_file(project / "two\nlines.py").text == "x = 1\n"


@pytest.mark.parametrize(
    ("glob", "problem"),
    [
        ("", "must not be empty"),
        ("!", "must not be empty"),
        ("[", "unclosed character class"),
        ("src/*.{ts,tsx", "unclosed alternation"),
        ("{a,{b,c}}", "nests an alternation"),
        ("a\\", "lone backslash"),
        ("[z-a].py", "bad character range"),
    ],
)
def test_malformed_globs_are_named_not_matched_literally(glob: str, problem: str) -> None:
    found = glob_problem(glob)
    assert found is not None and problem in found


@pytest.mark.parametrize("glob", ["*a" * 8 + "*b", "{*,*}" * 22 + "Z", "**/" * 30 + "*.py"])
def test_no_glob_takes_more_than_linear_time(glob: str) -> None:
    """A backtracking matcher took 47 s on `*a*a*a*a*a*a*b` for one 100-character name, freezing the server."""
    assert glob_problem(glob) is None
    globs = GlobSet.of([glob])
    started = time.perf_counter()
    for n in range(50, 300, 25):
        globs.matches("src/" + "a" * n + ".txt")
    assert time.perf_counter() - started < 1.0


def test_a_buffer_is_skipped_for_what_would_skip_its_file_and_lone_surrogates_are_replaced() -> None:
    buffer = read_buffer('def lone():\n    return "\ud800"\n')
    assert buffer.skipped is None and buffer.text == 'def lone():\n    return "\ufffd"\n'
    assert read_buffer("x = 1\n" * (MAX_FILE_BYTES // 6 + 1)).skipped is SkipReason.OVERSIZED
    assert read_buffer("var a=" + "1," * 2_000 + "1;\n").skipped is SkipReason.MINIFIED
    assert read_buffer("a\0b").skipped is SkipReason.BINARY


def test_everyday_globs_stay_with_the_fast_matcher_and_the_rest_go_to_re2() -> None:
    """RE2 is linear whatever the glob but costs ~8x a call; a glob of at most two wildcard runs cannot blow up."""
    assert isinstance(compile_any(("*.py",)), re.Pattern)
    assert isinstance(compile_any(("tests/**/test_*.py",)), re.Pattern)
    assert not isinstance(compile_any(("*a*a*b",)), re.Pattern)
    assert not isinstance(compile_any(("*.py", "src/**/*.{ts,tsx}")), re.Pattern)  # one complex glob decides
    # Both engines mean the same glob: the same paths pass whichever one a glob set is given to.
    for path, expected in (("src/a/b.tsx", True), ("src/a/b.ts", True), ("src/a/b.js", False), ("b.tsx/c.md", True)):
        assert GlobSet.of(["**/*.{ts,tsx}"]).matches(path) is expected  # RE2: three wildcard runs and `{`
        assert GlobSet.of(["*.{ts,tsx}"]).matches(path) is expected  # `re`: one run and one `{`
    assert GlobSet.of(["*a*a*b"]).matches("x/aXaYb") and not GlobSet.of(["*a*a*b"]).matches("x/ab")
    assert GlobSet().matches("anything") and not GlobSet().names("anything")


def test_wellformed_globs_pass() -> None:
    for glob in ("*.py", "!tests/**", "src/**/*.{ts,tsx}", "[!_]*.py", "docs/", "a}b"):
        assert glob_problem(glob) is None, glob


def test_symlinks_are_not_followed(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def leaked(): pass\n")
    os.symlink(outside, project / "linked_dir")
    os.symlink(outside / "secret.py", project / "linked.py")
    listed = set(list_files(project).paths)
    assert not any("linked" in p for p in listed)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("assets/logo.png", SkipReason.BINARY),
        ("legacy/latin1.py", SkipReason.NOT_UTF8),
        ("static/app.min.js", SkipReason.MINIFIED),
    ],
)
def test_unsearchable_files_are_skipped_with_a_reason(project: Path, name: str, reason: SkipReason) -> None:
    assert read_file(project / name).skipped is reason


def test_oversized_and_vanished_files_are_skipped(project: Path) -> None:
    big = project / "big.txt"
    big.write_text("x\n" * 600_000)
    assert read_file(big).skipped is SkipReason.OVERSIZED
    assert read_file(project / "nope.py").skipped is SkipReason.VANISHED


def test_a_glob_narrows_but_never_widens() -> None:
    globs = GlobSet.of(["*.py"])
    assert globs.matches("auth/sessions.py")
    assert not globs.matches("README.md")
    assert GlobSet.of(["auth/**"]).matches("auth/x/y.py")
    assert not GlobSet.of(["auth/**"]).matches("billing/auth.py")
    assert GlobSet.of(["**/*.{ts,tsx}"]).matches("src/a/b.tsx")
    assert not GlobSet.of(["*.py", "!tests/**"]).matches("tests/test_x.py")


@pytest.mark.parametrize("escape", ["..", "../..", "/etc", "file:///etc"])
def test_directories_outside_the_root_are_refused(project: Path, escape: str) -> None:
    with pytest.raises(OutsideWorkspace):
        resolve_directory(escape, [project], base=project)


def test_a_symlinked_folder_pointing_outside_is_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, project / "door")
    with pytest.raises(OutsideWorkspace):
        resolve_directory("door", [project], base=project)


def test_a_folder_inside_resolves_to_its_root(project: Path) -> None:
    root, directory = resolve_directory((project / "auth").as_uri(), [project])
    assert root == project.resolve() and directory == (project / "auth").resolve()


def test_tests_are_known_by_their_files_and_rust_s_unit_tests_by_their_module() -> None:
    assert is_test("tests/test_sessions.py") and is_test("pkg/session_test.go") and is_test("src/a.spec.ts")
    assert not is_test("src/sessions.py")
    assert is_test("src/version.rs", "tests.parses_a_version") and is_test("src/version.rs", "tests")
    assert is_test("src/version.rs", "parser.test.rejects_empty")
    assert not is_test("src/version.rs", "parse_version") and not is_test("src/version.rs", "Version.latest")
    # Only Rust keeps tests in a module of the implementation's file: elsewhere such a name is code.
    assert not is_test("lib/runner.js", "test.only") and not is_test("src/suite.py", "tests.collect")
