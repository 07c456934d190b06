"""The newcomer-worded questions about the training packages: well formed always, holding no code (that they avoid
the code's names in plain words too was checked by reading them), and their gold spans checked against the packages'
sources (the tree they are asked of) and their stripped trees (the one they were written from: the same lines) when
the training corpus is built. The absent behaviors written as long as the answerable ones (`NEWCOMER_MATCHED`):
eighteen a package, their length and form held, each naming the code it was checked against (or `none` where
nothing came close). The answerable questions asked of another package of their kind (`NEWCOMER_TRANSPLANTED`):
word for word, with their labels' evidence, checked against the target's code."""

import json
import re
from collections import Counter

import pytest

from bench.quality.metrics import load_cases
from bench.quality.sets import transplanted_cases
from bench.ranker.collect import NEWCOMER, NEWCOMER_MATCHED, NEWCOMER_TRANSPLANTED
from bench.tests.spans import check_closest, check_gold_spans
from bench.tests.transplanted import check_against_code, check_records
from bench.train import pins
from bench.train.build import SOURCE_DIR, TRAIN_DIR
from tests.support.prerequisites import require

FILES = sorted(NEWCOMER.glob("*.jsonl"))
CODE_LIKE = re.compile(r"[`_{}\[\]<>=]|\w\(|\b[a-z]+[A-Z][a-z]|::")
"""Backticks, snake_case, brackets, calls, camelCase: a name or code, which a newcomer's question does not hold."""


def test_every_file_is_one_pinned_package_with_answers_and_absent_behaviors():
    names = {pin.name for pin in pins.PINS}
    assert FILES
    queries = []
    for path in FILES:
        cases = load_cases(path)
        assert path.stem in names, path
        assert {case.corpus for case in cases} == {f"train/{path.stem}"}, path
        assert sum(case.negative for case in cases) >= 3 and sum(not case.negative for case in cases) >= 8, path
        for case in cases:
            for span_path, start, end in case.gold:
                assert not span_path.startswith("/") and 1 <= start <= end, case.query
        queries += [case.query for case in cases]
    assert len(queries) == len(set(queries)), "duplicate question"


def test_questions_hold_no_code():
    for path in FILES:
        for case in load_cases(path):
            assert not CODE_LIKE.search(case.query), (path.name, case.query)


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_gold_spans_match_the_package_sources_and_stripped_tree(path):
    for root in (SOURCE_DIR / path.stem, TRAIN_DIR / path.stem):
        if not root.is_dir():
            require(f"training package not built: python -m bench.train corpus --only {path.stem}")
        check_gold_spans(root, load_cases(path))


MATCHED = [json.loads(line) for line in NEWCOMER_MATCHED.read_text().splitlines()]


def test_matched_absences_are_new_negatives_of_every_newcomer_package_written_as_long_as_its_answerable_questions():
    earlier = {case.query for case in load_cases(NEWCOMER)}
    assert Counter(record["corpus"] for record in MATCHED) == {f"train/{path.stem}": 18 for path in FILES}
    assert len({record["query"] for record in MATCHED}) == len(MATCHED), "duplicate question"
    for path in FILES:
        answerable = [case.query for case in load_cases(path) if not case.negative]
        mean = sum(len(query.split()) for query in answerable) / len(answerable)
        asked = sum(query.rstrip().endswith("?") for query in answerable) / len(answerable)
        mine = [record for record in MATCHED if record["corpus"] == f"train/{path.stem}"]
        assert all(abs(len(record["query"].split()) - mean) <= 3 for record in mine), path.stem
        mine_asked = sum(record["query"].rstrip().endswith("?") for record in mine) / len(mine)
        assert abs(mine_asked - asked) <= 0.1, path.stem  # each batch of six rounded to the nearest question
        assert Counter(record["kind"] for record in mine) == {"near miss": 12, "plausible feature": 6}, path.stem
        for record in mine:
            assert record["gold"] == [] and record["why_absent"], record["query"]
            assert record["closest"] == "none" or re.fullmatch(r"[^:]+:\d+-\d+", record["closest"]), record["closest"]
            assert record["query"] not in earlier, record["query"]
            assert not CODE_LIKE.search(record["query"]), record["query"]


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_each_matched_absence_names_the_closest_code_it_was_checked_against(path):
    root = SOURCE_DIR / path.stem
    if not root.is_dir():
        require(f"training package not built: python -m bench.train corpus --only {path.stem}")
    for record in MATCHED:
        if record["corpus"] == f"train/{path.stem}":
            check_closest(root, record["closest"])


TRANSPLANTED = [json.loads(line) for line in NEWCOMER_TRANSPLANTED.read_text().splitlines()]


def test_transplanted_questions_are_newcomer_questions_asked_word_for_word_of_another_package():
    check_records(TRANSPLANTED)
    assert {record["corpus"].removeprefix("train/") for record in TRANSPLANTED} <= {path.stem for path in FILES}
    decided = transplanted_cases(NEWCOMER_TRANSPLANTED)
    assert len(decided) == sum(record["label"] != "partial" for record in TRANSPLANTED)


@pytest.mark.parametrize("target", sorted({record["corpus"] for record in TRANSPLANTED}))
def test_transplanted_questions_hold_against_their_targets_code(target):
    name = target.removeprefix("train/")
    records = [record for record in TRANSPLANTED if record["corpus"] == target]
    cases = [case for case in transplanted_cases(NEWCOMER_TRANSPLANTED) if case.corpus == target]
    for root in (SOURCE_DIR / name, TRAIN_DIR / name):
        if not root.is_dir():
            require(f"training package not built: python -m bench.train corpus --only {name}")
        check_against_code(root, records, cases)
