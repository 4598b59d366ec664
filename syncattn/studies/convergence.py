r"""Study `convergence`: the fixed-query flow integrated numerically against its closed form.

For $d = d_\text{osc} \in \{2, 3, 4, 8, 16, 32, 64\}$, each random instance is one
query of fixed-query oscillator attention: $m$ random tokens $e_j \sim \mathcal
N(0, I)$, random query/key maps $F, G$ with $\mathcal N(0, 1/d_\text{model})$
entries, weights $w_{1j}$ = [`syncattn.lohe.fixed_query_weights`][] (softplus of
scaled dot products), uniform anchors $r_j$, drive $h$ = [`syncattn.lohe.drive`][],
and a uniform start $z_0$ ([`syncattn.sphere.sample_uniform`][]). The flow

$$\dot z = (I - z z^\top) h \qquad (\text{[`syncattn.lohe.fixed_query_field`][]})$$

is integrated by [`syncattn.lohe.settle_time`][] (the library's one fixed-query
integrator: diffrax Tsit5 at `rtol`/`atol` below, through the shared simulation
driver) up to the horizon $T$, with a diffrax `Event` whose root finder (optimistix
Newton) locates the first time $\angle(z(t), h) = \delta$. All instances of all $d$
are solved in one `jax.vmap`-ed batch: each instance is zero-padded to $\max d$, which is exact
because the flow keeps $z$ in the span of $z_0$ and $h$.

Theory, per instance (angle $\varphi_0 = \angle(z_0, h)$):

* [`syncattn.lohe.time_to_converge`][] $(\varphi_0, \|h\|, \delta)$ against the
  measured time (scatter and relative error);
* the distribution of the time: $P(\tau \le t) = 1 - \overline{p}(t)$ with
  $\overline{p}(t)$ the mean over the instances of
  [`syncattn.lohe.finite_time_failure_probability`][] $(\|h_i\|, t, \delta, d)$
  (empirical CDF against it, Kolmogorov distance reported);
* the fraction not converged by $T$ against $\overline{p}(T)$, with
  Clopper-Pearson intervals and a Poisson-binomial $z$-score.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import numpy as np

from . import _common
from ._convergence_plots import write as _write


NAME = "convergence"

__all__ = ["Config", "run", "summary"]


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the `convergence` study."""

    seed: int = 0  # PRNG seed
    dims: tuple[int, ...] = (2, 3, 4, 8, 16, 32, 64)  # d_osc grid
    n_instances: int = 2000  # random (instance, start) pairs per d
    n_tokens: int = 16  # m tokens/anchors per instance
    d_model: int = 16  # token embedding width
    d_head: int = 8  # d_h of the query/key maps
    delta: float = 0.1  # target angle to h/||h|| (radians)
    horizon: float = 1.2  # T: integrate to T; "not converged" = angle > delta at T
    rtol: float = 1e-10  # diffrax PID tolerances
    atol: float = 1e-12
    max_steps: int = 4096
    n_grid: int = 200  # times at which the CDFs are compared
    confidence: float = 0.95
    n_limit: int = 100_000  # weight vectors sampled for the d -> infinity limit

    @classmethod
    def smoke(cls) -> Config:
        """Test size: a few seconds after compilation."""
        return cls(dims=(2, 5), n_instances=600, n_limit=20_000)

    @classmethod
    def full(cls) -> Config:
        """Publication size: 50 000 instances per d."""
        return cls(n_instances=50_000)

    def __post_init__(self):
        if not self.dims or any(int(d) < 2 for d in self.dims):
            raise ValueError(f"dims must be non-empty ints >= 2; got {self.dims}.")
        if not 0 < self.delta < math.pi:
            raise ValueError(f"delta must lie in (0, pi); got {self.delta}.")
        if (
            self.horizon <= 0
            or min(self.n_instances, self.n_tokens, self.d_model, self.d_head) < 1
        ):
            raise ValueError("horizon must be > 0 and the sizes >= 1.")


def _instances(key, d: int, config: Config):
    """Random drives h, uniform starts z0 (both zero-padded to max d), angles phi0, norms ||h||."""
    import jax
    import jax.numpy as jnp

    from .. import lohe, sphere

    n, m, dm, dh = config.n_instances, config.n_tokens, config.d_model, config.d_head
    k_g, k_s = jax.random.split(key)
    # two sampler calls per d (each costs a compilation): one Gaussian block for
    # e, F, G and one uniform block for the m anchors plus the start
    g = jax.random.normal(k_g, (n, m * dm + 2 * dh * dm))
    e = g[:, : m * dm].reshape(n, m, dm)
    F = g[:, m * dm : m * dm + dh * dm].reshape(n, dh, dm) / math.sqrt(dm)
    G = g[:, m * dm + dh * dm :].reshape(n, dh, dm) / math.sqrt(dm)
    w = jax.vmap(lohe.fixed_query_weights)(e, F, G)[
        :, :1, :
    ]  # query = token 0: (n, 1, m)
    u = sphere.sample_uniform(k_s, (n, m + 1), d)
    r, z0 = u[:, :m], u[:, m]
    h = lohe.drive(w, r)[:, 0, :]
    h_hat, _ = lohe.equilibrium(h)
    pad = ((0, 0), (0, max(config.dims) - d))  # exact: the flow stays in span(z0, h)
    return (
        jnp.pad(h, pad),
        jnp.pad(z0, pad),
        _angle(z0, h_hat),
        jnp.linalg.norm(h, axis=-1),
    )


def _weight_norms(key, config: Config, n: int):
    """||w||_2 of n fresh weight rows of the instance model (tokens, F, G), 10^4 at a time."""
    import jax
    import jax.numpy as jnp

    from .. import lohe

    m, dm, dh = config.n_tokens, config.d_model, config.d_head
    chunk = min(n, 10_000)
    n_chunks = -(-n // chunk)

    @jax.jit
    def norms(k):
        g = jax.random.normal(k, (chunk, m * dm + 2 * dh * dm))
        e = g[:, : m * dm].reshape(chunk, m, dm)
        F = g[:, m * dm : m * dm + dh * dm].reshape(chunk, dh, dm) / math.sqrt(dm)
        G = g[:, m * dm + dh * dm :].reshape(chunk, dh, dm) / math.sqrt(dm)
        w = jax.vmap(lohe.fixed_query_weights)(e, F, G)[:, 0, :]  # query = token 0
        return jnp.sqrt(jnp.sum(w * w, axis=-1))

    out = [np.asarray(norms(k)) for k in jax.random.split(key, n_chunks)]
    return np.concatenate(out)[:n]


def _all_instances(key, config: Config):
    """`_instances` for every d, concatenated: one jitted program (one compilation)."""
    import jax
    import jax.numpy as jnp

    parts = [
        _instances(k, d, config)
        for k, d in zip(
            jax.random.split(key, len(config.dims)), config.dims, strict=True
        )
    ]
    return tuple(jnp.concatenate(x) for x in zip(*parts, strict=True))


def _solver(config: Config):
    """Solve a batch of instances -> (time of the delta event or inf, event flag, steps).

    The library's one fixed-query integrator, [`syncattn.lohe.settle_time`][] (Tsit5
    through the shared simulation driver, a diffrax event at angle delta).
    """
    import jax.numpy as jnp

    from .. import lohe

    def solve(z0, h):
        tau, _, steps = lohe.settle_time(
            z0,
            h,
            config.delta,
            config.horizon,
            solver="tsit5",
            rtol=config.rtol,
            atol=config.atol,
            max_steps=config.max_steps,
        )
        return tau, jnp.isfinite(tau), steps

    return solve


def _angle(z, h_hat):
    """Angle between unit vectors, via atan2 (accurate near 0 and pi)."""
    import jax.numpy as jnp

    from .. import sphere

    c = jnp.sum(z * h_hat, axis=-1)
    s = jnp.linalg.norm(sphere.project_tangent(h_hat, z), axis=-1)
    return jnp.arctan2(s, c)


def run(
    config: Config, out: str | Path | None = None, *, progress: bool = False
) -> dict:
    """Run the study; write `convergence.png`, `times.csv`, `failure.csv`,
    `results.json` and `config.json` to `out` (nothing is written when `out` is None).

    Returns:
        A dict with per-instance arrays (`d`, `phi0`, `norm_h`, `t_measured`,
        `t_predicted`, `converged`) and per-`d` summaries (`per_d`).
    """
    import jax
    import jax.numpy as jnp

    from .. import lohe

    t_start = time.perf_counter()
    dims = [int(d) for d in config.dims]
    make = jax.jit(_all_instances, static_argnums=1)
    H, Z, phi0, norm_h = make(_common.prng_key(config.seed), config)
    phi0, norm_h = np.asarray(phi0), np.asarray(norm_h)
    dcol = np.repeat(np.asarray(dims), config.n_instances)
    t_end, event, steps = _solve_all(config, H, Z, progress)

    already = phi0 <= config.delta
    converged = event | already
    t_meas = np.where(already, 0.0, np.where(event, t_end, np.inf))
    t_pred = np.asarray(
        lohe.time_to_converge(jnp.asarray(phi0), jnp.asarray(norm_h), config.delta)
    )
    timed = event & ~already & (t_pred > 0)
    rel_err = np.abs(t_meas[timed] - t_pred[timed]) / t_pred[timed]
    mismatch = int(np.sum((t_pred > config.horizon) != ~converged))

    grid = np.linspace(0.0, config.horizon, config.n_grid)
    measured = dict(
        t_meas=t_meas, converged=converged, steps=steps, rel_err=rel_err, timed=timed
    )
    per_d = [_per_d(config, d, dcol, norm_h, grid, measured) for d in dims]
    fail_theory = [p["p_theory"] for p in per_d]
    results = {
        "d": dcol,
        "phi0": phi0,
        "norm_h": norm_h,
        "t_measured": t_meas,
        "t_predicted": t_pred,
        "converged": converged,
        "grid": grid,
        "per_d": per_d,
        "max_rel_error": float(rel_err.max()) if rel_err.size else float("nan"),
        "median_rel_error": float(np.median(rel_err)) if rel_err.size else float("nan"),
        "classification_mismatches": mismatch,
        "max_abs_z": float(max(abs(p["z_score"]) for p in per_d)),
        "max_ks_distance": float(max(p["ks_distance"] for p in per_d)),
        "rate_theory": _common.fit_exponential_rate(dims, fail_theory)["rate"],
        "rate_mc": _common.fit_exponential_rate(dims, [p["fraction"] for p in per_d])[
            "rate"
        ],
        "delta": config.delta,
        "horizon": config.horizon,
        "limit": _limit(config),
        "seconds": time.perf_counter() - t_start,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out), NAME)
    return results


def _solve_all(config: Config, H, Z, progress: bool):
    """Every instance's (time of the delta event or inf, event flag, steps), solved in
    batches of one compiled shape (the last batch is padded, then the padding dropped)."""
    import jax.numpy as jnp

    solve = _solver(config)
    n_total = H.shape[0]
    batch = min(n_total, 16384)
    n_pad = -n_total % batch
    Z = jnp.concatenate([Z, Z[:n_pad]]) if n_pad else Z
    H = jnp.concatenate([H, H[:n_pad]]) if n_pad else H
    parts = []
    starts = list(range(0, n_total + n_pad, batch))
    for s in _common.progress(starts, desc=f"diffrax x{n_total}", enabled=progress):
        parts.append([np.asarray(x) for x in solve(Z[s : s + batch], H[s : s + batch])])
    t_end = np.concatenate([p[0] for p in parts])[:n_total]
    event = np.concatenate([p[1] for p in parts]).astype(bool)[:n_total]
    steps = np.concatenate([p[2] for p in parts])[:n_total]
    return t_end, event, steps


def _per_d(config: Config, d: int, dcol, norm_h, grid, measured: dict) -> dict:
    """One d's summary: the unconverged fraction against the mean failure probability
    (interval, z-score), the time's CDF against the theory (Kolmogorov distance), the
    errors of the predicted times, and the mean of ||h|| and ||h||^2.

    The rate at z* is ||h|| and E||h||^2 = sum_j w_j^2 for every d: no speed-up with d.
    What concentrates is phi0 (at pi/2) and ||h|| (at ||w||_2), so the unconverged
    fraction saturates at P(||w||_2 < log cot(delta/2) / T)
    (docs/theory/finite_time_threshold.md).
    """
    import jax.numpy as jnp

    from .. import lohe

    t_meas, converged = measured["t_meas"], measured["converged"]
    rel_err, timed = measured["rel_err"], measured["timed"]
    sel = dcol == d
    n = int(sel.sum())
    p_fail_T = np.asarray(
        lohe.finite_time_failure_probability(
            jnp.asarray(norm_h[sel]), config.horizon, config.delta, d
        )
    )
    p_grid = np.asarray(
        lohe.finite_time_failure_probability(
            jnp.asarray(norm_h[sel])[:, None],
            jnp.asarray(grid)[None, :],
            config.delta,
            d,
        )
    ).mean(axis=0)
    cdf_theory = 1.0 - p_grid
    cdf_emp = np.mean(t_meas[sel][:, None] <= grid[None, :], axis=0)
    k = int(np.sum(~converged[sel]))
    mean_p = float(p_fail_T.mean())
    var = float(np.sum(p_fail_T * (1 - p_fail_T)))
    lo, hi = _common.clopper_pearson(k, n, config.confidence)
    return {
        "d": d,
        "n": n,
        "not_converged": k,
        "fraction": k / n,
        "ci_lo": float(lo),
        "ci_hi": float(hi),
        "p_theory": mean_p,
        "z_score": (k - n * mean_p) / math.sqrt(var)
        if var > 0
        else (0.0 if k == 0 else math.inf),
        "ks_distance": float(np.max(np.abs(cdf_emp - cdf_theory))),
        "cdf_empirical": cdf_emp,
        "cdf_theory": cdf_theory,
        "median_rel_error": float(np.median(rel_err[dcol[timed] == d]))
        if np.any(dcol[timed] == d)
        else float("nan"),
        "max_rel_error": float(np.max(rel_err[dcol[timed] == d]))
        if np.any(dcol[timed] == d)
        else float("nan"),
        "max_steps_used": int(measured["steps"][sel].max()),
        "mean_norm_h": float(norm_h[sel].mean()),
        "mean_norm_h_sq": float(np.mean(norm_h[sel] ** 2)),
    }


def _limit(config: Config) -> dict:
    """The d -> infinity limit of the unconverged fraction, P(||w||_2 < log cot(delta/2)/T),
    by Monte Carlo over the weight model."""
    import jax

    from .. import lohe

    key_w = jax.random.fold_in(_common.prng_key(config.seed), 7)
    norm_w = _weight_norms(key_w, config, config.n_limit)
    critical_norm = (
        float(lohe.finite_time_threshold(1.0, config.delta)) / config.horizon
    )
    k_lim = int(np.sum(norm_w < critical_norm))
    lim_lo, lim_hi = _common.clopper_pearson(k_lim, config.n_limit, config.confidence)
    return {
        "critical_norm": critical_norm,  # log cot(delta/2) / T
        "n": config.n_limit,
        "count": k_lim,
        "p": k_lim / config.n_limit,
        "ci_lo": float(lim_lo),
        "ci_hi": float(lim_hi),
        "mean_norm_w_sq": float(np.mean(norm_w**2)),
    }


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    lines = [
        f"convergence: fixed-query flow, delta={results['delta']:g}, horizon T={results['horizon']:g}",
        f"  time to delta: median rel. error {results['median_rel_error']:.2e}, max {results['max_rel_error']:.2e};"
        f" converged-by-T misclassified: {results['classification_mismatches']}",
    ]
    for p in results["per_d"]:
        lines.append(
            f"  d={p['d']:<3} not converged {p['not_converged']}/{p['n']} = {p['fraction']:.4f}"
            f" [{p['ci_lo']:.4f}, {p['ci_hi']:.4f}]  theory {p['p_theory']:.4g}  z={p['z_score']:+.2f}"
            f"  KS={p['ks_distance']:.3f}"
        )
    lines.append(
        f"  fitted rate: theory {results['rate_theory']:.4f}, simulation {results['rate_mc']:.4f}"
    )
    lim = results["limit"]
    nh = ", ".join(f"{p['mean_norm_h_sq']:.3f}" for p in results["per_d"])
    lines.append(
        f"  mean ||h||^2 per d: {nh} (E||w||_2^2 = {lim['mean_norm_w_sq']:.3f}: the rate does not grow with d)"
    )
    lines.append(
        f"  d -> infinity limit P(||w||_2 < log cot(delta/2)/T = {lim['critical_norm']:.4f})"
        f" = {lim['p']:.4f} [{lim['ci_lo']:.4f}, {lim['ci_hi']:.4f}] (n = {lim['n']})"
    )
    lines.append(f"  ({results['seconds']:.1f} s)")
    return "\n".join(lines)
