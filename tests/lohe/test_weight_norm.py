"""lohe.weight_norm_probability: the d -> infinity plateau of the absolute degenerate
event, against its m = 1 closed form and a numpy Monte Carlo."""

import math

import numpy as np
import pytest

from syncattn import lohe


# ------------------------------------------------------- the d -> infinity plateau


def test_weight_norm_probability_one_anchor_closed_form():
    """m = 1: P(softplus(s g) < eps) = Phi(log(e^eps - 1)/s) lies in the bracket."""
    from scipy.special import ndtr

    for eps, s in ((1.0, 1.0), (0.5, 2.0)):
        lo, hi = lohe.weight_norm_probability(1, eps, s)
        exact = float(ndtr(math.log(math.expm1(eps)) / s))
        assert lo <= exact <= hi
        assert hi - lo < 1e-3


def test_weight_norm_probability_two_anchors_monte_carlo():
    """The plateau P(w1^2 + w2^2 < eps^2), w = softplus(g), against numpy Monte Carlo."""
    rng = np.random.default_rng(0)
    w = np.logaddexp(0, rng.standard_normal((2, 1_000_000)))
    hits = np.mean(np.sum(w * w, axis=0) < 1.0)
    se = math.sqrt(hits * (1 - hits) / w.shape[1])
    lo, hi = lohe.weight_norm_probability(2, 1.0)
    assert lo <= hi and hi - lo < 1e-3
    assert lo - 4 * se < hits < hi + 4 * se
    lo_w, _ = lohe.weight_norm_probability(2, 1.1)  # a wrong threshold is rejected
    assert hits < lo_w - 4 * se
    with pytest.raises(ValueError, match="eps"):
        lohe.weight_norm_probability(2, 0.0)
    with pytest.raises(ValueError, match="n_anchors"):
        lohe.weight_norm_probability(0, 1.0)
