"""The geometry experiment's outputs: per-cell rows, the comparisons, the verdicts, the plot, text."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from .. import _protocol as protocol
from .._common import describe_values, fmt_mean_std, write_csv, write_json
from .._protocol import record_lines
from ._families import BEST, DIM, NAME, NUMBER, family_shape, ladder_dir
from ._markdown import markdown


def _rows(config, cells, results, names) -> list[dict]:
    def fam(c):
        rest = c.name.split("-", 1)[1] + "-"
        return max((n for n in names if rest.startswith(f"{n}-lr")), key=len)

    return [
        protocol.cell_row(
            config,
            c,
            r,
            {"rung": c.name.split("-")[0], "model": fam(c)},
            {"val_bpc": ("val", "bpc"), "test_bpc": ("test", "bpc")},
            "bpc",
        )
        for c, r in zip(cells, results, strict=True)
    ]


# --------------------------------------------------------------------------- the report


def fraction_closed(
    k: dict[int, float],
    f: dict[int, float],
    s: dict[int, float],
    seeds,
    confidence: float,
) -> dict:
    r"""The fraction of the Kuramoto gap family F closes, over the seeds $S$ all three of
    `k`, `f`, `s` (seed -> test BPC) hold: $f = (\bar g_K - \bar g_F)/\bar g_K$ with
    $\bar g_X = \operatorname{mean}_S(X_s - s_s)$; its interval is the paired t interval
    of $K_s - F_s$ divided by $\bar g_K$ (``None`` under two seeds, and $f$ ``None``
    when $\bar g_K \le 0$: no gap to close)."""
    from ... import stats

    common = [
        x
        for x in seeds
        if x in k and x in f and x in s and all(math.isfinite(v[x]) for v in (k, f, s))
    ]
    if not common:
        return {"fraction": None, "ci": None, "n": 0, "kuramoto_gap": None}
    gk = sum(k[x] - s[x] for x in common) / len(common)
    gf = sum(f[x] - s[x] for x in common) / len(common)
    if not gk > 0:
        return {"fraction": None, "ci": None, "n": len(common), "kuramoto_gap": gk}
    ci = stats.t_interval([k[x] - f[x] for x in common], confidence)
    return {
        "fraction": (gk - gf) / gk,
        "ci": None if ci is None else [ci[0] / gk, ci[1] / gk],
        "n": len(common),
        "kuramoto_gap": gk,
    }


def compare(config, test: dict[str, dict[int, float]], name: str, seeds) -> dict:
    """Family `name`'s comparisons at one rung from ``test[family][seed]`` (test BPC):
    ``gap`` (paired, F - softmax), ``kuramoto_gap`` (paired, Kuramoto - softmax),
    ``vs_kuramoto`` (paired, F - Kuramoto) and
    ``closed`` ([`fraction_closed`][syncattn.experiments.geometry.fraction_closed])."""
    f, k, s = test.get(name, {}), test.get("kuramoto", {}), test.get("softmax", {})
    pairs = ((f, s), (k, s), (f, k))
    gap, kgap, vs = (
        _tested(protocol.paired(a, b, seeds, config.confidence)) for a, b in pairs
    )
    closed = fraction_closed(k, f, s, seeds, config.confidence)
    return {"gap": gap, "kuramoto_gap": kgap, "vs_kuramoto": vs, "closed": closed}


def _tested(d: dict) -> dict:
    """A paired difference with its two-sided t test's p-value ([`syncattn.stats.t_pvalue`][];
    ``None`` under two values)."""
    from ... import stats

    return d | {"p": stats.t_pvalue(d["values"]) if d["values"] else None}


def adjust(rungs: list[dict]) -> dict:
    r"""Holm's adjustment ([`syncattn.stats.holm`][]) of every comparison the report makes,
    in two families: the paired $F - K$ difference of each family other than the
    references at each rung (``vs_kuramoto``), and the paired gap to softmax of every
    family but softmax at each rung (``gap``, Kuramoto's included). Writes ``p_holm``
    beside each ``p`` in place; returns ``{family of tests: m}``, the tests adjusted over
    (a comparison without a p-value, under two seeds, is not counted)."""
    from ... import stats

    m = {}
    for key, skip in (("vs_kuramoto", ("softmax", "kuramoto")), ("gap", ("softmax",))):
        tests = [
            g[key] for e in rungs for n, g in e["families"].items() if n not in skip
        ]
        for t, q in zip(tests, stats.holm([t["p"] for t in tests]), strict=True):
            t["p_holm"] = q
        m[key] = sum(t["p"] is not None for t in tests)
    return m


def p_text(d: dict, m: int | None = None) -> str:
    """``"p = 0.0017, Holm 0.032 over 19"`` of a tested comparison (``p_holm`` and `m` when
    there; ``""`` without a p-value)."""
    if d.get("p") is None:
        return ""
    out = f"p = {d['p']:.2g}"
    if d.get("p_holm") is not None:
        out += f", Holm {d['p_holm']:.2g}" + (f" over {m}" if m else "")
    return out


def _significance(d: dict, m: int | None) -> str:
    """`` (p = ..., Holm ...)``, and whether the comparison survives Holm's correction at 5 %."""
    text = p_text(d, m)
    if not text:
        return ""
    if d.get("p_holm") is not None and d["p_holm"] >= 0.05:
        return f" ({text}: not significant after Holm's correction)"
    return f" ({text})"


def verdict(
    name: str, per_rung: Sequence[tuple[str, dict]], m: dict | None = None
) -> str:
    """A family's verdict in words, rung by rung: *inconclusive* when the Kuramoto gap's own
    interval reaches 0 (nothing resolved to close); else *beats* / *not distinguishable
    from softmax* when the family's gap interval lies below / holds 0 (the latter at its
    number of seeds: an absence of evidence, not parity); else *closes X % of the
    Kuramoto gap* when the (unadjusted) interval of F - Kuramoto lies below 0, *widens
    it* when above, each with its p-value and Holm's adjusted one
    ([`adjust`][syncattn.experiments.geometry.adjust]; `m`: the tests per family, said
    beside) and *not significant after Holm's correction* where that is 0.05 or more;
    *no detectable change* when the interval holds 0; *not measured* without two paired
    seeds."""
    m = m or {}
    parts = []
    for rung, c in per_rung:
        g, v, fr = c["gap"], c["vs_kuramoto"], c["closed"]["fraction"]
        if g["n"] < 2 or g.get("ci") is None:
            parts.append(f"{rung}: not measured (fewer than 2 paired seeds)")
            continue
        lo, hi = g["ci"]
        head = f"{rung}: gap to softmax {g['mean']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        kg = c.get("kuramoto_gap") or {}
        if name == "kuramoto":
            parts.append(head + " (the gap the others are measured against)")
        elif not kg.get("ci") or kg["ci"][0] <= 0:
            parts.append(
                head + ", inconclusive: the Kuramoto gap itself is not resolved here"
            )
        elif lo <= 0 and hi < 0:
            parts.append(head + ", beats softmax" + _significance(g, m.get("gap")))
        elif lo <= 0:
            parts.append(
                head + f", not distinguishable from softmax at {g['n']} seeds "
                "(an absence of evidence, not parity)"
            )
        elif v.get("ci") and v["ci"][1] < 0:
            what = (
                f"closes {100 * fr:.0f} % of the Kuramoto gap"
                if fr is not None
                else "better than Kuramoto"
            )
            parts.append(f"{head}, {what}" + _significance(v, m.get("vs_kuramoto")))
        elif v.get("ci") and v["ci"][0] > 0:
            what = f"widens the Kuramoto gap by {v['mean']:+.3f}"
            parts.append(f"{head}, {what}" + _significance(v, m.get("vs_kuramoto")))
        else:
            parts.append(
                head + f", no detectable change from Kuramoto ({v['mean']:+.3f})"
            )
    return "; ".join(parts) or "not measured"


def aggregate(config, walk: dict) -> dict:
    """Per cell its scores; per rung and family its shape, lr sweep, best lr, test/val BPC
    and comparisons ([`compare`][syncattn.experiments.geometry.compare]); family 4's
    choice; the top family ([`choose_top`][syncattn.experiments.geometry.choose_top]) and,
    at ``top_target``, its rung (the references and it alone); a verdict per family (the
    ``cut`` families said not run at the rungs above the first)."""
    fams = walk["families"]
    names = [f.name for f in fams]
    rows = _rows(config, walk["cells"], walk["results"], names)
    rungs, per_family, cut = [], {n: [] for n in names}, {n: [] for n in names}
    top = walk.get("top")
    for target in [*sorted(config.targets), *([config.top_target] if top else [])]:
        rname = protocol.rung_shape(target)["name"]
        if target not in config.targets:
            here = [f for f in fams if f.name in ("kuramoto", "softmax", top["family"])]
        else:
            here = [
                f
                for f in fams
                if target == min(config.targets) or f.name not in config.cut
            ]
            for n in {f.name for f in fams} - {f.name for f in here}:
                cut[n].append(rname)
        mine = [w for w in rows if w["rung"] == rname]
        best = walk["best"][target]
        seeds = config.seeds
        test = {
            n: {
                w["seed"]: w["test_bpc"]
                for w in mine
                if w["model"] == n and w["lr"] == best.get(n)
            }
            for n in names
        }
        entry = {
            "target": target,
            "name": rname,
            "best_lr": {n: best.get(n) for n in names},
            **protocol.rung_budget(
                config, protocol.rung_shape(target)["params"]["kuramoto"]
            ),
            "families": {},
        }
        for f in here:
            sweep = protocol.lr_sweep(
                mine,
                "val_bpc",
                lambda w, n=f.name: w["model"] == n and w["seed"] == config.seeds[0],
            )
            vals = [test[f.name][s] for s in seeds if s in test[f.name]]
            c = compare(config, test, f.name, seeds)
            entry["families"][f.name] = {
                "number": NUMBER[f.name],
                "dim": DIM[f.name],
                "attention": f.attention,
                "model": [list(kv) for kv in f.model],
                "shape": family_shape(target, f, config.match_tol),
                "sweep": sweep,
                "lr_at_edge": protocol.at_edge(best.get(f.name), sweep),
                "test": describe_values(vals),
                **c,
                "compute": protocol.compute([w for w in mine if w["model"] == f.name]),
            }
            if f.name != "softmax":
                per_family[f.name].append((rname, c))
        rungs.append(entry)
    m = adjust(rungs)
    choice = walk["choice"]
    verdicts = {
        n: verdict(n, per_family[n], m)
        + "".join(f"; {r}: not run (cut)" for r in cut[n])
        for n in names
        if n != "softmax"
    }
    for n, why in walk["unavailable"].items():
        verdicts[n] = f"not run: {why}"
    if BEST in config.families and choice is not None and choice["same_as"] is not None:
        verdicts[BEST] = (
            f"not trained: the rule keeps {' + '.join(choice['components']) or 'nothing'}"
            f", so family 4 is {choice['same_as']} (see its verdict)"
        )
    return {
        "rungs": rungs,
        "choice": choice,
        "top": top,
        "verdicts": verdicts,
        "multiplicity": m,
        "unavailable": walk["unavailable"],
        "rows": rows,
        **protocol.record(rows),
        "compute": protocol.compute(rows),
        "corpus": protocol.corpus(walk["results"]),
    }


def _or(v):
    return "" if v is None else v


def tables(config, walk: dict, ctx) -> tuple[dict, dict[str, Path]]:
    """``results.json``, ``cells.csv`` and ``gaps.csv`` of the walk."""
    out, rebuilt_from = ctx.out, ctx.rebuilt_from
    agg = aggregate(config, walk)
    payload = {
        "experiment": NAME,
        **agg,
        "rebuilt_from": rebuilt_from,
        "ladder": None if ladder_dir(config) is None else str(ladder_dir(config)),
    }
    out = Path(out)
    files = {"results": write_json(out / "results.json", payload)}
    rows = agg["rows"]
    files["csv"] = write_csv(
        out / "cells.csv",
        {k: [("" if w[k] is None else w[k]) for w in rows] for k in rows[0]},
    )
    rr = [(e, n, g) for e in agg["rungs"] for n, g in e["families"].items()]
    files["gaps"] = write_csv(
        out / "gaps.csv",
        {
            "rung": [e["name"] for e, _, _ in rr],
            "family": [n for _, n, _ in rr],
            "number": [g["number"] for *_, g in rr],
            "dim": [g["dim"] for *_, g in rr],
            "params": [g["shape"]["params"] for *_, g in rr],
            "mismatch": [g["shape"]["mismatch"] for *_, g in rr],
            "d_model": [g["shape"]["d_model"] for *_, g in rr],
            "d_ff": [g["shape"]["d_ff"] for *_, g in rr],
            "state_size": [g["shape"]["state_size"] for *_, g in rr],
            "best_lr": [_or(e["best_lr"][n]) for e, n, _ in rr],
            "n_seeds": [g["test"]["n"] for *_, g in rr],
            "test_bpc_mean": [_or(g["test"]["mean"]) for *_, g in rr],
            "gap_mean": [_or(g["gap"]["mean"]) for *_, g in rr],
            "gap_lo": [_or(g["gap"]["ci"] and g["gap"]["ci"][0]) for *_, g in rr],
            "gap_hi": [_or(g["gap"]["ci"] and g["gap"]["ci"][1]) for *_, g in rr],
            "gap_p": [_or(g["gap"]["p"]) for *_, g in rr],
            "gap_p_holm": [_or(g["gap"].get("p_holm")) for *_, g in rr],
            "vs_kuramoto_mean": [_or(g["vs_kuramoto"]["mean"]) for *_, g in rr],
            "vs_kuramoto_lo": [
                _or(g["vs_kuramoto"]["ci"] and g["vs_kuramoto"]["ci"][0])
                for *_, g in rr
            ],
            "vs_kuramoto_hi": [
                _or(g["vs_kuramoto"]["ci"] and g["vs_kuramoto"]["ci"][1])
                for *_, g in rr
            ],
            "vs_kuramoto_p": [_or(g["vs_kuramoto"]["p"]) for *_, g in rr],
            "vs_kuramoto_p_holm": [_or(g["vs_kuramoto"].get("p_holm")) for *_, g in rr],
            "fraction_closed": [_or(g["closed"]["fraction"]) for *_, g in rr],
        },
    )
    files["md"] = out / "gaps.md"
    files["md"].write_text(markdown(agg))
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``geometry.png`` from the results ([`plot`][syncattn.experiments.geometry.plot])."""
    return {"png": plot(results, Path(out) / f"{NAME}.png")}


def plot(agg: dict, path):
    """The paired test-BPC gap to softmax (mean, t interval) of every family at every
    rung against the state dimension $n$ ([`DIM`][syncattn.experiments.geometry.DIM];
    the torus families at $n = 2$, spread a little), one marker per rung, the Kuramoto
    gap as a dashed line per rung."""
    from matplotlib.lines import Line2D

    from .._common import new_figure, save_figure

    fig, (ax,) = new_figure(1, 1, width=7.5)
    markers = "osD^v"
    names = (
        [n for n in agg["rungs"][0]["families"] if n != "softmax"]
        if agg["rungs"]
        else []
    )
    torus = [n for n in names if DIM[n] == 2]
    colours = {}
    for j, e in enumerate(agg["rungs"]):
        k = e["families"].get("kuramoto", {}).get("gap", {}).get("mean")
        if k is not None:
            ax.axhline(k, color="grey", ls="--", lw=0.8)
        shift = 0.045 * (j - (len(agg["rungs"]) - 1) / 2)
        for i, n in enumerate(names):
            g = e["families"].get(n, {}).get("gap", {})
            if g.get("mean") is None:
                continue
            off = 0.15 * (torus.index(n) - (len(torus) - 1) / 2) if n in torus else 0.0
            x = DIM[n] + shift + off
            ci = g.get("ci") or (g["mean"], g["mean"])
            ax.errorbar(
                [x],
                [g["mean"]],
                yerr=[[g["mean"] - ci[0]], [ci[1] - g["mean"]]],
                fmt=markers[j % len(markers)],
                color=f"C{i}",
                capsize=3,
                ms=5,
            )
            colours[n] = f"C{i}"
    ax.axhline(0, color="k", lw=0.8)
    if names:
        ax.set_xticks(sorted({DIM[n] for n in names}))
    ax.set_xlabel("state dimension n (torus: 2, S^(n-1): n, SO(3): 3, U(2): 4)")
    ax.set_ylabel("test BPC gap to softmax (paired, t interval)")
    corpus = (agg.get("corpus") or {}).get("name", "?")
    ax.set_title(f"geometry on {corpus}: dashed = Kuramoto's gap per rung", fontsize=9)
    handles = [
        Line2D([], [], color=c, marker="o", ls="", label=n) for n, c in colours.items()
    ]
    handles += [
        Line2D(
            [], [], color="k", marker=markers[j % len(markers)], ls="", label=e["name"]
        )
        for j, e in enumerate(agg["rungs"])
    ]
    if handles:
        ax.legend(
            handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5)
        )
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """Per rung each family's count, state size, lr and gap; family 4's choice; the
    verdicts; the convergence record."""
    corpus = (results.get("corpus") or {}).get("name")
    lines = [f"geometry on {corpus}: test BPC gap to softmax at each family's best lr"]
    for e in results["rungs"]:
        lines.append(f"  {e['name']}: {e['tokens']:,} tokens, {e['steps']} steps")
        for n, g in e["families"].items():
            s = g["shape"]
            ci = g["gap"].get("ci")
            gap = ""
            if n != "softmax":
                gap = f", gap {fmt_mean_std(g['gap'], 3)}"
                gap += f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else ""
            if n != "softmax" and g["gap"].get("p") is not None:
                gap += f" ({p_text(g['gap'])})"
            fr = g["closed"]["fraction"]
            closed = (
                ""
                if fr is None or n in ("softmax", "kuramoto")
                else f", closes {100 * fr:.0f} %"
            )
            if (
                n not in ("softmax", "kuramoto")
                and g["vs_kuramoto"].get("p") is not None
            ):
                closed += f", F - K {g['vs_kuramoto']['mean']:+.3f} ({p_text(g['vs_kuramoto'])})"
            lines.append(
                f"    {n:<20} N={s['params']:,} ({100 * s['mismatch']:+.1f} %), state "
                f"{s['state_size']}/token, lr {e['best_lr'][n]}, test "
                f"{fmt_mean_std(g['test'])} (n={g['test']['n']}){gap}{closed}"
            )
    if results.get("choice"):
        c = results["choice"]
        lines.append(
            f"  family 4 keeps {' + '.join(c['components']) or 'nothing'}"
            + (f" (= {c['same_as']})" if c["same_as"] else "")
        )
    if results.get("top"):
        t = results["top"]
        lines.append(
            f"  top family (lowest validation BPC at {t['rung']}): {t['family']}"
        )
    m = results.get("multiplicity")
    if m:
        lines.append(
            f"  Holm's adjustment over {m['gap']} gaps to softmax and "
            f"{m['vs_kuramoto']} differences to Kuramoto"
        )
    lines += [f"  {n}: {v}" for n, v in results["verdicts"].items()]
    return "\n".join(lines + record_lines(results, "val BPC"))
