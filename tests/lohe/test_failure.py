"""Tests for syncattn.lohe's failure odds (lohe/_failure.py).

References: numpy Monte Carlo (with a numpy RK4 for the angle ODE), closed forms
(softplus CDF, two anchors in d = 3).
"""

import math

import jax
import numpy as np
import pytest
import scipy.integrate
import scipy.stats

from syncattn import lohe

from ..helpers import assert_close


# -------------------------------------------------------------- failure odds (MC)
@pytest.mark.parametrize("d", [2, 3, 8, 32])
def test_antipodal_and_finite_time_failure_vs_monte_carlo(d):
    rng = np.random.default_rng(d)
    n = 100_000
    g = rng.normal(size=(n, d))
    z = g / np.linalg.norm(g, axis=-1, keepdims=True)
    h_dir = np.eye(d)[0]
    phi0 = np.arccos(np.clip(z @ h_dir, -1, 1))  # angle to h; pi - phi0 = angle to -h
    for alpha in (1.0, 1.45, 2.2):
        p = float(lohe.antipodal_probability(alpha, d))
        mc = np.mean(np.pi - phi0 < alpha)
        assert abs(mc - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-12
    # evolve every start with RK4 on d(phi)/dt = -|h| sin(phi) (no closed form used)
    a, delta = 1.3, 0.4
    steps = 100  # RK4 error ~ (T/steps)^4, far below the 4-sigma Monte Carlo band
    for T in (0.3, 1.2):
        phi, dt = phi0.copy(), T / steps
        rhs = lambda p: -a * np.sin(p)
        for _ in range(steps):
            k1 = rhs(phi)
            k2 = rhs(phi + dt / 2 * k1)
            k3 = rhs(phi + dt / 2 * k2)
            k4 = rhs(phi + dt * k3)
            phi = phi + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        p = float(lohe.finite_time_failure_probability(a, T, delta, d))
        mc = np.mean(phi > delta)
        assert 0 < p < 1
        assert abs(mc - p) <= 4 * math.sqrt(p * (1 - p) / n), (T, mc, p)


def test_failure_probability_edges_and_errors():
    # no drive: failure iff the start is already farther than delta
    assert_close(
        lohe.finite_time_failure_probability(0.0, 5.0, 1.0, 3), (1 + math.cos(1.0)) / 2
    )
    assert float(lohe.finite_time_failure_probability(1e3, 1e3, 0.1, 4)) == 0.0
    assert np.isfinite(
        jax.grad(lambda a: lohe.finite_time_failure_probability(a, 1e3, 0.1, 4))(1e3)
    )
    with pytest.raises(ValueError, match="d must be >= 2"):
        lohe.antipodal_probability(1.0, 1)
    with pytest.raises(ValueError, match="d must be >= 2"):
        lohe.finite_time_failure_probability(1.0, 1.0, 0.5, 1)
    with pytest.raises(ValueError, match="delta must lie in"):
        lohe.finite_time_failure_probability(1.0, 1.0, 0.0, 3)
    with pytest.raises(ValueError, match="T must lie in"):
        lohe.finite_time_failure_probability(1.0, -1.0, 0.5, 3)


def test_degenerate_probability_vs_numpy_monte_carlo():
    d, m, eps, scale, n = 3, 3, 0.8, 1.5, 100_000
    p, se = lohe.degenerate_probability(jax.random.key(9), d, m, eps, n, scale=scale)
    rng = np.random.default_rng(9)
    r = rng.normal(size=(n, m, d))
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    w = np.log1p(np.exp(scale * rng.normal(size=(n, m))))
    hits = np.linalg.norm(np.einsum("sj,sjd->sd", w, r), axis=-1) < eps
    q, se_q = hits.mean(), hits.std() / math.sqrt(n)
    assert 0.01 < q < 0.99
    assert abs(float(p) - q) <= 4 * math.sqrt(float(se) ** 2 + se_q**2)
    assert_close(se, math.sqrt(float(p) * (1 - float(p)) / n))
    # one anchor: ||h|| = softplus(g) < eps  <=>  g < log(expm1(eps)), a normal CDF
    p1, se1 = lohe.degenerate_probability(
        jax.random.key(1), 4, 1, 0.5, 50_001, scale=2.0, chunk_size=4096
    )
    exact = scipy.stats.norm.cdf(math.log(math.expm1(0.5)) / 2.0)
    assert abs(float(p1) - exact) <= 4 * math.sqrt(exact * (1 - exact) / 50_001)
    with pytest.raises(ValueError, match="d must be >= 2"):
        lohe.degenerate_probability(jax.random.key(0), 1, 3, 0.5)
    with pytest.raises(ValueError, match="eps must lie in"):
        lohe.degenerate_probability(jax.random.key(0), 3, 3, 0.0)
    with pytest.raises(ValueError, match="n_anchors must be a positive int"):
        lohe.degenerate_probability(jax.random.key(0), 3, 0, 0.5)


# ------------------------------------------------------- exact degenerate probability
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
def test_degenerate_probability_exact_two_anchors_closed_form():
    """m = 2 in d = 3: |h|^2 = a^2 + b^2 + 2ab cos(theta), cos(theta) uniform on [-1, 1]."""
    rng = np.random.default_rng(0)
    a, b = np.logaddexp(0, rng.standard_normal((2, 2_000_000)))
    eps = 0.9
    p_given_w = np.clip((eps**2 - (a - b) ** 2) / (4 * a * b), 0.0, 1.0)
    want, se = p_given_w.mean(), p_given_w.std() / np.sqrt(a.size)
    got = lohe.degenerate_probability_exact(3, 2, eps, nodes=40)
    assert abs(got - want) < 5 * se
    assert abs(lohe.degenerate_probability_exact(3, 2, 1.1 * eps, nodes=40) - want) > 20 * se


def test_degenerate_probability_exact_one_anchor_and_monte_carlo():
    # m = 1: |h| = softplus(s g); against the empirical frequency of a large numpy sample
    g = np.random.default_rng(1).standard_normal(4_000_000)
    for eps, s in ((1.0, 1.0), (0.5, 0.7)):
        emp = np.mean(np.logaddexp(0, s * g) < eps)
        got = lohe.degenerate_probability_exact(5, 1, eps, s)
        assert abs(got - emp) < 5 * np.sqrt(emp * (1 - emp) / g.size)
    # m = 4, d = 3 against lohe.degenerate_probability (Monte Carlo, binomial error)
    p_hat, se = lohe.degenerate_probability(jax.random.key(3), 3, 4, 1.2, 200_000)
    exact = lohe.degenerate_probability_exact(3, 4, 1.2)
    assert abs(float(p_hat) - exact) < 5 * float(se)


def test_degenerate_probability_exact_bad_input():
    with pytest.raises(ValueError, match="d must be >= 2"):
        lohe.degenerate_probability_exact(1, 2, 1.0)
    with pytest.raises(ValueError, match="n_anchors must be a positive int"):
        lohe.degenerate_probability_exact(3, 0, 1.0)
    with pytest.raises(ValueError, match="eps must lie in"):
        lohe.degenerate_probability_exact(3, 2, 0.0)
    with pytest.raises(ValueError, match="scale must lie in"):
        lohe.degenerate_probability_exact(3, 2, 1.0, -1.0)
