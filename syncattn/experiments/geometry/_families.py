"""The geometry experiment's families, their matched shapes, their cells and family 4's rule."""

from __future__ import annotations

import functools
import math
from pathlib import Path

from ... import models
from .. import _protocol as protocol
from .._grid import TrainCell
from .._protocol import Family


NAME = "geometry"
KURAMOTO, SOFTMAX = protocol.REFERENCES
REFERENCES = (KURAMOTO, SOFTMAX)
"""Family 1 and the baseline: the ladder's own families and cells."""

_LIFT = ("ffn", "lift")
FAMILIES = (
    Family("kuramoto-lift", "kuramoto", "Kuramoto, lift FFN", model=(_LIFT,)),
    Family(
        "kuramoto-vonmises",
        "kuramoto",
        "Kuramoto, von Mises readout",
        model=(("sync.readout", "vonmises"),),
    ),
    Family(
        "kuramoto-liftlinear",
        "kuramoto",
        "Kuramoto, linear lift readout",
        model=(("sync.readout", "lift_linear"),),
    ),
    Family("sphere-n3", "sphere", "S^2", model=(_LIFT, ("sync.sphere_dim", 3))),
    Family("sphere-n4", "sphere", "S^3", model=(_LIFT, ("sync.sphere_dim", 4))),
    Family("sphere-n8", "sphere", "S^7", model=(_LIFT, ("sync.sphere_dim", 8))),
    Family("so3", "group", "SO(3)", model=(_LIFT, ("sync.group", "so3"))),
    Family("u2", "group", "U(2)", model=(_LIFT, ("sync.group", "u2"))),
)
"""Families 2, 3, 5 and 6 (family 4, ``kuramoto-best``, is built at run time by
[`choose_best`][syncattn.experiments.geometry.choose_best])."""
BEST = "kuramoto-best"
READOUTS = ("kuramoto-vonmises", "kuramoto-liftlinear")
NUMBER = {
    "softmax": 0,
    "kuramoto": 1,
    "kuramoto-lift": 2,
    "kuramoto-vonmises": 3,
    "kuramoto-liftlinear": 3,
    BEST: 4,
    "sphere-n3": 5,
    "sphere-n4": 5,
    "sphere-n8": 5,
    "so3": 6,
    "u2": 6,
}
"""Each family's number in issue 29, section 1 (0: the softmax baseline)."""


def family_geometry(family: Family):
    """The [`syncattn.geometry.Geometry`][] of a family's model
    ([`syncattn.models.geometry_of`][] of its 1m config); None for the transformers."""
    if family.attention not in models.SYNC_ATTENTIONS:
        return None
    config = models.get_config("1m", attention=family.attention, **dict(family.model))
    return models.geometry_of(config)


def state_dim(family: Family) -> int | None:
    r"""The plot's state dimension $n$ of a family: the real dimension of the space one
    unit lives in or acts on, read from its geometry: the last axis of one state,
    doubled when complex, or the embedding's $m$ for scalar states (torus $S^1 \subset
    \mathbb{R}^2$: 2; $S^{n-1} \subset \mathbb{R}^n$: $n$; SO(3) on $\mathbb{R}^3$:
    3; U(2) on $\mathbb{C}^2 = \mathbb{R}^4$: 4); None for the softmax baseline."""
    geo = family_geometry(family)
    if geo is None:
        return None
    return geo.fiber[-1] * (2 if geo.complex else 1) if geo.fiber else geo.m


DIM = {
    f.name: state_dim(f)
    for f in (*REFERENCES, *FAMILIES, Family(BEST, KURAMOTO.attention))
}
"""Each family's [`state_dim`][syncattn.experiments.geometry.state_dim] (``None``: the
softmax baseline)."""


# --------------------------------------------------------------------------- families


def available(family: Family) -> str | None:
    """Why `family` cannot be built by this library (``None``: it can): its model
    config is ``models.get_config("1m", attention=..., **dict(family.model))``, and the
    ``sync.*`` keys need ``models.SyncConfig``."""
    sync = any(k.startswith("sync.") for k, _ in family.model)
    if sync and not hasattr(models, "SyncConfig"):
        return "needs models.SyncConfig (the sync.* fields; issue 'non-abelian Kuramoto attention')"
    try:
        models.get_config("1m", attention=family.attention, **dict(family.model))
    except (ValueError, TypeError, KeyError) as e:
        return f"cannot build: {e}"
    return None


@functools.lru_cache(maxsize=1024)
def _params(
    family: Family, d: int, L: int, heads: int, ff: int, vocab: int
) -> int | None:
    try:
        return models.config_params(
            models.get_config(
                "1m",
                attention=family.attention,
                d_model=d,
                n_layers=L,
                n_heads=heads,
                d_ff=ff,
                vocab_size=vocab,
                **dict(family.model),
            )
        )
    except (ValueError, TypeError):
        return None


def _matched(
    family: Family, d: int, L: int, heads: int, n: int, vocab: int, step: int = 8
) -> tuple[int, int] | None:
    """The ladder's rule (``_matched_ff``) at explicit heads and granularity: the multiple
    of `step` of $d_{ff}$ whose count is nearest `n` (the count is linear in $d_{ff}$)."""
    base, nxt = (
        _params(family, d, L, heads, step, vocab),
        _params(family, d, L, heads, 2 * step, vocab),
    )
    if base is None or nxt is None:
        return None
    per = nxt - base
    ff = max(step, step + step * round((n - base) / per)) if per else step
    got = _params(family, d, L, heads, ff, vocab)
    return None if got is None else (ff, got)


def state_size(family: Family, d_model: int) -> int:
    r"""Real numbers per token in the model's state: ``models.state_size`` of the family's
    config at width `d_model` ($k$ times one state's real coordinates, from its
    geometry; $d$ for softmax)."""
    config = models.get_config(
        "1m",
        attention=family.attention,
        d_model=d_model,
        n_heads=1,
        **dict(family.model),
    )
    return models.state_size(config)


@functools.lru_cache(maxsize=256)
def family_shape(
    target: int, family: Family, tol: float = 0.02, vocab: int = 256
) -> dict:
    r"""A family's shape at the ladder's rung `target`, matched to the rung's softmax count
    $N_s$ (module docstring): at the rung's width $d$ the multiple of 8 of $d_{ff}$
    nearest $N_s$, else (outside `tol`) the integer $d_{ff} \ge 8$ nearest it; failing
    both, the same at the largest width $d - jh$ ($h$ the rung's heads,
    $j = 1, 2, \dots$) where one lies within `tol`; failing every width, the width and
    $d_{ff}$ of the smallest $|\ln(N/N_s)|$ (reported: ``within`` false).

    Returns:
        ``{"d_model", "n_layers", "n_heads", "d_ff", "params", "reference",
        "mismatch", "within", "rematched_width", "state_size"}``.

    Raises:
        ValueError: no width of the family builds.
    """
    shape = protocol.rung_shape(target, vocab)
    L, h, n_s = shape["n_layers"], shape["n_heads"], shape["params"][SOFTMAX.name]
    if family in REFERENCES:
        d, ff, got = (
            shape["d_model"],
            shape["d_ff"][family.name],
            shape["params"][family.name],
        )
    else:
        best, found = None, False
        for d in range(shape["d_model"], 0, -h):
            for step in (8, 1):
                m = _matched(family, d, L, h, n_s, vocab, step)
                if m is None:
                    continue
                cand = (abs(math.log(m[1] / n_s)), -d, *m)
                best = min(best or cand, cand)
                if abs(m[1] / n_s - 1) <= tol and m[0] >= 8:
                    best, found = cand, True
                    break
            if found:
                break
        if best is None:
            raise ValueError(
                f"family {family.name!r} builds at no width of rung {shape['name']}."
            )
        d, ff, got = -best[1], best[2], best[3]
    return {
        "d_model": d,
        "n_layers": L,
        "n_heads": h,
        "d_ff": ff,
        "params": got,
        "reference": n_s,
        "mismatch": got / n_s - 1,
        "within": abs(got / n_s - 1) <= tol,
        "rematched_width": d != shape["d_model"],
        "state_size": state_size(family, d),
    }


def geometry_cell(
    config, target: int, family: Family, lr: float, seed: int
) -> TrainCell:
    """The cell ``RUNG-FAMILY-lrLR-seedS``: the references' is the ladder's own
    ([`rung_cell`][syncattn.experiments._protocol.rung_cell], same name and settings); any
    other family's has its matched shape
    ([`family_shape`][syncattn.experiments.geometry.family_shape]), its model fields and
    the rung's budget and schedule (the ladder's: $S$ from the Kuramoto count)."""
    if family in REFERENCES:
        return protocol.rung_cell(config, target, family.name, lr, seed)
    shape = protocol.rung_shape(target)
    fs = family_shape(target, family, config.match_tol)
    b = protocol.rung_budget(config, shape["params"][KURAMOTO.name])
    name = f"{shape['name']}-{family.name}-lr{lr:g}-seed{seed}"
    return protocol.shaped_cell(config, name, family, fs, b, lr, seed)


def _family(name: str) -> Family:
    return next(f for f in FAMILIES if f.name == name)


# --------------------------------------------------------------------------- family 4


def _mean_val(rows, rung: str, name: str, lr) -> float | None:
    v = [
        w["val_bpc"]
        for w in rows
        if w["rung"] == rung
        and w["model"] == name
        and w["lr"] == lr
        and math.isfinite(w["val_bpc"])
    ]
    return sum(v) / len(v) if v else None


def choose_best(rows, rung: str, best: dict) -> dict:
    """Family 4's rule, on the first rung's **validation** BPC (mean over the seeds at each
    family's best lr; the test split stays for the report): the lift feed-forward is
    kept when ``kuramoto-lift`` beats ``kuramoto``; the readout of the better of
    ``kuramoto-vonmises`` and ``kuramoto-liftlinear`` is kept when it beats ``kuramoto``.
    With both kept, ``kuramoto-best`` is a new family (lift + that readout) run at every
    rung; with one or none it *is* that family (or ``kuramoto``), reported as such and
    not trained again.

    Returns:
        ``{"components", "same_as", "family": model items or None, "val": {name: mean}}``.
    """
    val = {
        f: _mean_val(rows, rung, f, best.get(f))
        for f in ("kuramoto", "kuramoto-lift", *READOUTS)
    }
    k = val["kuramoto"]
    beats = {
        f: v
        for f, v in val.items()
        if f != "kuramoto" and v is not None and k is not None and v < k
    }
    lift = "kuramoto-lift" in beats
    readout = min(
        (f for f in READOUTS if f in beats), key=lambda f: beats[f], default=None
    )
    comps = (["kuramoto-lift"] if lift else []) + ([readout] if readout else [])
    fam = None
    if len(comps) == 2:
        fam = (_LIFT, *_family(readout).model)
    return {
        "components": comps,
        "same_as": None if fam else (comps[0] if comps else "kuramoto"),
        "family": fam,
        "val": val,
    }


def choose_top(rows, rung: str, best: dict, names) -> dict:
    """The top family for the rung above `targets`: of `names` (the families other than
    the references), the one with the lowest mean **validation** BPC over its seeds at
    its best lr (``best[name]``) at `rung` (ties: the first in `names`).

    Returns:
        ``{"rung", "family": name or None (none finished), "val": {name: mean or None}}``.
    """
    val = {n: _mean_val(rows, rung, n, best.get(n)) for n in names}
    ok = [(v, i, n) for i, (n, v) in enumerate(val.items()) if v is not None]
    return {"rung": rung, "family": min(ok)[2] if ok else None, "val": val}


def _best_family(choice: dict | None) -> Family | None:
    if not choice or choice["family"] is None:
        return None
    return Family(
        BEST,
        "kuramoto",
        "Kuramoto, best of 2 and 3",
        model=tuple(map(tuple, choice["family"])),
    )


def ladder_dir(config) -> Path | None:
    """The folder the reference cells are adopted from: ``config.ladder`` (``"auto"``:
    ``results/experiments/ladder/ladder-default`` of the checkout, on the embedded corpus)."""
    if config.ladder is None:
        return None
    if config.ladder != "auto":
        return Path(config.ladder)
    if config.data_path is not None:
        return None
    root = Path(__file__).resolve().parents[3]
    d = root / "results" / "experiments" / "ladder" / "ladder-default"
    return d if d.is_dir() else None
