r"""One protocol for every compute-matched experiment (issue 29, section 0).

The size ladder, the d_osc law and the experiments after them compare model *families*
under one rule, each family at its own learning rate:

1. **budget**: a cell of $N$ parameters trains on $D = \lceil\kappa N\rceil$ tokens,
   $S = e\,\lceil D / (e\,B\,T)\rceil$ steps of $B \times T$, with a warm-up over a
   fraction of $S$ and $e$ evaluations ([`budget`][syncattn.experiments._protocol.budget]);
2. **lr sweep**: each family's sweep at the first seed, extended one value of its
   geometric grid at a time past an edge while the best lies on it
   ([`sweep`][syncattn.experiments._protocol.sweep], ``next_lr``, ``best_lr``);
3. **seeds at the best lr** ([`at_best`][syncattn.experiments._protocol.at_best]);
4. **committed cells**: a finished cell's ``result.json`` and the evaluation rows of
   its log are exported into a checked-in folder; a cell found there with the same
   settings is adopted, not trained again
   ([`fetcher`][syncattn.experiments._protocol.fetcher]), and the tables rebuild from
   that folder alone ([`rebuild`][syncattn.experiments._protocol.rebuild]);
5. **provenance**: a cell trained here records the commit and package versions that made
   it ([`provenance`][syncattn.experiments._protocol.provenance]), and
   ``syncattn experiment NAME replicate=CELL`` re-runs one committed cell and reports the
   difference ([`replicate`][syncattn.experiments._protocol.replicate]);
6. **one cell result**, [`CellResult`][syncattn.experiments._protocol.CellResult], with
   its [`Status`][syncattn.experiments._protocol.Status] (as diffrax's ``Solution`` and
   its ``RESULTS``), its scores and its convergence record
   ([`converged`][syncattn.experiments._protocol.converged]).

An experiment is then one [`Experiment`][syncattn.experiments._protocol.Experiment]: a
``Config`` deriving from
[`ProtocolConfig`][syncattn.experiments._protocol.ProtocolConfig] (the shared fields),
a list of [`Family`][syncattn.experiments._protocol.Family], a cell function, a walk
(``sweep`` then ``at_best``, or the rungs' [`rung_walk`][syncattn.experiments._protocol.rung_walk]),
its tables and its plots; the object runs, rebuilds and adopts (docs/experiments.md,
"Adding an experiment"). The size ladder's rule, cells and corpus choice
(``_rungs``) live here, so that the experiments built on rungs import none of each other.
"""

from __future__ import annotations

from ._committed import (
    adopt as adopt,
    committed_dir as committed_dir,
    committed_fetch as committed_fetch,
    fetcher as fetcher,
    rebuild as rebuild,
    run as run,
)
from ._experiment import (
    Context as Context,
    Experiment as Experiment,
    walk_cells as walk_cells,
)
from ._provenance import (
    PACKAGES as PACKAGES,
    provenance as provenance,
    stamping as stamping,
)
from ._replicate import replicate as replicate
from ._result import CellResult as CellResult, Status as Status, converged as converged
from ._rungs import (
    REFERENCES as REFERENCES,
    corpus_choice as corpus_choice,
    family as family,
    family_of as family_of,
    rung_budget as rung_budget,
    rung_cell as rung_cell,
    rung_depth as rung_depth,
    rung_overrides as rung_overrides,
    rung_seeds as rung_seeds,
    rung_shape as rung_shape,
    rung_walk as rung_walk,
    scored_cell as scored_cell,
    shaped_cell as shaped_cell,
)
from ._sweep import (
    Family as Family,
    ProtocolConfig as ProtocolConfig,
    at_best as at_best,
    best_lr as best_lr,
    budget as budget,
    centred_lrs as centred_lrs,
    check_protocol as check_protocol,
    lr_grid as lr_grid,
    next_lr as next_lr,
    schedule as schedule,
    sweep as sweep,
)
from ._tables import (
    at_edge as at_edge,
    cell_row as cell_row,
    compute as compute,
    corpus as corpus,
    lr_sweep as lr_sweep,
    paired as paired,
    record as record,
    record_lines as record_lines,
)


__all__ = [
    "Status",
    "CellResult",
    "Family",
    "ProtocolConfig",
    "check_protocol",
    "budget",
    "schedule",
    "lr_grid",
    "centred_lrs",
    "next_lr",
    "best_lr",
    "sweep",
    "at_best",
    "converged",
    "committed_dir",
    "adopt",
    "fetcher",
    "committed_fetch",
    "run",
    "rebuild",
    "cell_row",
    "record",
    "record_lines",
    "compute",
    "corpus",
    "lr_sweep",
    "at_edge",
    "paired",
    "PACKAGES",
    "provenance",
    "stamping",
    "replicate",
    "Experiment",
    "Context",
    "REFERENCES",
    "corpus_choice",
    "family",
    "family_of",
    "rung_budget",
    "rung_cell",
    "rung_depth",
    "rung_overrides",
    "rung_seeds",
    "rung_shape",
    "rung_walk",
    "scored_cell",
    "walk_cells",
]
