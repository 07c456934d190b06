"""The ranker's fit keeps the signs it is told to (word evidence never counts against a candidate), its grid gives
each setting what fitting it alone gives, and its second check, the summaries, holds only packages the shipped
model never trained on."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from bench.quality import metrics
from bench.ranker import collect
from bench.ranker.collect import Rows
from bench.ranker.fit import (
    POSITIVES_EMPTY_BOUND,
    THRESHOLD,
    Data,
    Questions,
    choose,
    criterion,
    cross_validate,
    figures_on,
    fit,
    fit_candidates,
    fit_question,
    fit_ranker,
    question_data,
    scored,
)
from bench.train import biencoder, pins
from smartsearch_ls.judge.local.features import NAMES


def data(seed: int = 0) -> Data:
    """Two features: the first says relevant, the second (made to look like a name match) says the opposite."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 2000).astype(float)
    helps = y + rng.normal(0, 1, len(y))
    hurts = -y + rng.normal(0, 1, len(y))
    return Data(np.column_stack([helps, hurts]), y, np.ones(len(y)))


def test_a_free_fit_learns_the_negative_weight_and_a_held_sign_stays_at_zero():
    free = fit(data(), penalty=0.1)
    assert free.weights[0] > 0 > free.weights[1]
    held = fit(data(), penalty=0.1, non_negative=[1])
    assert held.weights[1] == 0.0 and held.weights[0] > 0


def test_a_weight_already_positive_is_left_as_fitted():
    assert np.allclose(fit(data(), 0.1, non_negative=[0]).weights, fit(data(), 0.1).weights)


def test_the_summaries_check_holds_only_the_bi_encoder_s_validation_packages(tmp_path, monkeypatch):
    rows = [
        {"corpus": f"train/{name}", "query": f"do thing {i} of {name}", "language": language,
         "gold": [{"path": "a.py", "start_line": 1, "end_line": 2}]}
        for name, language, count in (("alpha", "python", 30), ("beta", "python", 30), ("gamma", "go", 40))
        for i in range(count)
    ]  # fmt: skip
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps(row) + "\n" for row in rows))
    monkeypatch.setattr(biencoder, "QUERIES_FILE", queries)
    monkeypatch.setattr(collect, "TRAIN_QUERIES", queries)
    monkeypatch.setattr(pins, "PINS", [SimpleNamespace(name=name) for name in ("alpha", "beta", "gamma")])
    validation = {f"train/{name}" for name in biencoder.training_queries(biencoder.SEED)[2]}
    cases = collect.summaries()
    assert validation and {case.corpus for case in cases} == validation
    assert len(cases) == sum(1 for row in rows if row["corpus"] in validation)


def questions(seed: int, projects: tuple[str, ...], *, asked_of_others: bool = False) -> Questions:
    """Shortlists of 40 candidates: in an answerable question one of them is the answer, and its features lean
    that way; a question of the last kind per project has no answer (or, `asked_of_others`, none has)."""
    rng = np.random.default_rng(seed)
    features, labels, question, spans, cases = [], [], [], [], []
    for project in projects:
        for q in range(10):
            answerable = not asked_of_others and q < 8
            gold = ((f"{project}/a{q}.py", 1, 9),) if answerable else ()
            cases.append(metrics.QueryCase(project, f"question {q} of {project}", gold))
            for c in range(40):
                relevant = answerable and c == 0
                features.append(rng.normal(0, 1, len(NAMES)) + (0.8 if relevant else 0.0))
                labels.append(int(relevant))
                question.append(len(cases) - 1)
                spans.append(gold[0] if relevant else (f"{project}/b{q}.py", 10 * c + 1, 10 * c + 9))
    rows = Rows(np.array(features), np.array(labels, np.int8), np.array(question, np.int32), spans, cases)
    return Questions(rows)


def test_the_grid_gives_each_setting_what_it_gives_alone_and_the_judge_s_rows():
    projects = ("alpha", "beta", "gamma")
    development, crossed = questions(0, projects), questions(1, projects, asked_of_others=True)
    grid = [
        (0.1, 1.0, 0.5, 0.1),
        (0.1, 10.0, 0.5, 0.1),
        (0.1, 10.0, 0.35, 0.1),
        (0.1, 10.0, 0.5, 0.35),
        (1.0, 10.0, 0.5, 0.1),
    ]
    near_misses = questions(2, projects, asked_of_others=True)
    together = cross_validate(development, crossed, grid, measured={"near_misses": near_misses})
    for setting in grid:
        assert (
            together[setting]
            == cross_validate(development, crossed, [setting], measured={"near_misses": near_misses})[setting]
        )
    looked = fit_candidates(development, crossed, projects[1:], 0.1)
    ranker = fit_ranker(development, crossed, projects[1:], (0.1, 10.0, 0.5, 0.1))
    chosen = development.of(projects[:1])
    as_judged = scored(development, ranker, chosen)
    as_read = scored(looked.development, ranker, chosen, read=True)
    assert all(np.array_equal(a.probabilities, b.probabilities) for a, b in zip(as_judged, as_read, strict=True))


def test_absent_behaviors_are_replayed_per_fold_beside_figures_they_leave_alone():
    projects = ("alpha", "beta", "gamma")
    development, crossed = questions(0, projects), questions(1, projects, asked_of_others=True)
    measured = {
        "near_misses": questions(2, projects, asked_of_others=True),
        "matched": questions(3, projects, asked_of_others=True),
    }
    setting = (0.1, 10.0, 0.5, 0.1)
    reported = cross_validate(development, crossed, [setting], measured=measured)[setting]
    assert {k: v for k, v in reported.items() if k not in ("near_misses_empty", "matched_empty")} == cross_validate(
        development, crossed, [setting]
    )[setting]
    for name, absent in measured.items():
        assert (
            reported[f"{name}_empty"]
            == cross_validate(development, crossed, [setting], measured={name: absent})[setting][f"{name}_empty"]
        )
        empty = []
        for held in projects:
            ranker = fit_ranker(development, crossed, [p for p in projects if p != held], setting)
            empty += [bool(a.probabilities.max() < THRESHOLD) for a in scored(absent, ranker, absent.of([held]))]
        assert 0 < sum(empty) < len(empty)  # some answered with nothing, some not: the share can be wrong
        assert reported[f"{name}_empty"] == pytest.approx(np.mean(empty))


def test_the_positives_share_splits_the_question_model_s_weight_and_the_rest_goes_half_to_each_kind_of_negative():
    projects = ("alpha", "beta", "gamma")
    development, crossed = questions(0, projects), questions(1, projects, asked_of_others=True)
    looked = fit_candidates(development, crossed, projects, 0.1)
    for share in (0.5, 0.35):
        data = question_data(looked.candidate, looked.development, looked.crossed, projects, share)
        # rows in order: the 24 answerable questions, the 6 written negatives, then the 30 crossed questions
        assert data.y.tolist() == [1.0] * 24 + [0.0] * 36
        assert data.w[:24].sum() == pytest.approx(share)
        assert data.w[24:30].sum() == pytest.approx((1 - share) / 2)
        assert data.w[30:].sum() == pytest.approx((1 - share) / 2)


def test_the_criterion_weighs_written_negatives_as_much_as_crossed_questions_however_many_of_each():
    base = {"mrr": 0.5, "recall": 0.6, "negatives_empty": 0.4, "crossed_empty": 0.8, "positives_empty": 0.1}
    assert criterion(base) == pytest.approx(0.5 + 0.3 + 0.6 - 0.2)
    one_more_written = criterion({**base, "negatives_empty": 0.6})
    one_more_crossed = criterion({**base, "crossed_empty": 1.0})
    assert one_more_written == pytest.approx(one_more_crossed) == pytest.approx(criterion(base) + 0.1)


def test_a_smaller_positives_share_makes_the_question_model_say_nothing_more_often():
    projects = ("alpha", "beta", "gamma")
    development, crossed = questions(0, projects), questions(1, projects, asked_of_others=True)
    looked = fit_candidates(development, crossed, projects, 0.1)
    assert fit_question(looked, projects, 1.0, 0.35).bias < fit_question(looked, projects, 1.0, 0.5).bias


def test_each_fold_scores_the_ranker_fitted_without_it_at_every_part_of_the_setting():
    projects = ("alpha", "beta", "gamma")
    development, crossed = questions(0, projects), questions(1, projects, asked_of_others=True)
    setting = (0.1, 10.0, 0.35, 0.02)  # the share and the sharpness apart, so neither can stand in for the other
    reported = cross_validate(development, crossed, [setting])[setting]
    folds = []
    for held in projects:
        rest = [p for p in projects if p != held]
        looked = fit_candidates(development, crossed, rest, setting[0])
        folds.append(figures_on(looked, fit_ranker(development, crossed, rest, setting), [held]))
    assert reported == pytest.approx({name: np.mean([fold[name] for fold in folds]) for name in reported})
    assert reported["criterion"] == pytest.approx(criterion(reported))


def test_the_choice_keeps_present_behaviors_answered_with_nothing_within_the_goal_s_bound() -> None:
    """The best criterion loses to a setting within the bound; a long answer (past a page) is never chosen; with none
    within the bound, the nearest is."""
    figures = {
        (0.1, 1.0, 0.5, 0.1): {"criterion": 1.5, "positives_empty": 0.2, "matches": 5.0},
        (0.1, 1.0, 0.8, 0.1): {"criterion": 1.3, "positives_empty": POSITIVES_EMPTY_BOUND, "matches": 6.0},
        (0.1, 1.0, 0.9, 0.1): {"criterion": 1.2, "positives_empty": 0.01, "matches": 7.0},
        (0.1, 1.0, 0.9, 0.02): {"criterion": 1.9, "positives_empty": 0.0, "matches": 40.0},
    }
    assert choose(figures)[0] == (0.1, 1.0, 0.8, 0.1)
    outside = {k: {**v, "positives_empty": v["positives_empty"] + 0.1} for k, v in figures.items()}
    assert choose(outside)[0] == (0.1, 1.0, 0.9, 0.1)
