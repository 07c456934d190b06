"""The ranker's fit keeps the signs it is told to: word evidence never ends up counting against a candidate."""

from __future__ import annotations

import numpy as np

from bench.ranker.fit import Data, fit


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
