"""The controls' sections of the frustrated report (issue 44), from the results alone: the
control cells per rung, the equal-compute timing beside the cells' wall times, and the
descriptive rows (no claims)."""

from __future__ import annotations


def _num(x, digits: int = 3, sign: bool = True) -> str:
    if x is None:
        return ""
    return (f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}").replace("-", "−")


def _controls(res: dict) -> list[str]:
    out = [
        "## Controls (issue 44)",
        "",
        "Each control at the frustrated family's shape and best lr at the rung (its own "
        "count); `kuramoto-time` at the Kuramoto family's shape and best 20 N lr, on "
        "D = 20 r N tokens. Test BPC: mean ± std over the seeds finished (of "
        "`config.seeds`). The frustrated row pairs with the controls (at 50k it holds "
        "seeds 3 and 4 too, which do not enter H1-H4).",
        "",
        "| rung | family | d, L, heads, d_ff | N | lr | tokens, steps | test BPC | n | status |",
        "|---" * 9 + "|",
    ]
    for e in res["controls"]:
        for n, g in e["families"].items():
            s, t = g["shape"], g["test"]
            b = e["time_budget"] if n == "kuramoto-time" else e
            steps = "" if b is None else f"{b['tokens']:,}, {b['steps']:,}"
            bpc = _num(t["mean"], sign=False)
            if t.get("std") is not None:
                bpc += f" ± {t['std']:.3f}"
            lr = "" if g["lr"] is None else f"{g['lr']:g}"
            dims = f"{s['d_model']}, {s['n_layers']}, {s['n_heads']}; {s['d_ff']}"
            out.append(
                f"| {e['name']} | {n} | {dims} | {s['params']:,} | {lr} | {steps} "
                f"| {bpc} | {t['n']} of {len(g['seeds'])} | {g['status']} |"
            )
    return out


def _rounds(rec: dict) -> str:
    load = [rec.get("load_before"), rec.get("load_after")]
    load = ", ".join("?" if x is None else f"{x:.2f}" for x in load)
    ratios = ", ".join(f"{x['ratio']:.3f}" for x in rec["rounds"])
    return (
        f"{len(rec['rounds'])} rounds (ratios {ratios}; median {rec['r_exact']:.4f}), "
        f"load average {load} (before, after), {rec.get('cpu_count')} CPUs, "
        f"{rec.get('device')}, commit {str(rec.get('commit'))[:12]}, {rec.get('date')}"
    )


def _wall(w: dict) -> str:
    if not w["n"] or w["wall_s"] is None:
        return "—"
    tps = "" if w["tokens_per_s"] is None else f", {w['tokens_per_s']:,.0f} tok/s"
    return f"{w['wall_s']:.1f} s{tps} (n = {w['n']})"


def _equal_compute(res: dict) -> list[str]:
    out = [
        "## Equal compute (descriptive, no claim)",
        "",
        "r: the median over rounds of the time of the frustrated model's training steps "
        "over the Kuramoto model's (the cells' jitted step, alternating in one process), "
        "to two decimals; `kuramoto-time` trains on 20 r N tokens. Beside it, the cells' "
        "mean wall time (training and scoring, as run, on whatever machine) and "
        "median tokens/s.",
        "",
        "| rung | r | source | frustrated | kuramoto-time | kuramoto (20 N) | wall ratio F / K-time |",
        "|---" * 7 + "|",
    ]
    for e, d in zip(res["controls"], res["descriptive"], strict=True):
        w = d["walls"]
        r = "—" if e["time_ratio"] is None else f"{e['time_ratio']:.2f}"
        ratio = "" if d["wall_ratio"] is None else f"{d['wall_ratio']:.2f}"
        out.append(
            f"| {e['name']} | {r} | {e['time_source']} | {_wall(w['frustrated'])} "
            f"| {_wall(w['kuramoto-time'])} | {_wall(w['kuramoto'])} | {ratio} |"
        )
    for e in res["controls"]:
        rec = res["timing"].get(e["name"])
        if rec is not None:
            out += ["", f"Timing at {e['name']}: {_rounds(rec)}."]
    return out


def _descriptive(res: dict) -> list[str]:
    out = [
        "## Successor control against Kuramoto (descriptive, no claim)",
        "",
        "successor − kuramoto at equal tokens (the Kuramoto family's 20 N seed cells), "
        "paired by seed; no p-value, not in the Holm family.",
        "",
        "| rung | difference | seeds | mean | 95 % interval (unadjusted) | |",
        "|---" * 6 + "|",
    ]
    for d in res["descriptive"]:
        ci = d["ci"]
        interval = f"[{_num(ci[0])}, {_num(ci[1])}]" if ci else ""
        out.append(
            f"| {d['where']} | {d['what']} | {d['n']} | {_num(d['mean'])} | {interval} "
            f"| {d['claim']} |"
        )
    return out


def controls_sections(res: dict) -> list[list[str]]:
    """The controls' sections (none without control rungs)."""
    if not res["controls"]:
        return []
    return [_controls(res), _equal_compute(res), _descriptive(res)]
