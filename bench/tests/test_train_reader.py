"""The reader's recipe keeps its scores honest: a held project's questions never teach the model that scores them,
and each question teaches its answers and its best non-answers."""

from __future__ import annotations

import numpy as np

from bench.ranker.reader_check import alone, area, question_words, readings, verdicts
from bench.train.reader import folds, pairs, training_pairs


def _record(corpus: str, query: str, labels: list[int], kind: str = "development") -> dict:
    cands = [{"text": f"{query} {i}", "label": label, "rank": i} for i, label in enumerate(labels)]
    return {"set": kind, "corpus": corpus, "query": query, "cands": cands}


def test_folds_split_every_project_once_and_the_same_way_for_a_seed():
    projects = [f"p{i}" for i in range(7)]
    cut = folds(projects, 2, seed=0)
    assert sorted(len(f) for f in cut) == [3, 4]
    assert set().union(*cut) == set(projects) and not cut[0] & cut[1]
    assert cut == folds(reversed(projects), 2, seed=0)
    assert any(folds(projects, 2, seed=s) != cut for s in range(1, 5))


def test_a_question_teaches_two_answers_at_most_and_its_best_non_answers_first():
    taught = pairs(_record("a", "q", [0, 1, 0, 1, 0, 1, 0, 0]), negatives=2)
    assert [label for _, label in taught] == [1.0, 1.0, 0.0, 0.0]
    assert [text.split("[SEP] ")[1] for text, _ in taught] == ["q 1", "q 3", "q 0", "q 2"]


def test_the_held_projects_questions_never_teach_and_the_newcomer_ones_always_do():
    sets = {
        "development": [_record("held", "asked of held", [1, 0]), _record("other", "asked of other", [1, 0])],
        "near-misses": [_record("held", "near of held", [0, 0], "near-misses")],
        "crossed": [_record("held", "crossed into held", [0, 0], "crossed")],
        "newcomer": [_record("train-source/x", "newcomer", [1, 0], "newcomer")],
    }
    taught = {text.split(" [SEP]")[0] for text, _ in training_pairs(sets, {"held"})}
    assert taught == {"asked of other", "newcomer"}
    everything = {text.split(" [SEP]")[0] for text, _ in training_pairs(sets, set())}
    assert everything == {"asked of held", "asked of other", "near of held", "crossed into held", "newcomer"}


def test_a_verdict_is_taken_apart_into_the_question_and_the_code(tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_text(
        '{"set": "development", "corpus": "a", "query": "where do we parse dates", "logits": [-1.0, 2.5, 0.5]}\n'
        '{"set": "crossed", "corpus": "b", "query": "q", "logits": [-3.0]}\n'
    )
    read = readings(path)
    key = ("development", "a", "where do we parse dates")
    assert verdicts(read, "the reader's best logit")[key] == 2.5
    assert verdicts(read, "its mean over the candidates (the question)")[key] == 2 / 3
    assert verdicts(read, "its best less that mean (the code)")[key] == 2.5 - 2 / 3
    assert verdicts(read, "the question's words, no reader")[key] == question_words("where do we parse dates") == 2


def test_each_kind_is_scored_against_the_answerable_questions_and_ties_count_half():
    read = {
        ("development", "a", "present"): 2.0,
        ("development", "a", "also present"): 1.0,
        ("development", "a", "absent"): 0.0,
        ("development", "a", "missed by the shortlist"): 9.0,
        ("near-misses", "a", "near"): 1.0,
        ("crossed", "b", "present"): 3.0,
    }
    answered = {("a", "present"), ("a", "also present")}
    assert alone(read, answered, {("a", "absent")}) == [1.0, 0.75, 0.0]
    assert area(np.array([0.0]), np.array([1.0])) == 0.0
