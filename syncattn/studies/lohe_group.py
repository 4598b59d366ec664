r"""Study `lohe_group`: synchronisation of identical Lohe oscillators on SO(3), U(2), U(3) and S^{n-1}.

Identical oscillators (one common natural frequency, all-to-all coupling $K$):

* groups ([`syncattn.lohe.matrix_simulate`][], RKMK4):
  $\dot U_j = W U_j + \frac{K}{2N}\sum_k (U_k - U_jU_k^HU_j)$;
* spheres ([`syncattn.lohe.simulate`][]): $\dot x_i = \Omega x_i + \frac KN\sum_j
  (x_j - \langle x_i, x_j\rangle x_i)$;

from Haar-random (uniform) starts, for several $N$. Recorded per run: $R(t)$
([`syncattn.group.order_parameter`][] / $\rho$), the diameter $D(t)$
([`syncattn.lohe.ensemble_diameter`][], [`syncattn.lohe.sphere_diameter`][]) and the
synchronisation time $T_\delta$ (first save time with $D < \delta$). Theorem overlay
(statement 19): from the first save time $t_0$ with $D(t_0) < N/(N-1)$ the bound
predicts $D(t) \le$ [`matrix_sync_bound`][syncattn.lohe.matrix_sync_bound]$(D(t_0), K, N, t - t_0)$,
hence $T_\delta \le t_0 +$ [`matrix_sync_time`][syncattn.lohe.matrix_sync_time]$(D(t_0), \delta, K, N)$;
the study reports both, and the fraction of save times where the bound held. Spheres
are solved at `rtol=1e-12` (at `rtol=1e-9` the computed diameter stalls near 2e-9,
a solver floor that crosses the bound, about $e^{-Kt}$, late in the run).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from . import _common


NAME = "lohe_group"

__all__ = ["Config", "run", "summary"]

GEOMETRIES = ("so3", "u2", "u3", "s2", "s3", "s4")


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the `lohe_group` study."""

    seed: int = 0
    geometries: tuple[str, ...] = (
        "so3",
        "u2",
        "u3",
        "s2",
        "s3",
    )  # s<m>: S^m in R^{m+1}
    Ns: tuple[int, ...] = (4, 8, 16, 32)
    draws: int = 6  # random starts per (geometry, N)
    coupling: float = 1.0
    freq_scale: float = 1.0  # scale of the common frequency
    t1: float = 30.0
    n_save: int = 121
    dt0: float = 0.02  # RKMK4 step (groups)
    delta: float = 1e-3  # synchronised: D < delta

    @classmethod
    def smoke(cls) -> Config:
        """Test size: seconds."""
        return cls(
            geometries=("so3", "u2", "s2"),
            Ns=(3, 6),
            draws=2,
            t1=12.0,
            n_save=49,
            dt0=0.05,
        )

    @classmethod
    def full(cls) -> Config:
        """Publication size."""
        return cls(
            geometries=GEOMETRIES,
            Ns=(4, 8, 16, 32, 64),
            draws=32,
            t1=40.0,
            n_save=161,
            dt0=0.01,
        )

    def __post_init__(self):
        bad = [g for g in self.geometries if g not in GEOMETRIES]
        if bad or not self.geometries:
            raise ValueError(f"geometries must be among {GEOMETRIES}; got {bad}.")
        if not self.Ns or min(self.Ns) < 2 or self.draws < 1 or self.t1 <= 0:
            raise ValueError("Ns must be ints >= 2, draws >= 1 and t1 > 0.")
        if self.n_save < 2 or self.dt0 <= 0 or self.delta <= 0 or self.coupling <= 0:
            raise ValueError("n_save >= 2, dt0 > 0, delta > 0 and coupling > 0 needed.")


def _simulate(geom, N, key, rng, config, dtype):
    import jax.numpy as jnp

    from .. import group, lohe, sphere

    if geom.startswith("s") and geom[1:].isdigit():
        d = int(geom[1:]) + 1
        x0 = sphere.sample_uniform(key, (N,), d, dtype=dtype)
        A = rng.standard_normal((d, d))
        Om = np.broadcast_to(config.freq_scale * (A - A.T) / np.sqrt(2), (N, d, d))
        s = lohe.simulate(
            x0,
            jnp.asarray(Om, dtype),
            config.coupling,
            config.t1,
            saveat=config.n_save,
            rtol=1e-12,
            atol=1e-14,
        )
        return (
            np.asarray(s.ts),
            np.asarray(s.rho),
            np.asarray(lohe.sphere_diameter(s.x)),
        )
    kind, n = group.parse_group(geom)
    cdtype = jnp.complex128 if dtype == jnp.float64 else jnp.complex64
    U0 = group.sample_haar(key, N, n, kind, dtype=cdtype if kind == "u" else dtype)
    A = rng.standard_normal((n, n))
    if kind == "u":
        H = config.freq_scale * (A + A.T) / 2 + 0j
    else:
        H = config.freq_scale * (A - A.T) / np.sqrt(2)
    s = lohe.matrix_simulate(
        U0,
        np.broadcast_to(H, (N, n, n)).astype(U0.dtype),
        config.coupling,
        config.t1,
        saveat=config.n_save,
        dt0=config.dt0,
    )
    return (
        np.asarray(s.ts),
        np.asarray(s.r),
        np.asarray(lohe.ensemble_diameter(s.states)),
    )


def run(
    config: Config, out: str | Path | None = None, *, progress: bool = False
) -> dict:
    """Run the study; write `lohe_group.png`, `sync_times.csv`, `order_parameter.csv`,
    `results.json` and `config.json` to `out` (nothing is written when `out` is None).
    """
    import jax
    import jax.numpy as jnp

    t_start = time.perf_counter()
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    rng = np.random.default_rng(config.seed)
    key = _common.prng_key(config.seed)
    rows = {
        k: []
        for k in (
            "geometry",
            "N",
            "draw",
            "D0",
            "t_enter",
            "D_enter",
            "T_sync",
            "T_pred",
            "bound_held",
            "R_final",
        )
    }
    curves = {}
    jobs = [
        (g, N, i)
        for g in config.geometries
        for N in config.Ns
        for i in range(config.draws)
    ]
    for geom, N, i in _common.progress(jobs, desc="lohe_group", enabled=progress):
        key, sub = jax.random.split(key)
        ts, R, D = _simulate(geom, N, sub, rng, config, dtype)
        for k, v in zip(rows, _row(geom, N, i, ts, R, D, config), strict=True):
            rows[k].append(v)
        curves.setdefault((geom, N), []).append(R)
    results = {
        "rows": rows,
        "ts": ts,
        "curves": {
            f"{g}/{N}": np.median(np.stack(c), axis=0) for (g, N), c in curves.items()
        },
        "seconds": time.perf_counter() - t_start,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out))
    return results


def _row(geom: str, N: int, i: int, ts, R, D, config: Config) -> tuple:
    """One draw's row: the distance D(0), where D enters the contraction region
    (D < threshold) and the predicted and measured times to D < delta from there, the
    share of the run after entry where the proved bound held, and the final R."""
    from .. import lohe

    thr = lohe.matrix_sync_threshold(N)
    inside = np.nonzero(D < thr)[0]
    t_enter = D_enter = T_pred = np.nan
    held = np.nan
    if inside.size:
        k0 = int(inside[0])
        t_enter, D_enter = float(ts[k0]), float(D[k0])
        T_pred = t_enter + float(
            lohe.matrix_sync_time(D_enter, config.delta, config.coupling, N)
        )
        b = np.asarray(
            lohe.matrix_sync_bound(D_enter, config.coupling, N, ts[k0:] - ts[k0])
        )
        held = float(np.mean(D[k0:] <= b + 1e-9))
    below = np.nonzero(D < config.delta)[0]
    T_sync = float(ts[below[0]]) if below.size else np.nan
    return (
        geom,
        N,
        i,
        float(D[0]),
        t_enter,
        D_enter,
        T_sync,
        T_pred,
        held,
        float(R[-1]),
    )


def _median(x) -> float:
    """``np.nanmedian`` of `x` without its warning: NaN when every entry is NaN (no run
    synchronised within the horizon)."""
    x = np.asarray(x, float)
    x = x[~np.isnan(x)]
    return float(np.median(x)) if x.size else float("nan")


def _write(results: dict, config: Config, out: Path) -> None:
    rows = results["rows"]
    fig, (ax1, ax2) = _common.new_figure(2, 1, width=5.0, height=3.6)
    for j, g in enumerate(config.geometries):
        for m, N in enumerate(config.Ns):
            c = results["curves"][f"{g}/{N}"]
            ax1.plot(
                results["ts"],
                c,
                color=f"C{j}",
                lw=0.6 + 0.5 * m,
                label=f"{g}" if m == len(config.Ns) - 1 else None,
            )
    ax1.set(
        xlabel="time $t$",
        ylabel="median $R(t)$",
        ylim=(0, 1.02),
        title=f"identical Lohe oscillators, K={config.coupling:g} (line width: N)",
    )
    ax1.legend(fontsize=7, loc="lower right")
    geo, Ns = np.asarray(rows["geometry"]), np.asarray(rows["N"])
    Ts, Tp = np.asarray(rows["T_sync"], float), np.asarray(rows["T_pred"], float)
    for j, g in enumerate(config.geometries):
        med = [_median(Ts[(geo == g) & (Ns == N)]) for N in config.Ns]
        pred = [_median(Tp[(geo == g) & (Ns == N)]) for N in config.Ns]
        ax2.plot(config.Ns, med, "o-", color=f"C{j}", label=f"{g} measured")
        ax2.plot(
            config.Ns,
            pred,
            "x--",
            color=f"C{j}",
            lw=0.8,
            label=f"{g} bound (statement 19)",
        )
    ax2.set(
        xscale="log",
        xlabel="oscillators $N$",
        ylabel=f"median time to $D < {config.delta:g}$",
        title="synchronisation time and the theorem's prediction",
    )
    ax2.legend(fontsize=6, ncol=2)
    _common.save_figure(fig, out / "lohe_group.png")
    _common.write_csv(out / "sync_times.csv", rows)
    cols = {"t": results["ts"]}
    cols.update({f"R_{k}": v for k, v in results["curves"].items()})
    _common.write_csv(out / "order_parameter.csv", cols)
    _common.write_json(
        out / "results.json",
        {
            "study": NAME,
            "summary": _table(results, config),
            "seconds": results["seconds"],
        },
    )
    _common.write_config(config, out, NAME)


def _table(results: dict, config: Config) -> list[dict]:
    rows = results["rows"]
    geo, Ns = np.asarray(rows["geometry"]), np.asarray(rows["N"])
    out = []
    for g in config.geometries:
        for N in config.Ns:
            m = (geo == g) & (Ns == N)
            pick = lambda k: np.asarray(rows[k], float)[m]
            out.append(
                {
                    "geometry": g,
                    "N": int(N),
                    "synchronised": int(np.sum(np.isfinite(pick("T_sync")))),
                    "runs": int(m.sum()),
                    "median_T_sync": float(_median(pick("T_sync")))
                    if np.any(np.isfinite(pick("T_sync")))
                    else None,
                    "median_T_pred": float(_median(pick("T_pred")))
                    if np.any(np.isfinite(pick("T_pred")))
                    else None,
                    "bound_held_fraction": float(np.nanmin(pick("bound_held")))
                    if np.any(np.isfinite(pick("bound_held")))
                    else None,
                }
            )
    return out


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    rows = results["rows"]
    geos = list(dict.fromkeys(rows["geometry"]))
    Ns = sorted(set(rows["N"]))
    cfg = type("C", (), {"geometries": geos, "Ns": Ns})
    lines = [
        "lohe_group: identical Lohe oscillators, time to D < delta (median) vs bound"
    ]
    for r in _table(results, cfg):
        lines.append(
            f"  {r['geometry']:>4} N={r['N']:>3}: synced {r['synchronised']}/{r['runs']},"
            f" T={r['median_T_sync']}, bound T<={r['median_T_pred']},"
            f" bound held (min fraction) {r['bound_held_fraction']}"
        )
    lines.append(f"  ({results['seconds']:.1f} s)")
    return "\n".join(lines)
