"""The published numbers the experiments compare with (shared: an experiment reads
another's paper here, never from that experiment's module)."""

from __future__ import annotations


TABLE = {
    "source": "arXiv 2606.11585 (seed 000); ../shared/EXPERIMENTS.md, section A",
    "corpus": "enwik8",
    "1m": {"kuramoto": {"mean": 1.637, "std": 0.010}, "softmax": {"mean": 1.616, "std": 0.004}},
    "5m": {
        "kuramoto": {"mean": 1.468, "median": 1.448, "n": 5},
        "softmax": {"mean": 1.456, "median": 1.452, "n": 5},
    },
}
"""Seed 000's table: validation BPC of the Kuramoto LM and the transformer at 1 M and 5 M."""

ABLATIONS = {
    "source": "seed 000 (../shared/EXPERIMENTS.md, section A); enwik8, size not stated",
    "delta_bpc": {"learned-value": 0.25, "no-ffn": 0.27, "no-gates": 0.09},
}
"""Seed 000's ablations: BPC increase of each variant of the Kuramoto LM."""
