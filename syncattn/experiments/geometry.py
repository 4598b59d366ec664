r"""Issue 29, section 1: what the geometry buys, the Kuramoto gap taken apart.

The size ladder ([`syncattn.experiments.ladder`][]) measured the Kuramoto LM at about
+0.2 BPC behind a matched RoPE + SwiGLU transformer at every rung. This experiment asks
which part of that gap the feed-forward block, the readout and the state's geometry
explain, on the ladder's protocol ([`syncattn.experiments._protocol`][]: a 20 N token
budget, each family at its own lr from a sweep of 3 extended past an edge, 3 seeds at
the best lr, test BPC, paired intervals, a convergence record, committed cells,
``--from-results``), at the ladder's rungs 50 k and 150 k on the embedded corpus.

**Families** ([`FAMILIES`][syncattn.experiments.geometry.FAMILIES], data: an attention
and model override items), each against the same softmax cells:

1. ``kuramoto``: seed 000's model as published, the ladder's own cells (adopted from
   ``results/experiments/ladder/ladder-default``, never trained here);
2. ``kuramoto-lift``: its feed-forward on the lift $(\cos\theta, \sin\theta)$
   (``ffn="lift"``), width re-matched;
3. ``kuramoto-vonmises`` and ``kuramoto-liftlinear``: the readouts
   ``sync.readout=vonmises`` ($\ell_{tv} = \sum_j \kappa_{vj}\cos(\theta_{tj} -
   \varphi_{vj})$) and ``sync.readout=lift_linear`` (a linear head on the lift);
4. ``kuramoto-best``: 2 and 3 combined by the rule of
   [`choose_best`][syncattn.experiments.geometry.choose_best];
5. ``sphere-n3``, ``sphere-n4``, ``sphere-n8``: states on $S^{n-1}$
   (``attention="sphere"``, ``sync.sphere_dim=n``, the lift feed-forward);
6. ``so3``, ``u2``: group states (``attention="group"``, ``sync.group``).

**Sizes.** A rung is the ladder's ([`rung_shape`][syncattn.experiments.ladder.rung_shape]:
depth, heads, the Kuramoto width $d$, the budget $S$ from the Kuramoto count); the
reference families keep the ladder's cells. Every other family is matched to the
rung's *softmax* count $N_s$ by [`family_shape`][syncattn.experiments.geometry.family_shape]:
the ladder's feed-forward rule (the multiple of 8 of $d_{ff}$ whose count is nearest
$N_s$) at the rung's width; where that cannot come within ``match_tol`` (2 %; a sphere
or group model's embedding and readout grow as $V k n$ or $V k n^2$, so at the rung's
width even $d_{ff} = 8$ is too large), the width $k$ = ``d_model`` is lowered in steps
of the rung's head count (heads and depth kept) to the largest width whose matched count
lies within it. At each width $d_{ff}$ is a multiple of 8 where that comes within the
tolerance, else any integer $\ge 8$ (the lift's step of 8 is 5 % of the 150 k rung's
count). The state size per token
([`state_size`][syncattn.experiments.geometry.state_size]) is reported beside.

**Learning rates.** A family's sweep at the first rung is centred on the Kuramoto
model's best lr of that rung (the ladder's), at the rungs above on its own best lr of
the rung below ([`centred_lrs`][syncattn.experiments._protocol.centred_lrs]); extended
past an edge (``extend``); its best lr then trained at every seed.

**Report** ([`compare`][syncattn.experiments.geometry.compare]): per family and rung
the paired test-BPC gap to softmax with its Student-t interval, the paired difference to
the Kuramoto model, and the fraction of the Kuramoto gap closed,

$$f = \frac{\bar g_K - \bar g_F}{\bar g_K}, \qquad
  \bar g_X = \frac1{|S|}\sum_{s\in S}\big(\mathrm{BPC}_{X,s} - \mathrm{BPC}_{\text{softmax},s}\big),$$

over the seeds $S$ all three hold, with the interval of the paired mean of
$\mathrm{BPC}_{K,s} - \mathrm{BPC}_{F,s}$ divided by $\bar g_K$ (conditional on the
Kuramoto gap); a verdict per family in words
([`verdict`][syncattn.experiments.geometry.verdict]); one plot, the gap against the
state dimension $n$ (torus at $n = 2$).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from pathlib import Path

from .. import models
from . import _protocol as protocol
from ._common import (
    describe_values,
    fmt_mean_std,
    layered_overrides,
    write_csv,
    write_json,
)
from ._grid import Grid, TrainCell
from ._protocol import Family, ProtocolConfig, record_lines
from .ladder import _cells as ladder_cells


__all__ = ["Config", "run", "rebuild", "summary", "aggregate", "FAMILIES", "REFERENCES",
           "family_shape", "state_size", "geometry_cell", "available", "choose_best",
           "compare", "fraction_closed", "verdict", "ladder_dir"]  # fmt: skip

NAME = "geometry"
KURAMOTO, SOFTMAX = ladder_cells.FAMILIES
REFERENCES = (KURAMOTO, SOFTMAX)
"""Family 1 and the baseline: the ladder's own families and cells."""

_LIFT = ("ffn", "lift")
FAMILIES = (
    Family("kuramoto-lift", "kuramoto", "Kuramoto, lift FFN", model=(_LIFT,)),
    Family("kuramoto-vonmises", "kuramoto", "Kuramoto, von Mises readout",
           model=(("sync.readout", "vonmises"),)),
    Family("kuramoto-liftlinear", "kuramoto", "Kuramoto, linear lift readout",
           model=(("sync.readout", "lift_linear"),)),
    Family("sphere-n3", "sphere", "S^2", model=(_LIFT, ("sync.sphere_dim", 3))),
    Family("sphere-n4", "sphere", "S^3", model=(_LIFT, ("sync.sphere_dim", 4))),
    Family("sphere-n8", "sphere", "S^7", model=(_LIFT, ("sync.sphere_dim", 8))),
    Family("so3", "group", "SO(3)", model=(_LIFT, ("sync.group", "so3"))),
    Family("u2", "group", "U(2)", model=(_LIFT, ("sync.group", "u2"))),
)  # fmt: skip
"""Families 2, 3, 5 and 6 (family 4, ``kuramoto-best``, is built at run time by
[`choose_best`][syncattn.experiments.geometry.choose_best])."""
BEST = "kuramoto-best"
READOUTS = ("kuramoto-vonmises", "kuramoto-liftlinear")
NUMBER = {"softmax": 0, "kuramoto": 1, "kuramoto-lift": 2, "kuramoto-vonmises": 3, "kuramoto-liftlinear": 3,
          BEST: 4, "sphere-n3": 5, "sphere-n4": 5, "sphere-n8": 5, "so3": 6, "u2": 6}  # fmt: skip
"""Each family's number in issue 29, section 1 (0: the softmax baseline)."""
DIM = {"softmax": None, "kuramoto": 2, "kuramoto-lift": 2, "kuramoto-vonmises": 2, "kuramoto-liftlinear": 2,
       BEST: 2, "sphere-n3": 3, "sphere-n4": 4, "sphere-n8": 8, "so3": 3, "u2": 4}  # fmt: skip
r"""The plot's state dimension $n$: the real dimension of the space one unit lives in or
acts on (torus $S^1 \subset \mathbb{R}^2$: 2; $S^{n-1} \subset \mathbb{R}^n$: $n$;
SO(3) on $\mathbb{R}^3$: 3; U(2) on $\mathbb{C}^2 = \mathbb{R}^4$: 4; softmax: none)."""


@dataclasses.dataclass(frozen=True)
class Config(ProtocolConfig):
    """The geometry experiment's settings: the protocol's
    ([`ProtocolConfig`][syncattn.experiments._protocol.ProtocolConfig]) and these.

    Attributes:
        targets: the ladder's rungs (target counts) compared here.
        ladder_targets: the ladder's rungs whose walk gives the reference cells (its lr
            sweep at a rung is centred on the rung below, so the walk runs from the
            first rung up to the largest of `targets`; every rung keeps all seeds).
        families: the families run besides the references (names of
            [`FAMILIES`][syncattn.experiments.geometry.FAMILIES] and ``kuramoto-best``).
        match_tol: the largest relative count difference to the rung's softmax cell.
        ladder: the ladder's committed folder the reference cells are adopted from
            (``"auto"``: the checkout's ``results/experiments/ladder/ladder-default`` on
            the embedded corpus; ``None``: none, they are trained).
    """

    targets: tuple[int, ...] = (50_000, 150_000)
    ladder_targets: tuple[int, ...] = (50_000, 100_000, 150_000)
    families: tuple[str, ...] = (*(f.name for f in FAMILIES), BEST)
    match_tol: float = 0.02
    ladder: str | None = "auto"

    def __post_init__(self):
        names = {f.name for f in FAMILIES} | {BEST}
        bad = [f for f in self.families if f not in names]
        if bad:
            raise ValueError(f"families: unknown {bad}; choose among {sorted(names)}.")
        if not self.targets or not set(self.targets) <= set(self.ladder_targets):
            raise ValueError(f"targets {self.targets} must be non-empty and among "
                             f"ladder_targets {self.ladder_targets}.")  # fmt: skip
        if not 0 < self.match_tol < 1:
            raise ValueError(f"match_tol must lie in (0, 1); got {self.match_tol}.")
        super().__post_init__()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds of training (a minute with compiling): the ladder's first smoke rung
        (12 k), one lr, 2 seeds, 0.1 N tokens, families 2, 5 (n = 3) and 4."""
        return cls(targets=(12_000,), ladder_targets=(12_000,), lrs=(1e-2,), seeds=(0, 1),
                   families=("kuramoto-lift", "sphere-n3", BEST), tokens_per_param=0.1, batch_size=4,
                   seq_len=32, evals=5, eval_batches=2, final_batches=2, n_boot=50,
                   extend=0, committed=None, ladder=None)  # fmt: skip

    @classmethod
    def default(cls) -> Config:
        """Issue 29's CPU protocol: rungs 50 k and 150 k, 3 lrs (+ extensions), 3 seeds."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """The default at 5 seeds (the references' extra seeds are trained)."""
        return cls(seeds=(0, 1, 2, 3, 4))


# --------------------------------------------------------------------------- families


def available(family: Family) -> str | None:
    """Why `family` cannot be built by this library (``None``: it can): its model
    config is ``models.get_config("1m", attention=..., **dict(family.model))``, and the
    ``sync.*`` keys need ``models.SyncConfig``."""
    if any(k.startswith("sync.") for k, _ in family.model) and not hasattr(models, "SyncConfig"):
        return "needs models.SyncConfig (the sync.* fields; issue 'non-abelian Kuramoto attention')"
    try:
        models.get_config("1m", attention=family.attention, **dict(family.model))
    except (ValueError, TypeError, KeyError) as e:
        return f"cannot build: {e}"
    return None


@functools.lru_cache(maxsize=1024)
def _params(family: Family, d: int, L: int, heads: int, ff: int, vocab: int) -> int | None:
    try:
        return models.config_params(models.get_config(
            "1m", attention=family.attention, d_model=d, n_layers=L, n_heads=heads, d_ff=ff,
            vocab_size=vocab, **dict(family.model)))  # fmt: skip
    except (ValueError, TypeError):
        return None


def _matched(family: Family, d: int, L: int, heads: int, n: int, vocab: int,
             step: int = 8) -> tuple[int, int] | None:  # fmt: skip
    """The ladder's rule (``_matched_ff``) at explicit heads and granularity: the multiple
    of `step` of $d_{ff}$ whose count is nearest `n` (the count is linear in $d_{ff}$)."""
    base, nxt = _params(family, d, L, heads, step, vocab), _params(family, d, L, heads, 2 * step, vocab)
    if base is None or nxt is None:
        return None
    per = nxt - base
    ff = max(step, step + step * round((n - base) / per)) if per else step
    got = _params(family, d, L, heads, ff, vocab)
    return None if got is None else (ff, got)


def state_size(family: Family, d_model: int) -> int:
    r"""Real numbers per token in the model's state: ``models.state_size`` where the
    library has it; else $k$ (torus $\mathbb{T}^k$), $kn$ (sphere $(S^{n-1})^k$),
    $kn^2$ ($SO(n)^k$), $2kn^2$ ($U(n)^k$), $d$ (softmax), with $k$ = ``d_model``."""
    if hasattr(models, "state_size"):
        return models.state_size(models.get_config(
            "1m", attention=family.attention, d_model=d_model, n_heads=1, **dict(family.model)))
    if family.attention not in ("sphere", "group"):
        return d_model
    fields = dict(family.model)
    if family.attention == "sphere":
        return d_model * int(fields.get("sync.sphere_dim", 4))
    g = str(fields.get("sync.group", "so3"))
    n = int(g.lstrip("sou"))
    return d_model * n * n * (2 if g.startswith("u") else 1)


@functools.lru_cache(maxsize=256)
def family_shape(target: int, family: Family, tol: float = 0.02, vocab: int = 256) -> dict:
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
    shape = ladder_cells.rung_shape(target, vocab)
    L, h, n_s = shape["n_layers"], shape["n_heads"], shape["params"][SOFTMAX.name]
    if family in REFERENCES:
        d, ff, got = shape["d_model"], shape["d_ff"][family.name], shape["params"][family.name]
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
            raise ValueError(f"family {family.name!r} builds at no width of rung {shape['name']}.")
        d, ff, got = -best[1], best[2], best[3]
    return {"d_model": d, "n_layers": L, "n_heads": h, "d_ff": ff, "params": got,
            "reference": n_s, "mismatch": got / n_s - 1, "within": abs(got / n_s - 1) <= tol,
            "rematched_width": d != shape["d_model"],
            "state_size": state_size(family, d)}  # fmt: skip


def geometry_cell(config: Config, target: int, family: Family, lr: float, seed: int) -> TrainCell:
    """The cell ``RUNG-FAMILY-lrLR-seedS``: the references' is the ladder's own
    ([`rung_cell`][syncattn.experiments.ladder.rung_cell], same name and settings); any
    other family's has its matched shape
    ([`family_shape`][syncattn.experiments.geometry.family_shape]), its model fields and
    the rung's budget and schedule (the ladder's: $S$ from the Kuramoto count)."""
    if family in REFERENCES:
        return ladder_cells.rung_cell(config, target, family.name, lr, seed)
    shape = ladder_cells.rung_shape(target)
    fs = family_shape(target, family, config.match_tol)
    b = ladder_cells.rung_budget(config, shape["params"][KURAMOTO.name])
    data, path, opts = ladder_cells.corpus_choice(config)
    settings = {"model.d_model": fs["d_model"], "model.n_layers": fs["n_layers"],
                "model.n_heads": fs["n_heads"], "model.d_ff": fs["d_ff"],
                "train.seq_len": config.seq_len}  # fmt: skip
    return TrainCell(
        name=f"{shape['name']}-{family.name}-lr{lr:g}-seed{seed}", model=family.attention,
        config="1m", seed=seed, data=data, data_path=path, steps=b["steps"],
        overrides=layered_overrides(opts, settings | protocol.schedule(config, b, lr)
                                    | family.overrides(), config.train),
        eval_batches=config.final_batches,
    )  # fmt: skip


def _family(name: str) -> Family:
    return next(f for f in FAMILIES if f.name == name)


# --------------------------------------------------------------------------- family 4


def _mean_val(rows, rung: str, name: str, lr) -> float | None:
    v = [w["val_bpc"] for w in rows if w["rung"] == rung and w["model"] == name
         and w["lr"] == lr and math.isfinite(w["val_bpc"])]  # fmt: skip
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
    val = {f: _mean_val(rows, rung, f, best.get(f)) for f in ("kuramoto", "kuramoto-lift", *READOUTS)}
    k = val["kuramoto"]
    beats = {f: v for f, v in val.items() if f != "kuramoto" and v is not None and k is not None and v < k}
    lift = "kuramoto-lift" in beats
    readout = min((f for f in READOUTS if f in beats), key=lambda f: beats[f], default=None)
    comps = (["kuramoto-lift"] if lift else []) + ([readout] if readout else [])
    fam = None
    if len(comps) == 2:
        fam = (_LIFT, *_family(readout).model)
    return {"components": comps, "same_as": None if fam else (comps[0] if comps else "kuramoto"),
            "family": fam, "val": val}  # fmt: skip


def _best_family(choice: dict | None) -> Family | None:
    if not choice or choice["family"] is None:
        return None
    return Family(BEST, "kuramoto", "Kuramoto, best of 2 and 3", model=tuple(map(tuple, choice["family"])))


# --------------------------------------------------------------------------- the walk


def ladder_config(config: Config):
    """The ladder's config whose walk ([`syncattn.experiments.ladder`][]) gives the
    reference cells: ``ladder_targets``, every seed at every rung, no ablations, probes or
    dynamics, and this config's protocol fields."""
    from . import ladder

    shared = {f.name: getattr(config, f.name) for f in dataclasses.fields(ProtocolConfig)}
    return ladder.Config(**shared | {"targets": config.ladder_targets, "top_seeds": None,
                                     "ablate_at": None, "probes": (), "dynamics": False})  # fmt: skip


def ladder_dir(config: Config) -> Path | None:
    """The folder the reference cells are adopted from: ``config.ladder`` (``"auto"``:
    ``results/experiments/ladder/ladder-default`` of the checkout, on the embedded corpus)."""
    if config.ladder is None:
        return None
    if config.ladder != "auto":
        return Path(config.ladder)
    if config.data_path is not None:
        return None
    d = Path(__file__).resolve().parents[2] / "results" / "experiments" / "ladder" / "ladder-default"
    return d if d.is_dir() else None


def _rows(config, cells, results, names) -> list[dict]:
    def fam(c):
        rest = c.name.split("-", 1)[1] + "-"
        return max((n for n in names if rest.startswith(f"{n}-lr")), key=len)

    return [protocol.cell_row(config, c, r, {"rung": c.name.split("-")[0], "model": fam(c)},
                              {"val_bpc": ("val", "bpc"), "test_bpc": ("test", "bpc")}, "bpc")
            for c, r in zip(cells, results, strict=True)]  # fmt: skip


def _walk(config: Config, fetch, ref_fetch) -> dict:
    """Every cell in order: the references (the ladder's walk, adopted), then rung by rung
    each family's sweep (interleaved) and seeds at its best lr; family 4 is chosen after
    the first rung and run from there on."""
    from . import ladder

    ref_cells, ref_results, ref_best = ladder._walk(ladder_config(config), ref_fetch)
    mine = {ladder_cells.rung_shape(t)["name"] for t in config.targets}
    keep = [i for i, c in enumerate(ref_cells) if c.name.split("-")[0] in mine]
    cells, results = [ref_cells[i] for i in keep], [ref_results[i] for i in keep]
    unavailable = {f.name: why for f in FAMILIES if f.name in config.families
                   and (why := available(f)) is not None}  # fmt: skip
    fams = [f for f in FAMILIES if f.name in config.families and f.name not in unavailable]
    best, prior, choice = {}, {}, None
    for i, target in enumerate(sorted(config.targets)):
        best[target] = dict(ref_best[target])
        todo = list(fams)
        for rnd in range(2):  # the families, then (first rung) family 4 once chosen
            if not todo:
                break
            centre = best[target].get("kuramoto")
            lrs = {f.name: protocol.centred_lrs(config.lrs, prior.get(f.name, centre)) for f in todo}
            sw, got, _, b = protocol.sweep(
                config, todo, lambda f, lr, t=target: geometry_cell(config, t, f, lr, config.seeds[0]),
                fetch, lrs=lrs)  # fmt: skip
            more = protocol.at_best(todo, b, config.seeds[1:],
                                    lambda f, lr, s, t=target: geometry_cell(config, t, f, lr, s))
            cells += sw + more
            results += got + (fetch(more) if more else [])
            best[target] |= b
            todo = []
            if i == 0 and rnd == 0 and BEST in config.families:
                names = ["kuramoto", "softmax", *(f.name for f in fams)]
                choice = choose_best(_rows(config, cells, results, names),
                                     ladder_cells.rung_shape(target)["name"], best[target])
                bf = _best_family(choice)
                if bf is not None and (why := available(bf)) is None:
                    fams.append(bf)
                    todo = [bf]
                elif bf is not None:
                    unavailable[BEST] = why
        prior = {f: lr for f, lr in best[target].items() if lr is not None}
    return {"cells": cells, "results": results, "best": best, "choice": choice,
            "families": [KURAMOTO, SOFTMAX, *fams], "unavailable": unavailable}  # fmt: skip


# --------------------------------------------------------------------------- the report


def fraction_closed(k: dict[int, float], f: dict[int, float], s: dict[int, float], seeds,
                    confidence: float) -> dict:  # fmt: skip
    r"""The fraction of the Kuramoto gap family F closes, over the seeds $S$ all three of
    `k`, `f`, `s` (seed -> test BPC) hold: $f = (\bar g_K - \bar g_F)/\bar g_K$ with
    $\bar g_X = \operatorname{mean}_S(X_s - s_s)$; its interval is the paired t interval
    of $K_s - F_s$ divided by $\bar g_K$ (``None`` under two seeds, and $f$ ``None``
    when $\bar g_K \le 0$: no gap to close)."""
    from .. import stats

    common = [x for x in seeds if x in k and x in f and x in s
              and all(math.isfinite(v[x]) for v in (k, f, s))]  # fmt: skip
    if not common:
        return {"fraction": None, "ci": None, "n": 0, "kuramoto_gap": None}
    gk = sum(k[x] - s[x] for x in common) / len(common)
    gf = sum(f[x] - s[x] for x in common) / len(common)
    if not gk > 0:
        return {"fraction": None, "ci": None, "n": len(common), "kuramoto_gap": gk}
    ci = stats.t_interval([k[x] - f[x] for x in common], confidence)
    return {"fraction": (gk - gf) / gk, "ci": None if ci is None else [ci[0] / gk, ci[1] / gk],
            "n": len(common), "kuramoto_gap": gk}  # fmt: skip


def compare(config, test: dict[str, dict[int, float]], name: str, seeds) -> dict:
    """Family `name`'s comparisons at one rung from ``test[family][seed]`` (test BPC):
    ``gap`` (paired, F - softmax), ``kuramoto_gap`` (paired, Kuramoto - softmax),
    ``vs_kuramoto`` (paired, F - Kuramoto) and
    ``closed`` ([`fraction_closed`][syncattn.experiments.geometry.fraction_closed])."""
    f, k, s = test.get(name, {}), test.get("kuramoto", {}), test.get("softmax", {})
    return {"gap": protocol.paired(f, s, seeds, config.confidence),
            "kuramoto_gap": protocol.paired(k, s, seeds, config.confidence),
            "vs_kuramoto": protocol.paired(f, k, seeds, config.confidence),
            "closed": fraction_closed(k, f, s, seeds, config.confidence)}  # fmt: skip


def verdict(name: str, per_rung: Sequence[tuple[str, dict]]) -> str:
    """A family's verdict in words, rung by rung: *inconclusive* when the Kuramoto gap's own
    interval reaches 0 (nothing resolved to close); else *beats* / *not distinguishable
    from softmax* when the family's gap interval lies below / holds 0; else *closes X %
    of the Kuramoto gap* when the interval of F - Kuramoto lies below 0, *widens it* when
    above, *no detectable change* when it holds 0; *not measured* without two paired seeds."""
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
            parts.append(head + ", inconclusive: the Kuramoto gap itself is not resolved here")
        elif lo <= 0:
            parts.append(head + (", beats softmax" if hi < 0 else ", not distinguishable from softmax"))
        elif v.get("ci") and v["ci"][1] < 0:
            parts.append(head + f", closes {100 * fr:.0f} % of the Kuramoto gap" if fr is not None
                         else head + ", better than Kuramoto")  # fmt: skip
        elif v.get("ci") and v["ci"][0] > 0:
            parts.append(head + f", widens the Kuramoto gap by {v['mean']:+.3f}")
        else:
            parts.append(head + f", no detectable change from Kuramoto ({v['mean']:+.3f})")
    return "; ".join(parts) or "not measured"


def aggregate(config: Config, walk: dict) -> dict:
    """Per cell its scores; per rung and family its shape, lr sweep, best lr, test/val BPC
    and comparisons ([`compare`][syncattn.experiments.geometry.compare]); family 4's
    choice; a verdict per family."""
    fams = walk["families"]
    names = [f.name for f in fams]
    rows = _rows(config, walk["cells"], walk["results"], names)
    rungs, per_family = [], {n: [] for n in names}
    for target in sorted(config.targets):
        rname = ladder_cells.rung_shape(target)["name"]
        mine = [w for w in rows if w["rung"] == rname]
        best = walk["best"][target]
        seeds = config.seeds
        test = {n: {w["seed"]: w["test_bpc"] for w in mine if w["model"] == n and w["lr"] == best.get(n)}
                for n in names}  # fmt: skip
        entry = {"target": target, "name": rname, "best_lr": {n: best.get(n) for n in names},
                 **ladder_cells.rung_budget(config, ladder_cells.rung_shape(target)["params"]["kuramoto"]),
                 "families": {}}  # fmt: skip
        for f in fams:
            sweep = protocol.lr_sweep(mine, "val_bpc", lambda w, n=f.name: w["model"] == n
                                      and w["seed"] == config.seeds[0])  # fmt: skip
            vals = [test[f.name][s] for s in seeds if s in test[f.name]]
            c = compare(config, test, f.name, seeds)
            entry["families"][f.name] = {
                "number": NUMBER[f.name], "dim": DIM[f.name], "attention": f.attention,
                "model": [list(kv) for kv in f.model],
                "shape": family_shape(target, f, config.match_tol), "sweep": sweep,
                "lr_at_edge": protocol.at_edge(best.get(f.name), sweep),
                "test": describe_values(vals), **c,
                "compute": protocol.compute([w for w in mine if w["model"] == f.name]),
            }  # fmt: skip
            if f.name != "softmax":
                per_family[f.name].append((rname, c))
        rungs.append(entry)
    choice = walk["choice"]
    verdicts = {n: verdict(n, per_family[n]) for n in names if n != "softmax"}
    for n, why in walk["unavailable"].items():
        verdicts[n] = f"not run: {why}"
    if BEST in config.families and choice is not None and choice["same_as"] is not None:
        verdicts[BEST] = (f"not trained: the rule keeps {' + '.join(choice['components']) or 'nothing'}"
                          f", so family 4 is {choice['same_as']} (see its verdict)")  # fmt: skip
    return {"rungs": rungs, "choice": choice, "verdicts": verdicts,
            "unavailable": walk["unavailable"], "rows": rows, **protocol.record(rows),
            "compute": protocol.compute(rows), "corpus": protocol.corpus(walk["results"])}  # fmt: skip


def _or(v):
    return "" if v is None else v


def _write(config, out: Path, walk: dict, rebuilt_from=None) -> dict[str, Path]:
    agg = aggregate(config, walk)
    payload = {"experiment": NAME, **agg, "rebuilt_from": rebuilt_from,
               "ladder": None if ladder_dir(config) is None else str(ladder_dir(config))}  # fmt: skip
    out = Path(out)
    files = {"results": write_json(out / "results.json", payload)}
    rows = agg["rows"]
    files["csv"] = write_csv(out / "cells.csv", {
        k: [("" if w[k] is None else w[k]) for w in rows] for k in rows[0]})  # fmt: skip
    rr = [(e, n, g) for e in agg["rungs"] for n, g in e["families"].items()]
    files["gaps"] = write_csv(out / "gaps.csv", {
        "rung": [e["name"] for e, _, _ in rr], "family": [n for _, n, _ in rr],
        "number": [g["number"] for *_, g in rr], "dim": [g["dim"] for *_, g in rr],
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
        "vs_kuramoto_mean": [_or(g["vs_kuramoto"]["mean"]) for *_, g in rr],
        "fraction_closed": [_or(g["closed"]["fraction"]) for *_, g in rr],
    })  # fmt: skip
    files["png"] = plot(agg, out / f"{NAME}.png")
    return files


def plot(agg: dict, path):
    """The paired test-BPC gap to softmax (mean, t interval) of every family at every
    rung against the state dimension $n$ ([`DIM`][syncattn.experiments.geometry.DIM];
    the torus families at $n = 2$, spread a little), one marker per rung, the Kuramoto
    gap as a dashed line per rung."""
    from ._common import new_figure, save_figure

    fig, (ax,) = new_figure(1, 1, width=6.0)
    markers = "osD^v"
    names = [n for n in agg["rungs"][0]["families"] if n != "softmax"] if agg["rungs"] else []
    torus = [n for n in names if DIM[n] == 2]
    for j, e in enumerate(agg["rungs"]):
        k = e["families"].get("kuramoto", {}).get("gap", {}).get("mean")
        if k is not None:
            ax.axhline(k, color="grey", ls="--", lw=0.8)
        for i, n in enumerate(names):
            g = e["families"][n]["gap"]
            if g["mean"] is None:
                continue
            x = DIM[n] + (0.08 * (torus.index(n) - (len(torus) - 1) / 2) if n in torus else 0.0)
            ci = g.get("ci") or (g["mean"], g["mean"])
            ax.errorbar([x], [g["mean"]], yerr=[[g["mean"] - ci[0]], [ci[1] - g["mean"]]],
                        fmt=markers[j % len(markers)], color=f"C{i}", capsize=3,
                        label=f"{n} ({e['name']})")  # fmt: skip
    ax.axhline(0, color="k", lw=0.8)
    if names:
        ax.set_xticks(sorted({DIM[n] for n in names}))
    ax.set_xlabel("state dimension n (torus: 2, S^(n-1): n, SO(3): 3, U(2): 4)")
    ax.set_ylabel("test BPC gap to softmax (paired, t interval)")
    corpus = (agg.get("corpus") or {}).get("name", "?")
    ax.set_title(f"geometry on {corpus}: dashed = Kuramoto's gap per rung", fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6, ncol=2)
    return save_figure(fig, path)


# --------------------------------------------------------------------------- run, rebuild


def _ref_fetch(config, fetch, runs: Path):
    from ._protocol._committed import _adopt

    src = ladder_dir(config)

    def got(cells):
        _adopt(cells, src, runs)  # the ladder's committed cells, copied in as finished
        return fetch(cells)

    return got


def run(config: Config, out, *, grid: Grid | None = None, progress: bool = True,
        size: str | None = None) -> dict[str, Path]:
    """Train the experiment (resuming; the reference cells adopted from the ladder's
    committed folder, any cell from this experiment's), write config.json, results.json,
    cells.csv, gaps.csv and geometry.png; return the files written."""
    from .ladder import ladder_cell

    def body(fetch, out, grid, dst):
        return _write(config, out, _walk(config, fetch, _ref_fetch(config, fetch, out / "runs")))

    return protocol.run(config, out, NAME, ladder_cell, body, grid=grid, progress=progress,
                        size=size)  # fmt: skip


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The tables and the plot rebuilt into `out` from `src` alone (``config.json`` and
    ``runs/CELL/result.json``; cells not there are reported missing).

    Raises:
        FileNotFoundError: `src` has no ``config.json`` of this experiment.
    """
    import sys

    def body(config, fetch, src, out):
        return _write(config, out, _walk(config, fetch, fetch), rebuilt_from=str(src))

    return protocol.rebuild(sys.modules[__name__], src, out, body)


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
            gap = "" if n == "softmax" else f", gap {fmt_mean_std(g['gap'], 3)}" + (
                f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "")  # fmt: skip
            fr = g["closed"]["fraction"]
            closed = "" if fr is None or n in ("softmax", "kuramoto") else f", closes {100 * fr:.0f} %"
            lines.append(f"    {n:<20} N={s['params']:,} ({100 * s['mismatch']:+.1f} %), state "
                         f"{s['state_size']}/token, lr {e['best_lr'][n]}, test "
                         f"{fmt_mean_std(g['test'])} (n={g['test']['n']}){gap}{closed}")  # fmt: skip
    if results.get("choice"):
        c = results["choice"]
        lines.append(f"  family 4 keeps {' + '.join(c['components']) or 'nothing'}"
                     + (f" (= {c['same_as']})" if c["same_as"] else ""))  # fmt: skip
    lines += [f"  {n}: {v}" for n, v in results["verdicts"].items()]
    return "\n".join(lines + record_lines(results, "val BPC"))
