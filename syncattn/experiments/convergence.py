r"""Experiment 6 (seed 001's Table 6, and a prediction it did not make): convergence inside trained models.

For the last layer of trained oscillator LMs at $d_\mathrm{osc} \in \{2, 8, 32\}$
(experiment 5's run folders when ``runs_from`` points there, else trained here with
the same recipe), take the drives $h$ of every head and real position of
`n_chunks` validation rows ([`syncattn.models.attention_diagnostics`][]).

* **Measured**: integrate $\dot z = (I - zz^\top)h$ to $T = 30$ from `n_starts`
  uniform starts per oscillator ([`syncattn.lohe.fixed_query_errors`][], through
  [`syncattn.lohe.simulate`][], vmapped) and count $e = \|z(T) - h/\|h\|\|$:
  converged $e < 0.01$, antipodal $e > 0.1$, and the mean $e$.
* **Predicted**, before integrating anything, from the norms $\|h\|$ alone with the
  exact angle law and cap probabilities ([`syncattn.lohe.predict_convergence`][]):
  the mean over oscillators of
  $P(e(T) < 0.01)$, $P(e(T) > 0.1)$ and $\mathbb E\,e(T)$ for a uniform start.

Paper (TinyStories checkpoints, 11,580 oscillators x 5 starts, RK45 at rtol = atol =
1e-4): converged 84.3 / 94.9 / 98.3 %, antipodal 11.7 / 3.39 / 0.81 %, mean error
0.110 / 0.024 / 0.0039 at d = 2 / 8 / 32.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ._common import new_figure, save_figure, write_csv, write_json
from ._dosc import drives as drives, lm_cell
from ._grid import Grid
from ._protocol import Context, Experiment
from ._reuse import ReusedRecipe, recipe, run_cells


__all__ = ["Config", "run", "summary", "PAPER", "drives"]

NAME = "convergence"

PAPER = {
    "source": "seed 001 Table 6; ../shared/EXPERIMENTS.md B6 (TinyStories, RK45 1e-4)",
    "2": {"converged": 0.843, "antipodal": 0.117, "mean_error": 0.110},
    "8": {"converged": 0.949, "antipodal": 0.0339, "mean_error": 0.024},
    "32": {"converged": 0.983, "antipodal": 0.0081, "mean_error": 0.0039},
}


@dataclasses.dataclass(frozen=True)
class Config(ReusedRecipe):
    """Experiment 6's settings.

    Attributes:
        dims: the $d_\\mathrm{osc}$ of the trained models.
        seed: which training seed's model to inspect.
        runs_from, data, data_path, steps, batch_size, eval_batches, train: experiment
            5's folder to reuse, else its recipe to train with
            ([`ReusedRecipe`][syncattn.experiments._reuse.ReusedRecipe]).
        n_chunks: validation rows whose drives are taken (the paper: 32).
        n_starts: uniform starts per oscillator (the paper: 5).
        T: horizon; converged_tol, antipodal_tol: the error thresholds.
        rtol, atol: the solver's tolerances.
        start_seed: seed of the starts.
        layer: which block (-1: the last).
    """

    dims: tuple[int, ...] = (2, 8, 32)
    seed: int = 0
    n_chunks: int = 8
    n_starts: int = 5
    T: float = 30.0
    converged_tol: float = 0.01
    antipodal_tol: float = 0.1
    rtol: float = 1e-5
    atol: float = 1e-7
    start_seed: int = 0
    layer: int = -1

    def __post_init__(self):
        # models imports JAX (heavy): only when a config is built
        from ..models import check_d_osc

        if not self.dims:
            raise ValueError("dims must be non-empty.")
        for d in self.dims:
            check_d_osc(d, "each of dims")
        if self.n_chunks < 1 or self.n_starts < 1:
            raise ValueError("n_chunks and n_starts must be >= 1.")

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: d in {2, 4}, 3 training steps, 1 validation row, 2 starts."""
        return cls._smoke(dims=(2, 4), n_chunks=1, n_starts=2)

    @classmethod
    def default(cls) -> Config:
        """Experiment 5's default models (reused with runs_from), 8 rows x 5 starts."""
        return cls._cpu()

    @classmethod
    def full(cls) -> Config:
        """The paper's count: 32 validation rows x 5 starts, on experiment 5's full models."""
        return cls._full(n_chunks=32)


def _measure(config, d, h):
    import jax
    import jax.numpy as jnp

    from .. import lohe, sphere

    hj = jnp.asarray(h)
    norm = np.linalg.norm(h, axis=-1)
    pred = lohe.predict_convergence(
        norm,
        d,
        config.T,
        converged_tol=config.converged_tol,
        antipodal_tol=config.antipodal_tol,
    )
    z0 = sphere.sample_uniform(
        jax.random.key(config.start_seed),
        (config.n_starts, h.shape[0]),
        d,
        dtype=hj.dtype,
    )
    err = np.asarray(
        lohe.fixed_query_errors(
            jnp.broadcast_to(hj, z0.shape),
            z0,
            config.T,
            rtol=config.rtol,
            atol=config.atol,
        )
    )
    q = np.quantile(norm, [0.05, 0.25, 0.5, 0.75, 0.95])
    return {
        "oscillators": int(h.shape[0]),
        "solves": int(err.size),
        "norm_h": {
            "mean": float(norm.mean()),
            "quantiles_5_25_50_75_95": q.tolist(),
            "degenerate": int(np.sum(norm <= 1e-8)),
        },
        "predicted": {k: float(np.mean(np.asarray(v))) for k, v in pred.items()},
        "measured": {
            "converged": float(np.mean(err < config.converged_tol)),
            "antipodal": float(np.mean(err > config.antipodal_tol)),
            "mean_error": float(err.mean()),
        },
    }, norm


def _walk(config, ctx: Context) -> tuple:
    """Each $d$'s model trained (or reused from ``runs_from``) and its flow measured."""
    from .. import training

    sc = recipe(config)
    cell_list = [lm_cell(sc, "oscillator", config.seed, d) for d in config.dims]
    results, folders = run_cells(config, cell_list, ctx.out, ctx.grid, NAME)
    per_d, norms, corpus = {}, {}, None
    for d, res, folder in zip(config.dims, results, folders, strict=True):
        if res.get("status") != "ok":
            per_d[str(d)] = {"status": res.get("status")}
            continue
        _, corp, model, step = training.load_run(folder, log=lambda m: None)
        corpus = res.get("corpus")
        h = drives(model, corp.val[: config.n_chunks], config.layer, corp.pad_id)
        per_d[str(d)], norms[d] = _measure(config, d, h)
        per_d[str(d)] |= {
            "run": str(folder),
            "step": int(step),
            "val_ppl": res["val"]["ppl"],
        }
    return per_d, norms, corpus


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json``, ``convergence.csv`` and ``convergence.png`` (its histograms draw
    the drives' norms, which the results do not keep)."""
    per_d, norms, corpus = walked
    out = ctx.out
    payload = {
        "experiment": NAME,
        "per_d": per_d,
        "paper": PAPER,
        "corpus": corpus,
        "paper_corpus_matches": (corpus or {}).get("name") == "tinystories",
    }
    files = {"results": write_json(out / "results.json", payload)}
    ds = [d for d in config.dims if "measured" in per_d[str(d)]]
    cols = {"d_osc": ds}
    for src in ("predicted", "measured"):
        for k in ("converged", "antipodal", "mean_error"):
            cols[f"{src}_{k}"] = [per_d[str(d)][src][k] for d in ds]
    files["csv"] = write_csv(out / "convergence.csv", cols)
    files["png"] = _plot(ds, per_d, norms, out / "convergence.png")
    return payload, files


def _plot(ds, per_d, norms, path):
    fig, (ax, bx) = new_figure(2, 1, width=4.4)
    x = np.arange(len(ds))
    sources = (
        ("paper", "paper (TS)"),
        ("predicted", "predicted from |h|"),
        ("measured", "measured (flow)"),
    )
    for j, (src, lab) in enumerate(sources):
        vals = [
            (
                PAPER.get(str(d), {}).get("converged", np.nan)
                if src == "paper"
                else per_d[str(d)][src]["converged"]
            )
            for d in ds
        ]
        ax.bar(x + (j - 1) * 0.27, vals, width=0.27, label=lab, color=f"C{j}")
    ax.set_xticks(x, [f"d={d}" for d in ds])
    ax.set_ylabel("converged fraction (error < 0.01, T = 30)")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    for i, d in enumerate(ds):
        bx.hist(
            norms[d],
            bins=40,
            histtype="step",
            color=f"C{i}",
            label=f"d={d}",
            density=True,
        )
    bx.set_xlabel("||h|| (last layer)")
    bx.set_ylabel("density")
    bx.legend(fontsize=8)
    bx.set_title("drive norms of the trained models")
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """Prediction beside measurement beside the paper, per d."""
    lines = [
        "convergence at T = 30 from uniform starts (converged / antipodal / mean error)"
    ]
    for d, r in results["per_d"].items():
        if "measured" not in r:
            lines.append(f"  d={d}: {r.get('status')}")
            continue
        p, m, pp = r["predicted"], r["measured"], results["paper"].get(d)

        def f(x):
            return f"{100 * x['converged']:.1f}% / {100 * x['antipodal']:.2f}% / {x['mean_error']:.4f}"

        paper = f" | paper {f(pp)}" if pp else ""
        lines.append(
            f"  d={d:<3} predicted {f(p)}  measured {f(m)}{paper}  "
            f"({r['oscillators']} oscillators, median |h| {r['norm_h']['quantiles_5_25_50_75_95'][2]:.3g})"
        )
    return "\n".join(lines)


EXPERIMENT = Experiment(NAME, Config, _walk, tables, summary=summary, rebuildable=False)
"""Experiment 6 as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train or reuse the models, measure and predict, write config.json, results.json,
    convergence.csv and convergence.png."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)
