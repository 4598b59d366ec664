r"""The arithmetic of a ``--minutes`` plan (`syncattn.training._budget`'s docstring):
the seconds $t(S)$ of a run of $S$ steps, the largest $S$ that fits, the
compute-matched size $N^\ast$ and the ladder's learning rate at a size."""

from __future__ import annotations

import dataclasses
import math
from typing import Any


__all__ = [
    "EVALS",
    "LADDER_LRS",
    "TOKENS_PER_PARAM",
    "StepCosts",
    "auto_lr",
    "next_size",
    "plan_steps",
    "planned_seconds",
]

TOKENS_PER_PARAM = 20.0
"""$\\kappa$ of the compute-matched rule $D = \\kappa N$ (the ladder's)."""
EVALS = 10

LADDER_LRS = (
    (50_000, {"kuramoto": 3e-2, "softmax": 3e-2}),
    (100_000, {"kuramoto": 3e-2, "softmax": 1e-2}),
    (150_000, {"kuramoto": 1e-2, "softmax": 1e-2}),
    (200_000, {"kuramoto": 1e-2, "softmax": 1e-2}),
)
"""The ladder's best lr per rung target and model (issue 20's CPU protocol, committed in
``results/experiments/ladder/ladder-default/results.json``)."""


@dataclasses.dataclass(frozen=True)
class StepCosts:
    """What a warm-up measured: seconds of compilation $c$, of one step $\\tau$, of one
    evaluation $t_e$ and one checkpoint $t_c$; the model's parameters and tokens per step.
    ``tokens_per_s`` = tokens per step / $\\tau$."""

    params: int
    tokens_per_step: int
    compile_s: float
    step_s: float
    eval_s: float = 0.0
    ckpt_s: float = 0.0

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_s


def planned_seconds(
    steps: int, costs: StepCosts, *, eval_every: int, ckpt_every: int
) -> float:
    r"""$t(S) = c + S\tau + \lceil S/E\rceil\, t_e + \lceil S/C\rceil\, t_c$ (the loop
    evaluates and saves every $E$, $C$ steps and at the last)."""
    return (
        costs.compile_s
        + steps * costs.step_s
        + math.ceil(steps / eval_every) * costs.eval_s
        + math.ceil(steps / ckpt_every) * costs.ckpt_s
    )


def plan_steps(
    seconds: int | float,
    costs: StepCosts,
    *,
    evals: int = EVALS,
    eval_every: int | None = None,
    ckpt_every: int | None = None,
) -> dict[str, Any]:
    r"""The largest $S$ with $t(S) \le$ `seconds` ([`planned_seconds`][syncattn.training.planned_seconds]).

    Without `eval_every`, $S$ is a multiple of `evals` and $E = S/$`evals`; without
    `ckpt_every`, $C = 2E$.

    Returns:
        ``{"steps", "eval_every", "ckpt_every", "planned_s"}``.

    Raises:
        ValueError: not even the smallest run fits in `seconds` (the message says how
            long it would take).
    """
    unit = evals if eval_every is None else 1

    def settings(k):
        E = eval_every or k
        return {"steps": k * unit, "eval_every": E, "ckpt_every": ckpt_every or 2 * E}

    def t(k):
        s = settings(k)
        return planned_seconds(
            s["steps"], costs, eval_every=s["eval_every"], ckpt_every=s["ckpt_every"]
        )

    if t(1) > seconds:
        raise ValueError(
            f"the time budget is too short: the shortest run ({unit} steps; compiling "
            f"{costs.compile_s:.0f} s, a step {costs.step_s:.3g} s, an evaluation "
            f"{costs.eval_s:.3g} s) takes {t(1):.0f} s and {max(seconds, 0.0):.0f} s remain."
        )
    lo, hi = 1, 2
    while t(hi) <= seconds:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # t(lo) <= seconds < t(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if t(mid) <= seconds else (lo, mid)
    return settings(lo) | {"planned_s": t(lo)}


def auto_lr(attention: str, params: int | float) -> float:
    r"""The peak lr of ``--config auto``: the ladder's best (``LADDER_LRS``) at the rung
    whose target $N_r$ minimises $|\ln(N/N_r)|$ for $N$ = `params`; $10^{-2}$ for an
    attention the ladder did not train."""
    _, best = min(LADDER_LRS, key=lambda r: abs(math.log(params / r[0])))
    return best.get(attention, 1e-2)


def next_size(
    params: int | float,
    tokens_per_s: int | float,
    seconds: int | float,
    tokens_per_param: int | float = TOKENS_PER_PARAM,
) -> float:
    r"""$N^\ast = \sqrt{N\, r\, T' / \kappa}$: the size that trains on $\kappa N^\ast$
    tokens in $T'$ = `seconds` when the tokens/s $r$ measured at $N$ = `params` scales
    as $1/N$."""
    return math.sqrt(params * tokens_per_s * max(seconds, 0.0) / tokens_per_param)
