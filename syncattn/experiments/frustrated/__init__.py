r"""Issue 40, section 2: frustrated synchronisation attention against softmax and Kuramoto,
the pre-registered comparison (docs/experiments.md, "Frustrated synchronisation attention
(issue 40): pre-registration"), run exactly as registered.

**Families** ([`FAMILIES`][syncattn.experiments.frustrated.FAMILIES]): ``softmax``
(RoPE + SwiGLU), ``kuramoto`` (seed 000's model), ``frustrated`` and ``frustrated-mf``
(at their presets: $M = 1$, the delayed stream on), each the model of
``models.config_for_params(target, attention)`` at the rungs 50 k, 150 k and 200 k
([`family_shape`][syncattn.experiments.frustrated.family_shape], beside the
pre-registered table [`PREREGISTERED`][syncattn.experiments.frustrated.PREREGISTERED]).
Every cell is trained here; none is adopted from another experiment.

**Per cell** (the ladder's protocol, [`syncattn.experiments._protocol`][]): $D = 20N$
tokens with $N$ the rung's Kuramoto count,
$S = e\lceil D/(eBT)\rceil$ steps of $B \times T = 16 \times 128$ (450, 1,230, 2,040),
AdamW, 5 % warm-up, cosine to 10 % of the peak, $e = 10$ evaluations, final validation
and test BPC on 40 batches; then the copy-depth split of the test losses
([`copy_depth_cell`][syncattn.experiments.frustrated.copy_depth_cell]).

**Learning rates and seeds.** At 50 k each family sweeps {1e-2, 3e-2, 1e-1} at seed 0;
at 150 k and 200 k its best lr of the rung below and that value's two neighbours on the
half-decade grid; no extension; the best is the lowest final validation BPC, kept (and
reported) on an edge. At the best lr: seeds 0-4 at 150 k and 200 k, 0-2 at 50 k (seed
0's sweep cell reused). A family that diverges at an lr loses it; one that diverges at
every swept lr has failed at that rung. The longer-budget check: at 50 k, $100N$ tokens
(2,240 steps), seeds 0-2, each family at its 20 N best lr.

**Comparisons** ([`comparisons`][syncattn.experiments.frustrated.comparisons]): for H1
(frustrated − softmax), H2 (frustrated − Kuramoto), H3 (frustrated-mf − softmax), H4
(frustrated-mf − Kuramoto) at each rung and at $100N$, the paired test-BPC differences
$\Delta_s = \mathrm{BPC}_F(s) - \mathrm{BPC}_X(s)$: their mean, the two-sided 95 %
Student-t interval and the one-sided p of

$$t = \frac{\bar\Delta}{s_\Delta/\sqrt n},\qquad p = F_{t,\,n-1}(t)
  \quad (H_1: \mathbb E\Delta < 0);$$

and the copy-depth comparison at 200 k,
$(F - K)_{\text{depth} \ge 1} - (F - K)_{\text{depth} = 0} < 0$ paired by seed. Holm's
step-down adjustment runs over all 17 ([`decide`][syncattn.experiments.frustrated.decide]);
a hypothesis is supported only where Holm rejects its null; a comparison not measured
enters at $p = 1$.

**Controls** (issue 44, [`CONTROLS`][syncattn.experiments.frustrated.CONTROLS]): at the
rungs ``control_targets`` (50 k, 150 k), seeds 0-4, the frustrated model at its family's
shape and best lr with one part of its coupling removed or fixed (``c-only``, ``b-only``,
``successor``), and the Kuramoto model at its best lr on $D = 20\,r\,N$ tokens
(``kuramoto-time``), $r$ the frustrated-to-Kuramoto step-time ratio measured once per rung
before its first such cell and read back from ``timing.json`` ever after
([`_timing`][syncattn.experiments.frustrated._timing]); at 50 k also the frustrated
family's seeds 3 and 4. A1-A4 (frustrated − control, paired by seed) join the Holm family
(25 comparisons; H1-H4 are also decided over the registered 17).

**Running it in parts.** ``only_rungs``, ``only_phases`` (``sweep``, ``seeds``,
``long``, ``controls``), ``only_families`` and ``max_cells`` choose which cells a run
*trains*; every other cell is read where it exists (``OUT/runs``, or the committed folder with
``export=true``) and reported missing where it does not, so the report is always the
whole pre-registration with what is missing listed. A rung's sweep needs the sweep of the
rung below finished (its lrs depend on it).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .._grid import Grid
from .._protocol import Experiment, ProtocolConfig
from ._cells import (
    ALL_FAMILIES as ALL_FAMILIES,
    CONTROLS as CONTROLS,
    COPY_N as COPY_N,
    FAMILIES as FAMILIES,
    NAME as NAME,
    PREREGISTERED as PREREGISTERED,
    TimedCell as TimedCell,
    budget_tag as budget_tag,
    cell_budget as cell_budget,
    control_cell as control_cell,
    control_shape as control_shape,
    copy_depth_cell as copy_depth_cell,
    copy_depth_scores as copy_depth_scores,
    family as family,
    family_shape as family_shape,
    frustrated_cell as frustrated_cell,
    rung_name as rung_name,
    time_budget as time_budget,
)
from ._controls import extra_seeds as extra_seeds
from ._groups import copy_summary as copy_summary, paired_test as paired_test
from ._plot import plot as plot, plots
from ._report import (
    COPY as COPY,
    HYPOTHESES as HYPOTHESES,
    aggregate as aggregate,
    comparisons as comparisons,
    decide as decide,
    summary as summary,
    tables,
)
from ._walk import (
    PHASES as PHASES,
    chosen as chosen,
    long_seeds as long_seeds,
    planned as planned,
    rung_seeds as rung_seeds,
    sweep_lrs as sweep_lrs,
    sweep_state as sweep_state,
    walk as walk,
)


__all__ = [
    "Config",
    "EXPERIMENT",
    "run",
    "rebuild",
    "FAMILIES",
    "CONTROLS",
    "ALL_FAMILIES",
    "PREREGISTERED",
    "HYPOTHESES",
    "PHASES",
    "family_shape",
    "frustrated_cell",
    "control_cell",
    "control_shape",
    "time_budget",
    "TimedCell",
    "extra_seeds",
    "cell_budget",
    "copy_depth_cell",
    "copy_depth_scores",
    "rung_seeds",
    "long_seeds",
    "planned",
    "chosen",
    "sweep_lrs",
    "sweep_state",
    "walk",
    "comparisons",
    "paired_test",
    "decide",
    "aggregate",
    "summary",
    "plot",
]


@dataclasses.dataclass(frozen=True)
class Config(ProtocolConfig):
    """The pre-registered settings: the protocol's
    ([`ProtocolConfig`][syncattn.experiments._protocol.ProtocolConfig]) at lrs
    {1e-2, 3e-2, 1e-1}, no extension, seeds 0-4, and these.

    Attributes:
        targets: the rungs (target counts).
        first_seeds: the seeds (counting the sweep's) at the first rung; all of
            ``seeds`` above it.
        long_target: the rung of the longer-budget check (``None``: none).
        long_tokens_per_param: its $\\kappa$ (100: $D = 100N$).
        long_seeds: its seeds (the first of ``seeds``).
        copy_target: the rung of the copy-depth comparison (``None``: none).
        heldout_target: the rung of the held-out corpus check (descriptive, pre-registered
            2026-12-06: the best-lr cells' final checkpoints scored on the Jargon File;
            ``None``, or a target not among ``targets``: none).
        control_targets: the rungs of issue 44's controls (each one of ``targets``).
        time_ratio: the ``kuramoto-time`` budget's $r$ given explicitly (tests, smoke);
            ``None``: measured once per control rung and recorded in ``timing.json``.
        timing_rounds, timing_steps, timing_warmup: the measurement of $r$: rounds,
            steps per model in a round, warm-up steps per model.
        alpha: the family-wise level of Holm's procedure.
        only_rungs: train only the cells of these rungs (names: ``50k``; empty: all).
        only_phases: train only the cells of these phases (of ``sweep``, ``seeds``,
            ``long``, ``controls``).
        only_families: train only these families' cells (the controls' names too;
            empty: all).
        max_cells: train at most this many new cells (``None``: no limit).
    """

    targets: tuple[int, ...] = (50_000, 150_000, 200_000)
    lrs: tuple[float, ...] = (1e-2, 3e-2, 1e-1)
    extend: int = 0
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    first_seeds: int = 3
    long_target: int | None = 50_000
    long_tokens_per_param: float = 100.0
    long_seeds: int = 3
    copy_target: int | None = 200_000
    heldout_target: int | None = 200_000
    control_targets: tuple[int, ...] = (50_000, 150_000)
    time_ratio: float | None = None
    timing_rounds: int = 7
    timing_steps: int = 20
    timing_warmup: int = 5
    alpha: float = 0.05
    only_rungs: tuple[str, ...] = ()
    only_phases: tuple[str, ...] = PHASES
    only_families: tuple[str, ...] = ()
    max_cells: int | None = None

    def __post_init__(self):
        if self.extend != 0:
            raise ValueError(
                f"extend must be 0 (pre-registered: no extension); got {self.extend}."
            )
        if not self.targets or list(self.targets) != sorted(set(self.targets)):
            raise ValueError(
                f"targets must be increasing and non-empty; got {self.targets}."
            )
        for key in ("long_target", "copy_target"):
            if (
                getattr(self, key) is not None
                and getattr(self, key) not in self.targets
            ):
                raise ValueError(
                    f"{key} must be one of targets {self.targets} (or None); "
                    f"got {getattr(self, key)}."
                )
        for key in ("first_seeds", "long_seeds"):
            if not 1 <= getattr(self, key) <= len(self.seeds):
                raise ValueError(
                    f"{key} must lie in [1, len(seeds) = {len(self.seeds)}]; "
                    f"got {getattr(self, key)}."
                )
        if not self.long_tokens_per_param > 0 or not 0 < self.alpha < 1:
            raise ValueError("long_tokens_per_param must be > 0 and alpha in (0, 1).")
        self._check_controls()
        self._check_subset()
        super().__post_init__()

    def _check_controls(self) -> None:
        bad = [t for t in self.control_targets if t not in self.targets]
        if bad or len(set(self.control_targets)) != len(self.control_targets):
            raise ValueError(
                f"control_targets must be distinct rungs of targets {self.targets}; "
                f"got {self.control_targets}."
            )
        if self.time_ratio is not None and not self.time_ratio > 0:
            raise ValueError(
                f"time_ratio must be > 0 (or None); got {self.time_ratio}."
            )
        for key in ("timing_rounds", "timing_steps"):
            if getattr(self, key) < 1:
                raise ValueError(f"{key} must be >= 1; got {getattr(self, key)}.")
        if self.timing_warmup < 0:
            raise ValueError(f"timing_warmup must be >= 0; got {self.timing_warmup}.")

    def _check_subset(self) -> None:
        rungs = [rung_name(t) for t in self.targets]
        names = [f.name for f in ALL_FAMILIES]
        for key, allowed in (
            ("only_rungs", rungs),
            ("only_phases", PHASES),
            ("only_families", names),
        ):
            bad = [v for v in getattr(self, key) if v not in allowed]
            if bad:
                raise ValueError(f"{key}: unknown {bad}; choose among {list(allowed)}.")
        if self.max_cells is not None and self.max_cells < 0:
            raise ValueError(f"max_cells must be >= 0 (or None); got {self.max_cells}.")

    @classmethod
    def smoke(cls) -> Config:
        """Seconds of training per cell (about two minutes with compiling): one rung of
        12 k, one lr, seeds 0-1, 0.1 N tokens (0.5 N for the longer budget) of 4 x 32; the
        controls there, their $r$ measured on 3 rounds of 2 steps."""
        return cls(
            targets=(12_000,),
            lrs=(1e-2,),
            seeds=(0, 1),
            first_seeds=2,
            long_target=12_000,
            long_tokens_per_param=0.5,
            long_seeds=2,
            copy_target=12_000,
            heldout_target=None,
            control_targets=(12_000,),
            timing_rounds=3,
            timing_steps=2,
            timing_warmup=1,
            tokens_per_param=0.1,
            batch_size=4,
            seq_len=32,
            evals=2,
            eval_batches=2,
            final_batches=2,
            n_boot=50,
            committed=None,
        )

    @classmethod
    def default(cls) -> Config:
        """The pre-registration: 130 cells on the embedded corpus (36 sweep, 40 seeds, 12
        longer-budget, 42 controls)."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """The pre-registration (there is no larger size of this comparison)."""
        return cls()


EXPERIMENT = Experiment(
    NAME,
    Config,
    walk,
    tables,
    plots,
    copy_depth_cell,
    FAMILIES,
    summary,
)
"""The frustrated experiment as an [`Experiment`][syncattn.experiments._protocol.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train the chosen cells (resuming; committed cells adopted, new ones exported with
    ``export=true``), read the others; write config.json, results.json, cells.csv,
    comparisons.csv, report.md and frustrated.png; return the files written."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The report rebuilt into `out` from `src` alone (``config.json`` and
    ``runs/CELL/result.json``; cells not there reported missing).

    Raises:
        FileNotFoundError: `src` has no ``config.json`` of this experiment.
    """
    return EXPERIMENT.rebuild(src, out, progress=progress)
