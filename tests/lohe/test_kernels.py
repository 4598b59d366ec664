"""lohe's attention kernels, fused products and fixed-query integrator against independent computations."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import lohe, sphere

from ..helpers import assert_close


def _np_sigma(q, k, kind):
    """float64 loop over (i, j): the four couplings written out."""
    dh = q.shape[-1]
    out = np.zeros((q.shape[0], k.shape[0]))
    for i in range(q.shape[0]):
        for j in range(k.shape[0]):
            s = float(q[i] @ k[j]) / math.sqrt(dh)
            if kind == "softplus":
                out[i, j] = math.log1p(math.exp(s))
            elif kind == "relu":
                out[i, j] = max(s, 0.0) + 1e-3
            elif kind == "elu1":
                out[i, j] = s + 1.0 if s > 0 else math.exp(s)
            else:
                phi = lambda x: np.where(x > 0, x + 1.0, np.exp(x))  # noqa: E731
                out[i, j] = float(phi(q[i]) @ phi(k[j])) / dh
    return out


@pytest.mark.parametrize("kind", lohe.COUPLINGS)
def test_coupling_weights_match_loop(kind):
    g = np.random.default_rng(0)
    q, k = g.normal(size=(4, 5)), g.normal(size=(6, 5))
    assert_close(lohe.coupling_weights(q, k, kind=kind), _np_sigma(q, k, kind))
    e, F, G = g.normal(size=(6, 7)), g.normal(size=(5, 7)), g.normal(size=(5, 7))
    assert_close(
        lohe.fixed_query_weights(e, F, G, kind=kind), _np_sigma(e @ F.T, e @ G.T, kind)
    )


def test_elu1_is_not_the_feature_kernel():
    """The published elu(q.k/sqrt(d_h)) + 1 and the kernel differ (issue 15)."""
    g = np.random.default_rng(1)
    q, k = g.normal(size=(8, 16)), g.normal(size=(8, 16))
    a = np.asarray(lohe.coupling_weights(q, k, kind="elu1"))
    b = np.asarray(lohe.coupling_weights(q, k, kind="elu1_features"))
    assert np.max(np.abs(a - b) / a) > 0.3


def test_coupling_errors():
    with pytest.raises(ValueError, match="kind"):
        lohe.coupling_weights(jnp.ones((2, 3)), jnp.ones((2, 3)), kind="elu")
    with pytest.raises(ValueError, match="d_h"):
        lohe.coupling_weights(jnp.ones((2, 3)), jnp.ones((2, 4)))
    with pytest.raises(ValueError, match="finite"):
        lohe.coupling_weights(jnp.full((2, 3), jnp.nan), jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="integer"):
        lohe.readout_features(jnp.ones(3), 1.5)


def test_feature_maps_closed_form():
    x = jnp.array([-1.0, 0.0, 2.0])
    assert_close(lohe.elu1_feature_map(x), [math.exp(-1.0), 1.0, 3.0])
    assert_close(lohe.readout_features(jnp.array([2.0]), 2), [1.0, 2.0, 2.0, 4.0])
    g = np.random.default_rng(2)
    z, r = g.normal(size=(3, 4)), g.normal(size=(5, 4))
    for p in (1, 2, 3):
        got = np.asarray(lohe.readout_features(z, p)) @ np.asarray(lohe.readout_features(r, p)).T
        assert_close(got, (1 + z @ r.T) ** p)


def test_readout_kernel_and_normalisation_loop():
    g = np.random.default_rng(3)
    z = g.normal(size=(2, 4, 3))
    r = g.normal(size=(2, 5, 3)) * 1.5
    mask = g.random((4, 5)) < 0.7
    u = np.asarray(lohe.readout_kernel(z, r, p=2.5, mask=mask))
    for b in range(2):
        for i in range(4):
            for j in range(5):
                base = 1.0 + z[b, i] @ r[b, j]
                want = max(0.0, base) ** 2.5 if mask[i, j] else 0.0
                assert u[b, i, j] == pytest.approx(want, rel=1e-12, abs=1e-300)
    # gradients finite where the base is exactly 0 (z = -r)
    zz = jnp.array([[1.0, 0.0]])
    rr = jnp.array([[-1.0, 0.0], [0.0, 1.0]])
    gr = jax.grad(lambda z: jnp.sum(lohe.readout_kernel(z, rr, p=1.5)))(zz)
    assert np.all(np.isfinite(np.asarray(gr)))
    num, den = np.ones((3, 2)), np.array([[2.0], [0.0], [4.0]])
    fb = np.full((3, 2), 7.0)
    assert_close(lohe.normalize_readout(num, den, fb), [[0.5, 0.5], [7.0, 7.0], [0.25, 0.25]])


@pytest.mark.parametrize("kind", lohe.COUPLINGS)
def test_masked_drive_is_drive_of_masked_couplings_with_gradients(kind):
    g = np.random.default_rng(4)
    q, k, r = g.normal(size=(2, 5, 4)), g.normal(size=(2, 5, 4)), g.normal(size=(2, 5, 3))
    mask = jnp.asarray(np.tril(np.ones((5, 5), bool)) & (np.arange(5) != 1))[None]

    def plain(q, k, r):
        return lohe.drive(jnp.where(mask, lohe.coupling_weights(q, k, kind=kind), 0.0), r)

    def fused(q, k, r):
        return lohe.masked_drive(q, k, r, mask=mask, kind=kind)

    assert_close(fused(q, k, r), plain(q, k, r), rtol=1e-13, atol=1e-13)
    c = g.normal(size=(2, 5, 3))
    g1 = jax.grad(lambda *a: jnp.sum(fused(*a) * c), argnums=(0, 1, 2))(q, k, r)
    g2 = jax.grad(lambda *a: jnp.sum(plain(*a) * c), argnums=(0, 1, 2))(q, k, r)
    for a, b in zip(g1, g2, strict=True):
        assert_close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("p", [1, 2.5])
def test_readout_sums_are_kernel_products_with_gradients(p):
    g = np.random.default_rng(5)
    z, r, v = g.normal(size=(2, 5, 3)) * 0.5, g.normal(size=(2, 6, 3)), g.normal(size=(2, 6, 4))
    mask = jnp.asarray(g.random((5, 6)) < 0.7)[None]

    def plain(z, r, v):
        u = lohe.readout_kernel(z, r, p=p, mask=mask)
        return u @ v, jnp.sum(u, -1, keepdims=True)

    def fused(z, r, v):
        return lohe.readout_sums(z, r, v, mask=mask, p=p)

    for a, b in zip(fused(z, r, v), plain(z, r, v), strict=True):
        assert_close(a, b, rtol=1e-13, atol=1e-13)
    c1, c2 = g.normal(size=(2, 5, 4)), g.normal(size=(2, 5, 1))

    def loss(f):
        return lambda *a: jnp.sum(f(*a)[0] * c1) + jnp.sum(f(*a)[1] * c2)

    g1 = jax.grad(loss(fused), argnums=(0, 1, 2))(z, r, v)
    g2 = jax.grad(loss(plain), argnums=(0, 1, 2))(z, r, v)
    for a, b in zip(g1, g2, strict=True):
        assert_close(a, b, rtol=1e-12, atol=1e-12)


def _closed_form_z(z0, h, t):
    """z(t) in the plane of z0 and h: angle exact_angle, direction of P_h z0."""
    nh = jnp.linalg.norm(h, axis=-1, keepdims=True)
    hh = h / nh
    c = jnp.sum(z0 * hh, -1, keepdims=True)
    e = z0 - c * hh
    e = e / jnp.linalg.norm(e, axis=-1, keepdims=True)
    phi0 = jnp.arctan2(jnp.linalg.norm(z0 - c * hh, axis=-1), c[..., 0])
    phi = 2 * jnp.arctan(jnp.tan(phi0 / 2) * jnp.exp(-nh[..., 0] * t))
    return jnp.cos(phi)[..., None] * hh + jnp.sin(phi)[..., None] * e


def test_settle_is_the_closed_form_batched_jit_and_grad():
    g = np.random.default_rng(6)
    z0 = sphere.sample_uniform(jax.random.key(0), (2, 3), 4)
    h = jnp.asarray(g.normal(size=(2, 3, 4)))
    sol = lohe.settle(z0, h, 1.3, saveat=4, rtol=1e-11, atol=1e-13)
    assert sol.states.shape == (4, 2, 3, 4) and sol.r.shape == (4, 2, 3)
    assert_close(sol.final, _closed_form_z(z0, h, 1.3), rtol=0, atol=1e-9)
    assert_close(sol.states[0], z0, rtol=0, atol=1e-15)
    assert_close(sol.r, np.ones((4, 2, 3)), rtol=0, atol=1e-9)
    f = jax.jit(lambda z0, h: lohe.settle(z0, h, 1.3, rtol=1e-11, atol=1e-13).final)
    assert_close(f(z0, h), sol.final, rtol=0, atol=1e-12)
    c = jnp.asarray(g.normal(size=(2, 3, 4)))
    g_num = jax.grad(lambda h: jnp.sum(f(z0, h) * c))(h)
    g_exact = jax.grad(lambda h: jnp.sum(_closed_form_z(z0, h, 1.3) * c))(h)
    assert_close(g_num, g_exact, rtol=0, atol=1e-7)
    # a zero drive does not move z
    assert_close(lohe.settle(z0, jnp.zeros_like(h), 5.0).final, z0, rtol=0, atol=1e-15)


def test_settle_time_is_time_to_converge():
    g = np.random.default_rng(7)
    z0 = sphere.sample_uniform(jax.random.key(1), (6,), 3)
    h = jnp.asarray(g.normal(size=(6, 3))) * jnp.asarray([0.05, 1, 1, 2, 2, 3])[:, None]
    tau, z, steps = lohe.settle_time(z0, h, 0.2, 4.0, rtol=1e-11, atol=1e-13)
    nh = np.linalg.norm(np.asarray(h), axis=-1)
    hh = np.asarray(h) / nh[:, None]
    c = np.sum(np.asarray(z0) * hh, -1)
    phi0 = np.arctan2(np.linalg.norm(np.asarray(z0) - c[:, None] * hh, axis=-1), c)
    want = np.asarray(lohe.time_to_converge(phi0, nh, 0.2))
    want = np.where(want <= 4.0, want, np.inf)
    assert np.isinf(want[0])  # |h| = 0.05: not within 4 time units
    np.testing.assert_array_equal(np.isinf(np.asarray(tau)), np.isinf(want))
    fin = np.isfinite(want)
    assert_close(np.asarray(tau)[fin], want[fin], rtol=1e-7)
    assert steps.shape == (6,) and np.all(np.asarray(steps) > 0)


def test_settle_errors():
    z0 = jnp.array([[1.0, 0.0]])
    with pytest.raises(ValueError, match="unit sphere"):
        lohe.settle(2 * z0, z0, 1.0)
    with pytest.raises(ValueError, match="broadcast"):
        lohe.settle(z0, jnp.ones((2, 3)), 1.0)
    with pytest.raises(ValueError, match="t1"):
        lohe.settle(z0, z0, -1.0)
    with pytest.raises(ValueError, match="delta"):
        lohe.settle_time(z0, z0, 4.0, 1.0)
