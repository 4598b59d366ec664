"""Write the pins of tests/models/test_checkpoint_pins.py: for every model family, the
parameter names (in the order of the flattened tree) and the float64 logits of a model
built from a fixed key on fixed tokens.

Run once on the code being pinned (main 1cb8d03.. c2fdd36, before the geometry
refactor of issue 41), from the repository root:

    python tests/models/data/pins/make_pins.py

A family added later is pinned alone, leaving the others' pins as they are:

    python tests/models/data/pins/make_pins.py stiefel
"""

import json
from pathlib import Path

import jax


jax.config.update("jax_enable_x64", True)

import equinox as eqx  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from syncattn import models  # noqa: E402


HERE = Path(__file__).resolve().parent

# one tiny model per attention family and per geometry-dependent option
CASES = {
    "softmax": dict(attention="softmax"),
    "oscillator": dict(attention="oscillator"),
    "kuramoto": dict(attention="kuramoto"),
    "kuramoto-lift": dict(attention="kuramoto", ffn="lift", **{"sync.readout": "lift_linear"}),
    "sphere": dict(attention="sphere"),
    "sphere-full-vonmises": dict(attention="sphere", **{"sync.sphere_dim": 3, "sync.drift": "full",
                                                       "sync.readout": "vonmises"}),
    "so3": dict(attention="group"),
    "so4-learned": dict(attention="group", **{"sync.group": "so4", "sync.value": "learned"}),
    "u2": dict(attention="group", **{"sync.group": "u2"}),
    "u2-full": dict(attention="group", **{"sync.group": "u2", "sync.drift": "full"}),
    "stiefel": dict(attention="stiefel"),  # added after the refactor (issue 41 §2)
    "frustrated": dict(attention="frustrated", **{"sync.harmonics": 2}),
    "frustrated-mf": dict(attention="frustrated-mf"),
}
TOKENS = jnp.array([3, 141, 59, 26, 5, 35, 89, 79, 32, 38, 46, 26])


def build(case):
    cfg = models.get_config("tiny", **models.parse_overrides(CASES[case]))
    model = models.build(cfg, key=jax.random.key(7))
    return models.cast(model, jnp.float64)


def names(model):
    leaves = jax.tree_util.tree_flatten_with_path(eqx.filter(model, eqx.is_array))[0]
    return [jax.tree_util.keystr(p) for p, _ in leaves]


@eqx.filter_jit
def _forward(model, tokens):
    return model(tokens)


def logits(model):
    """The float64 logits on `TOKENS` (jit-compiled: 3x faster than eager; the pins
    agree with the eager forward to 1e-15)."""
    return np.asarray(_forward(model, TOKENS))


if __name__ == "__main__":
    import sys

    only = sys.argv[1:]
    out, meta = {}, {}
    if only:  # keep the other pins
        out = dict(np.load(HERE / "logits.npz"))
        meta = json.loads((HERE / "names.json").read_text())
    for case in only or CASES:
        m = build(case)
        out[case] = logits(m)
        meta[case] = names(m)
    np.savez_compressed(HERE / "logits.npz", **out)
    (HERE / "names.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {len(out)} cases")
