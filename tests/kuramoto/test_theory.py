"""Tests for syncattn.kuramoto's theory (kuramoto/_theory.py): closed forms against
scipy (quadrature, distributions, solve_ivp of the Ott-Antonsen ODE).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate
import scipy.stats

from syncattn import kuramoto

from ..helpers import approx, assert_close


# --------------------------------------------------------------------------- theory


def test_critical_coupling_closed_forms():
    gamma = 0.7
    assert float(
        kuramoto.critical_coupling(scipy.stats.cauchy(scale=gamma).pdf(0))
    ) == approx(2 * gamma)
    assert float(
        kuramoto.critical_coupling(scipy.stats.uniform(-gamma, 2 * gamma).pdf(0))
    ) == approx(4 * gamma / np.pi)
    with pytest.raises(ValueError, match="g0"):
        kuramoto.critical_coupling(0.0)


def test_lorentzian_order_parameter_and_gradient_at_threshold():
    K = jnp.array([0.2, 1.0, 1.5, 4.0])
    np.testing.assert_allclose(
        kuramoto.lorentzian_order_parameter(K, 0.5),
        [0, 0, np.sqrt(1 / 3), np.sqrt(0.75)],
    )
    g = jax.grad(lambda k: kuramoto.lorentzian_order_parameter(k, 0.5))(1.0)
    assert np.isfinite(g)
    with pytest.raises(ValueError, match="gamma"):
        kuramoto.lorentzian_order_parameter(1.0, -0.1)


@pytest.mark.parametrize("K", [0.4, 1.0, 1.0 + 1e-12, 2.5])
def test_ott_antonsen_closed_form_vs_ode(K):
    gamma, r0 = 0.5, 0.05
    ts = np.linspace(0, 30, 31)
    ref = scipy.integrate.solve_ivp(
        lambda t, r: (K / 2 - gamma) * r - K / 2 * r**3,
        (0, 30),
        [r0],
        t_eval=ts,
        rtol=1e-12,
        atol=1e-14,
    ).y[0]
    # the closed form against scipy's solve (rtol=1e-12 over t = 30): solver error
    np.testing.assert_allclose(
        kuramoto.ott_antonsen(r0, K, gamma, ts), ref, rtol=1e-8, atol=1e-12
    )
    # the same polynomial evaluated twice: equal to a few ulps of its O(1) terms, an
    # absolute bound (the rhs cancels to ~0 near the fixed point)
    np.testing.assert_allclose(
        kuramoto.ott_antonsen_rhs(ref, K, gamma),
        (K / 2 - gamma) * ref - K / 2 * ref**3,
        atol=1e-15,
    )


def test_ott_antonsen_limits_and_grad():
    assert float(kuramoto.ott_antonsen(0.0, 3.0, 0.5, 10.0)) == 0.0
    # r(t) -> sqrt(1 - 2 gamma / K) at rate K - 2 gamma = 2: at t = 200, round-off only
    assert float(kuramoto.ott_antonsen(0.3, 3.0, 0.5, 200.0)) == approx(
        np.sqrt(1 - 1 / 3)
    )
    g = jax.grad(lambda K: kuramoto.ott_antonsen(0.1, K, 0.5, 5.0))(
        1.0
    )  # a = 0 exactly
    assert np.isfinite(g)
    with pytest.raises(ValueError, match="r0"):
        kuramoto.ott_antonsen(1.5, 1.0, 0.5, 1.0)


def test_lorentzian_frequencies_are_quantiles():
    w = np.asarray(kuramoto.lorentzian_frequencies(1001, 0.5, dtype=jnp.float64))
    cdf = scipy.stats.cauchy(scale=0.5).cdf(np.sort(w))
    assert_close(cdf, (np.arange(1, 1002) - 0.5) / 1001)
    s = kuramoto.sample_lorentzian(jax.random.key(0), (20000,), 0.5)
    assert (
        scipy.stats.kstest(np.asarray(s), scipy.stats.cauchy(scale=0.5).cdf).pvalue
        > 1e-3
    )

# ------------------------------------------------------- self-consistent order parameter
def test_self_consistent_order_parameter_closed_forms():
    import math

    from scipy import optimize

    # r solved by brentq on an integral from quad (epsrel 1e-10): r to about 1e-8, the
    # quadrature's accuracy, not rounding
    quad_atol = 1e-8
    lor = lambda w: 0.5 / (math.pi * (w * w + 0.25))  # gamma = 0.5: sqrt(1 - 1/K)
    for K in (1.01, 1.5, 3.0):
        got = kuramoto.self_consistent_order_parameter(K, lor)
        assert got == pytest.approx(math.sqrt(1 - 1 / K), abs=quad_atol)
    # uniform on [-1, 1]: with s = 1/(K r) <= 1, 1 = (K/2)(asin s + s sqrt(1 - s^2))
    uni = lambda w: 0.5 if abs(w) <= 1 else 0.0
    Kc = 4 / math.pi
    for K in (1.3, 2.0, 4.0):
        s = optimize.brentq(
            lambda s: K / 2 * (math.asin(s) + s * math.sqrt(1 - s * s)) - 1, 1e-12, 1.0
        )
        got = kuramoto.self_consistent_order_parameter(K, uni, breaks=(-1.0, 1.0))
        assert got == pytest.approx(1 / (K * s), abs=quad_atol)
    # r jumps to pi/4 at K_c (flat density): that limit, approached from 1e-9 above
    # K_c, to 1e-6 (a method band: the offset and the quadrature, not rounding)
    assert kuramoto.self_consistent_order_parameter(
        Kc * (1 + 1e-9), uni, breaks=(-1.0, 1.0)
    ) == pytest.approx(math.pi / 4, abs=1e-6)
    assert kuramoto.self_consistent_order_parameter(0.99 * Kc, uni) == 0.0
    gauss = lambda w: math.exp(-0.5 * w * w) / math.sqrt(2 * math.pi)
    assert kuramoto.self_consistent_order_parameter(1.5, gauss) == 0.0  # K_c = 1.596
    assert kuramoto.self_consistent_order_parameter(0.0, gauss) == 0.0
    with pytest.raises(ValueError, match="K must lie in"):
        kuramoto.self_consistent_order_parameter(-1.0, gauss)
    with pytest.raises(ValueError, match="density"):
        kuramoto.self_consistent_order_parameter(1.0, lambda w: 0.0)
