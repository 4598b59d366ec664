"""The frustrated experiment's figure: the comparisons with their intervals, and the copy-depth
split at the comparison's rung."""

from __future__ import annotations

from pathlib import Path

from .._common import new_figure, save_figure
from ._cells import FAMILIES, NAME


def plots(config, results: dict, out) -> dict[str, Path]:
    """``frustrated.png`` from the results ([`plot`][syncattn.experiments.frustrated.plot])."""
    return {"png": plot(results, Path(out) / f"{NAME}.png")}


def _copy_block(results: dict):
    """The rung whose families have a copy-depth split: the copy comparison's, else the
    largest with one (``None``: none)."""
    have = [
        e for e in results["rungs"] if any(g["copy"] for g in e["families"].values())
    ]
    if not have:
        return None
    where = next(
        (c["where"] for c in results["comparisons"] if c["hypothesis"] == "C"), None
    )
    return next((e for e in have if e["name"] == where), have[-1])


def plot(results: dict, path):
    """Left: each pre-registered comparison's mean paired difference (test BPC) with its
    unadjusted 95 % t interval, filled where Holm rejects its null, hollow otherwise
    (grey: pending or failed). Right: the best-lr cells' test BPC by copy depth (novel,
    then depth >= d) at the copy comparison's rung, one line per family."""
    fig, (ax, bx) = new_figure(2, 1, width=5.2)
    colours = {"H1": "C2", "H2": "C3", "H3": "C4", "H4": "C5", "C": "C0"}
    colours |= {"A1": "C6", "A2": "C7", "A3": "C8", "A4": "C9"}
    comps = results["comparisons"]
    for i, c in enumerate(comps):
        if c["mean"] is None:
            continue
        ci = c["ci"] or (c["mean"], c["mean"])
        col = colours.get(c["hypothesis"], "k") if c["status"] == "complete" else "grey"
        ax.errorbar(
            [i],
            [c["mean"]],
            yerr=[[c["mean"] - ci[0]], [ci[1] - c["mean"]]],
            fmt="o",
            color=col,
            mfc=col if c["rejected"] else "white",
            capsize=3,
            ms=5,
        )
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(range(len(comps)))
    ax.set_xticklabels([c["id"] for c in comps], rotation=70, fontsize=7)
    ax.set_ylabel("paired difference, test BPC (F − X)")
    h = results["holm"]
    ax.set_title(
        f"{h['m']} comparisons, Holm at {h['alpha']:g} (filled: rejected)"
        + ("" if h["final"] else ", provisional"),
        fontsize=9,
    )
    e = _copy_block(results)
    if e is not None:
        for i, f in enumerate(FAMILIES):
            c = e["families"][f.name]["copy"]
            if c is None:
                continue
            ys = [c["novel"], *c["at_least"]]
            xs = [j for j, y in enumerate(ys) if y is not None]
            bx.plot(xs, [ys[j] for j in xs], "o-", color=f"C{i}", label=f.name)
        first = next(g["copy"] for g in e["families"].values() if g["copy"])
        bx.set_xticks(range(1 + len(first["depths"])))
        bx.set_xticklabels(["0"] + [f"≥{d}" for d in first["depths"]])
        bx.legend(fontsize=7)
        bx.set_title(
            f"copy depth at {e['name']} (best-lr cells, mean over seeds)", fontsize=9
        )
    bx.set_xlabel("copy depth (n = 6 bytes of matched context)")
    bx.set_ylabel("test BPC")
    return save_figure(fig, path)
