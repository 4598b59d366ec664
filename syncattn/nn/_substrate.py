r"""The physical substrate of fixed-query oscillator attention (issue 19, section 3).

Seed 001 reads [`syncattn.nn.OscillatorAttention`][] as attention computed by physics:
each query is an oscillator $z_i \in S^{d_\mathrm{osc}-1}$ that settles under the
drive $h_i = \sum_j w_{ij} r_j$, then is read out. A [`Substrate`][syncattn.nn.Substrate]
says how far the physical device is from that ideal; the default is the ideal one,
which is the layer bit for bit. The perturbations, in the order they act:

1. coupling mismatch: $w_{ij} \to w_{ij}(1 + \varepsilon\,\xi_{ij})$;
2. the query's dynamics from the layer's start $z_0$, for a time $T$:
   $dz = \bigl(\Omega_i z + (I - zz^\top)h_i\bigr)dt + \sigma(I - zz^\top)\circ dW_t$;
3. the readout of a $b$-bit quantised $z$.

The logic lives here; the layer calls it from two hooks (where $z$ is computed and,
for mismatch or the expected readout, a dense composition of lohe's kernels).
"""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp

from .. import lohe, sphere
from .._numerics import safe_norm


__all__ = ["Substrate", "with_substrate"]

NOISE_MODES = ("path", "expected")
_TRAIN_SALT = 0x5B57  # fold_in tag: the substrate key drawn from a training key
_MISMATCH, _DISORDER, _NOISE = 1, 2, 3  # fold_in tags of the substrate key's streams


def _strength(value, name: str) -> float:
    if isinstance(value, bool):
        raise TypeError(f"Substrate.{name} must be a number >= 0; got {value!r}.")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(
            f"Substrate.{name} must be a number >= 0; got {value!r}."
        ) from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(
            f"Substrate.{name} must be a finite number >= 0; got {value!r}."
        )
    return value


class Substrate(eqx.Module):
    r"""A non-ideal physical substrate for [`syncattn.nn.OscillatorAttention`][].

    Per head, query $i$ and key $j$ (symbols of the layer), the substrate replaces the
    couplings, the settling and the readout of the ideal layer by

    $$\tilde w_{ij} = w_{ij}\,(1 + \varepsilon\,\xi_{ij}), \qquad
      \tilde h_i = \sum_j \tilde w_{ij}\, r_j,$$

    $$dz_i = \bigl(\Omega_i z_i + (I - z_i z_i^\top)\tilde h_i\bigr)dt
      + \sigma\,(I - z_i z_i^\top)\circ dW_{i,t}, \qquad z_i(0) = z_{0,i},\ t \in [0, T],$$

    $$y = \text{the layer's readout at } Q_b(z_i(T)),$$

    with $\xi_{ij} \sim \mathcal N(0, 1)$ independent per head, query and key
    ($\varepsilon$ = `coupling_mismatch`), $\Omega_i = s\,(A_i - A_i^\top)/\sqrt2$ with
    $A_i$ standard Gaussian, so each entry above the diagonal is $\mathcal N(0, s^2)$
    ($s$ = `frequency_disorder`; for $d_\mathrm{osc} = 2$, $\Omega_i = \omega_i J$ with
    $\omega_i \sim \mathcal N(0, s^2)$: Adler's equation), $\sigma$ = `noise`
    (Stratonovich, tangent-projected: the library's convention), $T$ = `settle_time`
    (`None`: the ideal $T = \infty$ while there are no dynamics to run, otherwise the
    layer's `ode_t1`), $z_0$ the layer's start (the uniform draw of
    `equilibrium="ode"`: from the layer's `key`, or `jax.random.key(ode_seed)`), and
    $Q_b$ = `readout_bits` a $b$-bit mid-rise quantiser of each coordinate on
    $[-1, 1]$,

    $$Q_b(x) = -1 + \Delta\bigl(\min(\lfloor (x + 1)/\Delta\rfloor, 2^b - 1) + \tfrac12\bigr),
      \quad \Delta = 2^{1-b}, \qquad z \mapsto Q_b(z)/\max(1, \|Q_b(z)\|)$$

    (shrunk into the unit ball, so that $1 + z\cdot r_j \ge 0$ still holds for unit
    anchors; gradients pass straight through).

    How each is computed:

    * no mismatch, noise, disorder, finite $T$ or bits: the ideal layer, bit for bit
      ([`is_ideal`][syncattn.nn.Substrate.is_ideal]);
    * finite $T$ only: the closed form $\tan\frac{\varphi(T)}2 = \tan\frac{\varphi_0}2
      e^{-\|h\|T}$ in the plane of $z_0$ and $h$ ([`syncattn.lohe.exact_angle`][]);
    * noise (`noise_mode="path"`, the default) or disorder: [`syncattn.lohe.settle`][]
      with `Omega=` and `noise=` (diffrax; the SDE with constant steps of `dt`,
      Stratonovich Heun, a `VirtualBrownianTree`), to $T$;
    * `noise_mode="expected"`: no path is sampled; the readout is that of the expected
      scores under the noisy flow's stationary law, von Mises-Fisher with mean
      direction $\hat h_i$ and $\kappa_i = 2\|h_i\|/\sigma^2$
      ([`syncattn.lohe.vmf_scores`][]):
      $\bar a_{ij} = \mathbb E[(1 + z_i\cdot r_j)^p]/\sum_l \mathbb E[(1 + z_i\cdot r_l)^p]$,
      for $p \in \{1, 2\}$ and unit anchors. This is the readout of a substrate that
      averages its scores over time ($T \to \infty$); it equals the expected output
      $\mathbb E[y]$ of the sampled path exactly when the allowed anchors are
      balanced ($\sum_j r_j = 0$, and $\sum_j r_j r_j^\top \propto I$ for $p = 2$,
      see [`syncattn.lohe.vmf_readout`][]), and otherwise differs by the covariance of
      the readout's numerator and denominator. It cannot be combined with
      `settle_time`, `frequency_disorder` or `readout_bits` (no closed form);
    * mismatch, and `noise_mode="expected"`, run the dense composition
      [`syncattn.lohe.coupling_weights`][] → drive → $z$ → [`syncattn.lohe.readout_sums`][]
      whatever the layer's `impl`: $O(T^2)$ memory, since the mismatched couplings do
      not factor through the linear path's feature maps.

    Randomness: every draw comes from the `substrate_key` of the layer's call, split by
    `jax.random.fold_in` into three streams (mismatch, disorder, noise). $\xi_{ij}$ and
    $\Omega_i$ are functions of (key, head, position), not of the sequence length or the
    `impl`: a fixed key is a fixed device. The noise path is one Brownian tree for the
    whole `(heads, T, d_osc)` state. Pass different keys to different sequences for
    independent noise, the same key for the same device and noise.

    When: a non-ideal substrate acts at inference (the layer called with `key=None`),
    where the layer then needs `substrate_key` (an error without it); in training (a
    `key` given) only with `train_with_substrate=True`, with the key
    `jax.random.fold_in(key, 0x5B57)` unless a `substrate_key` is passed.

    Attributes:
        noise: $\sigma \ge 0$.
        coupling_mismatch: $\varepsilon \ge 0$.
        frequency_disorder: $s \ge 0$.
        settle_time: $T > 0$ or `None`.
        readout_bits: $b \ge 1$ or `None` (no quantiser).
        train_with_substrate: apply it in training too.
        noise_mode: `"path"` (sample the SDE) or `"expected"` (the closed form).
        dt: the SDE's constant step ($> 0$, default 1e-2).

    Raises:
        ValueError: a negative, NaN or infinite strength (naming the field),
            `settle_time <= 0`, `readout_bits < 1`, an unknown `noise_mode`,
            `noise_mode="expected"` with `settle_time`, `frequency_disorder` or
            `readout_bits`.
        TypeError: a non-numeric strength, a non-integer `readout_bits`.

    Example:
        >>> layer = OscillatorAttention(16, 2, 2, 32, key=jax.random.key(0),
        ...                             substrate=Substrate(noise=0.3))
        >>> y = layer(x, substrate_key=jax.random.key(1))
    """

    noise: float = eqx.field(static=True)
    coupling_mismatch: float = eqx.field(static=True)
    frequency_disorder: float = eqx.field(static=True)
    settle_time: float | None = eqx.field(static=True)
    readout_bits: int | None = eqx.field(static=True)
    train_with_substrate: bool = eqx.field(static=True)
    noise_mode: str = eqx.field(static=True)
    dt: float = eqx.field(static=True)

    def __init__(
        self,
        *,
        noise: float = 0.0,
        coupling_mismatch: float = 0.0,
        frequency_disorder: float = 0.0,
        settle_time: float | None = None,
        readout_bits: int | None = None,
        train_with_substrate: bool = False,
        noise_mode: str = "path",
        dt: float = 1e-2,
    ):
        self.noise = _strength(noise, "noise")
        self.coupling_mismatch = _strength(coupling_mismatch, "coupling_mismatch")
        self.frequency_disorder = _strength(frequency_disorder, "frequency_disorder")
        if settle_time is not None:
            settle_time = _strength(settle_time, "settle_time")
            if settle_time == 0:
                raise ValueError("Substrate.settle_time must be > 0 (or None); got 0.")
        self.settle_time = settle_time
        if readout_bits is not None:
            if isinstance(readout_bits, bool) or not isinstance(readout_bits, int):
                raise TypeError(
                    f"Substrate.readout_bits must be an int >= 1 or None; got {readout_bits!r}."
                )
            if readout_bits < 1:
                raise ValueError(
                    f"Substrate.readout_bits must be an int >= 1 or None; got {readout_bits}."
                )
        self.readout_bits = readout_bits
        self.train_with_substrate = bool(train_with_substrate)
        if noise_mode not in NOISE_MODES:
            raise ValueError(
                f"Substrate.noise_mode must be one of {NOISE_MODES}; got {noise_mode!r}."
            )
        if noise_mode == "expected" and (
            settle_time is not None
            or self.frequency_disorder > 0
            or readout_bits is not None
        ):
            raise ValueError(
                "Substrate.noise_mode='expected' is the closed form of the stationary "
                "(T = infinity) law without disorder or quantiser: it cannot be combined "
                "with settle_time, frequency_disorder or readout_bits (use noise_mode='path')."
            )
        self.noise_mode = noise_mode
        dt = _strength(dt, "dt")
        if dt == 0:
            raise ValueError("Substrate.dt must be > 0; got 0.")
        self.dt = dt

    @property
    def is_ideal(self) -> bool:
        r"""True for the ideal substrate: $\varepsilon = s = \sigma = 0$, $T = \infty$, no quantiser."""
        return (
            self.noise == 0
            and self.coupling_mismatch == 0
            and self.frequency_disorder == 0
            and self.settle_time is None
            and self.readout_bits is None
        )

    @property
    def _dense(self) -> bool:
        """Needs the dense composition (mismatched couplings, or the expected readout)."""
        return self.coupling_mismatch > 0 or self._expected

    @property
    def _expected(self) -> bool:
        return self.noise > 0 and self.noise_mode == "expected"

    @property
    def _dynamics(self) -> bool:
        """Runs the query's dynamics (rather than reading the ideal equilibrium)."""
        return (
            (self.noise > 0 and self.noise_mode == "path")
            or self.frequency_disorder > 0
            or self.settle_time is not None
        )


class Keys(eqx.Module):
    """The layer's `key` (its ODE start) and the substrate key, threaded to `_settle`."""

    ode: jax.Array | None
    substrate: jax.Array


def keys(substrate: Substrate, key, substrate_key):
    """`None` (the ideal layer) or the `Keys` of a substrate that acts in this call."""
    if substrate.is_ideal:
        return None
    if key is not None:  # training
        if not substrate.train_with_substrate:
            return None
        if substrate_key is None:
            substrate_key = jax.random.fold_in(key, _TRAIN_SALT)
    elif substrate_key is None:
        raise ValueError(
            "this OscillatorAttention has a non-ideal substrate, applied at inference "
            "(key=None): pass substrate_key=jax.random.key(seed), the key of its "
            "mismatch, disorder and noise draws."
        )
    return Keys(key, substrate_key)


def split(key):
    """`(ode key, Keys or None)` from what the layer's paths pass to `_settle`."""
    return (key.ode, key) if isinstance(key, Keys) else (key, None)


def start(layer, h, key):
    r"""The layer's start $z_0$: uniform on the sphere from `key` (default `key(ode_seed)`)."""
    wdt = jnp.promote_types(h.dtype, jnp.float32)
    key = jax.random.key(layer.ode_seed) if key is None else key
    return sphere.sample_uniform(key, h.shape[:-1], layer.d_osc, dtype=wdt)


# ------------------------------------------------------------------ the draws
def mismatch_normals(key, H: int, T: int, dtype):
    r"""$\xi_{hij}$, shape `(H, T, T)`: from `fold_in(fold_in(key, i), j)`, so a function of the positions."""
    idx = jnp.arange(T)

    def one(i, j):
        k = jax.random.fold_in(jax.random.fold_in(key, i), j)
        return jax.random.normal(k, (H,), dtype)

    xi = jax.vmap(lambda i: jax.vmap(lambda j: one(i, j))(idx))(idx)  # (T, T, H)
    return jnp.moveaxis(xi, -1, 0)


def disorder_matrices(key, H: int, T: int, d: int, scale: float, dtype):
    r"""$\Omega_{hi} = s(A - A^\top)/\sqrt2$, shape `(H, T, d, d)`, $A$ from `fold_in(key, i)`."""
    A = jax.vmap(
        lambda i: jax.random.normal(jax.random.fold_in(key, i), (H, d, d), dtype)
    )(jnp.arange(T))
    Omega = scale * (A - jnp.swapaxes(A, -1, -2)) / math.sqrt(2.0)
    return jnp.moveaxis(Omega, 0, 1)


def quantise(z, bits: int):
    r"""$Q_b(z)/\max(1, \|Q_b(z)\|)$ per coordinate on $[-1, 1]$, straight-through gradient."""
    levels = 2**bits
    step = 2.0 / levels
    idx = jnp.clip(jnp.floor((z + 1.0) / step), 0, levels - 1)
    q = -1.0 + step * (idx + 0.5)
    q = q / jnp.maximum(1.0, safe_norm(q, keepdims=True))
    return z + jax.lax.stop_gradient(q.astype(z.dtype) - z)


def finite_time(z0, h, T):
    r"""$z(T)$ of $\dot z = (I - zz^\top)h$ in closed form: angle [`syncattn.lohe.exact_angle`][] in the plane of $z_0$, $h$."""
    norm = safe_norm(h, keepdims=True)
    u = h / jnp.where(norm > 0, norm, 1.0)
    c = jnp.clip(jnp.sum(z0 * u, -1, keepdims=True), -1.0, 1.0)
    perp = z0 - c * u
    pn = safe_norm(perp, keepdims=True)
    ok = (pn > 0) & (norm > 0)
    e = perp / jnp.where(ok, pn, 1.0)
    phi0 = jnp.arctan2(pn, c)  # the angle of z0 to h, in [0, pi]
    phi = lohe.exact_angle(phi0[..., 0], norm[..., 0], T)[..., None]
    # z0 = +-h_hat or h = 0: an equilibrium, z stays z0
    return jnp.where(ok, jnp.cos(phi) * u + jnp.sin(phi) * e, z0)


# ------------------------------------------------------------------ hooks
def settle_hook(layer, h, z, deg, key, skeys: Keys):
    """The substrate's readout state from the drive `h` (heads, T, d): dynamics, then bits."""
    sub = layer.substrate
    if sub._dynamics:
        z0 = start(layer, h, key)
        hf = h.astype(z0.dtype)
        T = layer.ode_t1 if sub.settle_time is None else sub.settle_time
        if sub.frequency_disorder > 0 or (sub.noise > 0 and sub.noise_mode == "path"):
            H, n, d = h.shape
            Omega = None
            if sub.frequency_disorder > 0:
                Omega = disorder_matrices(
                    jax.random.fold_in(skeys.substrate, _DISORDER),
                    H,
                    n,
                    d,
                    sub.frequency_disorder,
                    z0.dtype,
                )
            noisy = sub.noise > 0 and sub.noise_mode == "path"
            sol = lohe.settle(
                z0,
                hf,
                T,
                Omega=Omega,
                rtol=layer.ode_rtol,
                atol=layer.ode_atol,
                noise=sub.noise if noisy else None,
                key=jax.random.fold_in(skeys.substrate, _NOISE) if noisy else None,
                dt0=sub.dt if noisy else None,
                max_steps=max(16_384, math.ceil(T / sub.dt) + 1),
            )
            z = sol.final
        else:
            z = finite_time(z0, hf, T)
        z = z.astype(h.dtype)
    if sub.readout_bits is not None:
        z = quantise(z, sub.readout_bits)
    return z


def dense_path(layer, s, x, q, k, v, km, skeys: Keys, dm):
    r"""The plain composition under a substrate that changes the couplings or the readout.

    $\tilde w = \mu \odot \sigma(q, k)(1 + \varepsilon\xi)$, $\tilde h = \tilde w r$,
    then the layer's `_settle` (with the substrate's $z$) and
    [`syncattn.lohe.readout_sums`][], or the expected scores
    [`syncattn.lohe.vmf_scores`][] for `noise_mode="expected"`. `dm`: the layer's
    drive mask $\mu$ (or None); `q`, `k`, `v`: the layer's head-major projections.
    """
    sub = layer.substrate
    T, H = x.shape[0], layer.n_heads
    r = layer._anchor_vectors(s, x)
    w = lohe.coupling_weights(q, k, kind=layer.coupling)
    if sub.coupling_mismatch > 0:
        xi = mismatch_normals(
            jax.random.fold_in(skeys.substrate, _MISMATCH), H, T, w.dtype
        )
        w = w * (1.0 + sub.coupling_mismatch * xi)
    if dm is not None:
        w = jnp.where(dm, w, 0.0)
    h = jnp.einsum("hij,hjd->hid", w, r)
    rmask = layer._readout_mask(T, km)
    if sub._expected:
        if layer.p not in (1, 2) or not layer.normalize_anchors:
            raise ValueError(
                "Substrate(noise_mode='expected') needs p in (1, 2) and unit anchors "
                f"(normalize_anchors=True); this layer has p={layer.p}, "
                f"normalize_anchors={layer.normalize_anchors}. Use noise_mode='path'."
            )
        _, deg = lohe.equilibrium(h)
        # bfloat16 anchors: |r| > 1 by rounding
        wdt = jnp.promote_types(h.dtype, jnp.float32)
        # unit anchors (normalize_anchors)
        rw = sphere.normalize(r.astype(wdt))[:, None]
        scores = lohe.vmf_scores(h.astype(wdt), sub.noise, rw, p=int(layer.p))
        # z = 0: kernel 1
        scores = jnp.where(deg[..., None], 1.0, scores).astype(v.dtype)
        if rmask is not None:
            scores = jnp.where(rmask, scores, 0.0)
        num = jnp.einsum("hij,hjd->hid", scores, v)
        den = jnp.sum(scores, -1, keepdims=True)
        z = jnp.where(
            deg[..., None], 0.0, lohe.vmf_moments(h.astype(wdt), sub.noise)[0]
        )
        z = z.astype(h.dtype)
        extra = {}
    else:
        z, deg, extra = layer._settle(h, skeys)
        num, den = lohe.readout_sums(z, r, v, mask=rmask, p=layer.p)
    out = layer._finish(num, den, v, layer._read_km(km))
    return out, dict(anchors=r, h=h, z=z, degenerate=deg, **extra)


# ------------------------------------------------------------------ models
def _replace(layer, substrate):
    new = object.__new__(type(layer))
    for name, value in vars(layer).items():
        object.__setattr__(new, name, value)
    object.__setattr__(new, "substrate", substrate)
    return new


def with_substrate(model, substrate: Substrate):
    r"""A copy of `model` with every [`syncattn.nn.OscillatorAttention`][]'s substrate replaced.

    $$\mathcal M \mapsto \mathcal M\bigl[\text{substrate}_\ell := S\ \ \forall \ell\bigr]$$

    Parameters are shared (not copied); nothing else changes. Works on a layer, a
    model of [`syncattn.models`][] or any pytree holding such layers.

    Args:
        model: any pytree (an equinox Module).
        substrate: the [`Substrate`][syncattn.nn.Substrate] to install.

    Returns:
        The same structure with the new substrate.

    Raises:
        TypeError: `substrate` not a [`Substrate`][syncattn.nn.Substrate].

    Example:
        >>> noisy = with_substrate(model, Substrate(noise=0.2))
    """
    if not isinstance(substrate, Substrate):
        raise TypeError(
            f"substrate must be a syncattn.nn.Substrate; got {type(substrate).__name__}."
        )
    # an OscillatorAttention: a module whose `substrate` is a Substrate (no import of
    # the layer's module here: it imports this one)
    is_layer = lambda a: isinstance(getattr(a, "substrate", None), Substrate)
    return jax.tree_util.tree_map(
        lambda a: _replace(a, substrate) if is_layer(a) else a, model, is_leaf=is_layer
    )


def call_in_model(attention, x, mask, *, key, substrate_key):
    """How a model block calls an oscillator layer: `key` = the block's training key.

    The layer's own `key` is its ODE start, which models do not pass; so training
    (a block key) applies a non-ideal substrate only with `train_with_substrate`
    (key folded from the block key), and inference needs `substrate_key`.
    """
    sub = attention.substrate
    kw = {} if mask is None else {"mask": mask}
    if sub.is_ideal:
        return attention(x, **kw)
    if key is not None:
        if not sub.train_with_substrate:
            return _replace(attention, Substrate())(x, **kw)
        if substrate_key is None:
            substrate_key = jax.random.fold_in(key, _TRAIN_SALT)
    return attention(x, substrate_key=substrate_key, **kw)
