"""The committed behavior set, its near misses, matched absences and transplanted questions: well formed always, and
their gold spans and closest code checked against the corpora when prepared (`bench.tests.spans`)."""

import json
from collections import Counter

import pytest

from bench import corpora
from bench.quality.metrics import QueryCase, load_cases
from bench.quality.sets import (
    BEHAVIOR_DIR,
    DEVELOPMENT,
    HELD_OUT,
    MATCHED_ABSENCES,
    PARTS,
    TRANSPLANTED,
    TRANSPLANTED_HELD_OUT,
    behavior_cases,
    corpus_file,
    matched_absence_cases,
    near_miss_cases,
    project_languages,
    transplanted_cases,
)
from bench.tests.spans import check_closest, check_gold_spans
from bench.tests.transplanted import check_against_code, check_records
from tests.support.prerequisites import require


def test_parts_are_disjoint_and_cover_every_file():
    assert not set(DEVELOPMENT) & set(HELD_OUT)
    assert {p.stem for p in BEHAVIOR_DIR.glob("*.jsonl")} == set(PARTS["all"])
    assert all(case.corpus == corpus for corpus in PARTS["all"] for case in load_cases(corpus_file(corpus)))


def test_set_size_and_shape():
    cases = behavior_cases("all")
    positives = [c for c in cases if not c.negative]
    negatives = [c for c in cases if c.negative]
    assert len(positives) >= 200 and len(negatives) >= 40
    assert len({c.corpus for c in cases}) >= 8
    languages = project_languages(cases)
    assert languages.keys() == {c.corpus for c in cases}  # every project has answerable questions
    assert len(set(languages.values()) - {"other"}) >= 4
    assert max(Counter(c.key for c in cases).values()) == 1, "duplicate query"
    for case in positives:
        for path, start, end in case.gold:
            assert not path.startswith("/") and 1 <= start <= end


@pytest.mark.parametrize("corpus", PARTS["all"])
def test_gold_spans_match_the_corpus(corpus):
    if not corpora.is_prepared(corpora.CORPORA[corpus]):
        require("corpus not prepared: python -m bench prepare --quality")
    check_gold_spans(corpora.CORPORA[corpus].root, load_cases(corpus_file(corpus)))


def test_a_project_has_the_language_of_most_of_its_answers_files_and_its_negatives_share_it():
    cases = [
        QueryCase("a", "parse it", (("src/parse.rs", 1, 2),)),
        QueryCase("a", "build it", (("build.py", 1, 2),)),
        QueryCase("a", "load it", (("src/load.rs", 1, 2),)),
        QueryCase("a", "absent behavior", ()),
        QueryCase("b", "render it", (("lib/render.rb", 3, 4),)),
    ]
    assert project_languages(cases) == {"a": "rust", "b": "ruby"}


def test_near_misses_are_negatives_of_the_development_projects_only():
    near = near_miss_cases()
    assert all(case.negative for case in near)
    assert Counter(case.corpus for case in near) == dict.fromkeys(DEVELOPMENT, 5)
    asked = {case.key for case in behavior_cases("all")}
    assert not asked & {case.key for case in near}, "a near miss repeats a question of the behavior set"
    assert len({case.key for case in near}) == len(near)


def test_matched_absences_are_new_negatives_of_the_development_projects_written_as_long_as_their_answerable_ones():
    matched = matched_absence_cases()
    assert all(case.negative for case in matched)
    assert Counter(case.corpus for case in matched) == dict.fromkeys(DEVELOPMENT, 6)
    earlier = {case.key for case in behavior_cases("all")} | {case.key for case in near_miss_cases()}
    assert not earlier & {case.key for case in matched}, "a matched absence repeats an earlier question"
    assert len({case.key for case in matched}) == len(matched)
    raw = [json.loads(line) for line in MATCHED_ABSENCES.read_text().splitlines()]
    for corpus in DEVELOPMENT:
        answerable = [c.query for c in load_cases(corpus_file(corpus)) if not c.negative]
        mean = sum(len(q.split()) for q in answerable) / len(answerable)
        mine = [r for r in raw if r["corpus"] == corpus]
        assert all(abs(len(r["query"].split()) - mean) <= 3 for r in mine), corpus
        asked = sum(q.rstrip().endswith("?") for q in answerable) / len(answerable)
        assert abs(sum(r["query"].rstrip().endswith("?") for r in mine) - asked * len(mine)) <= 1, corpus
        assert Counter(r["kind"] for r in mine) == {"near miss": 4, "plausible feature": 2}, corpus
        assert all(r["why_absent"] and r["closest"] for r in mine), corpus


@pytest.mark.parametrize("corpus", DEVELOPMENT)
def test_each_matched_absence_names_the_closest_code_it_was_checked_against(corpus):
    if not corpora.is_prepared(corpora.CORPORA[corpus]):
        require("corpus not prepared: python -m bench prepare --quality")
    root = corpora.CORPORA[corpus].root
    for record in (json.loads(line) for line in MATCHED_ABSENCES.read_text().splitlines()):
        if record["corpus"] == corpus:
            check_closest(root, record["closest"])


TRANSPLANTED_RECORDS = [json.loads(line) for line in TRANSPLANTED.read_text().splitlines()]


def test_transplanted_questions_are_development_questions_asked_word_for_word_of_another_development_project():
    check_records(TRANSPLANTED_RECORDS)
    assert {r["corpus"] for r in TRANSPLANTED_RECORDS} | {r["asked_from"] for r in TRANSPLANTED_RECORDS} <= set(
        DEVELOPMENT
    ), "the held-out part is never asked or asked of"
    assert len(transplanted_cases()) == sum(r["label"] != "partial" for r in TRANSPLANTED_RECORDS)


@pytest.mark.parametrize("corpus", sorted({r["corpus"] for r in TRANSPLANTED_RECORDS}))
def test_transplanted_questions_hold_against_their_targets_code(corpus):
    if not corpora.is_prepared(corpora.CORPORA[corpus]):
        require("corpus not prepared: python -m bench prepare --quality")
    records = [r for r in TRANSPLANTED_RECORDS if r["corpus"] == corpus]
    check_against_code(corpora.CORPORA[corpus].root, records, [c for c in transplanted_cases() if c.corpus == corpus])


HELD_OUT_RECORDS = [json.loads(line) for line in TRANSPLANTED_HELD_OUT.read_text().splitlines()]


def test_held_out_transplanted_questions_are_asked_word_for_word_of_the_held_out_projects_only():
    check_records(HELD_OUT_RECORDS)
    asked_from = {r["asked_from"] for r in HELD_OUT_RECORDS if not r["asked_from"].startswith("train/")}
    assert asked_from <= set(DEVELOPMENT), "a held-out project's own questions are never moved"
    assert {r["corpus"] for r in HELD_OUT_RECORDS} == set(HELD_OUT)


@pytest.mark.parametrize("corpus", HELD_OUT)
def test_held_out_transplanted_questions_hold_against_their_targets_code(corpus):
    if not corpora.is_prepared(corpora.CORPORA[corpus]):
        require("corpus not prepared: python -m bench prepare --quality")
    records = [r for r in HELD_OUT_RECORDS if r["corpus"] == corpus]
    cases = [c for c in transplanted_cases(TRANSPLANTED_HELD_OUT) if c.corpus == corpus]
    check_against_code(corpora.CORPORA[corpus].root, records, cases)
