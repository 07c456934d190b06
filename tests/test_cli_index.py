"""`smartsearch index`: a folder indexed and embedded ahead of command-line queries, as a real process."""

from __future__ import annotations

import json
from pathlib import Path

from smartsearch_ls.index.dense import DenseIndex
from smartsearch_ls.index.root_index import RootIndex
from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.test_cli import run

QUERY = ["query", "read the JSON configuration file", "--candidates", "3", "--json"]


def embedding_warnings(done_stdout: str) -> list[str]:
    return [w for w in json.loads(done_stdout)["warnings"] if w.startswith("Embedding has reached")]


def test_an_indexed_folder_is_searched_whole_by_meaning_from_the_first_query(tmp_path: Path) -> None:
    project = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    unprepared = write_tree(tmp_path / "unprepared", SAMPLE_PROJECT)
    done = run(["index", "--root", str(project)], None, tmp_path)
    assert done.returncode == 0, done.stderr
    snippets = DenseIndex.for_root(RootIndex.open_warm(project.resolve(), cache_dir=tmp_path / "smartsearch-ls")[0])
    embedded, total = snippets.progress()
    assert embedded == total > 3
    assert done.stdout.splitlines()[-1] == f"embedded: {total:,} of {total:,} snippets"
    asked = run([*QUERY, "--root", str(project)], None, tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert embedding_warnings(asked.stdout) == []
    control = run([*QUERY, "--root", str(unprepared)], None, tmp_path)  # a query alone embeds its candidates only
    assert control.returncode == 0, control.stderr
    assert embedding_warnings(control.stdout)


def test_for_a_model_judge_only_the_code_is_embedded(tmp_path: Path) -> None:
    project = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    for judge, readings in (("system-one:test", False), ("local", True)):
        done = run(["index", "--root", str(project), "--judge", judge], None, tmp_path)
        assert done.returncode == 0, done.stderr
        index, _ = RootIndex.open_warm(project.resolve(), cache_dir=tmp_path / "smartsearch-ls")
        stored = DenseIndex(index).read_persisted()
        assert stored is not None and stored.code.held()
        assert bool(stored.read.held()) is readings, judge  # what only the embedded judge reads


def test_a_folder_that_is_not_one_is_refused(tmp_path: Path) -> None:
    done = run(["index", "--root", str(tmp_path / "missing")], None, tmp_path)
    assert done.returncode == 2 and "--root" in done.stderr and "is not a directory" in done.stderr


def test_the_embedded_judge_named_with_spaces_is_the_embedded_judge_throughout(tmp_path: Path) -> None:
    """`" local "` is resolved to the embedded judge, and the rest (its semantic shortlist, its name in the result)
    must read it alike: the command line compared the name as written and left the vectors out."""
    answers = []
    for name, judge in (("plain", "local"), ("spaced", " local ")):
        project = write_tree(tmp_path / name / "project", SAMPLE_PROJECT)
        done = run([*QUERY, "--root", str(project), "--judge", judge], None, tmp_path / name)
        assert done.returncode == 0, done.stderr
        answers.append(json.loads(done.stdout))
    plain, spaced = answers
    assert spaced["judge"] == plain["judge"] == "local"
    assert spaced["warnings"] == plain["warnings"] and spaced["matches"] == plain["matches"]
