r"""Study ``failure``: how the two failure modes of fixed-query attention scale with $d$.

For $d = d_\text{osc} \in \{2, 3, 4, 8, 16, 32, 64\}$:

1. **Antipodal start.** The fixed-query flow $\dot z = (I - zz^\top)h$ leaves the
   antipode $-h/\|h\|$ only slowly; a uniform start lies within angle $\alpha$ of
   it with probability [`syncattn.lohe.antipodal_probability`][] ($= $
   ``sphere.cap_probability``), which decays like $(\sin\alpha)^{d-1}$. Monte
   Carlo: $z$ uniform on $S^{d-1}$ ([`syncattn.sphere.sample_uniform`][]), $h$ a
   uniformly random direction (one per chunk; by rotation invariance the count
   is exactly binomial), success when $\angle(z, -h) < \alpha$.

2. **Degenerate drive.** $\|h\| < \varepsilon$ for the random model of
   [`syncattn.lohe.degenerate_probability`][]:

   $$h = \sum_{j=1}^m w_j r_j,\quad w_j = \operatorname{softplus}(g_j),\
     g_j \overset{iid}{\sim} \mathcal N(0, s^2),\quad r_j \overset{iid}\sim
     \mathrm{Unif}(S^{d-1})$$

   (one row of fixed-query softplus couplings with i.i.d. Gaussian scores, and
   uniformly random anchors). The Monte Carlo of ``lohe.degenerate_probability``
   against the exact value [`syncattn.lohe.degenerate_probability_exact`][] (a
   Kluyver-type Bessel integral, see there), which is the "theory" of this panel.
   (The sampler itself is checked against an independent numpy sampler in the
   tests of ``lohe``.)

   This absolute event does **not** keep decaying: $\|h\|^2 = \|w\|_2^2 +
   2\sum_{j<k} w_jw_k\langle r_j, r_k\rangle$ with cross terms $O(d^{-1/2})$, so it
   tends to $P(\|w\|_2 < \varepsilon)$ ([`syncattn.lohe.weight_norm_probability`][], drawn as
   the plateau): it measures the scale of the weights, not the anchors.

3. **Scale-free degenerate events**, which do vanish: the relative event
   $\|h\| < \varepsilon_{rel}\|w\|_2$ (Monte Carlo on the same model,
   ``lohe.relative_degenerate_probability``, and the proved bound
   ``lohe.relative_degenerate_bound`` averaged over the weights), and the
   convex-hull event $0 \in \operatorname{conv}\{r_j\}$, the only way positive
   weights can cancel: Wendel's law ``lohe.hull_degenerate_probability`` (exactly 0
   for $d \ge m$) with its Hoeffding bound, against a Monte Carlo over uniform
   anchor sets that decides hull membership with ``lohe.hull_contains_origin`` (a
   linear programme).

4. **Finite-time failure on both sides of the threshold**
   $\|h\|T = \log\cot(\delta/2)$ (``lohe.finite_time_threshold``): the exact
   ``lohe.finite_time_failure_probability`` for $\|h\| = 1$ and horizons at
   ``threshold_ratios`` times the threshold, against uniform starts pushed through
   ``lohe.exact_angle``. It rises to 1 with $d$ below the threshold, is $1/2$ on it,
   and decays above it.

Probabilities too small for the sample size are not sampled ("theory
elsewhere"): the antipodal Monte Carlo runs on every $d$ (it is cheap) and shows
zero counts as one-sided Clopper-Pearson upper bounds; the degenerate Monte
Carlo runs only where the exact value predicts at least ``min_expected`` hits.
Both panels are on a log axis with the least-squares rate $\lambda$ of
$\log p \approx a - \lambda d$ (reported in ``results.json``).
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import numpy as np

from . import _common


NAME = "failure"

__all__ = ["Config", "degenerate_probability_exact", "run", "summary"]

# the exact probability and the plateau moved into the core; the old import paths keep working
from ..lohe import (  # noqa: E402
    degenerate_probability_exact as degenerate_probability_exact,
    weight_norm_probability as weight_norm_probability,
)
from ..stats import binomial_pvalue  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the ``failure`` study."""

    seed: int = 0  # PRNG seed
    dims: tuple[int, ...] = (2, 3, 4, 8, 16, 32, 64)  # d_osc grid
    alphas: tuple[float, ...] = (
        math.pi / 6,
        math.pi / 4,
        math.pi / 3,
    )  # antipodal cap angles
    n_antipodal: int = 1_000_000  # Monte Carlo starts per d
    n_anchors: int = 16  # m anchors in the drive
    eps: float = 1.0  # degeneracy threshold on ||h||
    scale: float = 1.0  # std s of the Gaussian scores g_j
    n_degenerate: int = 400_000  # Monte Carlo drives per d
    min_expected: float = (
        1.0  # sample the degenerate drive only where n * p_exact >= this
    )
    chunk: int = 100_000  # samples per jitted chunk (n is rounded up to whole chunks)
    confidence: float = 0.95  # confidence level of the plotted intervals
    rel_eps: float = 0.5  # relative threshold: event ||h|| < rel_eps ||w||_2
    n_hull: int = 600  # anchor sets per d for the convex-hull Monte Carlo (one LP each)
    delta: float = 0.1  # finite-time panel: tolerance angle
    threshold_ratios: tuple[float, ...] = (
        0.5,
        0.8,
        1.0,
        1.25,
        2.0,
    )  # ||h||T / log cot(delta/2)
    n_threshold: int = 100_000  # uniform starts per d for the finite-time panel

    @classmethod
    def small(cls) -> Config:
        """Test size: a few seconds."""
        return cls(
            dims=(2, 5),
            n_antipodal=200_000,
            n_degenerate=50_000,
            chunk=50_000,
            n_hull=150,
            n_threshold=20_000,
        )

    @classmethod
    def full(cls) -> Config:
        """Publication size: 2e7 antipodal starts and 4e6 drives per d."""
        return cls(n_antipodal=20_000_000, n_degenerate=4_000_000, chunk=200_000)

    def __post_init__(self):
        if not self.dims or any(int(d) < 2 for d in self.dims):
            raise ValueError(f"dims must be non-empty ints >= 2; got {self.dims}.")
        if not self.alphas or any(not 0 < a <= math.pi / 2 for a in self.alphas):
            raise ValueError(f"alphas must lie in (0, pi/2]; got {self.alphas}.")
        if min(self.n_antipodal, self.n_degenerate, self.n_anchors, self.chunk) < 1:
            raise ValueError(
                "n_antipodal, n_degenerate, n_anchors and chunk must be >= 1."
            )
        if not 0 < self.rel_eps < 1:
            raise ValueError(f"rel_eps must lie in (0, 1); got {self.rel_eps}.")
        if not 0 < self.delta < math.pi / 2:
            raise ValueError(f"delta must lie in (0, pi/2); got {self.delta}.")
        if not self.threshold_ratios or min(self.threshold_ratios) <= 0:
            raise ValueError(
                f"threshold_ratios must be > 0; got {self.threshold_ratios}."
            )
        if min(self.n_hull, self.n_threshold) < 1:
            raise ValueError("n_hull and n_threshold must be >= 1.")
        if self.eps <= 0 or self.scale <= 0:
            raise ValueError(
                f"eps and scale must be > 0; got eps={self.eps}, scale={self.scale}."
            )


# --------------------------------------------------------------------------- Monte Carlo


def _antipodal_counter(dims: tuple[int, ...], chunk: int):
    """One jitted program for every d (a compilation costs seconds; a chunk does not)."""
    import jax
    import jax.numpy as jnp

    from .. import sphere

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
    import jax

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
    import jax
    import jax.numpy as jnp

    from .. import lohe, sphere

    t_start = time.perf_counter()
    dims = [int(d) for d in config.dims]
    alphas = np.asarray(config.alphas, dtype=float)
    key = _common.prng_key(config.seed)
    k_anti, k_deg, _ = jax.random.split(key, 3)  # three: the antipodal keys stay put

    # ---- antipodal: Monte Carlo on every d, theory = lohe.antipodal_probability
    n_chunks = -(-config.n_antipodal // config.chunk)  # n is rounded up to whole chunks
    n_a = n_chunks * config.chunk
    counter = _antipodal_counter(tuple(dims), config.chunk)
    cos_alphas = jnp.cos(jnp.asarray(alphas))
    counts = _count(counter, k_anti, n_chunks, "antipodal MC", progress, cos_alphas)

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
    d_curve = np.arange(min(dims), max(dims) + 1)
    curve = antipodal_theory(d_curve)
    antipodal = {
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
        "rate_theory": [
            _common.fit_exponential_rate(dims, p_theory[:, j])["rate"]
            for j in range(len(alphas))
        ],
        "rate_mc": [
            _common.fit_exponential_rate(dims, counts[:, j] / n_a)["rate"]
            for j in range(len(alphas))
        ],
        # the same fit restricted to the d where the Monte Carlo saw a count (like for like)
        "rate_theory_mc_points": [
            _common.fit_exponential_rate(
                np.asarray(dims)[counts[:, j] > 0], p_theory[counts[:, j] > 0, j]
            )["rate"]
            for j in range(len(alphas))
        ],
        "rate_asymptotic": (-np.log(np.sin(alphas))).tolist(),
    }

    # ---- degenerate drive: exact theory everywhere, Monte Carlo where resolvable
    m, eps, s = config.n_anchors, config.eps, config.scale
    exact = np.array([degenerate_probability_exact(d, m, eps, s) for d in dims])
    chunk_d = max(
        1, config.chunk // 4
    )  # m anchors per sample: keep a chunk's memory bounded
    n_chunks = -(-config.n_degenerate // chunk_d)
    n_d = n_chunks * chunk_d
    sampled = exact * n_d >= config.min_expected
    cnt = np.full(len(dims), -1, dtype=np.int64)
    se_mc = np.full(len(dims), np.nan)
    idx = np.flatnonzero(sampled)
    deg_keys = jax.random.split(k_deg, len(dims))
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
    degenerate = {
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
    }
    degenerate["plateau"] = weight_norm_probability(m, eps, s)  # d -> infinity limit

    # ---- scale-free events: relative threshold and convex hull
    k_rel, k_hull, k_bound = jax.random.split(jax.random.fold_in(key, 1), 3)
    cnt_rel = np.array(
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
                    jax.random.split(k_rel, len(dims)),
                    desc="relative MC",
                    enabled=progress,
                ),
                dims,
                strict=True,
            )
        ],
        dtype=np.int64,
    )
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
    hull_hits = np.array(
        [
            sum(
                lohe.hull_contains_origin(r)
                for r in np.asarray(sphere.sample_uniform(k, (config.n_hull, m), d))
            )
            for k, d in zip(
                _common.progress(
                    jax.random.split(k_hull, len(hull_dims)),
                    desc="hull LP",
                    enabled=progress,
                ),
                hull_dims,
                strict=True,
            )
        ],
        dtype=np.int64,
    )
    hull_exact = np.array(
        [lohe.hull_degenerate_probability(m, d).exact for d in hull_dims]
    )
    scale_free = {
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

    # ---- finite-time failure on both sides of the threshold ||h||T = log cot(delta/2)
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
        zip(jax.random.split(jax.random.fold_in(key, 2), len(dims)), dims, strict=True)
    ):
        z = np.asarray(sphere.sample_uniform(k, (config.n_threshold,), d))
        phi0 = np.arccos(np.clip(z[:, 0], -1.0, 1.0))  # angle to h/||h|| = e_1
        phiT = np.asarray(lohe.exact_angle(phi0[:, None], 1.0, horizons[None, :]))
        thr_count[i] = np.sum(phiT > config.delta, axis=0)
    thr_theory = threshold_theory(dims)
    threshold = {
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
    results = {
        "antipodal": antipodal,
        "degenerate": degenerate,
        "scale_free": scale_free,
        "threshold": threshold,
        "confidence": config.confidence,
        "seconds": time.perf_counter() - t_start,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out))
    return results


def _write(results: dict, config: Config, out: Path) -> None:
    a, g = results["antipodal"], results["degenerate"]
    dims = np.asarray(a["dims"])
    fig, (ax1, ax2, ax3, ax4) = _common.new_figure(2, 2, width=5.0, height=3.9)
    for j, alpha in enumerate(a["alphas"]):
        c = f"C{j}"
        deg = alpha * 180 / math.pi
        ax1.semilogy(
            a["d_curve"],
            a["p_curve"][:, j],
            "-",
            color=c,
            lw=1.2,
            label=f"$\\alpha={deg:.0f}°$ theory, $\\lambda$={a['rate_theory'][j]:.3f}",
        )
        hit = a["count"][:, j] > 0
        x = dims + (j - (len(a["alphas"]) - 1) / 2) * 0.012 * dims.max()  # dodge
        _common.plot_counts(
            ax1, x, a["p_mc"][:, j], a["ci_lo"][:, j], a["ci_hi"][:, j], hit, ~hit, c
        )
    ax1.plot(
        [],
        [],
        "ko",
        ms=4,
        label=f"Monte Carlo, n={a['n']:.0e} ({results['confidence']:.0%} CI)",
    )
    ax1.plot([], [], "kv", mfc="none", label="zero count: upper bound")
    ax1.set(
        xlabel="$d_{osc}$",
        ylabel="P(start within $\\alpha$ of antipode)",
        title="antipodal start (line: theory; $\\lambda$: fitted rate of $\\log p$ in $d$)",
    )
    _common.dim_ticks(ax1, dims)
    ax1.legend(fontsize=7, loc="lower left")

    ax2.semilogy(
        dims,
        g["p_theory"],
        "k-",
        lw=1.2,
        label=f"exact (Bessel integral), $\\lambda$={g['rate_theory']:.3f}",
    )
    ok = np.asarray(g["count"]) >= 0
    hit = ok & (np.asarray(g["count"]) > 0)
    zero = ok & (np.asarray(g["count"]) == 0)
    _common.plot_counts(
        ax2,
        dims,
        np.asarray(g["p_mc"]),
        g["ci_lo"],
        g["ci_hi"],
        hit,
        zero,
        "C0",
        label=f"Monte Carlo (lohe.degenerate_probability), n={g['n']:.0e}",
        zero_label="zero count: upper bound",
    )
    lo_p, hi_p = g["plateau"]
    ax2.axhspan(lo_p, hi_p, color="0.5", alpha=0.5)
    ax2.axhline(
        np.sqrt(lo_p * hi_p),
        color="0.4",
        ls="--",
        lw=1.0,
        label=f"$d\\to\\infty$ plateau P($\\|w\\|_2 < {g['eps']:g}$) = {np.sqrt(lo_p * hi_p):.1e}",
    )
    ax2.set(
        xlabel="$d_{osc}$",
        ylabel=f"P($\\|h\\| < {g['eps']:g}$)",
        title=f"absolute event, m={g['n_anchors']}: plateaus (it measures w)",
    )
    _common.dim_ticks(ax2, dims)
    ax2.legend(fontsize=7, loc="lower left")

    sf = results["scale_free"]
    dc = np.asarray(sf["d_curve"])
    hit = np.asarray(sf["count_relative"]) > 0
    _common.plot_counts(
        ax3,
        dims,
        np.asarray(sf["p_relative"]),
        sf["ci_lo_relative"],
        sf["ci_hi_relative"],
        hit,
        ~hit,
        "C0",
        label=f"P($\\|h\\| < {sf['rel_eps']:g}\\,\\|w\\|_2$), MC n={sf['n']:.0e}",
    )
    ax3.semilogy(
        dc,
        np.maximum(sf["relative_bound"], 1e-300),
        "C0:",
        lw=1.2,
        label="its proved bound (mean over w)",
    )
    he = np.asarray(sf["hull_exact_curve"])
    pos = he > 0
    ax3.semilogy(
        dc[pos],
        he[pos],
        "C2-",
        lw=1.2,
        label=f"P(0 $\\in$ conv), Wendel; 0 for d $\\geq$ {sf['n_anchors']}",
    )
    hb = np.asarray(sf["hull_bound_curve"])
    ax3.semilogy(dc[hb > 0], hb[hb > 0], "C2:", lw=1.0, label="Hoeffding bound")
    hd = np.asarray(sf["hull_dims"])
    hc = np.asarray(sf["hull_count"]) / sf["n_hull"]
    if hd.size:
        ax3.plot(
            hd[hc > 0],
            hc[hc > 0],
            "D",
            color="C2",
            ms=4,
            mfc="none",
            label=f"hull MC (linprog), n={sf['n_hull']}",
        )
    ax3.set(
        xlabel="$d_{osc}$",
        ylabel="probability",
        title="scale-free events: decay in d",
        ylim=(max(1e-7, 0.3 / sf["n"]), 1.5),
    )
    _common.dim_ticks(ax3, dims)
    ax3.legend(fontsize=6.5, loc="lower left")

    th = results["threshold"]
    for j, ratio in enumerate(th["ratios"]):
        c = f"C{j}"
        ax4.plot(
            th["d_curve"],
            th["p_curve"][:, j],
            "-",
            color=c,
            lw=1.2,
            label=f"$\\|h\\|T$ = {ratio:g} log cot($\\delta$/2)",
        )
        ax4.plot(dims, th["p_mc"][:, j], "o", color=c, ms=3.5, mfc="none")
    ax4.plot(
        [], [], "ko", ms=3.5, mfc="none", label=f"MC (exact angle), n={th['n']:.0e}"
    )
    ax4.set(
        xlabel="$d_{osc}$",
        ylabel=f"P($\\varphi(T) > \\delta$), $\\delta$={th['delta']:g}",
        title=f"finite time: threshold $\\|h\\|T$ = log cot($\\delta$/2) = {th['log_cot']:.2f}",
        ylim=(-0.02, 1.02),
    )
    _common.dim_ticks(ax4, dims)
    ax4.legend(fontsize=6.5, loc="center right")
    _common.save_figure(fig, out / "failure.png")

    rows: dict[str, list] = {
        k: []
        for k in (
            "d",
            "alpha",
            "n",
            "count",
            "p_mc",
            "ci_lo",
            "ci_hi",
            "p_theory",
            "p_value",
        )
    }
    for i, d in enumerate(a["dims"]):
        for j, alpha in enumerate(a["alphas"]):
            for col, v in zip(
                rows,
                (
                    d,
                    alpha,
                    a["n"],
                    a["count"][i, j],
                    a["p_mc"][i, j],
                    a["ci_lo"][i, j],
                    a["ci_hi"][i, j],
                    a["p_theory"][i, j],
                    a["p_value"][i, j],
                ),
                strict=True,
            ):
                rows[col].append(v)
    _common.write_csv(out / "antipodal.csv", rows)
    _common.write_csv(
        out / "degenerate.csv",
        {
            "d": g["dims"],
            "n": [g["n"]] * len(g["dims"]),
            "count": g["count"],
            "p_mc": g["p_mc"],
            "ci_lo": g["ci_lo"],
            "ci_hi": g["ci_hi"],
            "se_mc": g["se_mc"],
            "p_theory": g["p_theory"],
            "p_value": g["p_value"],
        },
    )
    sf, th = results["scale_free"], results["threshold"]
    _common.write_csv(
        out / "scale_free.csv",
        {
            "d": sf["dims"],
            "n": [sf["n"]] * len(sf["dims"]),
            "count_relative": sf["count_relative"],
            "p_relative": sf["p_relative"],
            "ci_lo_relative": sf["ci_lo_relative"],
            "ci_hi_relative": sf["ci_hi_relative"],
            "hull_exact": sf["hull_exact_all"],
            "hull_count": [
                int(sf["hull_count"][sf["hull_dims"].index(d)])
                if d in sf["hull_dims"]
                else -1
                for d in sf["dims"]
            ],
        },
    )
    _common.write_csv(
        out / "threshold.csv",
        {
            "d": np.repeat(th["dims"], len(th["ratios"])),
            "ratio": np.tile(th["ratios"], len(th["dims"])),
            "T": np.tile(th["horizons"], len(th["dims"])),
            "n": [th["n"]] * (len(th["dims"]) * len(th["ratios"])),
            "count": np.asarray(th["count"]).reshape(-1),
            "p_mc": np.asarray(th["p_mc"]).reshape(-1),
            "p_theory": np.asarray(th["p_theory"]).reshape(-1),
            "p_value": np.asarray(th["p_value"]).reshape(-1),
        },
    )
    _common.write_json(
        out / "results.json",
        {
            "study": NAME,
            "scale_free": {
                k: sf[k]
                for k in (
                    "n_anchors",
                    "rel_eps",
                    "n",
                    "p_relative",
                    "rate_relative_mc",
                    "d_curve",
                    "relative_bound",
                    "hull_dims",
                    "n_hull",
                    "hull_count",
                    "hull_exact",
                    "hull_p_value",
                )
            },
            "threshold": {
                k: th[k]
                for k in ("delta", "log_cot", "ratios", "horizons", "n", "p_value")
            },
            "confidence": results["confidence"],
            "antipodal": {
                k: a[k]
                for k in (
                    "alphas",
                    "n",
                    "min_p_value",
                    "rate_theory",
                    "rate_theory_mc_points",
                    "rate_mc",
                    "rate_asymptotic",
                )
            },
            "degenerate": {
                k: g[k]
                for k in (
                    "n_anchors",
                    "eps",
                    "scale",
                    "n",
                    "min_p_value",
                    "rate_theory",
                    "rate_theory_mc_points",
                    "rate_mc",
                    "p_theory",
                    "plateau",
                )
            },
            "dims": a["dims"],
            "seconds": results["seconds"],
        },
    )
    _common.write_config(config, out, NAME)


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    a, g = results["antipodal"], results["degenerate"]
    lines = ["failure: antipodal and degenerate-drive probabilities vs d"]
    for j, alpha in enumerate(a["alphas"]):
        lines.append(
            f"  antipodal alpha={alpha:.4f}: rate theory {a['rate_theory'][j]:.4f} (all d),"
            f" {a['rate_theory_mc_points'][j]:.4f} (d with MC counts), MC {a['rate_mc'][j]:.4f},"
            f" asymptotic -log sin(alpha) = {a['rate_asymptotic'][j]:.4f}"
        )
    lines.append(
        f"  antipodal: smallest binomial p-value of the theory = {a['min_p_value']:.3g}"
    )
    lines.append(
        f"  degenerate (m={g['n_anchors']}, eps={g['eps']:g}): rate exact {g['rate_theory']:.4f} (all d),"
        f" {g['rate_theory_mc_points']:.4f} (d with MC counts), MC {g['rate_mc']:.4f};"
        f" smallest p-value {g['min_p_value']:.3g}"
    )
    lo_p, hi_p = g["plateau"]
    lines.append(
        f"  degenerate plateau (d -> infinity): P(||w||_2 < {g['eps']:g}) in [{lo_p:.3g}, {hi_p:.3g}]"
    )
    sf, th = results["scale_free"], results["threshold"]
    rel = ", ".join(f"{p:.3g}" for p in sf["p_relative"])
    lines.append(
        f"  relative P(||h|| < {sf['rel_eps']:g} ||w||_2) at d={sf['dims']}: {rel};"
        f" fitted rate {sf['rate_relative_mc']:.3f}"
    )
    hull = ", ".join(
        f"d={d}: {k}/{sf['n_hull']} (exact {p:.4f})"
        for d, k, p in zip(
            sf["hull_dims"], sf["hull_count"], sf["hull_exact"], strict=True
        )
    )
    lines.append(f"  convex hull (LP): {hull}")
    lines.append(
        f"  finite-time threshold log cot(delta/2) = {th['log_cot']:.4f};"
        f" smallest binomial p-value {float(np.min(th['p_value'])):.3g}"
    )
    lines.append(f"  ({results['seconds']:.1f} s)")
    return "\n".join(lines)
