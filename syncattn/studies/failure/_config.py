"""The ``failure`` study's configuration: sizes and checks."""

from __future__ import annotations

import dataclasses
import math

from .. import _common


NAME = "failure"


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the ``failure`` study."""

    seed: int = 0  # PRNG seed
    dims: tuple[int, ...] = (2, 3, 4, 8, 16, 32, 64)  # d_osc grid
    alphas: tuple[float, ...] = (
        math.pi / 6,
        math.pi / 4,
        math.pi / 3,
    )  # antipodal cap angles
    n_antipodal: int = 1_000_000  # Monte Carlo starts per d
    n_anchors: int = 16  # m anchors in the drive
    eps: float = 1.0  # degeneracy threshold on ||h||
    scale: float = 1.0  # std s of the Gaussian scores g_j
    n_degenerate: int = 400_000  # Monte Carlo drives per d
    min_expected: float = (
        1.0  # sample the degenerate drive only where n * p_exact >= this
    )
    chunk: int = 100_000  # samples per jitted chunk (n is rounded up to whole chunks)
    confidence: float = 0.95  # confidence level of the plotted intervals
    rel_eps: float = 0.5  # relative threshold: event ||h|| < rel_eps ||w||_2
    n_hull: int = 600  # anchor sets per d for the convex-hull Monte Carlo (one LP each)
    delta: float = 0.1  # finite-time panel: tolerance angle
    threshold_ratios: tuple[float, ...] = (
        0.5,
        0.8,
        1.0,
        1.25,
        2.0,
    )  # ||h||T / log cot(delta/2)
    n_threshold: int = 100_000  # uniform starts per d for the finite-time panel

    @classmethod
    def smoke(cls) -> Config:
        """Test size: a few seconds."""
        return cls(
            dims=(2, 5),
            n_antipodal=200_000,
            n_degenerate=50_000,
            chunk=50_000,
            n_hull=150,
            n_threshold=20_000,
        )

    @classmethod
    def full(cls) -> Config:
        """Publication size: 2e7 antipodal starts and 4e6 drives per d."""
        return cls(n_antipodal=20_000_000, n_degenerate=4_000_000, chunk=200_000)

    def __post_init__(self):
        if not self.dims or any(int(d) < 2 for d in self.dims):
            raise ValueError(f"dims must be non-empty ints >= 2; got {self.dims}.")
        if not self.alphas or any(not 0 < a <= math.pi / 2 for a in self.alphas):
            raise ValueError(f"alphas must lie in (0, pi/2]; got {self.alphas}.")
        if min(self.n_antipodal, self.n_degenerate, self.n_anchors, self.chunk) < 1:
            raise ValueError(
                "n_antipodal, n_degenerate, n_anchors and chunk must be >= 1."
            )
        if not 0 < self.rel_eps < 1:
            raise ValueError(f"rel_eps must lie in (0, 1); got {self.rel_eps}.")
        if not 0 < self.delta < math.pi / 2:
            raise ValueError(f"delta must lie in (0, pi/2); got {self.delta}.")
        if not self.threshold_ratios or min(self.threshold_ratios) <= 0:
            raise ValueError(
                f"threshold_ratios must be > 0; got {self.threshold_ratios}."
            )
        if min(self.n_hull, self.n_threshold) < 1:
            raise ValueError("n_hull and n_threshold must be >= 1.")
        if self.eps <= 0 or self.scale <= 0:
            raise ValueError(
                f"eps and scale must be > 0; got eps={self.eps}, scale={self.scale}."
            )
