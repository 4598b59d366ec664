"""The fused CPU pair-map kernel (syncattn._kernels.pair_map) against its XLA composition.

`xla_pair_map` against a float64 double loop (the independent computation); the kernel's
outputs and gradients against `xla_pair_map` (float32 tolerance) over kinds, exponents,
causal or not, shapes that fill no block evenly (hypothesis in the slow run), under jit
and vmap with an unbatched argument; bit-identical run to run; float64 and the switch
(``SYNCATTN_ATTENTION_KERNEL=0``) take the composition. `lohe.masked_drive`,
`lohe.readout_sums` and the oscillator layer take the kernel in float32 on the CPU and
equal their pure-XLA paths.
"""

import math

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

from syncattn import _kernels, lohe, nn
from syncattn._kernels import _library, pair_map, xla_pair_map

from ..helpers import assert_close


pytestmark = pytest.mark.skipif(
    not _kernels.kernel_enabled(jnp.float32),
    reason=f"the CPU kernels are unavailable: {_kernels.status()['error']}",
)


def _inputs(seed, batch, n, m, d, f, dtype=jnp.float32):
    ks = jax.random.split(jax.random.key(seed), 4)
    a = 0.6 * jax.random.normal(ks[0], (*batch, n, d), dtype)
    b = 0.6 * jax.random.normal(ks[1], (*batch, m, d), dtype)
    c = jax.random.normal(ks[2], (*batch, m, f), dtype)
    g = jax.random.normal(ks[3], (*batch, n, f), dtype)
    return a, b, c, g


def _loop(a, b, c, kind, scale, p, causal):
    """out_i = sum_{j (<= i)} phi(a_i . b_j) c_j, one pair at a time, float64."""
    a, b, c = (np.asarray(x, np.float64) for x in (a, b, c))
    out = np.zeros(a.shape[:-1] + c.shape[-1:])
    for idx in np.ndindex(a.shape[:-2]):
        for i in range(a.shape[-2]):
            for j in range(b.shape[-2]):
                if causal and j > i:
                    continue
                s = float(a[idx][i] @ b[idx][j])
                if kind == "softplus":
                    w = math.log1p(math.exp(-abs(scale * s))) + max(scale * s, 0.0)
                else:
                    w = max(0.0, 1.0 + s) ** p
                out[idx][i] += w * c[idx][j]
    return out


@pytest.mark.parametrize(
    "kind, scale, p, causal", [("softplus", 0.3, 1, True), ("power", 1.0, 2, False)]
)
def test_xla_pair_map_is_the_double_sum(kind, scale, p, causal):
    a, b, c, _ = _inputs(0, (2,), 7, 7, 3, 4, jnp.float64)
    got = xla_pair_map(a, b, c, kind=kind, scale=scale, p=p, causal=causal)
    assert_close(got, _loop(a, b, c, kind, scale, p, causal))


def _check(seed, batch, n, m, d, f, kind, p, causal):
    a, b, c, g = _inputs(seed, batch, n, m, d, f)
    kw = dict(kind=kind, scale=1 / math.sqrt(d), p=p, causal=causal)
    out, vjp = jax.vjp(lambda *x: pair_map(*x, **kw), a, b, c)
    want, want_vjp = jax.vjp(lambda *x: xla_pair_map(*x, **kw), a, b, c)
    assert_close(out, want, scale=20)
    for got, exp in zip(vjp(g), want_vjp(g)):
        assert_close(got, exp, scale=40)


@pytest.mark.parametrize(
    "batch, n, m, d, f, kind, p, causal",
    [
        ((2, 3), 256, 256, 32, 8, "softplus", 1, True),  # the oscillator's drive at 1m
        ((4,), 70, 70, 8, 33, "power", 1, True),  # its readout sums
        ((), 37, 37, 5, 17, "power", 3, True),
        ((2,), 9, 40, 3, 1, "softplus", 1, False),
        ((1,), 33, 5, 1, 2, "power", 2, False),
        ((2,), 45, 20, 4, 3, "softplus", 1, True),  # fewer keys than queries
    ],
)
def test_equals_xla(batch, n, m, d, f, kind, p, causal):
    _check(0, batch, n, m, d, f, kind, p, causal)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    batch=st.sampled_from([(), (1,), (3,), (2, 2)]),
    n=st.integers(1, 90),
    m=st.integers(1, 90),
    d=st.integers(1, 40),
    f=st.integers(1, 40),
    kind=st.sampled_from(["softplus", "power"]),
    p=st.integers(1, 3),
    causal=st.booleans(),
)
def test_equals_xla_outputs_and_gradients(seed, batch, n, m, d, f, kind, p, causal):
    _check(seed, batch, n, m, d, f, kind, p, causal)


def test_jit_of_vmap_with_an_unbatched_argument():
    """As the oscillator layer calls it: one sequence's heads, vmapped over the batch,
    the anchors shared (unbatched: broadcast, their gradient summed)."""
    a, b, _, _ = _inputs(1, (5, 4), 64, 64, 32, 8)
    c = jax.random.normal(jax.random.key(9), (4, 64, 8), jnp.float32)

    def loss(fn):
        def total(a, b, c_):
            per_row = lambda a, b: fn(a, b, c_, kind="softplus", scale=0.2, causal=True)  # noqa: E731
            return jnp.sum(jnp.sin(jax.vmap(per_row)(a, b)))

        return jax.jit(jax.value_and_grad(total, (0, 1, 2))), total

    fused, total = loss(pair_map)
    assert "syncattn_pair_forward" in str(jax.make_jaxpr(total)(a, b, c))
    (val, grads), (want, want_grads) = fused(a, b, c), loss(xla_pair_map)[0](a, b, c)
    assert_close(val, want, scale=20)
    for got, exp in zip(grads, want_grads):
        assert got.shape == exp.shape
        assert_close(got, exp, scale=40, atol=1e-4 * float(jnp.max(jnp.abs(exp))))


@pytest.mark.parametrize("kind", ["softplus", "power"])
def test_causal_rows_ignore_the_future(kind):
    """Perturbing the keys and values after row t0 leaves rows 0..t0 bit for bit."""
    a, b, c, _ = _inputs(6, (2,), 70, 70, 8, 5)
    t0 = 40
    noise = jax.random.normal(jax.random.key(7), b.shape, jnp.float32)
    b2 = b.at[:, t0 + 1:].add(noise[:, t0 + 1:])
    c2 = c.at[:, t0 + 1:].add(3.0)
    kw = dict(kind=kind, scale=0.3, p=2, causal=True)
    y, y2 = pair_map(a, b, c, **kw), pair_map(a, b2, c2, **kw)
    assert np.array_equal(np.asarray(y[:, : t0 + 1]), np.asarray(y2[:, : t0 + 1]))
    assert not np.allclose(np.asarray(y[:, t0 + 1:]), np.asarray(y2[:, t0 + 1:]))


def test_bit_stable_run_to_run():
    a, b, c, g = _inputs(2, (8,), 130, 130, 16, 9)
    f = jax.jit(lambda *x: jax.vjp(
        lambda *y: pair_map(*y, kind="softplus", scale=0.25, causal=True), *x)[1](g))
    first = [np.asarray(x) for x in f(a, b, c)]
    for _ in range(3):
        assert all(np.array_equal(x, np.asarray(y)) for x, y in zip(first, f(a, b, c)))


def test_float64_and_switched_off_take_the_composition(monkeypatch):
    a, b, c, _ = _inputs(3, (2,), 20, 20, 4, 4)
    kw = dict(kind="power", p=2, causal=True)
    as64 = [x.astype(jnp.float64) for x in (a, b, c)]
    assert "syncattn_pair" not in str(jax.make_jaxpr(lambda *x: pair_map(*x, **kw))(*as64))
    assert "syncattn_pair_forward" in str(jax.make_jaxpr(lambda *x: pair_map(*x, **kw))(a, b, c))
    y = pair_map(a, b, c, **kw)
    monkeypatch.setenv(_library.ENV, "0")
    jaxpr = str(jax.make_jaxpr(lambda *x: pair_map(*x, **kw))(a, b, c))
    assert "syncattn_pair" not in jaxpr
    assert_close(y, pair_map(a, b, c, **kw), scale=20)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(kind="relu"), "kind"),
        (dict(kind="power", p=0), "p must"),
        (dict(kind="power", p=1.5), "p must"),
    ],
)
def test_bad_arguments_are_named(kw, match):
    a, b, c, _ = _inputs(4, (), 5, 5, 2, 2)
    with pytest.raises(ValueError, match=match):
        pair_map(a, b, c, **kw)
    with pytest.raises(ValueError, match="must agree"):
        pair_map(a, b[:, :1], c, kind="power")


def test_lohe_maps_take_the_kernel_and_equal_their_xla_paths(monkeypatch):
    """`masked_drive` (softplus) and `readout_sums` without a mask: the kernel in float32,
    equal to their blocked XLA paths (the kernel switched off)."""
    q, k, _, _ = _inputs(5, (4,), 100, 100, 32, 1)
    r = jax.random.normal(jax.random.key(6), (4, 100, 8), jnp.float32)
    z = r[:, ::-1] / 3.0
    v = q[..., :12]

    def both():
        h = jax.jit(lambda q, k, r: lohe.masked_drive(q, k, r, causal=True))
        nd = jax.jit(lambda z, r, v: lohe.readout_sums(z, r, v, p=2, causal=True))
        return h, nd

    h, nd = both()
    assert "syncattn_pair_forward" in str(jax.make_jaxpr(h)(q, k, r))
    assert "syncattn_pair_forward" in str(jax.make_jaxpr(nd)(z, r, v))
    got = (h(q, k, r), *nd(z, r, v))
    monkeypatch.setenv(_library.ENV, "0")
    h, nd = both()
    assert "syncattn_pair" not in str(jax.make_jaxpr(h)(q, k, r))
    for x, y in zip(got, (h(q, k, r), *nd(z, r, v))):
        assert_close(x, y, scale=20)


def test_oscillator_layer_equals_its_xla_path(monkeypatch):
    """The oscillator layer at float32, value and parameter gradient, kernel on and off."""
    import equinox as eqx

    layer = nn.OscillatorAttention(32, 4, 8, 80, key=jax.random.key(0))
    layer = jax.tree.map(lambda x: x.astype(jnp.float32) if eqx.is_inexact_array(x) else x, layer)
    x = jax.random.normal(jax.random.key(1), (3, 80, 32), jnp.float32)

    def run():
        f = eqx.filter_jit(eqx.filter_value_and_grad(
            lambda m: jnp.sum(jnp.tanh(jax.vmap(m)(x)))))
        return f(layer)

    assert "syncattn_pair_forward" in str(jax.make_jaxpr(jax.vmap(layer))(x))
    val, grads = run()
    # left padding: the drive goes by XLA with its mask, the readout (unmasked) by the kernel
    pad = jnp.broadcast_to(jnp.arange(80) >= 10, (3, 80))
    padded = jax.jit(jax.vmap(lambda x, m: layer(x, mask=m)))(x, pad)
    monkeypatch.setenv(_library.ENV, "0")
    assert "syncattn_pair" not in str(jax.make_jaxpr(jax.vmap(layer))(x))
    want, want_grads = run()
    assert_close(padded, jax.jit(jax.vmap(lambda x, m: layer(x, mask=m)))(x, pad), scale=50)
    assert_close(val, want, scale=50)
    for g, w in zip(jax.tree.leaves(grads), jax.tree.leaves(want_grads)):
        assert_close(g, w, scale=200, atol=1e-5 * float(jnp.max(jnp.abs(w)) + 1e-30))
