"""Value checks and degenerate inputs: the same outcome eagerly and under jax.jit.

Policy (syncattn._checks): parameter range checks raise eagerly (ValueError) and,
under jit, fail at run time through eqx.error_if with the same message; degenerate
but legal inputs have one documented finite result, identical both ways.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import entropic, kuramoto, lohe, sphere, torus

from .helpers import assert_close


RANGE_CASES = [
    (lambda x: lohe.exact_angle(x, 1.0, 1.0), 4.0, "phi0"),
    (lambda x: lohe.time_to_converge(1.0, x, 0.1), -1.0, "norm_h"),
    (lambda x: lohe.finite_time_failure_probability(1.0, 1.0, x, 3), 0.0, "delta"),
    (lambda x: kuramoto.ott_antonsen(x, 2.0, 0.5, 1.0), 1.5, "r0"),
    (lambda x: kuramoto.lorentzian_order_parameter(x, 0.5), -1.0, "K"),
    (lambda x: kuramoto.critical_coupling(x), jnp.nan, "g0"),
    (lambda x: lohe.equilibrium(jnp.ones(3), tol=x)[0], -1.0, "tol"),
    (lambda x: lohe.finite_time_threshold(x, 0.1), -1.0, "norm_h"),
    (lambda x: lohe.finite_time_threshold(1.0, x), 4.0, "delta"),
    (lambda x: lohe.predict_convergence(jnp.ones(2), 3, x)["converged"], -1.0, "T"),
]


@pytest.mark.parametrize("f, bad, name", RANGE_CASES)
def test_range_checks_raise_eagerly_and_under_jit(f, bad, name):
    with pytest.raises(ValueError, match=f"{name} must"):
        f(jnp.asarray(bad))
    with pytest.raises(Exception, match=f"{name} must be finite and lie in"):
        jax.block_until_ready(jax.jit(f)(jnp.asarray(bad)))


@pytest.mark.parametrize("f, bad, name", RANGE_CASES)
def test_range_checks_pass_good_values_under_jit(f, bad, name):
    good = {"phi0": 1.0, "norm_h": 1.0, "delta": 0.5, "r0": 0.5, "K": 1.0, "g0": 0.3, "tol": 0.1, "T": 5.0}
    x = jnp.asarray(good[name])
    assert_close(jax.jit(f)(x), f(x))


DEGENERATE = [
    ("equilibrium of h = 0", lambda h: lohe.equilibrium(h)[0], (jnp.zeros(3),), np.eye(3)[0]),
    ("normalize(0)", sphere.normalize, (jnp.zeros(3),), np.zeros(3)),
    ("exp_map(x, 0)", sphere.exp_map, (jnp.eye(3)[1], jnp.zeros(3)), np.eye(3)[1]),
    ("circular mean of opposite phases", torus.circular_mean, (jnp.array([0.0, np.pi]),), 0.0),
    ("antipodal start never converges", lambda p: lohe.time_to_converge(p, 1.0, 0.1), (jnp.pi,), np.inf),
    ("zero drive: angle frozen", lambda p: lohe.exact_angle(p, 0.0, 5.0), (1.2,), 1.2),
    ("zero attention weights", kuramoto.coupling_term, (jnp.ones((2, 3)), jnp.zeros((4, 3)), jnp.zeros((2, 4))), np.zeros((2, 3))),
    ("zero phasor", kuramoto.tangent_update, (jnp.ones(3), jnp.zeros(3, complex)), np.zeros(3)),
    ("zero field", entropic.local_coherence, (jnp.ones(3), jnp.zeros(3, complex)), np.zeros(3)),
    (
        "fully masked readout row",
        lambda z, m: lohe.readout(z, jnp.eye(2), mask=m),
        (jnp.eye(2), jnp.array([[False, False], [True, True]])),
        np.array([[0.0, 0.0], [1 / 3, 2 / 3]]),  # row 2: (1 + 0, 1 + 1) / 3
    ),
]


@pytest.mark.parametrize("label, f, args, want", DEGENERATE, ids=[d[0] for d in DEGENERATE])
def test_degenerate_inputs_same_finite_result_eager_and_jit(label, f, args, want):
    eager = f(*args)
    jitted = jax.jit(f)(*args)
    assert_close(eager, want)
    assert_close(jitted, eager)
