"""The ranker's fit keeps the signs it is told to (word evidence never counts against a candidate), and its second
check, the summaries, holds only packages the shipped model never trained on."""

from __future__ import annotations

import json

import numpy as np

from bench.ranker import collect
from bench.ranker.fit import Data, fit
from bench.train import biencoder


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
    validation = {f"train/{name}" for name in biencoder.training_queries(biencoder.SEED)[2]}
    cases = collect.summaries()
    assert validation and {case.corpus for case in cases} == validation
    assert len(cases) == sum(1 for row in rows if row["corpus"] in validation)
