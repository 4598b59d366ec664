"""nn.SyncAttention (issue 41 §1): the one layer on any geometry. Built on a geometry
with the same key, it is the family class (Kuramoto, sphere, group) parameter for
parameter and output for output; its drift starts at the rotary rates written here from
the formula; a geometry with drift "none" has no omega; the family layers read `n`,
`drift` and `group` from their geometry (not stored twice); from_kuramoto (written
once) works on any geometry with one drift plane per oscillator."""

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import geometry, nn
from syncattn.nn._sync_attention import from_kuramoto

from ..helpers import assert_close


T, K, H = 4, 4, 2

# (the family layer, the same layer as SyncAttention on its geometry)
CASES = {
    "torus": (
        lambda key, **kw: nn.KuramotoAttention(K, H, key=key, **kw),
        geometry.Torus(),
    ),
    "torus-learned": (
        lambda key, **kw: nn.KuramotoAttention(K, H, key=key, value="learned", **kw),
        geometry.Torus(),
    ),
    "sphere3": (
        lambda key, **kw: nn.SphereAttention(K, 3, H, key=key, **kw),
        geometry.Sphere(3),
    ),
    "sphere4-full-learned": (
        lambda key, **kw: nn.SphereAttention(
            K, 4, H, key=key, drift="full", value="learned", **kw
        ),
        geometry.Sphere(4, "full"),
    ),
    "sphere3-none": (
        lambda key, **kw: nn.SphereAttention(K, 3, H, key=key, drift="none", **kw),
        geometry.Sphere(3, "none"),
    ),
    "so3": (
        lambda key, **kw: nn.GroupAttention(K, H, key=key, group="so3", **kw),
        geometry.Group("so", 3),
    ),
    "u2-full": (
        lambda key, **kw: nn.GroupAttention(
            K, H, key=key, group="u2", drift="full", **kw
        ),
        geometry.Group("u", 2, "full"),
    ),
}


def _generic(case, key, **kw):
    family, geo = CASES[case]
    value = "learned" if "learned" in case else "state"
    return family(key, **kw), nn.SyncAttention(geo, K, H, key=key, value=value, **kw)


def _leaves(layer):
    leaves = jax.tree_util.tree_flatten_with_path(eqx.filter(layer, eqx.is_array))[0]
    return {jax.tree_util.keystr(p): np.asarray(x) for p, x in leaves}


def _states(geo, key):
    dtype = jnp.complex128 if geo.complex else jnp.float64
    return geo.random(key, (T, K), dtype)


SLOW = ("sphere4-full-learned", "u2-full")  # the full generators' expm: seconds each


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c
        for c in sorted(CASES)
    ],
)
def test_the_generic_layer_is_the_family_layer(case, tmp_path):
    fam, gen = _generic(case, jax.random.key(3), tau=1.3, bound=0.7)
    assert isinstance(fam, nn.SyncAttention) and fam.geometry == gen.geometry
    a, b = _leaves(fam), _leaves(gen)
    assert list(a) == list(b)  # the parameter names, in the checkpoint's order
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    # a checkpoint of one loads into the other
    eqx.tree_serialise_leaves(tmp_path / "layer.eqx", fam)
    back = _leaves(eqx.tree_deserialise_leaves(tmp_path / "layer.eqx", gen))
    assert all(np.array_equal(back[name], a[name]) for name in a)
    s = _states(gen.geometry, jax.random.key(4))
    np.testing.assert_array_equal(np.asarray(fam(s)), np.asarray(gen(s)))


def _rope_rates(planes, base=10_000.0):
    """$r_{jp} = b^{-(P j' + p)/(P k_h)}$, $j'$ the oscillator's index in its head,
    written from the formula (numpy float64)."""
    kh = K // H
    r = np.empty((K, planes))
    for j in range(K):
        for p in range(planes):
            r[j, p] = base ** (-((j % kh) * planes + p) / (planes * kh))
    return r


def test_the_drift_starts_at_the_rotary_rates():
    key = jax.random.key(0)
    torus = nn.SyncAttention(geometry.Torus(), K, H, key=key)
    assert_close(torus.omega, _rope_rates(1)[:, 0], rtol=1e-12)
    sph = nn.SyncAttention(geometry.Sphere(5), K, H, key=key)  # 2 planes, e_4 fixed
    assert_close(sph.omega, _rope_rates(2), rtol=1e-12)
    u3 = nn.SyncAttention(geometry.Group("u", 3), K, H, key=key)  # a phase per row
    assert_close(u3.omega, _rope_rates(3), rtol=1e-12)
    full = nn.SyncAttention(geometry.Group("so", 4, "full"), K, H, key=key)
    r = _rope_rates(2)
    assert full.omega.shape == (K, 4, 4)
    assert_close(full.omega[:, 0, 1], r[:, 0], rtol=1e-12)
    assert_close(full.omega[:, 2, 3], r[:, 1], rtol=1e-12)
    assert_close(full.omega + jnp.swapaxes(full.omega, 1, 2), jnp.zeros((K, 4, 4)))
    for geo in (geometry.Torus(), geometry.Sphere(5), geometry.Group("so", 4, "full")):
        layer = nn.SyncAttention(geo, K, H, key=key)
        assert layer.omega.shape == geo.omega_shape(K)


@pytest.mark.parametrize(
    "geo", [geometry.Sphere(3, "none"), geometry.Group("so", 3, "none")]
)
def test_no_drift_gives_no_omega_and_time_invariant_scores(geo):
    layer = nn.SyncAttention(geo, K, H, key=jax.random.key(0))
    assert geo.drift_planes == 0 and layer.omega is None and layer.generator() is None
    # no position signal: the scores between two equal states do not depend on t - u
    s = jnp.broadcast_to(_states(geo, jax.random.key(1))[:1], (T, K, *geo.fiber))
    w = layer(s, diagnostics=True)[1]["weights"]  # (H, T, T), causal
    for t in range(T):
        assert_close(w[:, t, : t + 1], jnp.full((H, t + 1), 1.0 / (t + 1)))


def test_family_layers_read_their_facts_from_the_geometry():
    sph = nn.SphereAttention(K, 3, H, key=jax.random.key(0), drift="full")
    grp = nn.GroupAttention(K, H, key=jax.random.key(0), group="u2", drift="none")
    assert (sph.n, sph.drift) == (3, "full") == (sph.geometry.n, sph.geometry.drift)
    assert (grp.group, grp.n, grp.drift) == ("u2", 2, "none")
    for cls in (nn.SphereAttention, nn.GroupAttention, nn.KuramotoAttention):
        fields = {f.name for f in dataclasses.fields(cls)}
        assert not fields & {"n", "drift", "group"}, cls  # stored once: on the geometry


@pytest.mark.parametrize("value", ["phase", "learned"])
def test_from_kuramoto_on_the_generic_layer(value):
    """`from_kuramoto` with SyncAttention on Sphere(2) and on U(1): the Kuramoto layer
    on the lifted phases (the angles of the outputs agree to 1e-12)."""
    Lt = nn.KuramotoAttention(K, H, key=jax.random.key(2), value=value, tau=1.4)
    th = jax.random.uniform(jax.random.key(5), (T, K), minval=-4.0, maxval=4.0)
    want = np.exp(1j * np.asarray(Lt(th)))
    s2 = from_kuramoto(
        Lt, lambda **kw: nn.SyncAttention(geometry.Sphere(2), K, H, **kw)
    )
    z = s2(jnp.stack([jnp.cos(th), jnp.sin(th)], -1))
    u1 = from_kuramoto(
        Lt, lambda **kw: nn.SyncAttention(geometry.Group("u", 1), K, H, **kw)
    )
    U = u1(jnp.exp(1j * th)[..., None, None])
    assert_close(np.asarray(z[..., 0] + 1j * z[..., 1]), want, atol=1e-12)
    assert_close(np.asarray(U[..., 0, 0]), want, atol=1e-12)
    assert s2.value == u1.value == ("state" if value == "phase" else "learned")


def test_bad_geometry_and_value():
    with pytest.raises(
        TypeError, match="geometry must be a syncattn.geometry.Geometry"
    ):
        nn.SyncAttention("so3", K, H, key=jax.random.key(0))
    with pytest.raises(ValueError, match="value"):  # the torus layer's name only
        nn.SyncAttention(geometry.Torus(), K, H, key=jax.random.key(0), value="phase")
    Lt = nn.KuramotoAttention(K, H, key=jax.random.key(0))
    with pytest.raises(ValueError, match="one drift plane per oscillator"):
        from_kuramoto(Lt, lambda **kw: nn.SyncAttention(geometry.Sphere(4), K, H, **kw))


@pytest.mark.parametrize("case", ["torus-learned", "sphere3", "so3"])
def test_float32_kernel_takes_the_lift_as_it_lies(case, monkeypatch):
    # float32 on CPU: the fused kernel reads the coordinate-major lift (T, m, H, k_h)
    # without transposing it; switched off, the same layer transposes to heads and takes
    # the pure-XLA attention: the two agree (output, diagnostics, gradient)
    from syncattn._kernels import _library, kernel_enabled

    if not kernel_enabled(jnp.float32):
        pytest.skip("the CPU attention kernel is unavailable")
    _, layer = _generic(case, jax.random.key(5))
    geo = layer.geometry
    s = geo.random(jax.random.key(6), (9, K), jnp.complex64 if geo.complex else jnp.float32)
    layer = jax.tree.map(lambda x: x.astype(jnp.float32) if eqx.is_inexact_array(x)
                         and not jnp.iscomplexobj(x) else x, layer)

    def run():
        y, aux = layer(s, diagnostics=True)
        g = jax.grad(lambda st: jnp.sum(jnp.abs(layer(st)) ** 2).real)(s)
        return y, aux["weights"], g

    on = run()
    monkeypatch.setenv(_library.ENV, "0")
    off = run()
    for a, b in zip(on, off, strict=True):
        assert_close(a, b, scale=50)
