r"""Softmax as the entropy-regularised argmax, and the local phase coherence.

Conventions:

* scores $s$ and attention weights $a$ share a shape; the simplex axis is the
  last axis (`axis` in `gibbs`) and every leading axis is a batch axis;
* $H(a) = -\sum_j a_j \log a_j$ is the Shannon entropy in nats, with
  $0 \log 0 = 0$; the temperature $\tau$ is a scalar;
* scores may contain $-\infty$ (a masked entry, weight 0, with the convention
  $0 \cdot (-\infty) = 0$) but not NaN or $+\infty$, and not a whole row of
  $-\infty$;
* the floating dtype of the input is preserved; integer input is promoted to
  the default float (float64 when x64 is enabled, else float32);
* bad input raises `ValueError`/`TypeError` naming the argument; value
  checks run on concrete (non-traced) input only, see `syncattn._checks`.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from ._checks import (
    as_float,
    check_broadcast,
    check_finite,
    check_nonempty,
    is_concrete,
)
from ._types import Array, ArrayLike, Float, Inexact, ScalarLike


__all__ = ["objective", "gibbs", "local_coherence"]


def _check_tau(tau, *, strict: bool):
    tau = as_float(tau, "tau")
    if tau.ndim != 0:
        raise ValueError(
            f"tau must be a scalar temperature; got shape {tau.shape}. "
            "Perhaps you meant jax.vmap over a batch of temperatures?"
        )
    if is_concrete(tau):
        t = float(tau)
        if not np.isfinite(t) or t < 0 or (strict and t == 0):
            raise ValueError(
                f"tau must be {'> 0' if strict else '>= 0'} and finite; got {t}."
            )
    return tau


def _check_scores(s, axis: int):
    s = as_float(s, "s")
    if s.ndim == 0:
        raise ValueError(
            "s must have at least 1 dimension (the simplex axis); got a scalar."
        )
    if not -s.ndim <= axis < s.ndim:
        raise ValueError(f"axis={axis} is out of range for s of shape {s.shape}.")
    check_nonempty(s, "s", axis=axis)
    if is_concrete(s):
        sn = np.asarray(s, dtype=np.float64)
        if np.any(np.isnan(sn)) or np.any(sn == np.inf):
            raise ValueError(
                "s must not contain NaN or +inf (-inf marks a masked entry)."
            )
        if sn.size and np.any(np.all(sn == -np.inf, axis=axis)):
            raise ValueError(
                f"s must have a finite entry along axis {axis}; a row is all -inf."
            )
    return s


def objective(
    a: Float[ArrayLike, "*#batch n"], s: Float[ArrayLike, "*#batch n"], tau: ScalarLike
) -> Float[Array, "*rshape"]:
    r"""Entropy-regularised score of a point of the simplex.

    $$F_\tau(a) = \langle a, s \rangle + \tau H(a), \qquad
      H(a) = -\sum_{j=1}^n a_j \log a_j \quad (0 \log 0 = 0)$$

    $a$ = `a` (a point of the simplex $\Delta^{n-1}$; only $a \ge 0$ is
    checked), $s$ = `s`, $\tau$ = `tau`, reductions over the last axis. Its
    maximiser over the simplex is `gibbs`. At $a_j = 0$ the derivative of
    $-a_j \log a_j$ is $+\infty$; the double-`where` pattern reports 0 there
    instead of NaN (the true one-sided derivative is unbounded), and
    $0 \cdot s_j = 0$ also for a masked $s_j = -\infty$.

    Args:
        a: weights $a \ge 0$, last axis the simplex axis.
        s: scores $s$, broadcastable against `a`.
        tau: temperature $\tau \ge 0$, a scalar.

    Returns:
        $F_\tau(a)$ with the last axis reduced.

    Raises:
        TypeError: if an input is complex.
        ValueError: if shapes do not broadcast, `tau` is not a scalar $\ge 0$,
            `a` is negative or non-finite, or `s` contains NaN/+inf.

    Example:
        >>> a = jnp.array([0.5, 0.5, 0.0])
        >>> round(float(objective(a, jnp.array([1.0, 3.0, 7.0]), 1.0)), 6)  # 2 + log 2
        2.693147
    """
    a = as_float(a, "a")
    s = _check_scores(s, -1)
    tau = _check_tau(tau, strict=False)
    check_nonempty(a, "a", axis=-1)
    check_broadcast(
        f"a (*batch, n) and s (*batch, n) must have broadcastable shapes; "
        f"got a {a.shape}, s {s.shape}.",
        a.shape,
        s.shape,
    )
    check_finite(a, "a")
    tau = tau.astype(jnp.result_type(a, s))
    if is_concrete(a) and np.any(np.asarray(a) < 0):
        raise ValueError("a must be non-negative (a point of the simplex).")
    return _objective(a, s, tau)


@jax.jit
def _objective(a, s, tau):
    pos = a > 0
    a_safe = jnp.where(pos, a, jnp.ones_like(a))
    # double where: 0 log 0 = 0 and 0 * (-inf) = 0 with finite gradients
    xlogx = jnp.where(pos, a * jnp.log(a_safe), 0.0)
    s_safe = jnp.where(pos, s, 0.0)
    linear = jnp.sum(jnp.where(pos, a * s_safe, 0.0), axis=-1)
    return linear - tau * jnp.sum(xlogx, axis=-1)


def gibbs(
    s: Float[ArrayLike, "*batch n"], tau: ScalarLike, axis: int = -1
) -> tuple[Float[Array, "*shape"], Float[Array, "*rshape"]]:
    r"""Maximiser and maximum of the entropy-regularised score: softmax and log-sum-exp.

    $$a^\star = \operatorname*{arg\,max}_{a \in \Delta^{n-1}}
      \langle a, s \rangle + \tau H(a) = \operatorname{softmax}(s / \tau),
      \qquad \max_{a \in \Delta^{n-1}} F_\tau(a) =
      \tau \log \sum_{j=1}^n e^{s_j / \tau}$$

    $s$ = `s` along `axis`, $\tau$ = `tau`, $F_\tau$ = `objective`. Proof: on
    the simplex $F_\tau(a) = \tau\log\sum_j e^{s_j/\tau} - \tau
    \operatorname{KL}(a \,\|\, a^\star)$ and $\operatorname{KL} \ge 0$ with
    equality iff $a = a^\star$. Both outputs are computed with the max
    subtracted (`jax.nn.softmax`, `jax.nn.logsumexp`), so they stay finite for
    any finite scores and small $\tau$; as $\tau \to 0$ the value tends to
    $\max_j s_j$.

    Args:
        s: scores $s$; `axis` is the simplex axis. $-\infty$ entries are masked.
        tau: temperature $\tau > 0$, a scalar.
        axis: the simplex axis.

    Returns:
        `(a_star, value)`: `a_star` has the shape of `s` and sums to 1 along
        `axis`; `value` has `axis` removed. Same dtype as `s`.

    Raises:
        TypeError: if `s` or `tau` is complex.
        ValueError: if `tau` is not a positive finite scalar, `s` is a scalar,
            empty along `axis`, contains NaN/+inf, or a row of only $-\infty$.

    Example:
        >>> a, v = gibbs(jnp.array([0.0, jnp.log(3.0)]), 1.0)
        >>> a.round(6).tolist(), round(float(v), 6)  # [1/4, 3/4], log 4
        ([0.25, 0.75], 1.386294)
    """
    s = _check_scores(s, axis)
    tau = _check_tau(tau, strict=True).astype(s.dtype)
    return _gibbs(s, tau, axis)


@functools.partial(jax.jit, static_argnums=2)
def _gibbs(s, tau, axis):
    x = s / tau
    return jax.nn.softmax(x, axis=axis), tau * jax.nn.logsumexp(x, axis=axis)


def local_coherence(
    theta_t: Float[ArrayLike, "*#shape"], G: Inexact[ArrayLike, "*#shape"]
) -> Float[Array, "*rshape"]:
    r"""Alignment of a phase with a complex field: the local Kuramoto energy.

    $$c(\theta_t) = \operatorname{Re}\!\left(e^{-i\theta_t} G\right)
      = \cos\theta_t \operatorname{Re} G + \sin\theta_t \operatorname{Im} G,
      \qquad \frac{\partial c}{\partial \theta_t} = \sum_u A_{tu}
      \sin(\theta_u - \theta_t) \text{ if } G = \sum_u A_{tu} e^{i\theta_u}$$

    $\theta_t$ = `theta_t`, $G$ = `G` (elementwise, broadcasting). The
    derivative is `syncattn.kuramoto.tangent_update`, the Kuramoto coupling
    felt by $\theta_t$: the attention update climbs $c$. A real `G` is read
    as having zero imaginary part.

    Args:
        theta_t: phases $\theta_t$.
        G: complex fields $G$, broadcastable against `theta_t`.

    Returns:
        $c(\theta_t)$ with the broadcast shape; real dtype promoted from
        `theta_t` and the real part of `G`.

    Raises:
        TypeError: if `theta_t` is complex or `G` is not numeric.
        ValueError: if the shapes do not broadcast, or the input is non-finite.

    Example:
        >>> round(float(local_coherence(jnp.pi / 2, 2.0 + 3.0j)), 6)  # Im G
        3.0
    """
    theta = as_float(theta_t, "theta_t")
    try:
        G = jnp.asarray(G)
    except TypeError as e:
        raise TypeError(f"G must be a complex array; got {type(G).__name__}.") from e
    if not jnp.issubdtype(G.dtype, jnp.inexact):
        G = G.astype(theta.dtype)
    check_broadcast(
        "theta_t and G must have broadcastable shapes; "
        f"got theta_t {theta.shape}, G {G.shape}.",
        theta.shape,
        G.shape,
    )
    check_finite(theta, "theta_t")
    if is_concrete(G) and not np.all(np.isfinite(np.asarray(G))):
        raise ValueError("G must be finite; got NaN/inf entries.")
    return _local_coherence(theta, G)


@jax.jit
def _local_coherence(theta, G):
    return jnp.cos(theta) * jnp.real(G) + jnp.sin(theta) * jnp.imag(G)
