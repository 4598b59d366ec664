r"""The controls' part of the frustrated report (issue 44): each control rung's groups, the
comparisons A1-A4 (frustrated minus a control, paired by seed over ``config.seeds``), the
reading of A3 against the successor control, and the descriptive rows (no claims).

A1-A4 join the section's Holm family ([`decide`][syncattn.experiments.frustrated.decide]
over all 25); H1-H4 are also decided over the registered 17 alone.
"""

from __future__ import annotations

import statistics

from ._cells import (
    CONTROLS,
    cell_budget,
    control_shape,
    family,
    family_shape,
    rung_name,
    time_budget,
)
from ._groups import group, paired_test, status_of, test_by_seed


ABLATIONS = (
    ("A1", "c-only", "the delayed coupling contributes"),
    ("A2", "b-only", "the learned frustration c contributes"),
    ("A3", "successor", "the layer does more than a copy channel"),
    ("A4", "kuramoto-time", "a gain over Kuramoto survives equal wall time"),
)
"""The pre-registered control comparisons: ``(id, control, what its support would
say)``, each $\\mathbb E(\\mathrm{frustrated} - \\mathrm{control}) < 0$ in test BPC."""

MATCH_BAND = 0.02
"""A3's band: the frustrated layer *matches* the successor control at a rung when A3 is
not supported and the unadjusted 95 % interval of frustrated − successor lies inside
$\\pm 0.02$ BPC."""


def _shape(target: int, name: str) -> dict:
    if name == "frustrated":
        s = family_shape(target, family(name))
        keys = ("d_model", "n_layers", "n_heads", "d_ff", "params")
        return {k: s[k] for k in keys} | {"of": "frustrated"}
    return control_shape(target, family(name))


def control_blocks(config, walked: dict) -> list[dict]:
    """Each control rung: the frustrated family's cells at its best lr over
    ``config.seeds`` (its sweep, seed and controls-phase cells) and each control's
    cells (``kuramoto-time`` at the Kuramoto family's best lr), their shapes, the 20 N
    budget, $r$ (its source) and the ``kuramoto-time`` budget; a group keeps its
    ``results`` until the report drops them."""
    out = []
    for t in config.control_targets:
        r = rung_name(t)
        state, best, info = walked["state"][r], walked["best"][r], walked["controls"][r]
        ratio = info["time_ratio"]
        timed_state = state["kuramoto"]
        if timed_state == "ok" and (state["frustrated"] != "ok" or ratio is None):
            timed_state = "failed" if state["frustrated"] == "failed" else "pending"
        fams = {
            "frustrated": group(
                walked["entries"],
                ("sweep", "seeds", "controls"),
                t,
                "frustrated",
                best["frustrated"],
                config.seeds,
                state["frustrated"],
            )
        }
        for f in CONTROLS:
            timed = f.name == "kuramoto-time"
            fams[f.name] = group(
                walked["entries"],
                ("controls",),
                t,
                f.name,
                best["kuramoto" if timed else "frustrated"],
                config.seeds,
                timed_state if timed else state["frustrated"],
            )
        for n, g in fams.items():
            g["shape"] = _shape(t, n)
        out.append(
            {
                "name": r,
                "target": t,
                **cell_budget(config, t),
                "time_ratio": ratio,
                "time_source": info["time_source"],
                "time_budget": None if ratio is None else time_budget(config, t, ratio),
                "families": fams,
            }
        )
    return out


def control_comparisons(config, blocks: list[dict]) -> list[dict]:
    """A1-A4 at each control rung, in order: frustrated − control, paired by seed over
    ``config.seeds`` ([`paired_test`][syncattn.experiments.frustrated.paired_test])."""
    out = []
    for e in blocks:
        fams = e["families"]
        for h, x, _ in ABLATIONS:
            t = paired_test(
                test_by_seed(fams["frustrated"]),
                test_by_seed(fams[x]),
                config.seeds,
                config.confidence,
            )
            tail = " (equal wall time)" if x == "kuramoto-time" else ""
            out.append(
                {
                    "id": f"{h} {e['name']}",
                    "hypothesis": h,
                    "where": e["name"],
                    "a": "frustrated",
                    "b": x,
                    "what": f"frustrated − {x}{tail}, test BPC",
                    "status": status_of(fams["frustrated"], fams[x]),
                    "planned_n": len(config.seeds),
                    **t,
                }
            )
    return out


def successor_reading(c: dict, final: bool, band: float = MATCH_BAND) -> str:
    """A3's reading (the pre-registration's rule): ``pending`` while a cell is missing;
    ``A3 supported`` where Holm rejects; else ``matches`` when the unadjusted interval of
    frustrated − successor lies inside $\\pm$`band`, ``undecided`` otherwise; prefixed
    ``provisional: `` while the Holm family is not final."""
    if c["status"] == "pending":
        return "pending"
    if c["status"] == "complete" and c["rejected"]:
        word = "A3 supported (not a match)"
    elif c["ci"] is not None and -band <= c["ci"][0] and c["ci"][1] <= band:
        word = "matches"
    else:
        word = "undecided"
    return word if final else f"provisional: {word}"


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.fmean(xs) if xs else None


def _walls(g: dict) -> dict:
    ok = [r for r in g["results"].values() if r.ok]
    return {
        "n": len(ok),
        "wall_s": _mean(r.get("wall_s") for r in ok),
        "tokens_per_s": _mean(r.get("tokens_per_s") for r in ok),
    }


def descriptive(config, blocks: list[dict], rungs: list[dict]) -> list[dict]:
    """The rows without claims, per control rung: successor − Kuramoto at equal tokens
    (the Kuramoto family's 20 N seed cells, paired by seed; no p), and the mean wall
    time and tokens/s of the frustrated, ``kuramoto-time`` and Kuramoto (20 N) cells
    beside $r$ (each cell's ``wall_s``: training and its scoring, as run)."""
    out = []
    for e in blocks:
        k = next(x for x in rungs if x["name"] == e["name"])["families"]["kuramoto"]
        fams = e["families"]
        d = paired_test(
            test_by_seed(fams["successor"]),
            test_by_seed(k),
            config.seeds,
            config.confidence,
        )
        d.pop("p")
        walls = {
            "frustrated": _walls(fams["frustrated"]),
            "kuramoto-time": _walls(fams["kuramoto-time"]),
            "kuramoto": _walls(k),
        }
        f, kt = walls["frustrated"]["wall_s"], walls["kuramoto-time"]["wall_s"]
        out.append(
            {
                "id": f"D {e['name']}",
                "where": e["name"],
                "what": "successor − kuramoto (equal tokens), test BPC",
                "claim": "no claim",
                **d,
                "time_ratio": e["time_ratio"],
                "walls": walls,
                "wall_ratio": f / kt if f and kt else None,
            }
        )
    return out


def control_waiting(walked: dict) -> list[str]:
    """What the controls wait for, rung by rung."""
    return [w for info in walked.get("controls", {}).values() for w in info["waiting"]]
