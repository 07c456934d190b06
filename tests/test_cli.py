"""`smartsearch query`: the command line a person or a script runs, as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from smartsearch_ls import cli
from smartsearch_ls.discovery.documentation import is_documentation
from smartsearch_ls.embedding.cache import commentary_key, passage_key
from smartsearch_ls.embedding.commentary import commentary_text
from smartsearch_ls.embedding.loading import load_encoder
from smartsearch_ls.embedding.passages import passage_texts
from smartsearch_ls.index import store
from smartsearch_ls.index.dense import VECTORS_FORMAT, DenseIndex
from smartsearch_ls.index.root_index import RootIndex
from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.search.test_copies import CJS, ESM
from tests.support.model_servers import ModelServer


def run(args: list[str], server: ModelServer | None, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    if server is not None:
        env["SYSTEM_ONE_BASE_URL"] = f"{server.base_url}/v1"
    command = [sys.executable, "-c", "from smartsearch_ls.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", SAMPLE_PROJECT)


def test_json_output_follows_the_contract(project: Path, model_server: ModelServer, tmp_path: Path) -> None:
    done = run(
        ["query", "parse config file", "--root", str(project), "--judge", "system-one:test", "--json"],
        model_server,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    match = result["matches"][0]
    assert match["path"] == "config/loader.py" and match["symbol"] == "parse_config_file"
    assert (match["start_line"], match["end_line"]) == (4, 7)
    assert (match["snippet_start_line"], match["snippet_end_line"]) == (4, 7)
    assert result["mode"] == "behavior" and result["judge"] == "system-one:test"
    assert set(result["coverage"]) >= {"files", "skippedFiles", "snippets", "shortlisted", "judged", "complete"}


def test_human_output_and_a_warm_second_run(project: Path, model_server: ModelServer, tmp_path: Path) -> None:
    args = ["query", "parse config file", "--root", str(project), "--judge", "system-one:test"]
    first = run(args, model_server, tmp_path)
    assert first.returncode == 0 and first.stdout.startswith("config/loader.py:4-7  1.00  parse_config_file")
    assert "searched: 8 files (3 skipped" in first.stderr
    assert list((tmp_path / "smartsearch-ls" / "index").iterdir())  # persisted for the next run
    assert run(args, model_server, tmp_path).stdout == first.stdout


def test_explain_says_under_each_match_why_it_ranked(project: Path, model_server: ModelServer, tmp_path: Path) -> None:
    args = ["query", "parse config file", "--root", str(project), "--judge", "system-one:test", "--explain"]
    done = run(args, model_server, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "    why: words in name: parse, config; path: config; code: parse, config" in done.stdout
    plain = run(args[:-1], model_server, tmp_path)
    assert "why:" not in plain.stdout


def test_human_output_labels_a_match_from_a_test_file(project: Path, tmp_path: Path) -> None:
    done = run(["query", "test_expired_session_is_rejected", "--root", str(project)], None, tmp_path)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("tests/test_sessions.py:") and first.endswith("test_expired_session_is_rejected  [test]")


def test_what_an_answer_puts_after_higher_scoring_code_is_labeled(tmp_path: Path) -> None:
    # The declaration file and the header score higher than the function but come after it: the labels say why.
    declarations = "/** Evict the oldest entry of the cache. */\nexport declare function evictOldest(c: Cache): void;\n"
    header = '"use strict";\n// Evict the oldest entry of the cache.\nconst order = require("./order");\n\n'
    code = "function dropFirst(cache) {\n  cache.entries.delete(cache.order.shift());\n}\nmodule.exports = dropFirst;\n"
    package = write_tree(tmp_path / "package", {"index.d.ts": declarations, "lib/evict.js": header + code})
    done = run(
        ["query", "evict the oldest entry of the cache", "--root", str(package), "--threshold", "0"], None, tmp_path
    )
    assert done.returncode == 0, done.stderr
    heads = [block.splitlines()[0] for block in done.stdout.strip().split("\n\n") if block.strip()]
    labels = {head.split()[0].rsplit(":", 1)[0]: head for head in heads}
    assert labels["index.d.ts"].endswith("[declarations]"), heads
    assert any(head.startswith("lib/evict.js:1-") and head.endswith("[header]") for head in heads), heads
    assert heads[0].startswith("lib/evict.js:") and "dropFirst" in heads[0], heads


def test_an_unexpected_failure_exits_2_not_1_which_means_no_match(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A defect ended in a traceback and exit status 1, which `--help` and a script read as "no match"."""

    def broken(args: object) -> int:
        raise RuntimeError("a defect")

    monkeypatch.setitem(cli._COMMANDS, "query", broken)
    with pytest.raises(SystemExit) as exited:
        cli.main(["query", "parse config", "--root", str(project)])
    assert exited.value.code == 2 and "internal error (RuntimeError: a defect)" in capsys.readouterr().err


def test_exit_codes(project: Path, model_server: ModelServer, tmp_path: Path) -> None:
    none = run(
        ["query", "quantum entanglement", "--root", str(project), "--judge", "system-one:test"], model_server, tmp_path
    )
    assert none.returncode == 1 and "does not prove absence" in none.stderr
    helped = run(["query", "--help"], None, tmp_path)
    assert helped.returncode == 0 and "1 with none" in " ".join(helped.stdout.split())  # a script can tell
    nothing = ["query", "quantum entanglement of the config", "--root", str(project), "--threshold", "0.99"]
    explained = run([*nothing, "--explain"], None, tmp_path)
    assert explained.returncode == 1 and "closest, below the threshold: " in explained.stdout
    assert "    why: " in explained.stdout  # the evidence of the one that came closest, when none passed
    closest = json.loads(run([*nothing, "--json"], None, tmp_path).stdout)["closest"]
    assert closest["relevance"] < 0.99 and {"path", "start_line", "excerpt", "why", "copies"} <= set(closest)
    bad = run(["query", "x", "--root", str(project), "--limit", "0"], model_server, tmp_path)
    assert bad.returncode == 2 and "`limit`" in bad.stderr
    failing = run(
        ["query", "parse config", "--root", str(project), "--judge", "system-one:fail-500"], model_server, tmp_path
    )
    assert failing.returncode == 2 and "system-one:fail-500" in failing.stderr and "Traceback" not in failing.stderr
    missing = run(["query", "parse config", "--root", str(project / "nope")], None, tmp_path)
    assert missing.returncode == 2 and "not a directory" in missing.stderr
    for flag, glob in (("--exclude", "["), ("--exclude", ""), ("--glob", "src/*.{ts,tsx")):
        refused = run(["query", "parse config", "--root", str(project), flag, glob], None, tmp_path)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
        assert f"`{flag.removeprefix('--')}`" in refused.stderr and "Value error" not in refused.stderr


def test_a_repeated_glob_searches_the_files_any_of_them_matches(project: Path, tmp_path: Path) -> None:
    """As ripgrep's `-g`: every `--glob` counts (the last one alone did), and a `!glob` leaves files out."""

    def found(query: str, *globs: str) -> list[str]:
        args = ["query", query, "--root", str(project), "--mode", "symbol", "--json"]
        done = run([*args, *(arg for glob in globs for arg in ("--glob", glob))], None, tmp_path)
        assert done.returncode in (0, 1), done.stderr
        return [m["path"] for m in json.loads(done.stdout)["matches"]]

    assert found("format_invoice", "billing/**", "auth/**") == ["billing/invoice.py"]
    assert found("SessionStore", "billing/**", "auth/**") == ["auth/sessions.py"]
    assert found("format_invoice", "*.py", "!billing/**") == []
    assert found("SessionStore", "*.py", "!billing/**")[0] == "auth/sessions.py"


def test_the_same_code_in_two_builds_is_one_match_that_names_the_other(tmp_path: Path) -> None:
    package = write_tree(tmp_path / "package", {"dist/esm/cache.js": ESM, "dist/cjs/cache.js": CJS})
    args = ["query", "evict the oldest cache entry", "--root", str(package), "--threshold", "0"]
    human = run(args, None, tmp_path)
    assert human.returncode == 0, human.stderr
    first = human.stdout.split("\n\n")[0]
    assert "evictOldest" in first.splitlines()[0] and first.count("evictOldest(cache)") == 1
    assert first.splitlines()[-1] in (
        "    same code in: dist/cjs/cache.js:2-7",
        "    same code in: dist/esm/cache.js:1-5",
    )
    match = json.loads(run([*args, "--json"], None, tmp_path).stdout)["matches"][0]
    (copy,) = match["copies"]
    assert {match["path"], copy["path"]} == {"dist/esm/cache.js", "dist/cjs/cache.js"}
    assert set(copy) == {"path", "snippet_start_line", "snippet_end_line"}


def test_a_tests_search_of_a_folder_without_tests_says_so(project: Path, tmp_path: Path) -> None:
    """The folder has files, just none that is a test: "no files were searched" would send the user looking for a
    wrong directory or glob."""
    args = ["query", "expired sessions are rejected", "--root", str(project / "auth"), "--intent", "tests", "--json"]
    done = run(args, None, tmp_path)
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["coverage"]["files"] == 0 and result["matches"] == []
    assert "No test files were found: none of the 1 file searched is a test" in " ".join(result["warnings"])
    assert not any(w.startswith("No files were searched") for w in result["warnings"])
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run([*args[:3], str(empty), *args[4:]], None, tmp_path)
    assert (
        "No files were searched: the directory or glob matched no indexed file."
        in json.loads(nothing.stdout)["warnings"]
    )


def test_a_file_name_that_is_not_utf8_is_skipped_not_fatal(project: Path, tmp_path: Path) -> None:
    with open(os.fsencode(project) + b"/caf\xe9.py", "wb") as handle:
        handle.write(b"def read_the_json_configuration():\n    return 1\n")
    done = run(["query", "read the JSON configuration file", "--root", str(project), "--json"], None, tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["coverage"]["skippedByReason"]["non-UTF-8"] == 2  # the sample's Latin-1 file, and this name
    assert all(m["path"].isprintable() and "\udce9" not in m["path"] for m in result["matches"])


def test_judge_is_null_when_nothing_was_judged(project: Path, tmp_path: Path) -> None:
    done = run(
        ["query", "read the JSON configuration file", "--root", str(project), "--glob", "*.nothing", "--json"],
        None,
        tmp_path,
    )
    assert done.returncode == 1 and json.loads(done.stdout)["judge"] is None


def test_the_default_judge_is_local_and_needs_no_network(project: Path, tmp_path: Path) -> None:
    done = run(["query", "read the JSON configuration file", "--root", str(project), "--json"], None, tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["judge"] == "local" and result["matches"][0]["symbol"] == "parse_config_file"


def test_the_vectors_a_search_computed_are_kept_for_the_next_run(project: Path, tmp_path: Path) -> None:
    done = run(["query", "read the JSON configuration file", "--root", str(project), "--json"], None, tmp_path)
    assert done.returncode == 0, done.stderr
    coverage = json.loads(done.stdout)["coverage"]
    assert coverage["judged"] == coverage["snippets"]  # a project this small is judged whole
    (vectors,) = (tmp_path / "smartsearch-ls" / "dense").iterdir()
    payload = store.load(vectors, version=VECTORS_FORMAT)
    assert payload is not None and payload["root"] == str(project.resolve())
    # Every snippet's vector, the shortlist's and the judge's alike, the commentary vector of each that says
    # something in comments or docstrings, and the passage vector of each longer than its head: the judge embedded
    # those too.
    index, _ = RootIndex.open_warm(project.resolve(), cache_dir=tmp_path / "smartsearch-ls")
    code = [s for s in index.snippets if s is not None and not is_documentation(s.path)]
    commented = sum(commentary_text(s.text) is not None for s in code)
    count_tokens = load_encoder().embedder.token_counts
    long = sum(bool(passage_texts(s.path, s.symbol, s.text, count_tokens)) for s in code)
    assert 0 < commented < len(code) and 0 < long < len(code)
    keys = set(payload["keys"])
    said = keys & {commentary_key(key) for key in keys}
    read = keys & {passage_key(key) for key in keys}
    assert len(said) == commented and len(read) == long
    assert len(keys) - len(said) - len(read) == coverage["snippets"]


def test_a_one_shot_answer_does_not_depend_on_how_far_background_embedding_got(project: Path, tmp_path: Path) -> None:
    """The server embeds a folder in the background and shares the vectors with the command line through the
    cache: a search run before and one run halfway through must answer alike (item 6 of the relevance issue)."""
    args = ["query", "read the JSON configuration file", "--root", str(project), "--candidates", "3", "--json"]
    before = run(args, None, tmp_path)
    assert before.returncode == 0, before.stderr
    index, _ = RootIndex.open_warm(project.resolve(), cache_dir=tmp_path / "smartsearch-ls")
    dense = DenseIndex.for_root(index)
    done, total = dense.progress()
    assert 0 < done <= 3 < total - 2  # the first run embedded its lexical candidates, nothing else
    # As background embedding would, stopped short of the end: code comes first, so the README (which a behavior
    # search leaves out) and one code snippet are left.
    while dense.progress()[0] < total - 2:
        dense.embed_pending(1)
    assert dense.persist()
    halfway = run(args, None, tmp_path)
    assert halfway.returncode == 0, halfway.stderr
    answer, later = json.loads(before.stdout), json.loads(halfway.stdout)
    assert answer["matches"] and later["matches"] == answer["matches"]
    assert later["coverage"]["snippets"] == answer["coverage"]["snippets"] == total - 1
    assert any("Embedding has reached 87% of snippets" in w for w in later["warnings"])
    assert any("picked by a lexical shortlist" in w for w in later["warnings"])  # not "by words and meaning"


def test_a_symbol_search_does_not_load_the_embedded_model(project: Path, tmp_path: Path) -> None:
    done = run(["query", "SessionStore", "--root", str(project), "--mode", "symbol", "--json"], None, tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["matches"][0]["symbol"] == "SessionStore"
    assert not (tmp_path / "smartsearch-ls" / "dense").exists()  # the model never ran: no vector was computed


def test_look_ups_and_the_server_start_do_not_import_the_judge(project: Path, tmp_path: Path) -> None:
    """Pydantic AI and ONNX Runtime cost ~1.1 s of imports: `--help`, a symbol search and the server's module
    (everything up to its `initialize` answer) must not pay for them; a behavior search does."""
    report = "import atexit, sys; atexit.register(lambda: print('judge imported:', 'pydantic_ai' in sys.modules, "
    report += "'onnxruntime' in sys.modules, file=sys.stderr))"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}

    def imports(code: str, *args: str) -> str:
        command = [sys.executable, "-c", f"{report}; {code}", *args]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)
        return done.stderr.strip().splitlines()[-1]

    cli = "from smartsearch_ls.cli import main; main()"
    assert imports(cli, "query", "--help") == "judge imported: False False"
    assert imports(cli, "query", "SessionStore", "--root", str(project)) == "judge imported: False False"
    assert imports("import smartsearch_ls.server.main, smartsearch_ls.server.app") == "judge imported: False False"
    behavior = imports(cli, "query", "read the JSON configuration file", "--root", str(project))
    assert behavior == "judge imported: False True"  # the embedded judge needs ONNX Runtime, not Pydantic AI


def test_redactions_are_reported_with_what_was_not_recognized(
    project: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    """The command line judges through the same runner as the server, and says what it redacted the same way."""
    (project / "config" / "secrets.py").write_text('def parse_config_password():\n    password = "hunter2-cli"\n')
    args = ["query", "parse config password", "--root", str(project), "--judge", "system-one:test"]
    done = run(args, model_server, tmp_path)
    assert "warning: Redacted 1 value of a known secret shape (assignment) in 1 snippet before judging" in done.stderr
    assert "any other secret in the judged snippets was sent as written" in done.stderr
    assert "hunter2-cli" not in "\n".join(str(body) for body in model_server.recorder.bodies())
    # The embedded judge is sent nothing: no warning about what was or was not sent.
    local = run(["query", "parse config password", "--root", str(project)], None, tmp_path)
    assert local.returncode in (0, 1), local.stderr
    assert "Redacted" not in local.stderr and "sent as written" not in local.stderr
