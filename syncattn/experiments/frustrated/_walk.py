"""The frustrated experiment's walk: the pre-registered cells in order, a subset of them
trained (a rung, a phase, a family, at most so many cells), the others read."""

from __future__ import annotations

import json
from collections.abc import Callable

from .. import _protocol as protocol
from .._common import to_jsonable
from .._grid import RESULT
from .._protocol import CellResult, Status
from ._cells import (
    ALL_FAMILIES,
    FAMILIES,
    NAME,
    Entry,
    family,
    frustrated_cell,
    long_seeds,
    rung_name,
    rung_seeds,
)


PHASES = ("sweep", "seeds", "long", "controls")
"""The phases of the walk: each family's lr sweep at seed 0 (per rung), its best lr at
the rung's other seeds, the longer-budget check, and issue 44's controls."""


def planned(config) -> dict[str, int]:
    """The cells the protocol trains when no family fails: per phase and ``total``
    (default: 36 sweep, 40 seeds, 12 long, 42 controls, 130 in all)."""
    from ._controls import planned_controls

    k = len(FAMILIES)
    out = {
        "sweep": k * len(config.lrs) * len(config.targets),
        "seeds": k * sum(len(rung_seeds(config, t)) - 1 for t in config.targets),
        "long": k * len(long_seeds(config)) if config.long_target is not None else 0,
        "controls": planned_controls(config),
    }
    return out | {"total": sum(out.values())}


def chosen(config, phase: str, target: int, name: str) -> bool:
    """Whether a run trains the cells of `phase` at rung `target` of family `name`
    (``only_rungs``, ``only_phases``, ``only_families``; empty: every one)."""
    return (
        (not config.only_rungs or rung_name(target) in config.only_rungs)
        and phase in config.only_phases
        and (not config.only_families or name in config.only_families)
    )


def _plain(r) -> CellResult:
    """The result as its ``result.json`` reads back (NaN as ``None``, tuples as lists):
    a run's tables are then its rebuild's, byte for byte."""
    return CellResult.of(
        json.loads(json.dumps(to_jsonable(dict(CellResult.of(r).data))))
    )


class Fetch:
    """``fetch(phase, target)(cells) -> [CellResult]``: in a run, trains (or adopts) the
    cells `config` chooses ([`chosen`][syncattn.experiments.frustrated.chosen]; at most
    ``max_cells`` new ones in all) and reads the others from ``OUT/runs`` (after adopting
    committed ones; missing where absent); in a rebuild, reads them all. A tqdm bar counts
    the finished cells against the plan."""

    def __init__(self, config, ctx):
        from tqdm.auto import tqdm

        self.config, self.ctx, self.left = config, ctx, config.max_cells
        quiet = ctx.rebuilding or ctx.grid is None or not ctx.grid.progress
        self.bar = tqdm(
            total=planned(config)["total"],
            desc=f"{NAME}: cells finished",
            disable=quiet,
            dynamic_ncols=True,
        )

    def would_train(self, phase: str, target: int, name: str) -> bool:
        """Whether this fetch may train a new cell of family `name` in `phase` at
        `target` (a run, the cell chosen, ``max_cells`` not spent)."""
        return (
            not self.ctx.rebuilding
            and chosen(self.config, phase, target, name)
            and (self.left is None or self.left > 0)
        )

    def _train(self, cells, phase: str, target: int) -> list:
        ctx = self.ctx
        protocol.adopt(cells, ctx.committed, ctx.runs)
        out = []
        for c in cells:
            name = protocol.family_of(c, ALL_FAMILIES)
            if not chosen(self.config, phase, target, name):
                continue
            if not (ctx.runs / c.name / RESULT).is_file():
                if self.left is not None and self.left <= 0:
                    continue
                self.left = None if self.left is None else self.left - 1
            out.append(c)
        return out

    def __call__(self, phase: str, target: int) -> Callable:
        def fetch(cells):
            ctx = self.ctx
            if ctx.rebuilding:
                got = ctx.fetch(cells)
            else:
                train = self._train(cells, phase, target)
                done = dict(
                    zip(
                        (c.name for c in train),
                        ctx.fetch(train) if train else [],
                        strict=True,
                    )
                )
                read = protocol.committed_fetch(ctx.out)
                got = [done[c.name] if c.name in done else read([c])[0] for c in cells]
            got = [_plain(r) for r in got]
            self.bar.update(sum(r.status is not Status.MISSING for r in got))
            return got

        return fetch

    def close(self) -> None:
        self.bar.close()


def sweep_state(tried: dict) -> tuple[str, float | None]:
    """A family's sweep at a rung from ``{lr: result}``: ``("pending", None)`` while a
    cell is missing, ``("failed", None)`` when every lr diverged (the pre-registration:
    failed at that rung), else ``("ok", best lr)`` (lowest validation BPC,
    [`best_lr`][syncattn.experiments._protocol.best_lr])."""
    if any(CellResult.of(r).status is Status.MISSING for r in tried.values()):
        return "pending", None
    best = protocol.best_lr(tried)
    return ("failed", None) if best is None else ("ok", best)


def sweep_lrs(config, i: int, below: dict | None, best_below: dict | None, name: str):
    """The lrs of family `name` at the `i`-th rung: ``config.lrs`` at the first; above
    it the grid value that was its best at the rung below and its two neighbours on the
    half-decade grid ([`centred_lrs`][syncattn.experiments._protocol.centred_lrs], centre
    first); ``None`` while the rung below is undecided. A family failed at the rung
    below is swept at ``config.lrs`` again (the pre-registration does not say; flagged
    in the report as ``fallback``)."""
    if i == 0 or below[name] == "failed":
        return list(config.lrs)
    if below[name] != "ok":
        return None
    return protocol.centred_lrs(config.lrs, best_below[name])


def _rung(config, fetch: Fetch, target: int, lrs: dict, walked: dict) -> None:
    """One rung's sweep and seeds at the best lr, appended to `walked` in place."""
    r, seed0 = rung_name(target), config.seeds[0]
    fams = [f for f in FAMILIES if f.name in lrs]
    cells, results, tried, _ = protocol.sweep(
        config,
        fams,
        lambda f, lr: frustrated_cell(config, target, f, lr, seed0),
        fetch("sweep", target),
        lrs=lrs,
    )
    walked["entries"] += [
        Entry("sweep", target, protocol.family_of(c, FAMILIES), c, x)
        for c, x in zip(cells, results, strict=True)
    ]
    for f in fams:
        walked["state"][r][f.name], walked["best"][r][f.name] = sweep_state(
            tried[f.name]
        )
    ok = [f for f in fams if walked["state"][r][f.name] == "ok"]
    more = protocol.at_best(
        ok,
        walked["best"][r],
        rung_seeds(config, target)[1:],
        lambda f, lr, s: frustrated_cell(config, target, f, lr, s),
    )
    got = fetch("seeds", target)(more) if more else []
    walked["entries"] += [
        Entry("seeds", target, protocol.family_of(c, FAMILIES), c, x)
        for c, x in zip(more, got, strict=True)
    ]


def walk(config, ctx) -> dict:
    """Every cell of the pre-registration in order: rung by rung each family's sweep
    (families interleaved lr by lr, no extension) and its best lr at the rung's other
    seeds; then the longer-budget check at ``long_target`` (each family at its 20 N best
    lr there, seeds ``long_seeds``); then the controls at ``control_targets``
    ([`walk_controls`][syncattn.experiments.frustrated._controls.walk_controls]). A
    rung's sweep of a family waits for its sweep at the rung below (``"waiting"``: not
    planned yet).

    Returns:
        ``{"entries": [Entry], "state": {rung: {family: "ok" | "failed" | "pending" |
        "waiting"}}, "best": {rung: {family: lr or None}}, "lrs": {rung: {family: [lr]}},
        "fallback": {rung: [family]}, "controls": {rung: {"time_ratio", "time_source",
        "waiting"}}, "timing": {rung: record}}``.
    """
    from ._controls import walk_controls

    fetch = Fetch(config, ctx)
    walked = {"entries": [], "state": {}, "best": {}, "lrs": {}, "fallback": {}}
    targets = sorted(config.targets)
    for i, target in enumerate(targets):
        r = rung_name(target)
        prev = rung_name(targets[i - 1]) if i else None
        below = walked["state"].get(prev)
        walked["state"][r], walked["best"][r], lrs = {}, {}, {}
        for f in FAMILIES:
            got = sweep_lrs(config, i, below, walked["best"].get(prev), f.name)
            if got is None:
                walked["state"][r][f.name], walked["best"][r][f.name] = "waiting", None
            else:
                lrs[f.name] = got
        walked["lrs"][r] = lrs
        walked["fallback"][r] = [n for n in lrs if i and below[n] == "failed"]
        if lrs:
            _rung(config, fetch, target, lrs, walked)
    if config.long_target is not None:
        t = config.long_target
        best = walked["best"][rung_name(t)]
        cells = [
            frustrated_cell(config, t, family(n), best[n], s, long=True)
            for s in long_seeds(config)
            for n in best
            if best[n] is not None
        ]
        got = fetch("long", t)(cells) if cells else []
        walked["entries"] += [
            Entry("long", t, protocol.family_of(c, FAMILIES), c, x)
            for c, x in zip(cells, got, strict=True)
        ]
    walk_controls(config, ctx, fetch, walked)
    fetch.close()
    return walked
