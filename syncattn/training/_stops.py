"""How a training run stops before its last step: a non-finite loss
([`TrainingDiverged`][syncattn.training.TrainingDiverged]) or SIGINT / SIGTERM
([`TrainingInterrupted`][syncattn.training.TrainingInterrupted], after a checkpoint),
as [`syncattn.training.fit`][] raises them."""

from __future__ import annotations

import contextlib
import signal
import threading
from pathlib import Path
from typing import Any

from ._checkpoint import list_checkpoints


__all__ = ["TrainingDiverged", "TrainingInterrupted", "stop_on_signals"]


class TrainingDiverged(RuntimeError):
    """The loss or gradient became NaN or infinite; the last good checkpoint is kept
    (command-line exit status 3)."""

    exit_code = 3


class TrainingInterrupted(RuntimeError):
    """SIGINT or SIGTERM stopped training after a step and a checkpoint.

    Attributes:
        signum: the signal; ``exit_code`` is ``128 + signum`` (130 for SIGINT, 143
            for SIGTERM), the shell's convention.
        step: the step saved.
    """

    def __init__(self, message: str, signum: int, step: int):
        super().__init__(message)
        self.signum = signum
        self.step = step
        self.exit_code = 128 + int(signum)


@contextlib.contextmanager
def stop_on_signals(enabled: bool):
    """While active, SIGINT / SIGTERM set ``state["signum"]`` instead of acting; a
    second one acts at once (the previous handler is put back by the first)."""
    state: dict[str, Any] = {"signum": None}
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield state
        return
    previous = {}

    def handler(signum, frame):
        state["signum"] = signum
        signal.signal(signum, previous[signum])

    for sig in (signal.SIGINT, signal.SIGTERM):
        old = signal.getsignal(sig)
        previous[sig] = signal.SIG_DFL if old is None else old
        signal.signal(sig, handler)
    try:
        yield state
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def diverged(ckpt_dir: Path, step: int, loss, grad_norm, lr) -> TrainingDiverged:
    """The error of a non-finite `loss` or `grad_norm` at `step` (learning rate `lr`),
    naming the last good checkpoint in `ckpt_dir`."""
    good = [p.name for _, p in list_checkpoints(ckpt_dir)]
    where = good[0] if good else "none (no checkpoint was saved yet)"
    return TrainingDiverged(
        f"non-finite loss or gradient at step {step} (loss={loss}, grad_norm={grad_norm}); "
        f"training stopped. The last good checkpoint is {where} in {ckpt_dir}. Lower lr "
        f"(now {lr}), raise warmup_steps or set clip_norm, and train into a new "
        "--out folder."
    )


def interrupted(
    signum: int, step: int, steps: int, loss: float, ckpt_dir: Path
) -> TrainingInterrupted:
    """The error of signal `signum` after `step` of `steps`, saved in `ckpt_dir`."""
    return TrainingInterrupted(
        f"stopped by {signal.Signals(signum).name} after step {step} of "
        f"{steps} (train loss {loss:.4f}); checkpoint step_{step:08d} is "
        f"saved in {ckpt_dir}. Run the same command to resume from it.",
        signum,
        step,
    )
