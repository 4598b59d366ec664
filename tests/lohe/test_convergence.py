"""lohe.predict_convergence (exact odds from ||h||) and lohe.fixed_query_errors (the flow)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import lohe, sphere

from ..helpers import approx, assert_close


def _quad_mean_error(a, d, T):
    """E 2 sin(phi(T)/2) by mpmath quadrature over phi0 (density sin^(d-2) / B((d-1)/2, 1/2))."""
    import mpmath as mp

    with mp.workdps(25):
        norm = mp.beta(mp.mpf(d - 1) / 2, mp.mpf(1) / 2)
        damp = mp.exp(-mp.mpf(a) * T)

        def f(p):
            phi = 2 * mp.atan2(mp.sin(p / 2) * damp, mp.cos(p / 2))
            return 2 * mp.sin(phi / 2) * mp.sin(p) ** (d - 2) / norm

        # the error stays O(1) only for phi0 within ~e^(-aT) of pi: split there
        cuts = sorted({mp.pi - mp.mpf(10) ** -k for k in range(1, 16)})
        return float(mp.quad(f, [0, *cuts, mp.pi]))


@pytest.mark.parametrize("d", [2, 3, 8, 32])
def test_prediction_against_quadrature_and_caps(d):
    a = np.array([0.0, 0.05, 0.15, 0.4, 1.0])
    T = 30.0
    pred = lohe.predict_convergence(a, d, T)
    # the trapezoid rule's error is far below rounding (see its docstring): round-off
    for i, ai in enumerate(a):
        assert float(pred["mean_error"][i]) == approx(_quad_mean_error(ai, d, T))
    # at ||h|| = 0 nothing moves: P(e < eps) = P(angle(z0, h) < 2 asin(eps/2))
    for key, tol, sign in (("converged", 0.01, 1), ("antipodal", 0.1, -1)):
        cap = float(sphere.cap_probability(2 * math.asin(tol / 2), d))
        assert float(pred[key][0]) == approx(cap if sign > 0 else 1 - cap)


def test_prediction_closed_forms_d2():
    # d = 2: phi0 uniform on [0, pi]; e(T) > eps iff phi0 > phi_c, tan(phi_c/2) = tan(delta/2) e^{aT}
    a, T = np.array([0.1, 0.2, 0.3]), 30.0
    pred = lohe.predict_convergence(a, 2, T)
    for key, eps in (("converged", 0.01), ("antipodal", 0.1)):
        delta = 2 * np.arcsin(eps / 2)
        phi_c = 2 * np.arctan(np.tan(delta / 2) * np.exp(a * T))
        fail = 1 - phi_c / np.pi
        want = 1 - fail if key == "converged" else fail
        assert_close(pred[key], want)
    # a = 0: E 2 sin(phi0/2) = 4/pi for d = 2, 4/3 for d = 3
    assert float(lohe.predict_convergence(0.0, 2)["mean_error"]) == approx(4 / math.pi)
    assert float(lohe.predict_convergence(0.0, 3)["mean_error"]) == approx(4 / 3)


def test_errors_follow_the_exact_angle():
    key = jax.random.key(0)
    d, n = 4, 64
    h = sphere.sample_uniform(key, (n,), d) * jnp.linspace(0.0, 0.8, n)[:, None]
    z0 = sphere.sample_uniform(jax.random.key(1), (n,), d)
    T = 12.0
    err = np.asarray(lohe.fixed_query_errors(h, z0, T))
    hn = np.linalg.norm(np.asarray(h), axis=-1)
    zs = np.where(hn[:, None] > 0, np.asarray(h) / np.where(hn > 0, hn, 1)[:, None], np.eye(d)[0])
    phi0 = np.arccos(np.clip(np.sum(np.asarray(z0) * zs, -1), -1, 1))
    phi = np.asarray(lohe.exact_angle(phi0, hn, T))
    np.testing.assert_allclose(err, 2 * np.sin(phi / 2), atol=1e-7)  # the solve's error


def test_prediction_matches_monte_carlo_flow():
    # 3,000 uniform starts per ||h||, integrated with lohe.simulate: counts within 4 sigma
    d, T, S = 3, 30.0, 3000
    a = jnp.array([0.05, 0.1, 0.2])
    h = sphere.sample_uniform(jax.random.key(2), (3,), d) * a[:, None]
    z0 = sphere.sample_uniform(jax.random.key(3), (S, 3), d)
    err = np.asarray(lohe.fixed_query_errors(jnp.broadcast_to(h, (S, 3, d)), z0, T))
    pred = lohe.predict_convergence(a, d, T)
    for key, hit in (("converged", err < 0.01), ("antipodal", err > 0.1)):
        p = np.asarray(pred[key])
        sd = np.sqrt(np.maximum(p * (1 - p), 1e-4) / S)
        assert np.all(np.abs(hit.mean(0) - p) < 4 * sd), (key, hit.mean(0), p)
    m = np.asarray(pred["mean_error"])
    se = err.std(0) / np.sqrt(S)
    assert np.all(np.abs(err.mean(0) - m) < 4 * se + 1e-9), (err.mean(0), m)


def test_bad_input():
    with pytest.raises(ValueError, match="norm_h"):
        lohe.predict_convergence(jnp.array([-1.0]), 3)
    with pytest.raises(ValueError, match="norm_h"):
        lohe.predict_convergence(jnp.array([jnp.nan]), 3)
    with pytest.raises(ValueError):
        lohe.predict_convergence(jnp.array([1.0]), 1)
    with pytest.raises(ValueError, match="converged_tol"):
        lohe.predict_convergence(1.0, 3, converged_tol=0.0)
    with pytest.raises(ValueError, match="T"):
        lohe.predict_convergence(1.0, 3, -1.0)
    h = jnp.ones((2, 3))
    with pytest.raises(ValueError, match="shape"):
        lohe.fixed_query_errors(h, jnp.ones((3, 3)))
    with pytest.raises(ValueError, match="unit sphere"):
        lohe.fixed_query_errors(h, h)
    with pytest.raises(ValueError, match="t1"):
        lohe.fixed_query_errors(h, sphere.normalize(h), -1.0)


def test_degenerate_drive_does_not_move():
    z0 = sphere.sample_uniform(jax.random.key(4), (5,), 3)
    err = lohe.fixed_query_errors(jnp.zeros((5, 3)), z0, 10.0)
    assert_close(err, np.linalg.norm(np.asarray(z0) - np.eye(3)[0], axis=-1))
