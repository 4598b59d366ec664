"""lohe.settle(noise=): the noisy fixed-query flow (issue 19, section 1)."""

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import lohe, sphere

from ..helpers import assert_close


Z0 = sphere.sample_uniform(jax.random.key(0), (5,), 3)
H = jnp.array([1.0, 0.5, -0.2])


def test_zero_noise_is_the_ode_bit_for_bit():
    a = lohe.settle(Z0, H, 2.0, saveat=4)
    for kw in (dict(noise=0.0), dict(noise=0, key=jax.random.key(3))):
        b = lohe.settle(Z0, H, 2.0, saveat=4, **kw)
        assert np.array_equal(a.states, b.states)
        assert np.array_equal(a.final, b.final)


def test_same_key_same_path_eagerly_and_under_jit():
    run = lambda key: lohe.settle(Z0, H, 1.0, saveat=3, noise=0.4, key=key, dt0=0.05)
    a, b = run(jax.random.key(7)), run(jax.random.key(7))
    assert np.array_equal(a.states, b.states)
    assert_close(jax.jit(run)(jax.random.key(7)).states, a.states)
    assert not np.allclose(run(jax.random.key(8)).final, a.final)
    # every query its own path; unit norms at step times (retraction)
    assert not np.allclose(a.final[0], a.final[1])
    assert_close(np.linalg.norm(a.final, axis=-1), np.ones(5))
    assert int(a.num_steps) == 20  # ceil(t1 / dt0) constant steps


def test_noisy_settle_is_the_driver_sde_of_lohe_simulate_with_one_oscillator():
    """n = 1 oscillator listening to a fixed drive is not lohe.simulate's flow, so
    compare with an independent diffrax solve of the same SDE on the same path."""
    s, dt, t1 = 0.6, 2.0**-8, 1.0
    key = jax.random.key(11)
    z0 = jnp.array([0.0, 0.0, 1.0])
    bm = diffrax.VirtualBrownianTree(0.0, t1, tol=dt / 2, shape=(3,), key=key)
    P = lambda z: jnp.eye(3) - jnp.outer(z, z) / jnp.sum(z * z)
    terms = diffrax.MultiTerm(
        diffrax.ODETerm(lambda t, z, a: P(z) @ H),
        diffrax.ControlTerm(lambda t, z, a: s * P(z), bm),
    )
    want = diffrax.diffeqsolve(terms, diffrax.Heun(), 0.0, t1, dt, z0).ys[-1]
    got = lohe.settle(z0, H, t1, noise=s, key=key, dt0=dt).final
    # same scheme up to the retraction after each step (an O(dt) change of the norm)
    assert float(jnp.linalg.norm(got - want / jnp.linalg.norm(want))) < 2e-3


@pytest.mark.slow
def test_stationary_law_is_von_mises_fisher():
    """Many independent paths from uniform starts, final states against vMF(h_hat,
    kappa = 2|h|/sigma^2): E[z] = A_d h_hat and E[(h_hat.z)^2] = 1 - (d-1) A_d/kappa,
    within 4 standard errors (dt = 0.005: Heun's O(dt) weak bias ~0.01 < se 0.011)."""
    d, s, n = 3, 1.0, 2000
    h = jnp.array([1.2, 0.0, -0.9])  # |h| = 1.5, kappa = 3
    u = np.asarray(h) / 1.5
    z0 = sphere.sample_uniform(jax.random.key(1), (n,), d)
    z = np.asarray(lohe.settle(z0, h, 6.0, noise=s, key=jax.random.key(2), dt0=0.005).final)
    mean, second = (np.asarray(a) for a in lohe.vmf_moments(h, s))
    se = z.std(0) / np.sqrt(n)
    assert np.all(np.abs(z.mean(0) - mean) <= 4 * se), (z.mean(0), mean, se)
    c2 = (z @ u) ** 2
    assert abs(c2.mean() - u @ second @ u) <= 4 * c2.std() / np.sqrt(n)
    # the check can fail: a 30 % larger sigma's law is far outside the band
    wrong = np.asarray(lohe.vmf_moments(h, 1.3 * s)[0])
    assert np.any(np.abs(z.mean(0) - wrong) > 4 * se)


@pytest.mark.parametrize(
    "kw, err, match",
    [
        (dict(noise=-0.1, key=jax.random.key(0)), ValueError, "noise must lie in"),
        (dict(noise=float("nan"), key=jax.random.key(0)), ValueError, "noise must be finite"),
        (dict(noise=0.3), ValueError, "needs a PRNG key"),
        (dict(noise=0.3, key=3), TypeError, "key must be a PRNG key"),
        (dict(noise=0.3, key=jax.random.key(0), solver="euler"), ValueError, "Stratonovich"),
        (dict(noise=jnp.ones(2), key=jax.random.key(0)), ValueError, "scalar"),
        (dict(noise=0.3, key=jax.random.key(0), max_steps=10), ValueError, "max_steps"),
    ],
)
def test_bad_noise_arguments(kw, err, match):
    with pytest.raises(err, match=match):
        lohe.settle(Z0, H, 1.0, **kw)
