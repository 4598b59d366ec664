r"""The noisy fixed-query flow: the von Mises-Fisher law and the Itô form.

Noise convention (used by every noisy flow of the library): Stratonovich noise
projected on the tangent space,

$$dz = (I - z z^\top)\, h\, dt + \sigma\, (I - z z^\top) \circ dW_t,
  \qquad W_t \in \mathbb{R}^d \text{ a standard Brownian motion,}$$

equivalently, in Itô form, $dz = \bigl((I - zz^\top) h - \tfrac{(d-1)\sigma^2}{2} z\bigr)dt
+ \sigma (I - zz^\top) dW_t$ ([`ito_drift`][syncattn.lohe.ito_drift]). The noise part alone
is Brownian motion on $S^{d-1}$ (generator $\frac{\sigma^2}{2}\Delta_{S^{d-1}}$), the
drift is the gradient of $\langle z, h\rangle$, so the stationary law is the von
Mises-Fisher law $p(z) \propto e^{\kappa\,\hat h\cdot z}$ with $\kappa = 2\|h\|/\sigma^2$
and $\hat h = h/\|h\|$ (proved in `proofs/proof_noisy_fixed_query.py`).

Degenerate legal inputs: $\sigma = 0$ gives $\kappa = \infty$ (the law is the point
mass at $\hat h$); $h = 0$ gives $\kappa = 0$ (the uniform law); $h = 0$ and
$\sigma = 0$ together leave every law stationary, and the uniform one ($\kappa = 0$)
is returned.

Frequency disorder (the other non-ideal flow) is in `_locking.py`.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._checks import (
    as_float,
    check_dim,
    check_finite,
    check_nonempty,
    check_scalar_range,
    is_concrete,
)
from .._numerics import eps_for, safe_norm
from .._types import Array, ArrayLike, Float, ScalarLike


__all__ = [
    "vmf_concentration",
    "mean_resultant",
    "vmf_moments",
    "vmf_scores",
    "vmf_readout",
    "ito_drift",
]


def _check_noise(noise, name: str = "noise"):
    """`noise` as a float array: finite and $\\ge 0$ (`ValueError` otherwise)."""
    return check_scalar_range(as_float(noise, name), name, low=0.0)


# ------------------------------------------------------------------ A_d(kappa)
def _amos(mu, k):
    # midpoint of Amos's (1974) bounds on I_{mu+1}/I_mu: a tail start within O(1/k)
    lo = k / (mu + 0.5 + jnp.sqrt((mu + 1.5) ** 2 + k**2))
    hi = k / (mu + 0.5 + jnp.sqrt((mu + 0.5) ** 2 + k**2))
    return 0.5 * (lo + hi)


def _asymptotic(k, d: int, terms: int = 9):
    # A = sum_n a_n k^{-n}, a_0 = 1, from the Riccati equation A' = 1 - A^2 - (d-1)A/k:
    # 2 a_n = (n - d) a_{n-1} - sum_{i=1}^{n-1} a_i a_{n-i}
    a = [1.0]
    for n in range(1, terms):
        a.append(((n - d) * a[n - 1] - sum(a[i] * a[n - i] for i in range(1, n))) / 2)
    u, out = 1.0 / k, jnp.zeros_like(k)
    for c in reversed(a):
        out = out * u + c
    return out


def _big(d: int) -> float:
    """Above this kappa the asymptotic series is used (its terms shrink like (d/2k)^n)."""
    return max(1e6, float(d) ** 2)


def _cf(k, d: int):
    # Gauss continued fraction I_{nu+1}/I_nu = 1/(2(nu+1)/k + 1/(2(nu+2)/k + ...)),
    # evaluated backwards from N ~ 8 sqrt(k) + 30 terms (the backward recurrence
    # contracts errors by ~exp(-N^2/k)), started from Amos's estimate of the tail.
    nu = 0.5 * d - 1.0
    ks = jnp.where(k > 0, k, 1.0)
    N = jnp.ceil(8.0 * jnp.sqrt(ks)) + 30.0
    n_max = jnp.max(N)

    def body(state):
        n, t = state
        upd = 1.0 / (2.0 * (nu + n) / ks + t)
        return n - 1.0, jnp.where(n <= N, upd, t)

    t0 = _amos(nu + N, ks)
    _, t = jax.lax.while_loop(lambda s: s[0] >= 1.0, body, (n_max, t0))
    return t


def _mean_resultant_raw(k, d: int):
    small = k < 1e-8
    big = k > _big(d)
    mid = ~(small | big)
    k_mid = jnp.where(mid, k, 1.0)
    k_big = jnp.where(big & jnp.isfinite(k), k, 2.0 * _big(d))
    series = k / d * (1.0 - k**2 / (d * (d + 2)))
    out = jnp.where(mid, _cf(k_mid, d), jnp.where(small, series, _asymptotic(k_big, d)))
    return jnp.where(jnp.isinf(k), 1.0, out).astype(k.dtype)


def _a_over_k(k, A, d: int):
    """$A_d(\\kappa)/\\kappa$, with its limit $1/d$ at 0 and 0 at $\\infty$ (double-where)."""
    small = k < 1e-8
    ks = jnp.where(small | jnp.isinf(k), 1.0, k)
    out = jnp.where(small, 1.0 / d - k**2 / (d**2 * (d + 2)), A / ks)
    return jnp.where(jnp.isinf(k), 0.0, out)


_mean_resultant = jax.custom_jvp(_mean_resultant_raw, nondiff_argnums=(1,))


@_mean_resultant.defjvp
def _mean_resultant_jvp(d, primals, tangents):
    # A' = 1 - A^2 - (d - 1) A / kappa (the Riccati equation of the Bessel ratio)
    (k,), (dk,) = primals, tangents
    A = _mean_resultant(k, d)
    dA = 1.0 - A**2 - (d - 1) * _a_over_k(k, A, d)
    return A, dA * dk


_mean_resultant_jit = jax.jit(_mean_resultant, static_argnums=1)


def mean_resultant(
    kappa: Float[ArrayLike, "*shape"] | float, d: int
) -> Float[Array, "*shape"]:
    r"""Mean resultant length of the von Mises-Fisher law on $S^{d-1}$.

    $$A_d(\kappa) = \mathbb{E}[\hat h\cdot z] = \frac{I_{d/2}(\kappa)}{I_{d/2-1}(\kappa)},
      \qquad A_d(\kappa) = \frac{\kappa}{d}\Bigl(1 - \frac{\kappa^2}{d(d+2)}\Bigr) + O(\kappa^5),
      \qquad A_d(\kappa) = 1 - \frac{d-1}{2\kappa} - \frac{(d-1)(d-3)}{8\kappa^2} + O(\kappa^{-3})$$

    $\kappa$ = `kappa`, $d$ = `d` ($I_\nu$: modified Bessel functions of the first kind);
    $A_2 = I_1/I_0$, $A_3 = \coth\kappa - 1/\kappa$. Computed without forming $I_\nu$
    (which overflows at $\kappa \approx 700$): the small-$\kappa$ series below
    $10^{-8}$; Gauss's continued fraction for $I_{\nu+1}/I_\nu$, evaluated backwards
    from $8\sqrt\kappa + 30$ terms, up to $\max(10^6, d^2)$; the large-$\kappa$
    asymptotic series (nine terms, from the Riccati equation
    $A' = 1 - A^2 - (d-1)A/\kappa$) above. $A_d(0) = 0$, $A_d(\infty) = 1$. Measured
    against `scipy.special.ive` ratios: relative error below 1e-13 for
    $d \le 64$, $10^{-6} \le \kappa \le 10^5$ (`tests/lohe/test_noise.py`). The derivative
    is the Riccati right-hand side (a custom JVP). Proved in
    `proofs/proof_noisy_fixed_query.py`.

    Args:
        kappa: concentration $\kappa \ge 0$ (`inf` allowed).
        d: ambient dimension, an int $\ge 2$.

    Returns:
        $A_d(\kappa) \in [0, 1)$, the shape of `kappa`.

    Raises:
        ValueError: `kappa` negative or NaN; `d` not an int $\ge 2$.

    Example:
        >>> mean_resultant(1.0, 3)  # coth(1) - 1 = 0.3130...
    """
    d = check_dim(d)
    k = as_float(kappa, "kappa")
    if is_concrete(k):
        arr = np.asarray(k)
        if np.any(np.isnan(arr) | (arr < 0)):
            raise ValueError(
                f"kappa must lie in [0, inf] (inf allowed, NaN not); got {arr!r}."
            )
    else:
        k = eqx.error_if(
            k, jnp.any(jnp.isnan(k) | (k < 0)), "kappa must lie in [0, inf]."
        )
    return _mean_resultant_jit(k, d)


# ------------------------------------------------------------------ the vMF law
def _vec(h, name="h"):
    h = as_float(h, name)
    check_nonempty(h, name)
    check_finite(h, name)
    if h.shape[-1] < 2:
        raise ValueError(
            f"{name} must have d >= 2 on its last axis; got shape {h.shape}."
        )
    return h


def _kappa(h, sigma):
    norm = safe_norm(h)
    s2 = sigma**2
    # sigma = 0: kappa = inf (point mass), unless h = 0 too (then 0: the uniform law)
    pos = s2 > 0
    k = jnp.where(pos, 2.0 * norm / jnp.where(pos, s2, 1.0), jnp.inf)
    return jnp.where(norm > 0, k, 0.0).astype(h.dtype), norm


def vmf_concentration(
    h: Float[ArrayLike, "*batch d"], noise: ScalarLike
) -> Float[Array, "*batch"]:
    r"""Concentration of the stationary law of the noisy fixed-query flow.

    $$\kappa = \frac{2\|h\|}{\sigma^2}$$

    $h$ = `h`, $\sigma$ = `noise` (see the module's convention). $\sigma = 0$ gives
    $\infty$; $h = 0$ gives 0.

    Args:
        h: drive, shape `(*batch, d)`.
        noise: $\sigma \ge 0$.

    Returns:
        $\kappa$, shape `(*batch,)`.

    Raises:
        ValueError: NaN/inf or empty `h`, $d < 2$, negative or NaN `noise`.

    Example:
        >>> vmf_concentration(jnp.array([3.0, 4.0]), 1.0)  # 10
    """
    h = _vec(h)
    sigma = _check_noise(noise).astype(h.dtype)
    return _kappa(h, sigma)[0]


@jax.jit
def _moments(h, sigma):
    d = h.shape[-1]
    k, norm = _kappa(h, sigma)
    A = _mean_resultant(k, d)
    B = _a_over_k(k, A, d)
    pos = norm > 0
    u = h / jnp.where(pos, norm, 1.0)[..., None]  # double where: h = 0 has A = 0
    mean = A[..., None] * u
    eye = jnp.broadcast_to(jnp.eye(d, dtype=h.dtype), B.shape + (d, d))
    second = B[..., None, None] * eye + (1.0 - d * B)[..., None, None] * (
        u[..., :, None] * u[..., None, :]
    )
    return mean, second


def vmf_moments(
    h: Float[ArrayLike, "*batch d"], noise: ScalarLike
) -> tuple[Float[Array, "*batch d"], Float[Array, "*batch d d"]]:
    r"""First and second moments of the stationary law of the noisy fixed-query flow.

    $$\mathbb{E}[z] = A_d(\kappa)\,\hat h, \qquad
      \mathbb{E}[z z^\top] = \frac{A_d(\kappa)}{\kappa}\, I
      + \Bigl(1 - \frac{d\,A_d(\kappa)}{\kappa}\Bigr)\hat h\hat h^\top$$

    for $z \sim \mathrm{vMF}(\hat h, \kappa)$, $\kappa = 2\|h\|/\sigma^2$
    ([`vmf_concentration`][syncattn.lohe.vmf_concentration]), $A_d$ =
    [`mean_resultant`][syncattn.lohe.mean_resultant]. Equivalently
    $\mathbb{E}[(\hat h\cdot z)^2] = 1 - (d-1)A_d/\kappa$ and each direction
    orthogonal to $\hat h$ has second moment $A_d/\kappa$. Limits: $\kappa \to 0$ gives
    $(0, I/d)$, $\kappa = \infty$ gives $(\hat h, \hat h\hat h^\top)$.

    Args:
        h: drive, shape `(*batch, d)`.
        noise: $\sigma \ge 0$.

    Returns:
        `(mean, second)`: shapes `(*batch, d)` and `(*batch, d, d)`.

    Raises:
        ValueError: as [`vmf_concentration`][syncattn.lohe.vmf_concentration].

    Example:
        >>> m, S = vmf_moments(jnp.array([0.0, 0.0, 1.0]), 1.0)  # kappa = 2
    """
    h = _vec(h)
    sigma = _check_noise(noise).astype(h.dtype)
    return _moments(h, sigma)


def _check_anchors(r, d):
    r = as_float(r, "r")
    if r.ndim < 2 or r.shape[-1] != d:
        raise ValueError(
            f"r must have shape (m, d) or (*batch, m, d) with d={d}; got {r.shape}."
        )
    check_finite(r, "r")
    if is_concrete(r):
        big = float(
            np.max(np.linalg.norm(np.asarray(r, np.float64), axis=-1), initial=0.0)
        )
        if big > 1.0 + eps_for(r.dtype):
            raise ValueError(
                "anchors r must have ||r_j|| <= 1 (then 1 + z.r_j >= 0 on the sphere and "
                f"the readout's clipping is inactive); got max ||r_j|| = {big:.6g}."
            )
    return r


@jax.jit
def _scores(h, sigma, r, quadratic):
    mean, second = _moments(h, sigma)
    lin = jnp.einsum("...d,...md->...m", mean, r)
    quad = jnp.einsum("...md,...de,...me->...m", r, second, r)
    return jnp.where(quadratic, 1.0 + 2.0 * lin + quad, 1.0 + lin)


def vmf_scores(
    h: Float[ArrayLike, "*batch d"],
    noise: ScalarLike,
    r: Float[ArrayLike, "... m d"],
    *,
    p: int = 1,
) -> Float[Array, "*batch m"]:
    r"""Expected readout scores under the stationary law of the noisy fixed-query flow.

    $$\mathbb{E}[1 + z\cdot r_j] = 1 + A_d\,\hat h\cdot r_j,\qquad
      \mathbb{E}[(1 + z\cdot r_j)^2] = 1 + 2A_d\,\hat h\cdot r_j + r_j^\top\,\mathbb{E}[zz^\top]\,r_j$$

    ($p = 1$ and $p = 2$; moments of [`vmf_moments`][syncattn.lohe.vmf_moments]). Exact
    for anchors with $\|r_j\| \le 1$, where $\max(0, 1 + z\cdot r_j) = 1 + z\cdot r_j$ on the
    sphere (the clipping of [`readout`][syncattn.lohe.readout] is inactive).

    Args:
        h: drive, shape `(*batch, d)`.
        noise: $\sigma \ge 0$.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`, $\|r_j\| \le 1$.
        p: 1 or 2.

    Returns:
        Expected scores, shape `(*batch, m)`.

    Raises:
        ValueError: `p` not 1 or 2; an anchor with $\|r_j\| > 1$; as
            [`vmf_concentration`][syncattn.lohe.vmf_concentration].

    Example:
        >>> vmf_scores(jnp.array([1.0, 0.0]), 0.0, jnp.eye(2), p=2)  # [4, 1]
    """
    if isinstance(p, bool) or p not in (1, 2):
        raise ValueError(
            f"p must be 1 or 2 (the exponents with a closed-form expectation); got {p!r}."
        )
    h = _vec(h)
    r = _check_anchors(r, h.shape[-1]).astype(h.dtype)
    sigma = _check_noise(noise).astype(h.dtype)
    try:
        np.broadcast_shapes(h.shape[:-1], r.shape[:-2])
    except ValueError:
        raise ValueError(
            f"h {h.shape} and r {r.shape} must have broadcastable batch axes."
        ) from None
    return _scores(h, sigma, r, p == 2)


def vmf_readout(
    h: Float[ArrayLike, "*batch d"],
    noise: ScalarLike,
    r: Float[ArrayLike, "... m d"],
    *,
    p: int = 1,
) -> Float[Array, "*batch m"]:
    r"""The readout of the expected scores: what a substrate that averages its state reads out.

    $$\bar a_j = \frac{\mathbb{E}[(1 + z\cdot r_j)^p]}{\sum_k \mathbb{E}[(1 + z\cdot r_k)^p]},
      \qquad z \sim \mathrm{vMF}\Bigl(\hat h, \frac{2\|h\|}{\sigma^2}\Bigr),\ p \in \{1, 2\}$$

    (numerators: [`vmf_scores`][syncattn.lohe.vmf_scores]). This is the exact long-time
    average of the readout's numerators divided by that of its denominator (the
    noisy flow is ergodic), i.e. the readout of a substrate that low-pass filters its
    scores before dividing. It equals the expected weight $\mathbb{E}[a_j]$ of
    [`readout`][syncattn.lohe.readout] exactly when the denominator is constant on the
    sphere: $p = 1$ and $\sum_k r_k = 0$; $p = 2$ and also
    $\sum_k r_k r_k^\top \propto I$ (e.g. the anchors $\pm e_i$). Otherwise
    $\mathbb{E}[a_j]$ differs by the covariance of numerator and denominator. At
    $\sigma = 0$ it is [`readout`][syncattn.lohe.readout] at $z = \hat h$.

    Args:
        h: drive, shape `(*batch, d)`.
        noise: $\sigma \ge 0$.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`, $\|r_j\| \le 1$.
        p: 1 or 2.

    Returns:
        $\bar a$, shape `(*batch, m)`, rows non-negative summing to 1.

    Raises:
        ValueError: as [`vmf_scores`][syncattn.lohe.vmf_scores].

    Example:
        >>> vmf_readout(jnp.array([1.0, 0.0]), 0.0, jnp.eye(2))  # [2/3, 1/3]
    """
    s = vmf_scores(h, noise, r, p=p)
    den = jnp.sum(s, -1, keepdims=True)
    m = s.shape[-1]
    # the scores are >= 0; all zero only if every anchor is -z for the point mass z
    return jnp.where(den > 0, s / jnp.where(den > 0, den, 1.0), 1.0 / m)


# ------------------------------------------------------------------ Itô form
def ito_drift(
    z: Float[ArrayLike, "*#batch d"],
    drift: Float[ArrayLike, "*#batch d"],
    noise: ScalarLike,
) -> Float[Array, "*batch d"]:
    r"""Itô drift of a Stratonovich SDE on $S^{d-1}$ with tangent-projected noise.

    $$dz = b(z)\,dt + \sigma (I - zz^\top)\circ dW
      \iff dz = \Bigl(b(z) - \frac{(d-1)\sigma^2}{2}\, z\Bigr)dt + \sigma(I - zz^\top)\,dW$$

    $z$ = `z` (unit), $b(z)$ = `drift` (a tangent field, e.g.
    [`fixed_query_field`][syncattn.lohe.fixed_query_field]), $\sigma$ = `noise`. The
    correction $\frac{\sigma^2}{2}\sum_k (Dg_k)\,g_k$, $g_k = (I - zz^\top)e_k$, is
    $-\frac{\sigma^2}{2}(d-1)z$ on the sphere (proved in
    `proofs/proof_noisy_fixed_query.py`). It is what keeps $\|z\| = 1$ under Itô's rule:
    $d\|z\|^2 = 2z\cdot dz + \sigma^2\operatorname{tr}(I - zz^\top)\,dt = 0$.

    Args:
        z: unit vectors, shape `(*batch, d)`.
        drift: $b(z)$, broadcastable against `z`.
        noise: $\sigma \ge 0$.

    Returns:
        The Itô drift, the broadcast shape.

    Raises:
        ValueError: mismatched shapes, NaN/inf, negative `noise`.

    Example:
        >>> ito_drift(jnp.array([1.0, 0.0, 0.0]), jnp.zeros(3), 1.0)  # [-1, 0, 0]
    """
    z, b = as_float(z, "z"), as_float(drift, "drift")
    for a, name in ((z, "z"), (b, "drift")):
        check_nonempty(a, name)
        check_finite(a, name)
    try:
        if z.shape[-1] != b.shape[-1]:
            raise ValueError
        np.broadcast_shapes(z.shape, b.shape)
    except ValueError:
        raise ValueError(
            f"z and drift must share the last axis d and broadcast; got {z.shape} and {b.shape}."
        ) from None
    sigma = _check_noise(noise)
    dtype = jnp.result_type(z, b)
    d = z.shape[-1]
    z, b = jnp.broadcast_arrays(z.astype(dtype), b.astype(dtype))
    return (b - 0.5 * (d - 1) * sigma**2 * z).astype(dtype)
