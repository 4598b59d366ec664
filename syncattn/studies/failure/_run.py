"""The ``failure`` study's Monte Carlo runs against the theory (see the package docstring)."""

from __future__ import annotations

import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from ... import lohe, sphere
from ...lohe import degenerate_probability_exact, weight_norm_probability
from ...stats import binomial_pvalue
from .. import _common
from ._config import NAME, Config
from ._plots import write


# --------------------------------------------------------------------------- Monte Carlo


def _antipodal_counter(dims: tuple[int, ...], chunk: int):
    """One jitted program for every d (a compilation costs seconds; a chunk does not)."""

    @jax.jit
    def count(key, cos_alphas):
        out = []
        for k, d in zip(jax.random.split(key, len(dims)), dims, strict=True):
            k_z, k_h = jax.random.split(k)
            # float32 samples: twice as fast, and exact enough for a count
            z = sphere.sample_uniform(k_z, (chunk,), d, dtype=jnp.float32)
            h = sphere.sample_uniform(k_h, (), d, dtype=jnp.float32)
            cos_to_antipode = z @ (-h)
            out.append(
                jnp.sum(
                    cos_to_antipode[:, None] > cos_alphas[None, :].astype(jnp.float32),
                    axis=0,
                )
            )
        return jnp.stack(out)

    return count


def _count(counter, key, n_chunks: int, desc: str, progress: bool, *args) -> np.ndarray:
    """Total of the int64 counts ``counter(k, *args)`` over ``n_chunks`` keys split from
    ``key`` (one progress bar)."""
    total = 0
    for k in _common.progress(
        list(jax.random.split(key, n_chunks)), desc=desc, enabled=progress
    ):
        total = total + np.asarray(counter(k, *args), dtype=np.int64)
    return np.asarray(total, dtype=np.int64)


def run(
    config: Config, out: str | Path | None = None, *, progress: bool = False
) -> dict:
    """Run the study; write ``failure.png``, ``antipodal.csv``, ``degenerate.csv``,
    ``results.json`` and ``config.json`` to ``out`` (nothing is written when ``out`` is None).

    Returns:
        ``{"antipodal": {...}, "degenerate": {...}, ...}`` with per-point counts,
        intervals, theory values, binomial p-values of the theory, and fitted rates.
    """
    t_start = time.perf_counter()
    dims = [int(d) for d in config.dims]
    key = _common.prng_key(config.seed)
    k_anti, k_deg, _ = jax.random.split(key, 3)  # three: the antipodal keys stay put
    d_curve = np.arange(min(dims), max(dims) + 1)
    results = {
        "antipodal": _antipodal(config, dims, d_curve, k_anti, progress),
        "degenerate": _degenerate(config, dims, k_deg, progress),
        "scale_free": _scale_free(
            config, dims, d_curve, jax.random.fold_in(key, 1), progress
        ),
        "threshold": _threshold(config, dims, d_curve, jax.random.fold_in(key, 2)),
        "confidence": config.confidence,
        "seconds": time.perf_counter() - t_start,
    }
    if out is not None:
        write(results, config, _common.make_outdir(NAME, out))
    return results


def _antipodal(config: Config, dims: list[int], d_curve, key, progress: bool) -> dict:
    """Monte Carlo on every d against the theory `lohe.antipodal_probability`."""
    alphas = np.asarray(config.alphas, dtype=float)
    n_chunks = -(-config.n_antipodal // config.chunk)  # n is rounded up to whole chunks
    n_a = n_chunks * config.chunk
    counter = _antipodal_counter(tuple(dims), config.chunk)
    cos_alphas = jnp.cos(jnp.asarray(alphas))
    counts = _count(counter, key, n_chunks, "antipodal MC", progress, cos_alphas)

    def antipodal_theory(ds):
        return np.array(
            [
                [float(lohe.antipodal_probability(float(a), int(d))) for a in alphas]
                for d in ds
            ]
        )

    p_theory = antipodal_theory(dims)
    lo, hi = _common.clopper_pearson(counts, n_a, config.confidence)
    pvals = binomial_pvalue(counts, n_a, p_theory)
    curve = antipodal_theory(d_curve)
    return {
        "dims": dims,
        "alphas": alphas.tolist(),
        "n": n_a,
        "count": counts,
        "p_mc": counts / n_a,
        "ci_lo": lo,
        "ci_hi": hi,
        "p_theory": p_theory,
        "p_value": pvals,
        "min_p_value": float(pvals.min()),
        "d_curve": d_curve,
        "p_curve": curve,
        **_antipodal_rates(dims, alphas, counts / n_a, p_theory),
    }


def _antipodal_rates(dims: list[int], alphas, p_mc, p_theory) -> dict:
    """The fitted rates of log p in d: theory, Monte Carlo, theory where MC counted, and
    the asymptote -log sin(alpha)."""
    seen = p_mc > 0
    return {
        "rate_theory": [
            _common.fit_exponential_rate(dims, p_theory[:, j])["rate"]
            for j in range(len(alphas))
        ],
        "rate_mc": [
            _common.fit_exponential_rate(dims, p_mc[:, j])["rate"]
            for j in range(len(alphas))
        ],
        # the same fit restricted to the d where the Monte Carlo saw a count (like for like)
        "rate_theory_mc_points": [
            _common.fit_exponential_rate(
                np.asarray(dims)[seen[:, j]], p_theory[seen[:, j], j]
            )["rate"]
            for j in range(len(alphas))
        ],
        "rate_asymptotic": (-np.log(np.sin(alphas))).tolist(),
    }


def _degenerate_sampling(config: Config) -> tuple[int, int]:
    """(chunk, n) of the degenerate-drive Monte Carlo: m anchors per sample, so a chunk
    is a quarter of the antipodal one (bounded memory); n rounded up to whole chunks."""
    chunk_d = max(1, config.chunk // 4)
    return chunk_d, -(-config.n_degenerate // chunk_d) * chunk_d


def _degenerate(config: Config, dims: list[int], key, progress: bool) -> dict:
    """Degenerate drive: the exact theory everywhere, Monte Carlo where resolvable."""
    m, eps, s = config.n_anchors, config.eps, config.scale
    exact = np.array([degenerate_probability_exact(d, m, eps, s) for d in dims])
    chunk_d, n_d = _degenerate_sampling(config)
    sampled = exact * n_d >= config.min_expected
    cnt = np.full(len(dims), -1, dtype=np.int64)
    se_mc = np.full(len(dims), np.nan)
    idx = np.flatnonzero(sampled)
    deg_keys = jax.random.split(key, len(dims))
    for i in _common.progress(idx, desc="degenerate MC", enabled=progress):
        p, se = lohe.degenerate_probability(
            deg_keys[i], dims[i], m, eps, n_d, scale=s, chunk_size=chunk_d
        )
        cnt[i], se_mc[i] = int(np.rint(float(p) * n_d)), float(se)
    ok = cnt >= 0
    lo_d, hi_d = np.full(len(dims), np.nan), np.full(len(dims), np.nan)
    if ok.any():
        lo_d[ok], hi_d[ok] = _common.clopper_pearson(cnt[ok], n_d, config.confidence)
    pv_d = np.full(len(dims), np.nan)
    if ok.any():
        pv_d[ok] = binomial_pvalue(cnt[ok], n_d, exact[ok])
    return {
        "dims": dims,
        "n_anchors": m,
        "eps": eps,
        "scale": s,
        "n": n_d,
        "sampled": sampled,
        "count": cnt,
        "p_mc": np.where(ok, cnt / n_d, np.nan),
        "se_mc": se_mc,
        "ci_lo": lo_d,
        "ci_hi": hi_d,
        "p_theory": exact,
        "p_value": pv_d,
        "min_p_value": float(np.nanmin(pv_d)) if ok.any() else float("nan"),
        "rate_theory": _common.fit_exponential_rate(dims, exact)["rate"],
        "rate_mc": _common.fit_exponential_rate(
            np.asarray(dims)[ok], np.where(ok, cnt / n_d, np.nan)[ok]
        )["rate"],
        "rate_theory_mc_points": _common.fit_exponential_rate(
            np.asarray(dims)[cnt > 0], exact[cnt > 0]
        )["rate"],
        "plateau": weight_norm_probability(m, eps, s),  # d -> infinity limit
    }


def _scale_free(config: Config, dims: list[int], d_curve, key, progress: bool) -> dict:
    """Scale-free events: the relative threshold (with its proved bound) and the convex
    hull (exact, with a linear-programming Monte Carlo where d <= m)."""
    m, s = config.n_anchors, config.scale
    _, n_d = _degenerate_sampling(config)
    k_rel, k_hull, k_bound = jax.random.split(key, 3)
    cnt_rel = _relative_counts(config, dims, k_rel, progress)
    lo_r, hi_r = _common.clopper_pearson(cnt_rel, n_d, config.confidence)
    # the provable bound, averaged over the weight model (a bound on the mixture)
    w_b = jax.nn.softplus(s * jax.random.normal(k_bound, (8192, m)))
    rel_bound = np.array(
        [
            float(jnp.mean(lohe.relative_degenerate_bound(w_b, config.rel_eps, int(d))))
            for d in d_curve
        ]
    )
    hull = [lohe.hull_degenerate_probability(m, int(d)) for d in d_curve]
    hull_dims = [d for d in dims if d <= m]
    hull_hits = _hull_counts(config, hull_dims, k_hull, progress)
    hull_exact = np.array(
        [lohe.hull_degenerate_probability(m, d).exact for d in hull_dims]
    )
    return {
        "dims": dims,
        "n_anchors": m,
        "rel_eps": config.rel_eps,
        "n": n_d,
        "count_relative": cnt_rel,
        "p_relative": cnt_rel / n_d,
        "ci_lo_relative": lo_r,
        "ci_hi_relative": hi_r,
        "rate_relative_mc": _common.fit_exponential_rate(dims, cnt_rel / n_d)["rate"],
        "d_curve": d_curve,
        "relative_bound": rel_bound,
        "hull_exact_curve": np.array([h.exact for h in hull]),
        "hull_bound_curve": np.array([h.bound for h in hull]),
        "hull_exact_all": [lohe.hull_degenerate_probability(m, d).exact for d in dims],
        "hull_dims": hull_dims,
        "n_hull": config.n_hull,
        "hull_count": hull_hits,
        "hull_exact": hull_exact,
        "hull_p_value": binomial_pvalue(hull_hits, config.n_hull, hull_exact),
    }


def _relative_counts(
    config: Config, dims: list[int], key, progress: bool
) -> np.ndarray:
    """Counts of ||h|| < rel_eps ||w||_2 at each d (n of the degenerate-drive run)."""
    m, s = config.n_anchors, config.scale
    chunk_d, n_d = _degenerate_sampling(config)
    return np.array(
        [
            np.rint(
                float(
                    lohe.relative_degenerate_probability(
                        k, d, m, config.rel_eps, n_d, s, chunk_size=chunk_d
                    )[0]
                )
                * n_d
            )
            for k, d in zip(
                _common.progress(
                    jax.random.split(key, len(dims)),
                    desc="relative MC",
                    enabled=progress,
                ),
                dims,
                strict=True,
            )
        ],
        dtype=np.int64,
    )


def _hull_counts(
    config: Config, hull_dims: list[int], key, progress: bool
) -> np.ndarray:
    """Counts of 0 in the convex hull of m uniform points (linear programs) at each d."""
    m = config.n_anchors
    return np.array(
        [
            sum(
                lohe.hull_contains_origin(r)
                for r in np.asarray(sphere.sample_uniform(k, (config.n_hull, m), d))
            )
            for k, d in zip(
                _common.progress(
                    jax.random.split(key, len(hull_dims)),
                    desc="hull LP",
                    enabled=progress,
                ),
                hull_dims,
                strict=True,
            )
        ],
        dtype=np.int64,
    )


def _threshold(config: Config, dims: list[int], d_curve, key) -> dict:
    """Finite-time failure on both sides of the threshold ||h||T = log cot(delta/2)."""
    ratios = np.asarray(config.threshold_ratios, dtype=float)
    L = float(lohe.finite_time_threshold(1.0, config.delta))  # ||h|| = 1: T_c = L
    horizons = ratios * L

    def threshold_theory(ds):
        return np.array(
            [
                np.asarray(
                    lohe.finite_time_failure_probability(
                        1.0, horizons, config.delta, int(d)
                    )
                )
                for d in ds
            ]
        )

    thr_curve = threshold_theory(d_curve)
    thr_count = np.zeros((len(dims), len(ratios)), dtype=np.int64)
    for i, (k, d) in enumerate(
        zip(jax.random.split(key, len(dims)), dims, strict=True)
    ):
        z = np.asarray(sphere.sample_uniform(k, (config.n_threshold,), d))
        phi0 = np.arccos(np.clip(z[:, 0], -1.0, 1.0))  # angle to h/||h|| = e_1
        phiT = np.asarray(lohe.exact_angle(phi0[:, None], 1.0, horizons[None, :]))
        thr_count[i] = np.sum(phiT > config.delta, axis=0)
    thr_theory = threshold_theory(dims)
    return {
        "dims": dims,
        "delta": config.delta,
        "log_cot": L,
        "ratios": ratios,
        "horizons": horizons,
        "n": config.n_threshold,
        "count": thr_count,
        "p_mc": thr_count / config.n_threshold,
        "p_theory": thr_theory,
        "p_value": binomial_pvalue(thr_count, config.n_threshold, thr_theory),
        "d_curve": d_curve,
        "p_curve": thr_curve,
    }
