"""What [`syncattn.training.fit`][] shows of its progress: the throughput of its steps
(logged as ``tokens_per_s``) and the tqdm bar."""

from __future__ import annotations

import dataclasses
import sys
import time


__all__ = ["Throughput", "progress_bar", "show"]


@dataclasses.dataclass
class Throughput:
    """Tokens per second in the steps themselves (batch, update, loss to host): not in
    evaluations or saves, and not the first step of a session (compilation)."""

    tokens_per_step: int | None
    seconds: float = 0.0
    steps: int = 0
    first: bool = True
    value: float | None = None

    def add(self, t0: float) -> None:
        """Count the step begun at ``time.perf_counter()`` = `t0`."""
        if self.first:
            self.first = False
        elif self.tokens_per_step:
            self.seconds += time.perf_counter() - t0
            self.steps += 1
            self.value = self.tokens_per_step * self.steps / self.seconds

    def restart(self) -> None:
        """Count again from here (after a logged value); `value` stays."""
        self.seconds, self.steps = 0.0, 0


def progress_bar(total: int, initial: int, enabled: bool, desc: str):
    """A tqdm bar on stderr, or ``None`` when not `enabled`."""
    if not enabled:
        return None
    from tqdm.auto import tqdm  # imported only with a progress bar (slow to import)

    return tqdm(
        total=total, initial=initial, desc=desc, dynamic_ncols=True, file=sys.stderr
    )


def show(bar, task, loss: float, tps: float | None, last_eval: dict | None) -> None:
    """One step more on `bar` (if any), with the loss, the `task`'s training metrics,
    the throughput `tps` and the last evaluation's first metric."""
    if bar is None:
        return
    post = {"loss": f"{loss:.4f}"}
    post.update({k: f"{v:.3f}" for k, v in task.train_metrics(loss).items()})
    if tps:
        post["tok/s"] = f"{tps:,.0f}"
    if last_eval is not None:
        m = task.metrics[0]
        post[f"val_{m}"] = f"{last_eval[m]:.3f}"
    bar.set_postfix(post, refresh=False)
    bar.update(1)
