r"""Kuramoto-Daido coupling: a general $2\pi$-periodic coupling function given by its harmonics.

$$\dot\theta_i = \omega_i + \sum_{j} K_{ij}\,H(\theta_j - \theta_i),\qquad
  H(\varphi) = \sum_{m=1}^{M} a_m \sin(m\varphi - \alpha_m)
  = \sum_{m=1}^{M} \operatorname{Im}\bigl(c_m e^{im\varphi}\bigr),\quad c_m = a_m e^{-i\alpha_m}$$

Sign convention: $c_m = a_m e^{-i\alpha_m}$, so that
$\operatorname{Im}(c_m e^{im\varphi}) = a_m\sin(m\varphi - \alpha_m)$; a frustration
$\alpha_m > 0$ delays the pull of harmonic $m$, as the Sakaguchi lag does for $m = 1$.
With the Daido order parameters $Z_m = \frac1N\sum_j e^{im\theta_j}$,

$$\operatorname{Im}\bigl(e^{-im\theta_i} c_m Z_m\bigr) = \frac{a_m}{N}\sum_j \sin(m(\theta_j - \theta_i) - \alpha_m),$$

so the all-to-all field costs $O(NM)$; on a graph, $Z_m$ becomes
$\sum_j K_{ij} e^{im\theta_j}$, one (dense or sparse) product per harmonic. Every real
zero-mean trigonometric polynomial $\sum_m b_m\sin m\varphi + d_m\cos m\varphi$ is an $H$
(with $c_m = b_m + i d_m$); a constant term would only shift $\omega_i$ by
$H_0\sum_j K_{ij}$ and is left to `omega`. Negative $a_m$ (repulsive harmonics) are
allowed; $a_m e^{-i\alpha_m} = |a_m| e^{-i(\alpha_m + \pi)}$.

Proved in `proofs/proof_daido.py` (statement 21; Coq: `proofs/coq/daido.v`); theory:
docs/theory/daido.md.
"""

from __future__ import annotations

import functools

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import sparse as jsparse

from .._checks import as_float, check_broadcast, check_finite, check_nonempty
from .._numerics import default_floating_dtype, sincos
from .._types import Array, ArrayLike, Complex, Float
from ._coupling import (
    EdgeList,
    _check_coupling,
    _check_theta,
    _kind,
    _listen,
    _rotate,
)


class HarmonicCoupling(eqx.Module):
    r"""The coupling function $H(\varphi) = \sum_{m=1}^M \operatorname{Im}(c_m e^{im\varphi})$ by its coefficients.

    $$c_m = a_m e^{-i\alpha_m},\qquad
      H(\varphi) = \sum_{m=1}^M a_m\sin(m\varphi - \alpha_m)
      = \sum_{m=1}^M \bigl(\operatorname{Re}c_m \sin m\varphi + \operatorname{Im}c_m\cos m\varphi\bigr)$$

    Stored as the real and imaginary parts of $c_m$ (real arrays, so the module is a
    pytree of floats: `jax.grad`/`eqx.filter_grad` differentiate it, `jax.vmap` maps
    it, bfloat16 works). Build it with
    [`from_amplitudes`][syncattn.kuramoto.HarmonicCoupling.from_amplitudes] or
    [`from_complex`][syncattn.kuramoto.HarmonicCoupling.from_complex].

    Attributes:
        real: $\operatorname{Re} c_m = a_m\cos\alpha_m$, shape `(M,)`.
        imag: $\operatorname{Im} c_m = -a_m\sin\alpha_m$, shape `(M,)`.

    Example:
        >>> h = HarmonicCoupling.from_amplitudes(jnp.array([1.0, 0.5]), jnp.array([0.0, 0.0]))
        >>> round(float(h(jnp.pi / 4)), 6)  # sin(pi/4) + 0.5 sin(pi/2)
        1.207107
    """

    real: Float[Array, " M"]
    imag: Float[Array, " M"]

    def __check_init__(self):
        if jnp.ndim(self.real) != 1 or jnp.shape(self.real) != jnp.shape(self.imag):
            raise ValueError(
                "HarmonicCoupling real and imag must be 1-D of equal length M (one "
                f"coefficient per harmonic m = 1..M); got shapes {jnp.shape(self.real)}, "
                f"{jnp.shape(self.imag)}."
            )
        if jnp.shape(self.real)[0] == 0:
            raise ValueError("HarmonicCoupling needs at least one harmonic (M >= 1); got M = 0.")
        check_finite(self.real, "HarmonicCoupling real")
        check_finite(self.imag, "HarmonicCoupling imag")

    @classmethod
    def from_amplitudes(
        cls,
        amplitudes: Float[ArrayLike, " M"],
        frustrations: Float[ArrayLike, " #M"] | float = 0.0,
    ) -> HarmonicCoupling:
        r"""$H(\varphi) = \sum_m a_m\sin(m\varphi - \alpha_m)$ from amplitudes $a_m$ and frustrations $\alpha_m$.

        Args:
            amplitudes: $a_m$, shape `(M,)`, `M >= 1`; any sign (negative = repulsive).
            frustrations: $\alpha_m$, shape `(M,)` or a scalar (the same lag for all).

        Raises:
            ValueError: `amplitudes` not 1-D or empty, `frustrations` of another
                length, NaN/inf in either (the argument is named).
        """
        a = as_float(amplitudes, "amplitudes")
        alpha = as_float(frustrations, "frustrations")
        if a.ndim != 1 or a.shape[0] == 0:
            raise ValueError(
                "amplitudes must be 1-D with M >= 1 entries (a_m for m = 1..M); got shape "
                f"{a.shape}."
            )
        if alpha.ndim > 1 or (alpha.ndim == 1 and alpha.shape != a.shape):
            raise ValueError(
                f"frustrations must be a scalar or have the shape {a.shape} of amplitudes; "
                f"got shape {alpha.shape}."
            )
        check_finite(a, "amplitudes")
        check_finite(alpha, "frustrations")
        dtype = jnp.result_type(a, alpha)
        a, alpha = a.astype(dtype), jnp.broadcast_to(alpha.astype(dtype), a.shape)
        # imag = -(a sin alpha): with a = 1 these are cos(alpha), -sin(alpha) exactly, the
        # numbers the Sakaguchi field uses (M = 1 reproduces it bit for bit)
        return cls(a * jnp.cos(alpha), -(a * jnp.sin(alpha)))

    @classmethod
    def from_complex(cls, coefficients: Complex[ArrayLike, " M"] | Float[ArrayLike, " M"]) -> HarmonicCoupling:
        r"""$H(\varphi) = \sum_m \operatorname{Im}(c_m e^{im\varphi})$ from complex coefficients $c_m$.

        Args:
            coefficients: $c_m = a_m e^{-i\alpha_m}$, shape `(M,)`, `M >= 1` (a real
                array means $\alpha_m \in \{0, \pi\}$).

        Raises:
            ValueError: not 1-D, empty, or NaN/inf entries (naming `coefficients`).
        """
        c = jnp.asarray(coefficients)
        if not jnp.issubdtype(c.dtype, jnp.inexact):
            c = c.astype(default_floating_dtype())
        if c.ndim != 1 or c.shape[0] == 0:
            raise ValueError(
                "coefficients must be 1-D with M >= 1 entries (c_m for m = 1..M); got shape "
                f"{c.shape}."
            )
        re, im = jnp.real(c), jnp.imag(c)
        check_finite(re, "coefficients")
        check_finite(im, "coefficients")
        return cls(re, jnp.zeros_like(re) if not jnp.iscomplexobj(c) else im)

    @property
    def order(self) -> int:
        """The number of harmonics $M$."""
        return int(jnp.shape(self.real)[0])

    @property
    def coefficients(self) -> Complex[Array, " M"]:
        r"""$c_m = a_m e^{-i\alpha_m}$ as a complex array."""
        dt = _work_dtype(self.real.dtype)
        return jax.lax.complex(self.real.astype(dt), self.imag.astype(dt))

    @property
    def amplitudes(self) -> Float[Array, " M"]:
        r"""$|c_m|$ (the non-negative amplitudes; a negative $a_m$ shows as $|a_m|$ with $\alpha_m + \pi$)."""
        return jnp.hypot(self.real, self.imag)

    @property
    def frustrations(self) -> Float[Array, " M"]:
        r"""$\alpha_m = -\arg c_m \in (-\pi, \pi]$."""
        return -jnp.arctan2(self.imag, self.real)

    def __call__(self, phi: Float[ArrayLike, "*shape"]) -> Float[Array, "*shape"]:
        r"""$H(\varphi) = \sum_m \operatorname{Re}c_m\sin m\varphi + \operatorname{Im}c_m\cos m\varphi$."""
        return _series(self, phi, derivative=False)

    def derivative(self, phi: Float[ArrayLike, "*shape"]) -> Float[Array, "*shape"]:
        r"""$H'(\varphi) = \sum_m m\,(\operatorname{Re}c_m\cos m\varphi - \operatorname{Im}c_m\sin m\varphi)$; $H'(0) = \sum_m m\, a_m\cos\alpha_m$."""
        return _series(self, phi, derivative=True)


def _work_dtype(dtype):
    # lax.complex only takes float32/float64: narrower floats go through float32
    return dtype if jnp.dtype(dtype).itemsize >= 4 else jnp.float32


def _series(h, phi, derivative):
    phi = as_float(phi, "phi")
    check_finite(phi, "phi")
    dtype = jnp.result_type(phi, h.real)
    return _series_core(h.real.astype(dtype), h.imag.astype(dtype), phi.astype(dtype), derivative)


@functools.partial(jax.jit, static_argnames="derivative")
def _series_core(re, im, phi, derivative):
    out = jnp.zeros_like(phi)
    for m in range(1, re.shape[0] + 1):
        s, c = sincos(m * phi)
        out = out + (m * (re[m - 1] * c - im[m - 1] * s) if derivative else re[m - 1] * s + im[m - 1] * c)
    return out


def _as_harmonics(harmonics, name: str = "harmonics") -> HarmonicCoupling:
    if isinstance(harmonics, HarmonicCoupling):
        return harmonics
    try:
        return HarmonicCoupling.from_complex(harmonics)
    except (TypeError, ValueError) as e:
        raise type(e)(
            f"{name} must be a HarmonicCoupling or complex coefficients c_m of shape (M,): {e}"
        ) from e


def _lag_parts(h, dtype):
    r"""($a_m\cos\alpha_m$, $a_m\sin\alpha_m$) = (Re c, -Im c) in `dtype`, negated outside the kernel.

    Handing the kernel $a\sin\alpha$ itself (not $\operatorname{Im}c$ to negate inside)
    keeps XLA's fusion of the M = 1 field identical to the Sakaguchi field's.
    """
    return h.real.astype(dtype), (-h.imag).astype(dtype)


def _harmonic_drift(theta, K, kind, cal, sal):
    r"""$\sum_m \operatorname{Im}(c_m e^{-im\theta_i}\sum_j K_{ij} e^{im\theta_j})$, one product per harmonic.

    With $u = c_m e^{-im\theta_i} = a_m e^{-i(m\theta_i + \alpha_m)}$:
    $\operatorname{Re}u = a_m\cos(m\theta_i + \alpha_m)$, $-\operatorname{Im}u = a_m\sin(m\theta_i +
    \alpha_m)$ (the addition formulas with `cal` $= a_m\cos\alpha_m$, `sal` $= a_m\sin\alpha_m$),
    and $\operatorname{Im}(uS) = \operatorname{Re}u\operatorname{Im}S - (-\operatorname{Im}u)\operatorname{Re}S$:
    for $m = 1$, $a_1 = 1$ these are the operations of the Sakaguchi field (`_shift`), so
    $M = 1$ reproduces it bit for bit.
    """
    drift = None
    for m in range(1, cal.shape[0] + 1):  # M is static; each harmonic is one product
        s, c = sincos(theta if m == 1 else m * theta)
        Kc, Ks = _listen(K, kind, c, s)
        ca, sa = _rotate(c, s, cal[m - 1], sal[m - 1])
        term = ca * Ks - sa * Kc
        drift = term if drift is None else drift + term
    return drift


def _prepare(theta, harmonics, coupling, theta_name="theta"):
    theta = _check_theta(theta, theta_name)
    h = _as_harmonics(harmonics)
    K = _check_coupling(coupling, theta.shape[-1], theta.shape[:-1])
    return theta, h, K


def daido_coupling(
    theta: Float[ArrayLike, "*batch n"],
    harmonics,
    coupling=1.0,
) -> Float[Array, "*batch n"]:
    r"""The Kuramoto-Daido coupling term $\sum_j K_{ij} H(\theta_j - \theta_i)$ (pure, no $\omega$).

    $$\sum_{j=1}^N K_{ij}\,H(\theta_j - \theta_i)
      = \sum_{m=1}^M \operatorname{Im}\Bigl(c_m e^{-im\theta_i}\sum_j K_{ij} e^{im\theta_j}\Bigr),
      \qquad H(\varphi) = \sum_m a_m\sin(m\varphi - \alpha_m)$$

    For scalar $K$ ($K_{ij} = K/N$) the inner sum is $K Z_m$, $Z_m$ the Daido order
    parameter, so the cost is $O(NM)$; a dense matrix costs $M$ matrix-vector products, a
    sparse graph $O(M(N + E))$. Symbols: $\theta$ = `theta`, $c_m$ = `harmonics`,
    $K$ = `coupling`.

    Args:
        theta: phases, shape `(*batch, N)`.
        harmonics: a [`syncattn.kuramoto.HarmonicCoupling`][] or complex coefficients
            $c_m$ of shape `(M,)`.
        coupling: as in [`syncattn.kuramoto.vector_field`][] (scalar mean field, dense,
            [`syncattn.kuramoto.EdgeList`][] or `BCOO`); default 1 (all-to-all, $1/N$).

    Returns:
        Same shape and dtype as `theta`.

    Example:
        >>> h = HarmonicCoupling.from_amplitudes(jnp.array([0.0, 1.0]))  # H = sin(2 phi)
        >>> daido_coupling(jnp.array([0.0, jnp.pi / 4]), h, 2.0)  # (K/N) sin(+-pi/2)
        Array([ 1., -1.], dtype=float32)
    """
    theta, h, K = _prepare(theta, harmonics, coupling)
    return _coupling_core(theta, K, *_lag_parts(h, theta.dtype))


@eqx.filter_jit
def _coupling_core(theta, K, cal, sal):
    drift = _harmonic_drift(theta, K, _kind(K), cal, sal).astype(theta.dtype)
    return jnp.broadcast_to(drift, theta.shape)


def daido_update(
    theta_t: Float[ArrayLike, "*batch"],
    G,
    harmonics,
) -> Float[Array, "*batch"]:
    r"""Harmonic tangent update $\sum_m \operatorname{Im}(c_m e^{-im\theta_t} G_m)$ (the attention form).

    $$a_t = \sum_{m=1}^M \operatorname{Im}\bigl(c_m e^{-im\theta_t} G_m\bigr),\qquad
      G_m = \sum_u A_{tu} e^{im\theta_u}\ \Longrightarrow\ a_t = \sum_u A_{tu} H(\theta_u - \theta_t)$$

    the harmonic generalisation of [`syncattn.kuramoto.tangent_update`][] ($M = 1$,
    $c_1 = 1$).

    Args:
        theta_t: phases $\theta_t$, any shape.
        G: the aggregated phasors per harmonic, a complex array `(*#batch, M)` (last axis
            $m = 1..M$; the leading axes broadcast to `theta_t`) or a pair
            `(Re G, Im G)` of real arrays.
        harmonics: a [`syncattn.kuramoto.HarmonicCoupling`][] or complex $c_m$ `(M,)`.

    Returns:
        Array of `theta_t`'s shape and dtype.

    Example:
        >>> h = HarmonicCoupling.from_complex(jnp.array([1.0 + 0j]))
        >>> daido_update(jnp.array(0.0), jnp.array([1j]), h)  # Im(1j)
        Array(1., dtype=float32)
    """
    theta_t = as_float(theta_t, "theta_t")
    check_finite(theta_t, "theta_t")
    h = _as_harmonics(harmonics)
    if isinstance(G, tuple):
        if len(G) != 2:
            raise ValueError(f"G given as a tuple must be (Re G, Im G); got {len(G)} entries.")
        re, im = (as_float(g, "G") for g in G)
    else:
        G = jnp.asarray(G)
        re, im = jnp.real(G), jnp.imag(G)
    if re.ndim < 1 or re.shape[-1] != h.order or re.shape != im.shape:
        raise ValueError(
            f"G must have M={h.order} harmonics on its last axis (and Re G, Im G equal "
            f"shapes); got {re.shape}, {im.shape}."
        )
    msg = f"G's leading shape must broadcast to theta_t's shape {theta_t.shape}; got {re.shape[:-1]}."
    if check_broadcast(msg, re.shape[:-1], theta_t.shape) != theta_t.shape:
        raise ValueError(msg)
    check_finite(re, "G")
    check_finite(im, "G")
    dt = theta_t.dtype
    re, im = (jnp.broadcast_to(g.astype(dt), (*theta_t.shape, h.order)) for g in (re, im))
    return _update_core(theta_t, re, im, *_lag_parts(h, dt))


@jax.jit
def _update_core(theta, Gr, Gi, cal, sal):
    out = jnp.zeros_like(theta)
    for m in range(1, cal.shape[0] + 1):
        s, c = sincos(theta if m == 1 else m * theta)
        ca, sa = _rotate(c, s, cal[m - 1], sal[m - 1])
        out = out + (ca * Gi[..., m - 1] - sa * Gr[..., m - 1])
    return out.astype(theta.dtype)


# ---------------------------------------------------------------------- observables
def daido_order_parameters(
    theta: Float[ArrayLike, "*batch n"], order: int
) -> Complex[Array, "*batch M"]:
    r"""Daido order parameters $Z_m = \frac1N\sum_j e^{im\theta_j}$, $m = 1..M$.

    $$Z_m = R_m e^{i\psi_m} = \frac1N\sum_{j=1}^N e^{im\theta_j}$$

    $|Z_1|$ is Kuramoto's $R$; a two-cluster state in anti-phase has $Z_1 \approx 0$ but
    $|Z_2| \approx 1$.

    Args:
        theta: phases `(*batch, N)` (last axis: oscillators).
        order: $M \ge 1$.

    Returns:
        Complex `(*batch, M)` (complex128 for float64 `theta`, else complex64).

    Example:
        >>> z = daido_order_parameters(jnp.array([0.0, jnp.pi]), 2)
        >>> [round(abs(complex(v)), 6) for v in z]  # anti-phase: |Z_1| = 0, |Z_2| = 1
        [0.0, 1.0]
    """
    theta = _check_theta(theta)
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 1:
        raise ValueError(f"order must be a positive int M (harmonics 1..M); got {order!r}.")
    theta = theta.astype(_work_dtype(theta.dtype))
    return _daido_z(theta, int(order))


@functools.partial(jax.jit, static_argnames="order")
def _daido_z(theta, order):
    parts = []
    for m in range(1, order + 1):
        s, c = sincos(theta if m == 1 else m * theta)
        parts.append(jax.lax.complex(jnp.mean(c, axis=-1), jnp.mean(s, axis=-1)))
    return jnp.stack(parts, axis=-1)


def _abs_coupling(K, kind):
    if kind == "edges":
        return EdgeList(K.senders, K.receivers, jnp.abs(K.weights), K.n)
    if kind == "bcoo":
        return jsparse.BCOO((jnp.abs(K.data), K.indices), shape=K.shape)
    return jnp.abs(K)


def local_order_parameter(
    theta: Float[ArrayLike, "*batch n"], coupling, *, harmonic: int = 1
) -> Complex[Array, "*batch n"]:
    r"""Local (neighbourhood) order parameter $z_i$ of oscillator $i$ on a graph.

    $$z_i = \frac{\sum_j |K_{ij}|\,e^{im\theta_j}}{\sum_j |K_{ij}|},\qquad z_i = 0 \text{ if row } i \text{ is empty}$$

    ($m$ = `harmonic`; the weights' magnitudes, so $|z_i| \le 1$ whatever the signs). For
    scalar $K \ne 0$ it is the global $Z_m$ for every $i$.

    Args:
        theta: phases `(*batch, N)`.
        coupling: as in [`syncattn.kuramoto.vector_field`][].
        harmonic: $m \ge 1$.

    Returns:
        Complex `(*batch, N)`.

    Example:
        >>> K = jnp.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
        >>> z = local_order_parameter(jnp.array([0.0, 0.0, jnp.pi]), K)
        >>> [round(abs(complex(v)), 6) for v in z]  # node 0 hears 0 and pi
        [0.0, 1.0, 1.0]
    """
    theta = _check_theta(theta)
    if isinstance(harmonic, bool) or not isinstance(harmonic, (int, np.integer)) or harmonic < 1:
        raise ValueError(f"harmonic must be a positive int m; got {harmonic!r}.")
    K = _check_coupling(coupling, theta.shape[-1], theta.shape[:-1])
    theta = theta.astype(_work_dtype(theta.dtype))
    kind = _kind(K)
    if kind in ("scalar", "dense"):
        K = K.astype(theta.dtype)
    return _local_core(theta, _abs_coupling(K, kind), int(harmonic))


@eqx.filter_jit
def _local_core(theta, A, m):
    kind = _kind(A)
    s, c = sincos(m * theta)
    Ac, As = _listen(A, kind, c, s)
    one = jnp.ones_like(theta)
    deg, _ = _listen(A, kind, one, jnp.zeros_like(theta))
    # double where: an empty row gives z = 0 with finite gradients
    pos = deg > 0
    safe = jnp.where(pos, deg, 1.0)
    x = jnp.where(pos, Ac / safe, 0.0)
    y = jnp.where(pos, As / safe, 0.0)
    x, y = jnp.broadcast_to(x, theta.shape), jnp.broadcast_to(y, theta.shape)
    return jax.lax.complex(x, y)


def phase_locking_value(
    theta_a: Float[ArrayLike, "*shape_a"],
    theta_b: Float[ArrayLike, "*shape_b"],
    axis: int = 0,
) -> Float[Array, "*rshape"]:
    r"""Phase-locking value of two phase signals over time.

    $$\mathrm{PLV} = \Bigl|\frac1T\sum_{t=1}^T e^{i(\theta_a(t) - \theta_b(t))}\Bigr| \in [0, 1]$$

    1 iff the phase difference is constant in time (locked, at any lag); near 0 for a
    drifting difference. `theta_a` and `theta_b` broadcast together (e.g.
    `sol.theta[:, :, None]` and `sol.theta[:, None, :]` give the $N\times N$ matrix);
    `axis` (of the broadcast shape) is time.

    Args:
        theta_a, theta_b: phases, broadcastable, with the time axis `axis`.
        axis: the time axis.

    Returns:
        PLV with `axis` removed, the floating dtype of the inputs.

    Example:
        >>> t = jnp.linspace(0, 10, 101)
        >>> round(float(phase_locking_value(2 * t, 2 * t + 1.0)), 6)  # locked at lag 1
        1.0
    """
    a, b = as_float(theta_a, "theta_a"), as_float(theta_b, "theta_b")
    shape = check_broadcast(
        f"theta_a and theta_b must broadcast together; got {a.shape}, {b.shape}.",
        a.shape,
        b.shape,
    )
    if len(shape) == 0 or not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis={axis} is out of range for the broadcast shape {shape}.")
    check_nonempty(jnp.zeros(shape), "theta_a, theta_b (broadcast)", axis=axis)
    check_finite(a, "theta_a")
    check_finite(b, "theta_b")
    dtype = jnp.result_type(a, b)
    return _plv(jnp.broadcast_to(a.astype(dtype), shape), jnp.broadcast_to(b.astype(dtype), shape), axis)


@functools.partial(jax.jit, static_argnames="axis")
def _plv(a, b, axis):
    s, c = sincos(a - b)
    x, y = jnp.mean(c, axis=axis), jnp.mean(s, axis=axis)
    sq = x * x + y * y
    # double where: |.| has an infinite gradient at 0
    pos = sq > 0
    return jnp.where(pos, jnp.sqrt(jnp.where(pos, sq, 1.0)), 0.0)
