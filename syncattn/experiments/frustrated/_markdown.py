"""The frustrated experiment's report in Markdown (``report.md``), from the results alone."""

from __future__ import annotations

from ._controls_md import controls_sections


def _num(x, digits: int = 3, sign: bool = True) -> str:
    """``+0.180`` with a true minus sign (``−0.036``); ``""`` for none."""
    if x is None:
        return ""
    return (f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}").replace("-", "−")


def _p(x) -> str:
    return "" if x is None else f"{x:.2g}"


def _comparisons(res: dict) -> list[str]:
    h, hr = res["holm"], res["holm_registered"]
    out = [
        "## The pre-registered comparisons",
        "",
        f"Holm's step-down adjustment over all {h['m']} comparisons at family-wise "
        f"α = {h['alpha']:g}; a comparison not measured (pending, failed, under two seeds) "
        "enters at p = 1. Mean and interval: the paired difference over the seeds both "
        "families hold (two-sided 95 % Student t interval, **unadjusted**); p: one-sided, "
        "E Δ < 0. A hypothesis is supported only where Holm rejects its null."
        + ("" if h["final"] else " **Provisional: some comparisons are pending.**"),
        f"The last two columns: Holm over the {hr['m']} comparisons registered before the "
        "controls alone"
        + ("" if hr["final"] else " (provisional: some pending)")
        + ".",
        "",
        "| id | difference | seeds | mean | 95 % interval (unadjusted) | p (one-sided) "
        f"| Holm p | decision | Holm p ({hr['m']}) | decision ({hr['m']}) |",
        "|---" * 10 + "|",
    ]
    for c in res["comparisons"]:
        ci = c["ci"]
        interval = f"[{_num(ci[0])}, {_num(ci[1])}]" if ci else ""
        out.append(
            f"| {c['id']} | {c['what']} | {c['n']} of {c['planned_n']} | {_num(c['mean'])} "
            f"| {interval} | {_p(c['p'])} | {_p(c['p_holm'])} | {c['decision']} "
            f"| {_p(c.get('p_holm_registered'))} | {c.get('decision_registered') or '—'} |"
        )
    a3 = [c for c in res["comparisons"] if c.get("reading")]
    if a3:
        out += [
            "",
            "A3 against the successor control (not supported and the unadjusted interval "
            "inside ±0.02 BPC: the layer matches it; not supported with a wider interval: "
            "undecided): "
            + "; ".join(f"{c['where']}: **{c['reading']}**" for c in a3)
            + ".",
        ]
    return out


def _sweep(g: dict) -> str:
    best = None if g["best_lr"] is None else f"{g['best_lr']:g}"
    parts = [
        (f"**{lr}: {v:.3f}**" if lr == best else f"{lr}: {v:.3f}")
        if v is not None and v == v  # NaN: diverged or not run
        else f"{lr}: —"
        for lr, v in g["sweep"].items()
    ]
    return ", ".join(parts)


def _state(g: dict) -> str:
    words = {
        "ok": "",
        "failed": "failed: every swept lr diverged",
        "pending": "sweep pending",
        "waiting": "waits for the rung below",
    }
    notes = [words[g["state"]]] if words.get(g["state"]) else []
    if g["lr_at_edge"]:
        notes.append("best lr on an edge (kept)")
    if g["fallback"]:
        notes.append("rung below failed: swept at the first rung's lrs")
    if g["status"] == "pending" and g["state"] == "ok":
        notes.append(f"{g['test']['n']} of {len(g['seeds'])} seeds")
    return "; ".join(notes)


def _rungs(res: dict) -> list[str]:
    out = [
        "## Test BPC at each family's best lr",
        "",
        "Sweep: validation BPC at seed 0 by lr (the best in bold; — : diverged or not "
        "run). Test BPC: mean ± std over the seeds finished at the best lr.",
        "",
        "| rung | family | tokens, steps | sweep (val BPC) | best lr | test BPC | n | notes |",
        "|---" * 8 + "|",
    ]
    blocks = [*res["rungs"], *([res["long"]] if res["long"] else [])]
    for e in blocks:
        for n, g in e["families"].items():
            t = g["test"]
            bpc = _num(t["mean"], sign=False)
            if t.get("std") is not None:
                bpc += f" ± {t['std']:.3f}"
            sweep = _sweep(g) if "sweep" in g else "(20 N best lr)"
            notes = _state(g) if "sweep" in g else g["status"]
            lr = "" if g["lr"] is None else f"{g['lr']:g}"
            out.append(
                f"| {e['name']} | {n} | {e['tokens']:,}, {e['steps']:,} | {sweep} | {lr} "
                f"| {bpc} | {t['n']} | {notes} |"
            )
    return out


def _shapes(res: dict) -> list[str]:
    out = [
        "## Shapes against the pre-registration",
        "",
        "`models.config_for_params(target, attention)`: d, L, heads, d_ff (frustrated-mf: "
        "its modes J) and the parameter count, beside the pre-registered table.",
        "",
        "| rung | family | d, L, heads, d_ff | N | pre-registered | |",
        "|---" * 6 + "|",
    ]
    for e in res["rungs"]:
        for n, g in e["families"].items():
            s, reg = g["shape"], g["shape"]["preregistered"]
            dims = f"{s['d_model']}, {s['n_layers']}, {s['n_heads']}; {s['d_ff']}"
            if reg is None:
                note, was = "not a pre-registered rung", ""
            else:
                was = (
                    f"{reg['d_model']}, {reg['n_layers']}, {reg['n_heads']}; "
                    f"{reg['d_ff']}; {reg['params']:,}"
                )
                note = "as registered" if g["shape"]["as_registered"] else "**differs**"
            out.append(
                f"| {e['name']} | {n} | {dims} | {s['params']:,} | {was} | {note} |"
            )
    return out


def _copy(res: dict) -> list[str]:
    first = next(
        (g["copy"] for e in res["rungs"] for g in e["families"].values() if g["copy"]),
        None,
    )
    out = ["## Copy depth (descriptive, but for the comparison C above)", ""]
    if first is None:
        return [*out, "No finished cell has its copy-depth split yet."]
    ds = first["depths"]
    out += [
        f"Test BPC of the best-lr cells (mean over seeds) by copy depth: novel (depth 0) "
        f"and depth ≥ d, with n = {first['n_context']} bytes of matched context within a "
        "window; the positions in each bucket are the same for every cell "
        f"({first['count_novel']:,} novel, "
        + ", ".join(f"{c:,} at ≥ {d}" for d, c in zip(ds, first["count"], strict=True))
        + f"; {first['count_all']:,} in all).",
        "",
        "| rung | family | seeds | all | novel | "
        + " | ".join(f"≥ {d}" for d in ds)
        + " |",
        "|---" * (5 + len(ds)) + "|",
    ]
    controls = [e | {"name": f"{e['name']} controls"} for e in res.get("controls", [])]
    blocks = [*res["rungs"], *([res["long"]] if res["long"] else []), *controls]
    groups = [g["copy"] for e in blocks for g in e["families"].values() if g["copy"]]
    if not all(c["same_counts"] and c["count"] == first["count"] for c in groups):
        out[-4] += " **The positions differ between cells here: see results.json.**"
    for e in blocks:
        for n, g in e["families"].items():
            c = g["copy"]
            if c is None:
                continue
            vals = [_num(v, sign=False) for v in (c["all"], c["novel"], *c["at_least"])]
            out.append(f"| {e['name']} | {n} | {c['n']} | " + " | ".join(vals) + " |")
    return out


def _heldout(res: dict) -> list[str]:
    h = res.get("heldout")
    if h is None:
        return []
    out = [
        f"## Held-out corpus ({h['rung']}, descriptive)",
        "",
        f"The best-lr cells' final checkpoints scored on the whole {h['corpus']} corpus "
        "(never trained on; windows of the evaluation's length). Pre-registered as "
        "descriptive: not in the Holm family, no claims; the only reading is whether each "
        "difference has the sign it has on the test split.",
        "",
        "| family | lr | seeds | held-out BPC (mean ± std) |",
        "|---|---|---|---|",
    ]
    for n, f in h["families"].items():
        b, lr = f["bpc"], "" if f["lr"] is None else f"{f['lr']:g}"
        sd = "" if b.get("std") is None else f" ± {_num(b['std'], sign=False)}"
        out.append(
            f"| {n} | {lr} | {b['n']} "
            f"| {_num(b['mean'], sign=False)}{sd} |"
        )
    out += [
        "",
        "Test mean: the test split's paired mean of the same checkpoints; committed: of the "
        "committed cells (they differ where a cell was trained again to have its "
        "checkpoint; same seeds). Same sign: held-out against the same checkpoints' test.",
        "",
        "| id | difference | seeds | held-out mean | 95 % interval | test mean "
        "| committed test mean | same sign |",
        "|---" * 8 + "|",
    ]
    for c in h["comparisons"]:
        ci = c["ci"]
        interval = f"[{_num(ci[0])}, {_num(ci[1])}]" if ci else ""
        same = {None: "—", True: "yes", False: "**no**"}[c["same_sign"]]
        out.append(
            f"| {c['id']} | {c['a']} − {c['b']} | {c['n']} | {_num(c['mean'])} | {interval} "
            f"| {_num(c['test_mean'])} | {_num(c['committed_test_mean'])} | {same} |"
        )
    return out


def _missing(res: dict) -> list[str]:
    pr = res["progress"]
    out = ["## What is missing", ""]
    if not res["missing"] and not pr["waiting"]:
        return [*out, "Nothing: every planned cell finished."]
    if res["missing"]:
        out.append(f"Planned cells not finished ({len(res['missing'])}):")
        out += [f"- `{c}`" for c in res["missing"]]
    if pr["waiting"]:
        out += ["", "Not planned yet (their lrs depend on cells not finished):"]
        out += [f"- {w}" for w in pr["waiting"]]
    return out


def markdown(config, res: dict) -> str:
    """The report: progress, the comparisons with Holm's decisions, the test BPC and lr
    sweeps, the shapes against the pre-registration, the copy-depth table, what is
    missing and the convergence record."""
    pr = res["progress"]
    corpus = (res.get("corpus") or {}).get("name", "?")
    head = [
        "# Frustrated synchronisation attention (issue 40): report",
        "",
        f"Pre-registered in docs/experiments.md. Corpus: {corpus}. Cells finished: "
        f"{pr['finished']} of {pr['planned']['total']} planned ("
        + ", ".join(
            f"{p}: {pr['by_phase'][p]} of {pr['planned'][p]}" for p in pr["by_phase"]
        )
        + f"); their training took {res['compute']['wall_s'] / 3600:.2f} h of wall time "
        "(as measured, on whatever machine ran them).",
        "",
    ]
    tail = [
        "Not converged (validation BPC fell by ≥ 1 % over the last 20 % of steps): "
        + (", ".join(f"`{c}`" for c in res["not_converged"]) or "none")
        + ".",
    ]
    parts = [
        _comparisons(res),
        _rungs(res),
        _shapes(res),
        *controls_sections(res),
        _copy(res),
        *([_heldout(res)] if res.get("heldout") else []),
        _missing(res),
    ]
    body = [line for p in parts for line in [*p, ""]]
    return "\n".join(head + body + tail) + "\n"
