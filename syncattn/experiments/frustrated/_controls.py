"""The controls phase of the frustrated experiment's walk (issue 44): at each control rung,
the frustrated family's seeds the plan above lacks, the three fixed-part controls and the
Kuramoto model at equal wall time, seed by seed; the time ratio $r$ read back or measured
first ([`_timing`][syncattn.experiments.frustrated._timing])."""

from __future__ import annotations

from .. import _protocol as protocol
from . import _timing
from ._cells import (
    ALL_FAMILIES,
    CONTROLS,
    Entry,
    control_cell,
    family,
    frustrated_cell,
    rung_name,
    rung_seeds,
)


def extra_seeds(config, target: int) -> tuple[int, ...]:
    """The frustrated family's seeds a control rung adds: those of ``config.seeds`` the
    plan's [`rung_seeds`][syncattn.experiments.frustrated.rung_seeds] leaves out (50 k:
    3 and 4); they pair with the controls and do not enter H1-H4."""
    have = rung_seeds(config, target)
    return tuple(s for s in config.seeds if s not in have)


def planned_controls(config) -> int:
    """The controls phase's cells when no family fails: per control rung the controls at
    every seed and the frustrated family's extra seeds (default: 22 + 20 = 42)."""
    return sum(
        len(CONTROLS) * len(config.seeds) + len(extra_seeds(config, t))
        for t in config.control_targets
    )


def _recorded(config, ctx) -> dict:
    """The rungs of ``timing.json`` this run sees: a rebuild's source alone; a run's
    ``--out``, then the committed folder."""
    if ctx.rebuilding:
        return _timing.read_timing(ctx.committed)
    return _timing.read_timing(ctx.out, ctx.committed)


def _measure(config, ctx, target: int, best: dict) -> dict:
    """Measure the rung's $r$ on the cells' steps (the frustrated and Kuramoto cells at
    their best lrs, the first seed) and record it at once: in ``--out``, and with
    ``export`` in the committed folder, before any ``kuramoto-time`` cell trains."""
    seed = config.seeds[0]
    cells = {
        n: frustrated_cell(config, target, family(n), best[n], seed)
        for n in ("frustrated", "kuramoto")
    }
    record = _timing.measure_rung(config, cells)
    r = rung_name(target)
    targets = [ctx.out] + ([ctx.committed] if config.export and ctx.committed else [])
    for folder in targets:
        _timing.write_timing(folder, _timing.read_timing(folder) | {r: record})
    return record


def time_ratio(config, ctx, fetch, target: int, best: dict) -> tuple[float | None, str]:
    """``(r, source)`` at rung `target`: ``config.time_ratio`` when given; the recorded
    one (``timing.json``); else, in a run that trains this rung's ``kuramoto-time``
    cells, measured now; else ``(None, why)``."""
    if config.time_ratio is not None:
        return float(config.time_ratio), "config.time_ratio"
    r = rung_name(target)
    rec = _recorded(config, ctx).get(r)
    if rec is None and fetch.would_train("controls", target, "kuramoto-time"):
        rec = _measure(config, ctx, target, best)
    if rec is None:
        return None, "not measured yet"
    return float(rec["r"]), f"timing.json, measured {rec.get('date', '?')}"


def _cells(config, target: int, best: dict, r: float | None) -> list:
    """The control rung's cells, seed by seed (the families kept paired): the frustrated
    family's extra seed, then each control with a lr (and, for ``kuramoto-time``, $r$)."""
    extra = extra_seeds(config, target)
    out = []
    for s in config.seeds:
        if s in extra and best["frustrated"] is not None:
            out.append(
                frustrated_cell(
                    config, target, family("frustrated"), best["frustrated"], s
                )
            )
        for f in CONTROLS:
            timed = f.name == "kuramoto-time"
            lr = best["kuramoto" if timed else "frustrated"]
            if lr is None or (timed and r is None):
                continue
            out.append(control_cell(config, target, f, lr, s, r if timed else None))
    return out


def walk_controls(config, ctx, fetch, walked: dict) -> None:
    """The controls phase at every ``control_targets`` rung, appended to `walked` in
    place (``walked["controls"][rung]``: the time ratio, its source and what waits;
    ``walked["timing"]``: every recorded rung). A control waits for its rung's
    frustrated sweep (its lr), ``kuramoto-time`` for the Kuramoto sweep and $r$."""
    walked["controls"] = {}
    for t in config.control_targets:
        r = rung_name(t)
        state, best = walked["state"][r], walked["best"][r]
        ok = {n: state[n] == "ok" for n in ("frustrated", "kuramoto")}
        ratio, source = None, "its Kuramoto or frustrated sweep is not finished"
        if ok["frustrated"] and ok["kuramoto"]:
            ratio, source = time_ratio(config, ctx, fetch, t, best)
        waiting = []
        if state["frustrated"] in ("pending", "waiting"):
            waiting.append(
                f"{r} controls (c-only, b-only, successor): wait for the {r} "
                "frustrated sweep"
            )
        if state["kuramoto"] in ("pending", "waiting"):
            waiting.append(f"{r} kuramoto-time: waits for the {r} kuramoto sweep")
        elif ok["kuramoto"] and state["frustrated"] in ("pending", "waiting"):
            waiting.append(
                f"{r} kuramoto-time: waits for the {r} frustrated sweep (its timing)"
            )
        elif ok["kuramoto"] and ok["frustrated"] and ratio is None:
            waiting.append(
                f"{r} kuramoto-time: waits for the equal-compute timing (no "
                f"{r} in timing.json; a run that trains these cells measures it)"
            )
        lrs = {n: best[n] if ok[n] else None for n in ("frustrated", "kuramoto")}
        cells = _cells(config, t, lrs, ratio)
        got = fetch("controls", t)(cells) if cells else []
        walked["entries"] += [
            Entry("controls", t, protocol.family_of(c, ALL_FAMILIES), c, x)
            for c, x in zip(cells, got, strict=True)
        ]
        walked["controls"][r] = {
            "time_ratio": ratio,
            "time_source": source,
            "waiting": waiting,
        }
    walked["timing"] = _recorded(config, ctx)
