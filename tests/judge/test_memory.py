"""The persisted judgment memory on its own: bounded by use, pruned by content, harmless when its file is not."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge import per_snippet
from smartsearch_ls.judge.cache import JudgmentCache, content_hash
from smartsearch_ls.judge.memory import JudgmentMemory, memory_path
from smartsearch_ls.judge.redact import redact_snippet
from tests.support.judges import coverage_judge


def key(n: int) -> tuple[str, str, str]:
    return ("judge@v1", "reject expired sessions", f"snippet-{n}")


def test_judgments_outlive_the_object_that_kept_them(tmp_path: Path) -> None:
    path = memory_path(tmp_path, tmp_path / "project")
    first = JudgmentMemory(path)
    first.remember({key(1): 0.9, key(2): 0.1})
    first.close()
    assert JudgmentMemory(path).recall([key(1), key(2), key(3)]) == {key(1): 0.9, key(2): 0.1}


def test_past_capacity_the_least_recently_used_go(tmp_path: Path) -> None:
    memory = JudgmentMemory(tmp_path / "m.sqlite", capacity=3)
    memory.remember({key(1): 0.1, key(2): 0.2, key(3): 0.3})
    assert memory.recall([key(1)]) == {key(1): 0.1}  # used now: the oldest is 2
    memory.remember({key(4): 0.4})
    assert memory.count() == 3
    assert set(memory.recall([key(n) for n in range(1, 5)])) == {key(1), key(3), key(4)}


def test_judgments_of_snippets_no_longer_there_are_dropped(tmp_path: Path) -> None:
    memory = JudgmentMemory(tmp_path / "m.sqlite")
    memory.remember({key(1): 0.1, key(2): 0.2, ("other@v1", "q", "snippet-2"): 0.5})
    assert memory.forget_all_but({"snippet-2"}) == 1
    assert set(memory.recall([key(1), key(2)])) == {key(2)}


def test_pruning_a_root_never_judged_creates_no_file(tmp_path: Path) -> None:
    memory = JudgmentMemory(tmp_path / "judgments" / "m.sqlite")
    assert memory.forget_all_but(set()) == 0
    assert not (tmp_path / "judgments").exists()


@pytest.mark.parametrize("damage", ["a folder in the way", "not a database"])
def test_an_unusable_file_means_nothing_is_remembered_and_nothing_fails(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "m.sqlite"
    if damage == "a folder in the way":
        path.mkdir()
    else:
        path.write_bytes(b"this is not SQLite" * 100)
    memory = JudgmentMemory(path)
    with caplog.at_level(logging.WARNING):
        memory.remember({key(1): 0.5})
        assert memory.recall([key(1)]) == {}
    assert memory.count() == 0
    assert sum("judgments are not remembered" in r.getMessage() for r in caplog.records) == 1


def test_the_cache_key_keeps_case_for_judges_whose_features_split_words_by_it() -> None:
    """The local judge reads `getUserName` as three words and `getusername` as one: their scores differ, so the
    process cache must not serve one for the other (model judges fold case themselves, in `per_snippet`)."""
    snippet = Snippet(path="a.py", start_line=1, end_line=2, text="def get_user_name():\n    pass\n", symbol="x")
    assert JudgmentCache.key("local", "getUserName  now", snippet) == JudgmentCache.key(
        "local", "getUserName now", snippet
    )
    assert JudgmentCache.key("local", "getUserName", snippet) != JudgmentCache.key("local", "getusername", snippet)


def test_a_snippets_content_hash_changes_with_its_path_declaration_text_and_place() -> None:
    """A judgment holds for one text at one place: any change is a new key, and no two fields can trade characters
    (the key a snippet carries joins its path and text with a line break, a path may hold one)."""
    base = Snippet("src/a.py", 3, 4, "return session.expired\n", "f")
    changed = [
        Snippet("src/b.py", 3, 4, "return session.expired\n", "f"),
        Snippet("src/a.py", 3, 4, "return session.expired\n", "g"),
        Snippet("src/a.py", 3, 4, "return session.valid\n", "f"),
        Snippet("src/a.py", 4, 5, "return session.expired\n", "f"),
        Snippet("src/a.py :: f", 3, 4, "return session.expired\n", None),
    ]
    hashes = {content_hash(s) for s in [base, *changed]}
    assert len(hashes) == 1 + len(changed)
    assert content_hash(Snippet("notes", 1, 2, "b\nc")) != content_hash(Snippet("notes\nb", 1, 1, "c"))
    assert content_hash(base.replace(key_until=2)) == content_hash(base)  # redaction bounds are not content


async def test_a_changed_prompt_never_reuses_a_remembered_judgment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Judgments are keyed by the judge's name and `PROMPT_VERSION`: a new process with the same judge reuses them,
    one whose prompt changed asks again."""
    judge = coverage_judge()
    asked: list[int] = []
    answer = judge.model.function  # type: ignore[union-attr]
    judge.model.function = lambda messages, info: asked.append(1) or answer(messages, info)  # type: ignore[union-attr]
    snippets = [Snippet("s.py", 1, 2, "def reject_expired(session):\n    raise Expired\n", "reject_expired")]
    memory = JudgmentMemory(tmp_path / "m.sqlite")

    async def judge_in_a_new_process() -> None:
        redactions = [redact_snippet(s) for s in snippets]
        await per_snippet.judge_each(judge, "reject expired", snippets, redactions, JudgmentCache(), None, [memory])

    await judge_in_a_new_process()
    await judge_in_a_new_process()
    assert len(asked) == 1  # remembered
    monkeypatch.setattr(per_snippet, "PROMPT_VERSION", "another-prompt")
    await judge_in_a_new_process()
    assert len(asked) == 2
