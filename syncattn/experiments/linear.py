r"""Experiment 7 (beyond the papers): the linear-time oscillator layer.

Experiment 5 at its largest $d_\mathrm{osc}$, repeated with
``OscillatorAttention(impl="linear", coupling="elu1_features")``: the couplings become a
kernel $\phi(q)\cdot\phi(k)/d_h$ with $\phi = \mathrm{elu} + 1$, so the drive and the
readout are prefix sums ($O(T)$ time and memory) instead of $(T, T)$ matrices. This
kernel is not seed 001's ablation coupling $\mathrm{elu}(q\cdot k/\sqrt{d_h}) + 1$
(``coupling="elu1"``, quadratic): the two differ by 56-93 % on the same weights, so
both are trained here. The costs in perplexity are

$$\delta = \overline{\mathrm{PPL}}_\mathrm{linear} - \overline{\mathrm{PPL}}_\mathrm{softplus},
  \qquad \delta_\mathrm{elu1} = \overline{\mathrm{PPL}}_\mathrm{linear} -
  \overline{\mathrm{PPL}}_\mathrm{elu1},$$

also paired by seed, next to the softmax baseline. The linear layer needs unit anchors
(``normalize_anchors=true``); the quadratic cells use the preset's (raw since issue 15,
as published). The speed comes from
``benchmarks/attention.py`` (``benchmark`` points at its ``results.json``; forward +
backward of one layer, side by side with softmax in one run); it is read, not
re-measured here. Published reference: seed 001's coupling ablation at d = 8 on
TinyStories, softplus 9.784 vs elu(x)+1 9.782 (the ``"elu1"`` cell's form, quadratic).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from ._common import (
    describe_values,
    fmt_mean_std,
    new_figure,
    save_figure,
    write_csv,
    write_json,
)
from ._dosc import lm_cell
from ._grid import Grid
from ._protocol import Context, Experiment
from ._reuse import ReusedRecipe, recipe, run_cells


__all__ = ["Config", "run", "rebuild", "summary", "PAPER"]

NAME = "linear"

PAPER = {
    "source": "../shared/EXPERIMENTS.md B4 (coupling ablation, TinyStories, d_osc = 8, 5 seeds)",
    "softplus": 9.784,
    "elu1_published_form": 9.782,
}


@dataclasses.dataclass(frozen=True)
class Config(ReusedRecipe):
    """Experiment 7's settings.

    Attributes:
        d: the oscillator dimension (experiment 5's largest: 32).
        seeds: training seeds.
        runs_from, data, data_path, steps, batch_size, eval_batches, train: the
            experiment-5 folder whose softplus and softmax cells are reused, else its
            recipe to train them with
            ([`ReusedRecipe`][syncattn.experiments._reuse.ReusedRecipe]).
        benchmark: ``results.json`` of ``benchmarks/attention.py`` (relative paths are
            taken from the working directory); missing: no speed column.
    """

    d: int = 32
    seeds: tuple[int, ...] = (0, 1)
    benchmark: str | None = "benchmarks/results/attention/results.json"

    def __post_init__(self):
        if self.d < 2 or not self.seeds:
            raise ValueError(
                f"d must be >= 2 and seeds non-empty; got {self.d}, {self.seeds}."
            )

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: d = 4, one seed, 3 steps of 4 rows."""
        return cls._smoke(d=4, seeds=(0,))

    @classmethod
    def default(cls) -> Config:
        """Experiment 5's default recipe at d = 32, 2 seeds (reuse it with runs_from)."""
        return cls._cpu()

    @classmethod
    def full(cls) -> Config:
        """Experiment 5's full recipe at d = 32, 5 seeds."""
        return cls._full(seeds=(0, 1, 2, 3, 4))


def _speed(path) -> dict | None:
    if path is None or not Path(path).is_file():
        return None
    raw = json.loads(Path(path).read_text())
    rows = [
        r
        for r in raw.get("rows", [])
        if r.get("layer") in ("softmax", "osc-closed", "osc-linear")
    ]
    table: dict = {}
    for r in rows:
        table.setdefault(str(r["T"]), {})[r["layer"]] = r.get("time_s")
    for t in table.values():
        if t.get("osc-linear") and t.get("osc-closed"):
            t["linear_over_quadratic"] = t["osc-linear"] / t["osc-closed"]
        if t.get("osc-linear") and t.get("softmax"):
            t["linear_over_softmax"] = t["osc-linear"] / t["softmax"]
    return {
        "source": str(path),
        "command": raw.get("env", {}).get("command"),
        "time_s": table,
    }


def _kinds(config) -> dict:
    sc = recipe(config)

    def unit(c):  # the linear layer needs unit anchors (max(0, 1 + z.r) must not clip)
        return dataclasses.replace(
            c, overrides={**c.overrides, "model.normalize_anchors": True}
        )

    return {
        "linear": [
            unit(lm_cell(sc, "oscillator", s, config.d, 1, "elu1_features", "linear"))
            for s in config.seeds
        ],
        "softplus": [lm_cell(sc, "oscillator", s, config.d) for s in config.seeds],
        "elu1": [
            lm_cell(sc, "oscillator", s, config.d, 1, "elu1", "quadratic")
            for s in config.seeds
        ],
        "softmax": [lm_cell(sc, "softmax", s) for s in config.seeds],
    }


def _walk(config, ctx: Context) -> tuple:
    """The four models per seed: in a run trained (or reused from ``runs_from``), in a
    rebuild read from the source (missing where absent)."""
    from ._from_results import committed_results

    kinds = _kinds(config)
    flat = [c for cs in kinds.values() for c in cs]
    if ctx.rebuilding:
        return kinds, committed_results(ctx.committed, flat), []
    results, folders = run_cells(config, flat, ctx.out, ctx.grid, NAME)
    return kinds, results, [str(f) for f in folders if ctx.out not in f.parents]


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json`` (the PPLs, the paired costs, the speed) and ``runs.csv``."""
    kinds, results, reused = walked
    out, rebuilt_from = ctx.out, ctx.rebuilt_from
    flat = [c for cs in kinds.values() for c in cs]
    by = {c.name: r for c, r in zip(flat, results, strict=True)}

    def ppl(c):
        r = by[c.name]
        return r["val"]["ppl"] if r.get("status") == "ok" else float("nan")

    table = {k: describe_values([ppl(c) for c in cs]) for k, cs in kinds.items()}
    lin = kinds["linear"]
    paired = describe_values(
        [ppl(a) - ppl(b) for a, b in zip(lin, kinds["softplus"], strict=True)]
    )
    paired_elu1 = describe_values(
        [ppl(a) - ppl(b) for a, b in zip(lin, kinds["elu1"], strict=True)]
    )
    speed = _speed(config.benchmark)
    first = next((r for r in results if r.get("status") == "ok"), {})
    payload = {
        "experiment": NAME,
        "d": config.d,
        "ppl": table,
        "linear_minus_softplus": paired,
        "linear_minus_elu1": paired_elu1,
        "couplings": {
            "linear": "elu1_features (phi(q).phi(k)/d_h, phi = elu + 1; unit anchors)",
            "softplus": "softplus(q.k/sqrt(d_h))",
            "elu1": "elu(q.k/sqrt(d_h)) + 1 (published)",
        },
        "speed": speed,
        "corpus": first.get("corpus"),
        "paper": PAPER,
        "reused": reused,
        "missing": [c.name for c in flat if by[c.name].get("status") != "ok"],
        "rebuilt_from": rebuilt_from,
    }
    files = {"results": write_json(out / "results.json", payload)}
    files["csv"] = write_csv(
        out / "runs.csv",
        {"cell": [c.name for c in flat], "val_ppl": [ppl(c) for c in flat]},
    )
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``linear.png``: the PPLs and the speed."""
    return {
        "png": _plot(config, results["ppl"], results["speed"], Path(out) / "linear.png")
    }


def _plot(config, table, speed, path):
    fig, (ax, bx) = new_figure(2, 1, width=4.2)
    for j, (k, t) in enumerate(table.items()):
        ax.scatter([j] * len(t["values"]), t["values"], color=f"C{j}", s=16)
        if t["mean"] is not None:
            ax.errorbar(
                [j + 0.2],
                [t["mean"]],
                yerr=[t["std"] or 0.0],
                fmt="o",
                color=f"C{j}",
                capsize=3,
            )
    ax.set_xticks(range(len(table)), list(table))
    ax.set_ylabel("validation PPL")
    ax.set_title(f"d_osc = {config.d} (dots: seeds)")
    if speed and speed["time_s"]:
        Ts = sorted(speed["time_s"], key=int)
        for j, layer in enumerate(("softmax", "osc-closed", "osc-linear")):
            ys = [speed["time_s"][T].get(layer) for T in Ts]
            bx.loglog(
                [int(T) for T in Ts],
                [np.nan if y is None else y for y in ys],
                "o-",
                label=layer,
                color=f"C{j}",
            )
        bx.set_xlabel("sequence length T")
        bx.set_ylabel("fwd+bwd time (s)")
        bx.legend(fontsize=8)
        bx.set_title("benchmarks/attention.py")
    else:
        bx.text(
            0.5,
            0.5,
            "no benchmark results\n(run benchmarks/attention.py)",
            ha="center",
            va="center",
            transform=bx.transAxes,
        )
        bx.set_axis_off()
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """PPL of the four layers, the paired cost, the speed ratios."""
    corpus = (results.get("corpus") or {}).get("name")
    lines = [
        f"validation PPL at d_osc = {results['d']} on {corpus} (mean ± std over seeds)"
    ]
    for k, t in results["ppl"].items():
        lines.append(f"  {k:<9} {fmt_mean_std(t, 2)}")
    lines.append(
        f"  linear - softplus (paired): {fmt_mean_std(results['linear_minus_softplus'], 2)}"
    )
    if "linear_minus_elu1" in results:
        lines.append(
            f"  linear - elu1 (paired): {fmt_mean_std(results['linear_minus_elu1'], 2)}"
        )
    sp = results.get("speed")
    if sp:
        for T, t in sorted(sp["time_s"].items(), key=lambda kv: int(kv[0])):
            r = t.get("linear_over_quadratic")
            s = t.get("linear_over_softmax")
            lines.append(
                f"  T={T}: linear / quadratic oscillator time {r if r is None else f'{r:.2f}'}, "
                f"linear / softmax {s if s is None else f'{s:.2f}'}"
            )
    else:
        lines.append("  speed: no benchmarks/attention.py results found")
    return "\n".join(lines)


EXPERIMENT = Experiment(NAME, Config, _walk, tables, plots, summary=summary)
"""Experiment 7 as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train (or reuse) the four models per seed, write config.json, results.json,
    runs.csv and linear.png."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The table and plot of the experiment in `src` (``config.json`` and
    ``runs/CELL/result.json``, e.g. the committed ``results/experiments/linear/linear-default``)
    rebuilt into `out` from those files alone (cells not there are reported missing; the
    speed is read from the benchmark file the config names, when it exists).

    Raises:
        FileNotFoundError: `src` has no linear ``config.json``.
    """
    return EXPERIMENT.rebuild(src, out, progress=progress)
