"""VonMisesReadout and LiftLinearReadout (issue 28 §4) against float64 loops written from
their equations, on the torus, the sphere, SO(3) and U(2); their reductions
(VonMises at its initial kappa = AlignmentReadout = PrototypeReadout on the torus)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.linalg import expm

from syncattn import group, nn, sphere

from ..helpers import assert_close


jax.config.update("jax_enable_x64", True)

T, K, V = 4, 3, 5
SPACES = [("torus", None), ("sphere", 3), ("so3", None), ("u2", None)]


def points_np(space, raw):
    """The prototypes from their parameters, in numpy: torus as they are, sphere unit,
    groups expm(skew(raw)) (scipy)."""
    raw = np.asarray(raw)
    if space == "torus":
        return raw
    if space == "sphere":
        return raw / np.linalg.norm(raw, axis=-1, keepdims=True)
    out = np.empty(raw.shape, np.complex128 if np.iscomplexobj(raw) else np.float64)
    for idx in np.ndindex(raw.shape[:-2]):
        M = raw[idx]
        out[idx] = expm((M - M.conj().T) / 2)
    return out


def inner_np(space, s, p):
    """<s, p> of one oscillator: cos(theta - phi), z.p, (1/n) Re tr(U^H P)."""
    if space == "torus":
        return np.cos(s - p)
    if space == "sphere":
        return float(np.dot(s, p))
    return float(np.real(np.trace(np.conj(s).T @ p))) / s.shape[0]


def lift_np(space, s):
    """The lift of one oscillator (its m ambient coordinates)."""
    if space == "torus":
        return np.array([np.cos(s), np.sin(s)])
    if space == "sphere":
        return np.asarray(s)
    s = np.asarray(s)
    return np.concatenate([s.real.ravel(), s.imag.ravel()]) if np.iscomplexobj(s) else s.ravel()


@pytest.fixture(params=SPACES, ids=[s for s, _ in SPACES])
def geometry(request):
    space, n = request.param
    key = jax.random.key(7)
    if space == "torus":
        x = jax.random.uniform(key, (T, K), minval=-4.0, maxval=4.0)
    elif space == "sphere":
        x = sphere.normalize(jax.random.normal(key, (T, K, n)))
    else:
        x = _group_states(space, key)
    return space, n, x


def _group_states(space, key):
    kind, n = group.parse_group(space)
    raw = jax.random.normal(key, (T, K, n, n))
    if kind == "u":
        raw = raw + 1j * jax.random.normal(jax.random.fold_in(key, 1), raw.shape)
    return group.expm(group.skew(raw))


def test_vonmises_matches_loop(geometry):
    space, n, x = geometry
    r = nn.VonMisesReadout(K, V, key=jax.random.key(1), space=space, n=n, scale=1.3)
    kappa = jax.random.uniform(jax.random.key(2), (V, K), minval=0.1, maxval=2.0)
    r = eqx_set(r, "kappa", kappa)
    P = points_np(space, r.prototypes)
    xs, ref = np.asarray(x), np.zeros((T, V))
    for t in range(T):
        for v in range(V):
            ref[t, v] = sum(float(kappa[v, j]) * inner_np(space, xs[t, j], P[v, j])
                            for j in range(K))
    assert_close(r(x), ref)


def test_lift_linear_matches_loop(geometry):
    space, n, x = geometry
    r = nn.LiftLinearReadout(K, V, key=jax.random.key(3), space=space, n=n)
    W, b = np.asarray(r.head.weight), np.asarray(r.head.bias)
    xs, ref = np.asarray(x), np.zeros((T, V))
    for t in range(T):
        lifts = [lift_np(space, xs[t, j]) for j in range(K)]  # (K, m)
        m = len(lifts[0])
        for v in range(V):  # coordinate-major: feature c k + j
            ref[t, v] = b[v] + sum(W[v, c * K + j] * lifts[j][c] for c in range(m) for j in range(K))
    assert_close(r(x), ref)


def test_vonmises_at_init_is_the_alignment_readout(geometry):
    space, n, x = geometry
    kw = dict(key=jax.random.key(4), space=space, n=n, scale=0.8)
    assert_close(nn.VonMisesReadout(K, V, **kw)(x), nn.AlignmentReadout(K, V, **kw)(x))
    if space == "torus":  # and seed 000's PrototypeReadout, with the same key
        ref = nn.PrototypeReadout(K, V, key=jax.random.key(4), scale=0.8)(x)
        assert_close(nn.VonMisesReadout(K, V, **kw)(x), ref)


@settings(max_examples=10, deadline=None)
@given(st.floats(-3.0, 3.0), st.integers(-2, 2))
def test_torus_readouts_are_2pi_periodic(shift, turns):
    th = jax.random.uniform(jax.random.key(5), (T, K), minval=-3.0, maxval=3.0) + shift
    for cls in (nn.VonMisesReadout, nn.LiftLinearReadout):
        r = cls(K, V, key=jax.random.key(6))
        assert_close(r(th + 2 * np.pi * turns), r(th), scale=100)


def test_bad_state_is_refused():
    r = nn.VonMisesReadout(K, V, key=jax.random.key(0), space="sphere", n=3)
    with pytest.raises(ValueError, match="unit sphere"):
        r(jnp.ones((T, K, 3)))
    with pytest.raises(ValueError, match="shape"):
        nn.LiftLinearReadout(K, V, key=jax.random.key(0), space="sphere", n=3)(jnp.ones((T, K, 4)))


def eqx_set(module, name, value):
    import equinox as eqx

    return eqx.tree_at(lambda m: getattr(m, name), module, value)
