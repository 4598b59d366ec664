r"""Seed 001's word-level LM and its d_osc law: the published recipe, the corpus choice,
the cell of one training, the gap's power-law fit, its figure and its text.

Shared by experiment 5 (``scaling``), the experiments that reuse its run folders
(``convergence``, ``linear``, ``robustness``) and the d_osc law at a budget
(``dosc_law``): none of them imports another.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from ._common import (
    ScalingRecipe,
    describe_values,
    fmt_mean_std,
    layered_overrides,
    new_figure,
    save_figure,
)
from ._grid import TrainCell


PAPER = {
    "source": "seed 001 (arXiv 2606.12059); ../shared/EXPERIMENTS.md B3, B4",
    "dims": [2, 4, 8, 16, 32],
    "wikitext2": {
        "ppl": [110.67, 107.20, 105.23, 103.78, 102.56],
        "softmax": 99.00,
        "gap_text": [11.09, 2.98],
        "alpha": 0.420,
        "alpha_ci": [0.386, 0.463],
        "C": 15.17,
    },
    "tinystories": {
        "ppl": [10.911, 10.276, 9.784, 9.345, 9.105],
        "softmax": 8.671,
        "gap_text": [2.39, 0.57],
        "alpha": 0.599,
        "alpha_ci": [0.572, 0.627],
        "C": 3.58,
        "p_sweep": {
            "d2": {"1": 10.91, "2": 10.42, "4": 10.17},
            "d8": {"1": 9.78, "2": 9.18, "4": 8.98},
        },
    },
}

RECIPE = {
    "lr": 5e-4,
    "weight_decay": 1e-4,
    "warmup_steps": 0,
    "min_lr_ratio": 0.0,
    "b2": 0.999,
    "clip_norm": 1.0,
}
"""Seed 001's optimiser (PyTorch AdamW defaults for the betas)."""


@dataclasses.dataclass(frozen=True)
class LMRecipe(ScalingRecipe):
    """Experiment 5's training fields and its oscillator layer: what
    [`lm_cell`][syncattn.experiments._dosc.lm_cell] reads of a config (the experiments
    that reuse experiment 5's run folders build its cells from one).

    Attributes:
        coupling, impl: the oscillator layer's coupling and implementation.
    """

    coupling: str = "softplus"
    impl: str = "quadratic"


def corpus_choice(config) -> tuple[str, str | None]:
    """``(corpus name, path)``: WikiText-2 or TinyStories from the path, else embedded-words."""
    if config.data != "auto":
        return config.data, config.data_path
    if config.data_path is None:
        return "embedded-words", None
    tiny = "tinystories" in str(config.data_path).lower()
    return ("tinystories" if tiny else "wikitext2"), config.data_path


def lm_cell(
    config,
    model: str,
    seed: int,
    d: int | None = None,
    p: int = 1,
    coupling: str | None = None,
    impl: str | None = None,
) -> TrainCell:
    """The [`TrainCell`][syncattn.experiments.TrainCell] of one LM training of this recipe.

    Experiments 6 and 7 build their cells here, so that they find (and reuse) the
    run folders of experiment 5.
    """
    data, path = corpus_choice(config)
    coupling = coupling or config.coupling
    impl = impl or config.impl
    settings = {
        "batch_size": config.batch_size,
        "eval_every": config.steps,
        "ckpt_every": max(1, config.steps // 3),
    }
    if model == "softmax":
        name = f"softmax-seed{seed}"
    else:
        settings |= {"d_osc": d, "p": p}
        tag = ""
        if (coupling, impl) != ("softplus", "quadratic"):
            settings |= {"coupling": coupling, "impl": impl}
            tag = f"-{coupling}-{impl}"
        name = f"oscillator-d{d}-p{p}{tag}-seed{seed}"
    return TrainCell(
        name=name,
        model=model,
        config="paper-b-lm",
        seed=seed,
        data=data,
        data_path=path,
        steps=config.steps,
        overrides=layered_overrides(RECIPE, settings, config.train),
        eval_batches=config.eval_batches,
    )


def drives(model, rows, layer: int = -1, pad_id: int | None = 0) -> np.ndarray:
    """The drives $h$ ``(N, d_osc)`` of layer `layer` at every head and non-pad input position."""
    import equinox as eqx
    import jax

    from .. import models

    rows = np.asarray(rows)
    inputs = rows[:, :-1]
    aux = eqx.filter_jit(
        jax.vmap(lambda t: models.attention_diagnostics(model, t, layer)["h"])
    )(inputs)
    h = np.asarray(aux)  # (B, heads, T, d)
    real = inputs != pad_id if pad_id is not None else np.ones(inputs.shape, bool)
    return h.transpose(0, 2, 1, 3)[real].reshape(-1, h.shape[-1])


def law(config, osc: dict, soft, sweep: dict) -> dict:
    r"""The d_osc law from per-seed PPLs: ``{"ppl", "softmax", "gap", "fit", "p_sweep"}``.

    `osc` maps each $d$ of ``config.dims`` to its per-seed PPLs, `soft` holds the
    baseline's and `sweep` maps each readout exponent $p \ne 1$ to the per-seed PPLs
    at ``config.p_dim`` (NaN: a cell that did not finish). The gap is
    $\Delta(d) = \overline{\mathrm{PPL}}(d) - \overline{\mathrm{PPL}}_\mathrm{softmax}$,
    fitted as $C d^{-\alpha}$ with [`syncattn.stats.power_law_bootstrap`][] (``n_boot``,
    ``boot_seed``, ``confidence`` of `config`) when every mean gap is $> 0$.
    """
    from .. import stats

    table = {str(d): describe_values(osc[d]) for d in config.dims}
    base = describe_values(soft)
    gaps = {
        str(d): (
            (t["mean"] - base["mean"])
            if t["mean"] is not None and base["mean"] is not None
            else None
        )
        for d, t in table.items()
    }
    fit: dict = {"status": "ok"}
    good = [d for d in config.dims if gaps[str(d)] is not None and gaps[str(d)] > 0]
    if len(good) < len(config.dims) or len({*config.dims}) < 2:
        bad = [d for d in config.dims if d not in good]
        fit = {"status": f"no fit: the mean gap is <= 0 (or missing) at d = {bad}"}
    else:
        vals = [[x for x in osc[d] if math.isfinite(x)] for d in config.dims]
        b = stats.power_law_bootstrap(
            list(config.dims),
            vals,
            [x for x in soft if math.isfinite(x)],
            n_boot=config.n_boot,
            seed=config.boot_seed,
            confidence=config.confidence,
        )
        fit |= {
            k: b[k]
            for k in ("alpha", "C", "r2", "alpha_ci", "C_ci", "n_boot", "n_invalid")
        }
        if max(len(v) for v in vals) < 2:
            fit["note"] = "one seed per d: the bootstrap interval has zero width"
    p_sweep = {"d": config.p_dim, "1": table.get(str(config.p_dim))}
    for p, v in sweep.items():
        p_sweep[str(p)] = describe_values(v)
    return {"ppl": table, "softmax": base, "gap": gaps, "fit": fit, "p_sweep": p_sweep}


def plot_law(config, agg, path, split: str = "validation") -> Path:
    """The $d_\\mathrm{osc}$ law's figure from an aggregate (`agg`, as `run` writes it):
    the PPL against $d_\\mathrm{osc}$, the gap to softmax on log-log axes with its fit
    and the paper's, the readout-exponent sweep; `split` names the PPL's split. Experiment 5's,
    also drawn by the d_osc law at a budget on its test PPL."""
    fig, (ax, bx, cx) = new_figure(3, 1, width=4.0)
    dims = np.array(config.dims, float)
    for d in config.dims:
        vals = agg["ppl"][str(d)]["values"]
        ax.scatter([d] * len(vals), vals, s=14, color="C0", alpha=0.7)
    means = [agg["ppl"][str(d)]["mean"] for d in config.dims]
    ax.plot(
        dims,
        [np.nan if m is None else m for m in means],
        "o-",
        color="C0",
        label="oscillator",
    )
    if agg["softmax"]["mean"] is not None:
        ax.axhline(agg["softmax"]["mean"], color="C1", label="softmax (mean)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("d_osc")
    ax.set_ylabel(f"{split} PPL")
    ax.legend(fontsize=8)
    corpus = (agg.get("corpus") or {}).get("name", "?")
    ax.set_title(f"PPL vs d_osc on {corpus}")
    g = np.array(
        [
            np.nan if agg["gap"][str(d)] is None else agg["gap"][str(d)]
            for d in config.dims
        ]
    )
    ok = g > 0
    bx.loglog(dims[ok], g[ok], "o", color="C0", label="gap (ours)")
    fit = agg["fit"]
    if fit["status"] == "ok":
        xs = np.geomspace(dims.min(), dims.max(), 50)
        lo, hi = fit["alpha_ci"]
        bx.loglog(
            xs,
            fit["C"] * xs ** -fit["alpha"],
            "-",
            color="C0",
            label=f"fit alpha={fit['alpha']:.2f} [{lo:.2f}, {hi:.2f}]",
        )
    for key, col in (("wikitext2", "C2"), ("tinystories", "C3")):
        p = PAPER[key]
        bx.loglog(
            PAPER["dims"],
            np.array(p["ppl"]) - p["softmax"],
            "x--",
            color=col,
            lw=0.8,
            label=f"paper {key} (alpha={p['alpha']})",
        )
    bx.set_xticks(PAPER["dims"], [str(d) for d in PAPER["dims"]])
    bx.xaxis.set_minor_formatter("")  # log-axis minor labels overlap the dims
    bx.set_xlabel("d_osc")
    bx.set_ylabel("PPL gap to softmax")
    bx.set_title(fit["status"] if fit["status"] != "ok" else "gap = C d^-alpha")
    bx.legend(fontsize=7)
    ps = [k for k in agg["p_sweep"] if k != "d"]
    pm = [agg["p_sweep"][k]["mean"] if agg["p_sweep"][k] else None for k in ps]
    cx.plot([int(k) for k in ps], [np.nan if m is None else m for m in pm], "o-")
    cx.set_xlabel("readout exponent p")
    cx.set_ylabel(f"{split} PPL")
    cx.set_title(f"p sweep at d_osc = {agg['p_sweep']['d']}")
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """The d sweep, the fit and the p sweep as text, next to the paper."""
    corpus = (results.get("corpus") or {}).get("name")
    lines = [f"validation PPL on {corpus} (mean ± std over seeds); paper WT2 / TS"]
    p = results["paper"]
    for i, (d, t) in enumerate(results["ppl"].items()):
        gap = results["gap"][d]
        paper = ""
        if d in map(str, p["dims"]):
            j = p["dims"].index(int(d))
            paper = f" | {p['wikitext2']['ppl'][j]} / {p['tinystories']['ppl'][j]}"
        g = "-" if gap is None else f"{gap:+.2f}"
        lines.append(f"  d={d:<3} {fmt_mean_std(t, 2)}  gap {g}{paper}")
    lines.append(
        f"  softmax {fmt_mean_std(results['softmax'], 2)}"
        f" | {p['wikitext2']['softmax']} / {p['tinystories']['softmax']}"
    )
    f = results["fit"]
    if f["status"] == "ok":
        lo, hi = f["alpha_ci"]
        lines.append(
            f"  fit: alpha = {f['alpha']:.3f} (CI {lo:.3f}-{hi:.3f}), C = {f['C']:.3g}, "
            f"R2 = {f['r2']:.3f} | paper 0.420 (0.386-0.463) / 0.599 (0.572-0.627)"
        )
    else:
        lines.append(f"  fit: {f['status']}")
    ps = results["p_sweep"]
    at_p = [f"p={k}: {fmt_mean_std(v, 2)}" for k, v in ps.items() if k != "d" and v]
    lines.append(f"  p sweep at d={ps['d']}: " + ", ".join(at_p))
    return "\n".join(lines)
