"""OscillatorAttention against a naive float64 loop; paths agree; causality, degeneracy, dtypes, errors."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import lohe, nn

from ..helpers import assert_close
from . import reference


T, D, H, DOSC, MAXLEN = 11, 12, 3, 3, 16


def layer(**kw):
    kw = {"key": jax.random.key(2), **kw}
    return nn.OscillatorAttention(D, H, kw.pop("d_osc", DOSC), MAXLEN, **kw)


def tokens(seed=0, shape=(T, D)):
    return jax.random.normal(jax.random.key(seed), shape)


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(coupling="relu", p=2),
        dict(coupling="elu1_features", p=1.5, causal=False),
        dict(anchors="content"),
        dict(normalize_anchors=False),
        dict(d_osc=2, p=4),
    ],
    ids=[
        "softplus",
        "relu-p2",
        "elu1-bidir",
        "content",
        "published-anchors",
        "dosc2-p4",
    ],
)
def test_matches_naive_loop_float64(kw):
    L, x = layer(**kw), tokens()
    if (
        not L.normalize_anchors
    ):  # weight decay shrinks the published anchors: make some short
        L = eqx.tree_at(
            lambda m: m.anchor_table,
            L,
            L.anchor_table * jnp.linspace(0.2, 1.5, MAXLEN)[None, :, None],
        )
    y, aux = L(x, diagnostics=True)
    want, ref = reference.oscillator_attention(L, x)
    assert_close(y, want)
    for name in ("couplings", "weights", "z", "anchors"):
        assert_close(aux[name], ref[name])
    assert_close(L(x), y, rtol=0, atol=0)  # diagnostics do not change the output


def test_diagnostics_shapes_and_invariants():
    L, x = layer(), tokens(1)
    _, aux = L(x, diagnostics=True)
    for name in ("couplings", "weights"):
        assert aux[name].shape == (H, T, T)
    for name in ("anchors", "h", "z"):
        assert aux[name].shape == (H, T, DOSC)
    assert aux["degenerate"].shape == (H, T) and aux["degenerate"].dtype == jnp.bool_
    h, z = np.asarray(aux["h"]), np.asarray(aux["z"])
    assert_close(z, h / np.linalg.norm(h, axis=-1, keepdims=True))
    assert_close(np.asarray(aux["weights"]).sum(-1), np.ones((H, T)))
    assert np.all(np.triu(np.asarray(aux["couplings"]), 1) == 0)
    assert np.all(np.triu(np.asarray(aux["weights"]), 1) == 0)
    assert_close(np.linalg.norm(np.asarray(aux["anchors"]), axis=-1), np.ones((H, T)))


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("p", [1, 2])
def test_linear_and_chunked_equal_quadratic(causal, p):
    x = tokens(2)
    base = dict(coupling="elu1_features", p=p, causal=causal, chunk=4)
    want, aux = layer(**base)(x, diagnostics=True)
    for impl in ("linear", "chunked"):
        y, aux2 = layer(impl=impl, **base)(x, diagnostics=True)
        assert_close(y, want)
        for name in ("h", "z", "weights", "couplings"):
            assert_close(aux2[name], aux[name])


@pytest.mark.parametrize("coupling", ["softplus", "relu"])
def test_chunked_softplus_equals_quadratic(coupling):
    x = tokens(3)
    want = layer(coupling=coupling, p=2.5)(x)
    assert_close(layer(coupling=coupling, p=2.5, impl="chunked", chunk=3)(x), want)
    assert_close(layer(coupling=coupling, p=2.5, impl="chunked", chunk=64)(x), want)


def test_ode_unit_flow_agrees_with_closed_form():
    """ode_flow="unit" (dz/dt = P_z h/|h|) reaches h/|h| to e^-40 by t1 = 40."""
    x = tokens(4)
    _, aux = layer()(x, diagnostics=True)
    L = layer(equilibrium="ode", ode_flow="unit", ode_t1=40.0, ode_rtol=1e-10, ode_atol=1e-12)
    y, aux2 = eqx.filter_jit(lambda m, x, k: m(x, key=k, diagnostics=True))(
        L, x, jax.random.key(7)
    )
    assert_close(aux2["z"], aux["z"], rtol=0, atol=1e-8)
    assert_close(y, layer()(x), rtol=0, atol=1e-8)


def _angle(z, h):
    """Angle between z and h, via atan2 (accurate near 0 and pi)."""
    hh = h / np.linalg.norm(h, axis=-1, keepdims=True)
    c = np.sum(z * hh, -1)
    s = np.linalg.norm(z - c[..., None] * hh, axis=-1)
    return np.arctan2(s, c)


def test_ode_paper_flow_is_the_exact_angle_law_and_fails_below_threshold():
    """The default ODE integrates dz/dt = (I - zz^T) h to the paper's T: per query the
    angle is exact_angle(angle(z0, h), |h|, T), and short drives stay unconverged
    exactly where statement 12 puts them (phi0 > phi_c, tan(phi_c/2) = tan(delta/2) e^{|h|T})."""
    x = tokens(4)
    T1, delta = 4.0, 0.1
    L = layer(
        equilibrium="ode", ode_t1=T1, ode_rtol=1e-11, ode_atol=1e-13, normalize_anchors=False
    )
    # raw anchors: head 0 short (small |h|), head 2 long
    L = eqx.tree_at(
        lambda m: m.anchor_table, L, L.anchor_table * jnp.array([0.01, 1.0, 30.0])[:, None, None]
    )
    _, aux = L(x, diagnostics=True)
    assert L.ode_t1 == T1 and layer(equilibrium="ode").ode_t1 == 30.0  # the paper's T
    h, z, z0 = (np.asarray(aux[k]) for k in ("h", "z", "z0"))
    nh = np.linalg.norm(h, axis=-1)
    phi0, phi = _angle(z0, h), _angle(z, h)
    want = np.asarray(lohe.exact_angle(phi0, nh, T1))
    assert_close(phi, want, rtol=0, atol=1e-8)
    phi_c = 2 * np.arctan(np.tan(delta / 2) * np.exp(nh * T1))
    far = np.abs(phi0 - phi_c) > 1e-6
    np.testing.assert_array_equal((phi > delta)[far], (phi0 > phi_c)[far])
    below = T1 < np.asarray(lohe.finite_time_threshold(nh, delta))
    assert np.any(below & (phi > delta)) and np.any(~below & (phi < delta))


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(impl="linear", coupling="elu1_features", p=2, chunk=4),
        dict(impl="chunked", chunk=4),
        dict(equilibrium="ode"),
    ],
    ids=["quadratic", "linear", "chunked", "ode"],
)
@pytest.mark.parametrize(
    "dtype", [jnp.float64, pytest.param(jnp.float32, marks=pytest.mark.slow)]
)
def test_causality_exact(kw, dtype):
    L, x = layer(**kw), tokens(5).astype(dtype)
    f = eqx.filter_jit(L)
    y = np.asarray(f(x))
    for u in (4, T - 1):
        x2 = x.at[u:].multiply(-2.0).at[u:].add(0.5)
        np.testing.assert_array_equal(np.asarray(f(x2))[:u], y[:u])


def test_causality_exact_on_the_blocked_cpu_kernels(monkeypatch):
    """The causal query blocks of lohe.masked_drive / readout_sums (no key block above the
    diagonal; used on CPU from n > CPU_BLOCK) leave the past rows unchanged, bit for bit,
    when every future token changes; blocks of 4 so that T = 11 takes that path."""
    from syncattn.lohe import _fused

    monkeypatch.setattr(_fused, "CPU_BLOCK", 4)
    if jax.default_backend() != "cpu":
        pytest.skip("the blocked kernels are the CPU path")
    L, x = layer(), tokens(5)
    f = eqx.filter_jit(L)
    jaxpr = str(jax.make_jaxpr(lambda x: L(x))(x))
    assert f"[{H},{T},{T}]" not in jaxpr  # no (T, T) map: the blocked path ran
    y = np.asarray(f(x))
    for u in (3, 4, 8, T - 1):  # inside a block, at block edges, in the ragged last one
        x2 = x.at[u:].multiply(-2.0).at[u:].add(0.5)
        y2 = np.asarray(f(x2))
        np.testing.assert_array_equal(y2[:u], y[:u])
        assert not np.allclose(y2[u:], y[u:])  # the perturbation did reach the future


def _zero_drive_layer(**kw):
    """Two identical tokens and opposite anchors: h = w (r_0 + r_1) = 0 exactly."""
    L = layer(causal=False, **kw)
    r0 = jnp.zeros((H, DOSC)).at[:, 0].set(1.0)
    table = L.anchor_table.at[:, 0].set(r0).at[:, 1].set(-r0)
    return eqx.tree_at(lambda m: m.anchor_table, L, table)


@pytest.mark.parametrize(
    "case",
    ["equal-tokens", "zero-drive", "zero-drive-linear", "T=1", "zero-input"],
)
def test_degenerate_inputs_finite(case):
    if case == "equal-tokens":
        L, x = layer(), jnp.tile(tokens(6, (1, D)), (T, 1))
    elif case == "zero-drive":
        L, x = _zero_drive_layer(), jnp.tile(tokens(6, (1, D)), (2, 1))
    elif case == "zero-drive-linear":
        L, x = (
            _zero_drive_layer(impl="linear", coupling="elu1_features", p=2),
            jnp.tile(tokens(6, (1, D)), (2, 1)),
        )
    elif case == "T=1":
        L, x = layer(), tokens(6, (1, D))
    else:
        L, x = layer(), jnp.zeros((T, D))
    y, aux = L(x, diagnostics=True)
    assert np.all(np.isfinite(np.asarray(y)))
    if case.startswith("zero-drive"):
        assert bool(np.all(np.asarray(aux["degenerate"])))
        assert_close(aux["z"], np.zeros(aux["z"].shape))  # read out at z = 0
        assert_close(aux["weights"], np.full(aux["weights"].shape, 0.5))  # uniform
    gx = eqx.filter_jit(jax.grad(lambda t: jnp.sum(L(t) ** 2)))(x)
    gm = eqx.filter_jit(eqx.filter_grad(lambda m: jnp.sum(m(x) ** 2)))(L)
    for v in [gx, *jax.tree.leaves(eqx.filter(gm, eqx.is_inexact_array))]:
        assert np.all(np.isfinite(np.asarray(v)))


def test_jit_grad_vmap():
    L = layer()
    xb = tokens(7, (2, T, D))
    assert_close(jax.vmap(L)(xb)[1], L(xb[1]))
    assert_close(eqx.filter_jit(L)(xb[0]), L(xb[0]))
    g = eqx.filter_jit(eqx.filter_grad(lambda m, x: jnp.sum(jax.vmap(m)(x) ** 2)))(
        L, xb
    )
    leaves = jax.tree.leaves(eqx.filter(g, eqx.is_inexact_array))
    assert all(np.all(np.isfinite(np.asarray(v))) for v in leaves)
    assert np.any(np.asarray(g.anchor_table) != 0)


@pytest.mark.parametrize("impl", ["quadratic", "linear"])
def test_float32_and_bfloat16_run(impl):
    kw = dict(impl=impl, coupling="elu1_features", p=2) if impl == "linear" else {}
    L, x = layer(**kw), tokens(8)
    want = np.asarray(L(x))
    y32 = eqx.filter_jit(L)(x.astype(jnp.float32))
    assert y32.dtype == jnp.float32
    assert_close(y32, want, jnp.float32, atol=1e-4)
    y16 = eqx.filter_jit(L)(x.astype(jnp.bfloat16))
    assert y16.dtype == jnp.bfloat16
    assert np.all(np.isfinite(np.asarray(y16, np.float32)))
    np.testing.assert_allclose(np.asarray(y16, np.float32), want, atol=0.1)


def test_parameters_do_not_depend_on_impl_or_equilibrium():
    a = layer(coupling="elu1_features", p=2)
    for kw in (dict(impl="linear"), dict(impl="chunked"), dict(equilibrium="ode")):
        b = layer(coupling="elu1_features", p=2, **kw)
        for x, y in zip(
            jax.tree.leaves(eqx.filter(a, eqx.is_array)),
            jax.tree.leaves(eqx.filter(b, eqx.is_array)),
            strict=True,
        ):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(d_osc=1), "d_osc"),
        (dict(p=0.5), "p"),
        (dict(p=float("nan")), "p"),
        (dict(impl="linear", coupling="elu1_features", p=1.5), "integer p"),
        (dict(impl="linear", coupling="softplus"), "elu1_features"),
        (dict(impl="linear", coupling="elu1_features", normalize_anchors=False), "unit anchors"),
        (dict(coupling="tanh"), "coupling"),
        (dict(impl="fast"), "impl"),
        (dict(equilibrium="euler"), "equilibrium"),
        (dict(chunk=0), "chunk"),
        (dict(ode_t1=-1.0), "ode_t1"),
    ],
)
def test_bad_hyperparameters(kw, match):
    with pytest.raises(ValueError, match=match):
        layer(**kw)


def test_bad_shapes():
    with pytest.raises(ValueError, match="divisible"):
        nn.OscillatorAttention(10, 3, 2, 8, key=jax.random.key(0))
    L = layer()
    with pytest.raises(ValueError, match="max_len"):
        L(tokens(0, (MAXLEN + 1, D)))
    with pytest.raises(ValueError, match="d_model"):
        L(tokens(0, (T, D + 1)))
    with pytest.raises(ValueError, match="T >= 1"):
        L(jnp.zeros((0, D)))


PAD = jnp.ones(T, bool).at[3].set(False).at[T - 2 :].set(False)


@pytest.mark.parametrize("impl", ["quadratic", "linear", "chunked"])
@pytest.mark.parametrize("mask_readout", [False, True])
@pytest.mark.parametrize("causal", [True, False])
def test_key_padding_mask_matches_naive_loop(impl, mask_readout, causal):
    kw = dict(coupling="elu1_features", p=2, impl=impl, chunk=4, causal=causal)
    L, x = layer(mask_readout=mask_readout, **kw), tokens(9)
    y, aux = L(x, mask=PAD, diagnostics=True)
    want, ref = reference.oscillator_attention(L, x, PAD)
    assert_close(y, want)
    assert_close(aux["couplings"], ref["couplings"])
    assert_close(aux["weights"], ref["weights"])


def test_key_padding_softplus_and_padded_tokens_are_ignored():
    L, x = layer(mask_readout=True, anchors="content"), tokens(10)
    want, _ = reference.oscillator_attention(L, x, PAD)
    assert_close(L(x, mask=PAD), want)
    x2 = jnp.where(PAD[:, None], x, 5.0 * tokens(11))
    real = np.asarray(PAD)  # the rows of real tokens do not see padded ones
    np.testing.assert_array_equal(
        np.asarray(L(x2, mask=PAD))[real], np.asarray(L(x, mask=PAD))[real]
    )
    assert_close(
        layer(mask_readout=True, impl="chunked", chunk=5)(x, mask=PAD),
        layer(mask_readout=True)(x, mask=PAD),
    )


@pytest.mark.parametrize("impl", ["quadratic", "linear", "chunked"])
def test_left_padding_is_degenerate_and_finite(impl):
    L = layer(coupling="elu1_features", p=2, impl=impl, chunk=4, mask_readout=True)
    mask = jnp.arange(T) >= 3
    y, aux = L(tokens(12), mask=mask, diagnostics=True)
    deg = np.asarray(aux["degenerate"])
    assert deg[:, :3].all() and not deg[:, 3:].any()
    assert np.all(np.isfinite(np.asarray(y)))
    g = eqx.filter_jit(
        eqx.filter_grad(lambda m: jnp.sum(m(tokens(12), mask=mask) ** 2))
    )(L)
    assert all(
        np.all(np.isfinite(np.asarray(v)))
        for v in jax.tree.leaves(eqx.filter(g, eqx.is_inexact_array))
    )


def test_bad_mask():
    with pytest.raises(ValueError, match="mask"):
        layer()(tokens(), mask=jnp.ones(T))
    with pytest.raises(ValueError, match="mask"):
        layer()(tokens(), mask=jnp.ones(T + 1, bool))


@pytest.mark.parametrize(
    "kw, masked",
    [
        (dict(), False),
        (dict(coupling="relu", p=2.5, causal=False), False),
        (dict(coupling="elu1_features", p=2, mask_readout=True), True),
        (dict(anchors="content", causal=False, mask_readout=True), True),
    ],
    ids=["softplus", "relu-bidir-p2.5", "elu1-masked", "content-bidir-masked"],
)
def test_quadratic_gradient_matches_finite_differences(kw, masked):
    """The quadratic path's hand-written backward pass (it recomputes the (T, T)
    matrices) against central finite differences, in x and in every parameter."""
    from jax.test_util import check_grads

    L, x = layer(**kw), tokens(13, (6, D))
    mask = jnp.array([True, False, True, True, False, True]) if masked else None
    params, static = eqx.partition(L, eqx.is_inexact_array)

    def f(p, x):
        return jnp.sum(jnp.sin(eqx.combine(p, static)(x, mask=mask)))

    check_grads(f, (params, x), order=1, modes=("rev",), eps=1e-6, atol=1e-7, rtol=1e-6)


# ---------------------------------------------------------------- the layer is lohe's maths
def _allowed_np(T, causal, km):
    base = np.tril(np.ones((T, T), bool)) if causal else np.ones((T, T), bool)
    if km is None:
        return base
    m = base & np.asarray(km)[None, :]
    return np.where(m.any(1, keepdims=True), m, base)


def compose(L, x, km=None, key=None):
    """The layer as the plain composition of lohe's public functions, per head:
    fixed_query_weights -> drive -> equilibrium (or settle) -> readout, then W_o.
    A degenerate drive reads out at z = 0 (the layer's documented rule)."""
    T, H, dh, d = x.shape[0], L.n_heads, L.d_head, L.d_osc
    F = L.wq.weight.reshape(H, dh, L.d_model)
    G = L.wk.weight.reshape(H, dh, L.d_model)
    w = jnp.stack([lohe.fixed_query_weights(x, F[i], G[i], kind=L.coupling) for i in range(H)])
    mu = np.tril(np.ones((T, T), bool)) if L.causal else np.ones((T, T), bool)
    if km is not None:
        mu = mu & np.asarray(km)[None, :]
    w = jnp.where(jnp.asarray(mu), w, 0.0)
    if L.anchors == "position":
        r = L.anchor_table[:, :T]
    else:
        r = (x @ L.anchor_proj.weight.T).reshape(T, H, d).transpose(1, 0, 2)
    if L.normalize_anchors:
        r = r / jnp.linalg.norm(r, axis=-1, keepdims=True)
    h = lohe.drive(w, r)
    z, deg = lohe.equilibrium(h)
    if L.equilibrium == "ode":
        from syncattn import sphere

        k = jax.random.key(L.ode_seed) if key is None else key
        z0 = sphere.sample_uniform(k, (H, T), d, dtype=x.dtype)
        z = lohe.settle(z0, h, L.ode_t1, rtol=L.ode_rtol, atol=L.ode_atol).final
    z = jnp.where(deg[..., None], 0.0, z)
    read = _allowed_np(T, L.causal, km if L.mask_readout else None)
    a = lohe.readout(z, r, mask=jnp.asarray(read)[None], p=L.p)
    v = (x @ L.wv.weight.T).reshape(T, H, dh).transpose(1, 0, 2)
    out = (a @ v).transpose(1, 0, 2).reshape(T, H * dh)
    return out @ L.wo.weight.T + L.wo.bias[None, :]


PATHS = [
    *[dict(coupling=c) for c in ("softplus", "relu", "elu1", "elu1_features")],
    *[dict(impl="chunked", chunk=4, coupling=c) for c in ("softplus", "relu", "elu1", "elu1_features")],
    dict(impl="linear", chunk=4, coupling="elu1_features"),
    dict(equilibrium="ode", ode_t1=2.0, coupling="softplus"),
    dict(equilibrium="ode", ode_t1=2.0, impl="chunked", chunk=4, coupling="elu1"),
]
PATH_IDS = [
    f"{k.get('impl', 'quadratic')}-{k['equilibrium'] if 'equilibrium' in k else 'closed'}-{k['coupling']}"
    for k in PATHS
]


@pytest.mark.parametrize("kw", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize(
    "extra",
    [
        pytest.param(dict(p=2), marks=pytest.mark.slow),
        pytest.param(dict(p=1, causal=False, mask_readout=True), marks=pytest.mark.slow),
        dict(p=4, mask_readout=True),
    ],
    ids=["p2-causal", "p1-bidir-masked", "p4-causal-masked"],
)
def test_layer_is_the_lohe_composition_float64(kw, extra):
    """Every path and coupling equals fixed_query_weights -> drive -> equilibrium ->
    readout to 1e-12, output and gradients (parameters and input), with left padding."""
    L, x = layer(**kw, **extra), tokens(9)
    km = None if "mask_readout" not in extra else jnp.arange(T) >= 2  # left padding
    y = L(x, mask=km)
    want = compose(L, x, km)
    assert_close(y, want, rtol=1e-12, atol=1e-12)
    c = tokens(10, (T, D))
    params = eqx.filter(L, eqx.is_inexact_array)

    def loss(f, m, x):
        return jnp.sum(f(m, x) * c)

    f_layer = lambda m, x: m(x, mask=km)  # noqa: E731
    f_comp = lambda m, x: compose(m, x, km)  # noqa: E731
    g1 = eqx.filter_grad(lambda m, x: loss(f_layer, m, x))(L, x)
    g2 = eqx.filter_grad(lambda m, x: loss(f_comp, m, x))(L, x)
    leaves1 = jax.tree.leaves(eqx.filter(g1, eqx.is_inexact_array))
    leaves2 = jax.tree.leaves(eqx.filter(g2, eqx.is_inexact_array))
    assert len(leaves1) == len(leaves2) == len(jax.tree.leaves(params))
    for a, b in zip(leaves1, leaves2, strict=True):
        assert_close(a, b, rtol=1e-12, atol=1e-12)
    gx1 = jax.grad(lambda x: loss(f_layer, L, x))(x)
    gx2 = jax.grad(lambda x: loss(f_comp, L, x))(x)
    assert_close(gx1, gx2, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "kw, targets",
    [
        (dict(), ("_coupling", "_kernel", "_normalize")),
        (dict(impl="chunked", chunk=4), ("_coupling", "_kernel", "_normalize")),
        (dict(impl="linear", chunk=4, coupling="elu1_features", p=2), ("_elu1", "_features")),
    ],
    ids=["quadratic", "chunked", "linear"],
)
def test_layer_calls_lohe_kernels(monkeypatch, kw, targets):
    """Perturb one of lohe's kernels: the layer's output must change (it calls them)."""
    from syncattn.lohe import _attention as la

    L, x = layer(**kw), tokens(11)
    y0 = np.asarray(L(x))
    for name in targets:
        orig = getattr(la, name)
        if name == "_normalize":
            fake = lambda num, den, fb, orig=orig: orig(num, den, fb) * 1.01  # noqa: E731
        else:
            fake = lambda *a, orig=orig: orig(*a) * 1.1 + 0.05 * orig(*a) ** 2  # noqa: E731
        with monkeypatch.context() as m:
            m.setattr(la, name, fake)
            jax.clear_caches()
            y1 = np.asarray(L(x))
        jax.clear_caches()
        assert np.max(np.abs(y1 - y0)) > 1e-6, name
    np.testing.assert_array_equal(np.asarray(L(x)), y0)  # restored


@pytest.mark.parametrize("impl", ["quadratic", "chunked", "linear"])
@pytest.mark.parametrize("mask_readout", [False, True])
def test_zero_drive_reads_out_uniformly_eager_and_jit(impl, mask_readout):
    """A causal query with no allowed key (left padding) has h = 0: it reads out the
    uniform average of the values over its allowed keys, as the published layer
    (z* = h / max(|h|, 1e-8) = 0), eagerly and under jit."""
    kw = dict(impl=impl, chunk=4, mask_readout=mask_readout)
    if impl == "linear":
        kw |= dict(coupling="elu1_features", p=2)
    L, x = layer(**kw), tokens(12)
    km = jnp.arange(T) >= 3  # three padding tokens first
    for f in (L, eqx.filter_jit(L)):
        y, aux = f(x, mask=km, diagnostics=True)
        deg = np.asarray(aux["degenerate"])
        assert deg[:, :3].all() and not deg[:, 3:].any()
        a = np.asarray(aux["weights"])
        for i in range(3):  # causal row of a query with no real key: uniform over j <= i
            assert_close(a[:, i, : i + 1], np.full((H, i + 1), 1.0 / (i + 1)))
        v = np.asarray(x @ L.wv.weight.T).reshape(T, H, -1)
        out = np.stack([v[: i + 1].mean(0) for i in range(3)])  # (3, H, dh)
        want = out.reshape(3, -1) @ np.asarray(L.wo.weight).T + np.asarray(L.wo.bias)
        assert_close(y[:3], want)
