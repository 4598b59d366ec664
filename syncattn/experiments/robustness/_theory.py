r"""What the theory predicts for each non-ideality, from a trained model's own drives.

Every number here is a library function of [`syncattn.lohe`][] evaluated on the drives
$h$ of the ideal model (all heads, layers and real positions of the sweep's
validation rows), averaged over those queries; nothing is re-derived:

* noise $\sigma$: the stationary law of $dz = (I - zz^\top)h\,dt + \sigma(I - zz^\top)\circ dW$
  is von Mises-Fisher with $\kappa = 2\|h\|/\sigma^2$
  ([`syncattn.lohe.vmf_concentration`][]), and at $p = 1$ the expected readout score is
  $\mathbb E[1 + z\cdot r_j] = 1 + A_d(\kappa)\,\hat h\cdot r_j$
  ([`syncattn.lohe.vmf_scores`][]): the noise multiplies the contrast of the scores by
  $A_d(\kappa)$ ([`syncattn.lohe.mean_resultant`][]), the *flattening*. Reported: the
  mean of $A_d(\kappa)$ over the queries.
* frequency disorder $s$: the substrate gives each query $\Omega = s(A - A^\top)/\sqrt2$,
  $A$ standard Gaussian ([`syncattn.nn.Substrate`][]; for $d = 2$, $\omega \sim
  \mathcal N(0, s^2)$). A query locks iff $|\omega| \le \|h\|$ for $d = 2$ (Adler,
  [`syncattn.lohe.adler_locking`][]), at the angle $\arcsin(\omega/\|h\|)$ from
  $\hat h$; for $d \ge 3$ iff the locked state exists
  ([`syncattn.lohe.locked_state`][]). Reported: the locked fraction and the mean angle
  of the locked state to $\hat h$, averaged over the queries and `n_omega` draws of
  $\Omega$ from that law (``numpy.random.default_rng(0)``).
* settling time $T$: from a uniform start the angle obeys
  $\tan\frac{\varphi(T)}2 = \tan\frac{\varphi_0}2 e^{-\|h\|T}$, so the expected error
  $\mathbb E\|z(T) - \hat h\|$ and the converged fraction are functions of $\|h\|T$
  ([`syncattn.lohe.predict_convergence`][]); the horizon at which a query started at a
  right angle reaches $\delta$ is $T_\delta = \log\cot(\delta/2)/\|h\|$
  ([`syncattn.lohe.time_to_converge`][] at $\varphi_0 = \pi/2$). Reported: the mean
  expected error, the converged fraction, and the horizon's quantiles.
* coupling mismatch and readout bits: the library proves nothing about them, and no
  curve is drawn.

The same theory sizes the simulations: the horizon and the step of the noisy SDE
come from the flow's own relaxation rates
([`noise_schedule`][syncattn.experiments.robustness._theory.noise_schedule]), the
horizon of the disordered ODE from the locked queries' relaxation rates
([`disorder_schedule`][syncattn.experiments.robustness._theory.disorder_schedule]).
"""

from __future__ import annotations

import math

import numpy as np


HORIZON_QUANTILES = (0.5, 0.9, 0.99)
"""Quantiles over the queries of the settling horizon $T_\\delta$."""


def _as_drives(h) -> np.ndarray:
    h = np.asarray(h, dtype=np.float64)
    if h.ndim != 2 or h.shape[0] == 0 or h.shape[1] < 2:
        raise ValueError(
            f"h must be a non-empty (N, d >= 2) array of drives; got shape {h.shape}."
        )
    return h


def drive_summary(h) -> dict:
    """Count, degenerate count and quantiles of $\\|h\\|$ over the queries."""
    norm = np.linalg.norm(_as_drives(h), axis=-1)
    q = np.quantile(norm, [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99])
    return {
        "queries": int(norm.size),
        "d": int(np.shape(h)[-1]),
        "degenerate": int(np.sum(norm <= 1e-8)),
        "mean": float(norm.mean()),
        "quantiles_1_5_25_50_75_95_99": q.tolist(),
    }


def regular(h) -> np.ndarray:
    """The drives with $\\|h\\| > 10^{-8}$ (a degenerate drive reads out uniformly and has
    no direction for the theory to predict)."""
    h = _as_drives(h)
    return h[np.linalg.norm(h, axis=-1) > 1e-8]


def noise(h, sigmas) -> dict:
    r"""Mean over the queries of the vMF flattening $A_d(2\|h\|/\sigma^2)$, per $\sigma$."""
    import jax.numpy as jnp

    from ... import lohe

    h = jnp.asarray(regular(h))
    d = int(h.shape[-1])
    kept = [
        float(jnp.mean(lohe.mean_resultant(lohe.vmf_concentration(h, float(s)), d)))
        for s in sigmas
    ]
    return {"contrast_kept": kept}


def noise_schedule(
    h,
    sigma: float,
    *,
    horizon: float = 5.0,
    quantile: float = 0.05,
    step: float = 0.5,
    noise_step: float = 0.1,
    t_max: float = 30.0,
) -> dict:
    r"""The horizon $T_\sigma$ and step $\Delta t_\sigma$ of the noisy settling, from the relaxation rates.

    Near its fixed point $\hat h$ the noiseless flow relaxes at the rate $\|h\|$
    (the linearisation of $(I - zz^\top)h$ at $\hat h$ is $-\|h\|$ on the tangent
    space); a weakly driven query relaxes to its (nearly uniform) stationary law by
    diffusion, at the rate of the first spherical harmonic, $\frac{d-1}2\sigma^2$
    (the Laplace-Beltrami eigenvalue $\ell(\ell + d - 2)$ at $\ell = 1$, times
    $\sigma^2/2$). With the quantiles $q_\alpha$ of $\|h\|$ over the model's queries,

    $$T_\sigma = \min\Bigl(t_\max, \frac{c_T}{\max(q_\alpha, \frac{d-1}2\sigma^2)}\Bigr), \qquad
      \Delta t_\sigma = \min\Bigl(\frac{c_\Delta}{q_{1-\alpha/5}},
        \frac{\epsilon_\sigma}{(d-1)\sigma^2}, T_\sigma\Bigr):$$

    $c_T$ = `horizon` relaxation times for all but the fraction $\alpha$ = `quantile` of
    the queries (the start's memory $e^{-c_T}$, 0.7 % at $c_T = 5$); a step of
    $c_\Delta$ = `step` drift relaxation times of all but the fastest $\alpha/5$ of
    the queries (1 % at $\alpha = 0.05$; Heun is stable for $\|h\|\Delta t < 2$); and
    $(d-1)\sigma^2\Delta t \le \epsilon_\sigma$ = `noise_step`: the retraction
    $z \mapsto z/\|z\|$ after each noisy step shortens the tangent increment
    $\sigma\,(I - zz^\top)\Delta W$ (squared length $\approx (d-1)\sigma^2\Delta t$) by the
    factor $(1 + (d-1)\sigma^2\Delta t)^{-1/2}$, which concentrates the discrete path's
    stationary law ($\kappa$ too large by a relative amount of that order: measured in
    the tests). `t_max` caps the horizon (the layer's `ode_t1`). The stationary law is
    von Mises-Fisher with $\kappa = 2\|h\|/\sigma^2$ ([`syncattn.lohe.vmf_concentration`][]);
    the test simulates the SDE on this schedule and finds its mean resultant
    $A_d(\kappa)$ ([`syncattn.lohe.mean_resultant`][]) up to that bias.

    Returns:
        ``{"settle_time": T, "dt": dt, "steps": ceil(T / dt), "rate_slow", "rate_fast"}``
        (the rates: the denominators of $T_\sigma$ and of the drift's step).

    Raises:
        ValueError: `sigma` not a finite number $> 0$; `horizon`, `step`, `noise_step`
            or `t_max` not $> 0$; `quantile` outside $(0, 1)$; no regular drive.
    """
    if isinstance(sigma, bool) or not (
        isinstance(sigma, (int, float)) and 0 < sigma < math.inf
    ):
        raise ValueError(f"sigma must be a finite number > 0; got {sigma!r}.")
    for name, v in (
        ("horizon", horizon),
        ("step", step),
        ("noise_step", noise_step),
        ("t_max", t_max),
    ):
        if not v > 0:
            raise ValueError(f"{name} must be > 0; got {v!r}.")
    if not 0 < quantile < 1:
        raise ValueError(f"quantile must lie in (0, 1); got {quantile!r}.")
    h = regular(h)
    if h.shape[0] == 0:
        raise ValueError(
            "h has no regular drive (all ||h|| <= 1e-8): no relaxation rate."
        )
    d = int(h.shape[-1])
    norm = np.linalg.norm(h, axis=-1)
    s2 = float(sigma) ** 2
    slow = max(float(np.quantile(norm, quantile)), 0.5 * (d - 1) * s2)
    fast = float(np.quantile(norm, 1 - quantile / 5))
    T = min(float(t_max), horizon / slow)
    dt = min(step / fast, noise_step / ((d - 1) * s2), T)
    return {
        "settle_time": T,
        "dt": dt,
        "steps": math.ceil(T / dt - 1e-9),
        "rate_slow": slow,
        "rate_fast": fast,
    }


def locking_rates(
    h, strength: float, n_omega: int = 4, max_queries: int = 4096
) -> np.ndarray:
    r"""The relaxation rates $\lambda^\star$ of the locked queries under the substrate's law of $\Omega$.

    A locked query relaxes to its locked state $z^\star$ at the rate
    $\lambda^\star = z^\star\cdot h$: the linearisation of
    $\dot z = \Omega z + (I - zz^\top)h$ on $T_{z^\star}S^{d-1}$ is $-\lambda^\star I$
    plus a skew map ([`syncattn.lohe.locked_state`][], its `rate`; for $d = 2$ Adler's
    $\sqrt{\|h\|^2 - \omega^2} = \|h\|\cos\varphi^\star$, [`syncattn.lohe.adler_locking`][]).
    $\Omega = s(A - A^\top)/\sqrt2$, $A$ standard Gaussian (for $d = 2$, $\omega \sim
    \mathcal N(0, s^2)$), `n_omega` draws from ``numpy.random.default_rng(1)``, each on
    at most `max_queries` of the regular drives (a fixed subsample). A drifting query
    has no rate (no fixed point) and is left out.

    Returns:
        The rates of the locked (query, draw) pairs, 1-d (empty: none locks).
    """
    import jax.numpy as jnp

    from ... import lohe

    h = regular(h)
    rng = np.random.default_rng(1)
    if h.shape[0] > max_queries:
        h = h[rng.choice(h.shape[0], size=max_queries, replace=False)]
    d = int(h.shape[-1])
    norm = np.linalg.norm(h, axis=-1)
    A = rng.normal(size=(n_omega, d, d))
    Omegas = float(strength) * (A - np.swapaxes(A, -1, -2)) / math.sqrt(2.0)
    if d == 2:  # all draws at once: omega (n_omega, 1) against |h| (N,)
        om, a = np.broadcast_arrays(Omegas[:, 1, 0][:, None], norm[None])
        lk = lohe.adler_locking(om, a)
        ok = np.asarray(lk.locked)
        return (a * np.cos(np.asarray(lk.angle)))[ok]
    out = []
    for O in Omegas:
        st = lohe.locked_state(jnp.asarray(O), jnp.asarray(h))
        out.append(np.asarray(st.rate)[np.asarray(st.locked)])
    return np.concatenate(out)


def disorder_schedule(
    h,
    strength: float,
    *,
    horizon: float = 5.0,
    quantile: float = 0.1,
    t_max: float = 30.0,
    n_omega: int = 4,
) -> dict:
    r"""The horizon $T_\Omega$ of the disordered settling, from the locking rates.

    $$T_\Omega = \min\Bigl(t_\max, \frac{c_T}{q_\alpha(\lambda^\star)}\Bigr)$$

    with $q_\alpha$ the $\alpha$-quantile ($\alpha$ = `quantile`) of the relaxation
    rates $\lambda^\star = z^\star\cdot h$ of the locked queries
    ([`locking_rates`][syncattn.experiments.robustness._theory.locking_rates]) and
    $c_T$ = `horizon` relaxation times: all but the fraction $\alpha$ of the locked
    queries have relaxed to their locked state for $c_T$ of their own relaxation
    times. A drifting query has no limit to reach (it circulates with its beat
    frequency at any horizon, its state at $T$ a phase of that orbit), so no horizon
    serves it better than another; the run measures what the horizon does to the
    metric against $2T_\Omega$ (and, for the classifier, against the layer's $T = 30$ at
    its own tolerances). `t_max` caps it (the layer's `ode_t1`).

    Returns:
        ``{"settle_time": T, "rate_slow": q_alpha, "locked_fraction"}`` (the fraction
        of the sampled (query, draw) pairs that lock; `rate_slow` ``None`` and
        $T = t_\max$ when none locks).

    Raises:
        ValueError: `strength` not a finite number $> 0$; `horizon` or `t_max` not
            $> 0$; `quantile` outside $(0, 1)$.
    """
    if isinstance(strength, bool) or not (
        isinstance(strength, (int, float)) and 0 < strength < math.inf
    ):
        raise ValueError(f"strength must be a finite number > 0; got {strength!r}.")
    for name, v in (("horizon", horizon), ("t_max", t_max)):
        if not v > 0:
            raise ValueError(f"{name} must be > 0; got {v!r}.")
    if not 0 < quantile < 1:
        raise ValueError(f"quantile must lie in (0, 1); got {quantile!r}.")
    rates = locking_rates(h, strength, n_omega=n_omega)
    n = min(regular(h).shape[0], 4096) * n_omega
    if rates.size == 0:
        return {"settle_time": float(t_max), "rate_slow": None, "locked_fraction": 0.0}
    slow = float(np.quantile(rates, quantile))
    T = float(t_max) if slow <= 0 else min(float(t_max), horizon / slow)
    return {"settle_time": T, "rate_slow": slow, "locked_fraction": rates.size / n}


def snap_schedule(schedule: dict, per_octave: int = 4) -> dict:
    r"""The schedule on a grid of $2^{1/n}$ ($n$ = `per_octave`): $T$ rounded up, $\Delta t$
    down (never coarser, never shorter), the steps recounted (a schedule without
    ``"dt"``: the horizon only). Models of one setting
    (seeds) then share their noisy schedules, so their compilations are shared too."""
    if (
        isinstance(per_octave, bool)
        or not isinstance(per_octave, int)
        or per_octave < 1
    ):
        raise ValueError(f"per_octave must be an int >= 1; got {per_octave!r}.")
    n = float(per_octave)
    up = lambda x: 2.0 ** (math.ceil(n * math.log2(x) - 1e-9) / n)
    down = lambda x: 2.0 ** (math.floor(n * math.log2(x) + 1e-9) / n)
    T = up(schedule["settle_time"])
    if "dt" not in schedule:  # a horizon only (the disordered ODE's adaptive steps)
        return {**schedule, "settle_time": T}
    dt = down(schedule["dt"])
    return {**schedule, "settle_time": T, "dt": dt, "steps": math.ceil(T / dt - 1e-9)}


def disorder(h, strengths, n_omega: int = 16) -> dict:
    r"""Locked fraction and mean locked angle under the substrate's law of $\Omega$, per strength."""
    import jax.numpy as jnp

    from ... import lohe

    h = regular(h)
    d = int(h.shape[-1])
    norm = np.linalg.norm(h, axis=-1)
    rng = np.random.default_rng(0)
    locked, angle = [], []
    for s in strengths:
        A = rng.normal(size=(n_omega, d, d))
        Omegas = float(s) * (A - np.swapaxes(A, -1, -2)) / math.sqrt(2.0)
        ok, ang = [], []
        for O in Omegas:
            if d == 2:  # Omega = omega J, J the rotation by +pi/2
                lk = lohe.adler_locking(float(O[1, 0]), norm)
                ok.append(np.asarray(lk.locked))
                ang.append(np.abs(np.asarray(lk.angle)))
            else:
                st = lohe.locked_state(jnp.asarray(O), jnp.asarray(h))
                ok.append(np.asarray(st.locked))
                cos = np.sum(np.asarray(st.z) * h, -1) / norm
                ang.append(np.arccos(np.clip(cos, -1.0, 1.0)))
        ok, ang = np.concatenate(ok), np.concatenate(ang)
        locked.append(float(ok.mean()))
        angle.append(float(ang[ok].mean()) if ok.any() else math.nan)
    rule = (
        "Adler: |omega| <= ||h||"
        if d == 2
        else "the locked state of lohe.locked_state exists"
    )
    return {
        "locked_fraction": locked,
        "locked_angle": angle,
        "rule": rule,
        "n_omega": n_omega,
    }


def settling(h, times, delta: float) -> dict:
    r"""Expected error and converged fraction at each settling time; the horizon's quantiles."""
    from ... import lohe

    h = regular(h)
    d = int(h.shape[-1])
    norm = np.linalg.norm(h, axis=-1)
    err, conv = [], []
    for T in times:
        p = lohe.predict_convergence(norm, d, float(T))
        err.append(float(np.mean(np.asarray(p["mean_error"]))))
        conv.append(float(np.mean(np.asarray(p["converged"]))))
    horizon = np.asarray(lohe.time_to_converge(math.pi / 2, norm, float(delta)))
    q = np.quantile(horizon, HORIZON_QUANTILES)
    return {
        "mean_error": err,
        "converged_fraction": conv,
        "delta": float(delta),
        "horizon_quantiles": dict(
            zip([str(x) for x in HORIZON_QUANTILES], q.tolist(), strict=True)
        ),
    }


def predict(kind: str, h, strengths, *, delta: float) -> dict | None:
    """The theory's curves for non-ideality `kind` over `strengths` (``None``: no theory)."""
    if kind == "noise":
        return noise(h, strengths)
    if kind == "frequency_disorder":
        return disorder(h, strengths)
    if kind == "settle_time":
        return settling(h, strengths, delta)
    return None
