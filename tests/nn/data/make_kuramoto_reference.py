"""Write kuramoto_reference.npz and the tiny Kuramoto LM checkpoint (issue 28, step 1).

Run ONCE, from the repository root, with the code from before the geometry refactor
(main at c403d65):

    python -m tests.nn.data.make_kuramoto_reference

The files pin `nn.KuramotoAttention`'s outputs, diagnostics and gradients (float64
and float32, plain and blocked paths, masks, every switch) and a perturbed tiny
`KuramotoLM`'s logits, so that tests/nn/test_geometry_refactor.py can hold the
refactored layer to them. Rerunning it on later code would overwrite the reference
with that code's numbers: do not, unless the torus layer is meant to change.
"""

from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


jax.config.update("jax_enable_x64", True)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
K, H, T = 6, 3, 9
CASES = {
    "default": dict(),
    "learned": dict(value="learned", tau=1.7, bound=0.8),
    "nogates": dict(gates=False),
    "gatenone": dict(gate_norm="none", tau=1.3),
    "bidir": dict(causal=False),
    "bidir_learned": dict(causal=False, value="learned"),
}
PAD = np.ones(T, bool)
PAD[2] = False
PAD[T - 2 :] = False


def layer(**kw):
    from syncattn import nn

    return nn.KuramotoAttention(K, H, key=jax.random.key(1), **kw)


def phases(seed, shape):
    return jax.random.uniform(jax.random.key(seed), shape, minval=-4.0, maxval=4.0)


def record(out, name, L, th, mask=None):
    kw = {} if mask is None else {"mask": jnp.asarray(mask)}
    y, aux = L(th, diagnostics=True, **kw)
    out[f"{name}/y64"] = np.asarray(y)
    for key, val in aux.items():
        out[f"{name}/aux/{key}"] = np.asarray(val)
    out[f"{name}/y32"] = np.asarray(eqx.filter_jit(lambda m, t: m(t, **kw))(L, th.astype(jnp.float32)))

    def loss(m, t):
        return jnp.sum(jnp.sin(m(t, **kw)) * jnp.arange(1.0, 1.0 + t.size).reshape(t.shape))

    gm, gx = eqx.filter_grad(lambda m, t: loss(m, t))(L, th), jax.grad(lambda t: loss(L, t))(th)
    out[f"{name}/grad_theta"] = np.asarray(gx)
    for i, leaf in enumerate(jax.tree.leaves(eqx.filter(gm, eqx.is_inexact_array))):
        out[f"{name}/grad_param/{i}"] = np.asarray(leaf)


def main():
    out = {}
    th = phases(0, (T, K))
    out["theta"] = np.asarray(th)
    out["pad"] = PAD
    for name, kw in CASES.items():
        L = layer(**kw)
        record(out, name, L, th)
        record(out, name + "_pad", L, th, PAD)
    # a long sequence: the blocked causal path on the CPU (T > 64), float32 and float64
    L = layer(tau=1.3)
    th_long = phases(2, (70, K))
    out["theta_long"] = np.asarray(th_long)
    out["long/y64"] = np.asarray(L(th_long))
    out["long/y32"] = np.asarray(eqx.filter_jit(L)(th_long.astype(jnp.float32)))
    np.savez_compressed(HERE / "kuramoto_reference.npz", **out)

    # the tiny LM checkpoint: the preset's parameters plus noise (so that a checkpoint
    # read into the wrong leaves would show), float32 as training keeps them
    from syncattn import models
    from syncattn.training import cast_floating, save_checkpoint

    model = models.build(models.get_config("tiny", attention="kuramoto"), key=jax.random.key(0))
    model = cast_floating(model, jnp.float32)
    params, static = eqx.partition(model, eqx.is_inexact_array)
    leaves, tdef = jax.tree.flatten(params)
    keys = jax.random.split(jax.random.key(7), len(leaves))
    leaves = [x + 0.1 * jax.random.normal(k, x.shape, x.dtype) for x, k in zip(leaves, keys)]
    model = eqx.combine(jax.tree.unflatten(tdef, leaves), static)
    ck = ROOT / "tests" / "models" / "data" / "kuramoto_tiny" / "checkpoints"
    save_checkpoint(ck, 1, {"model": model}, keep=1)
    tokens = jax.random.randint(jax.random.key(3), (20,), 0, 256, dtype=jnp.int32)
    np.savez_compressed(
        ck.parent / "logits.npz", tokens=np.asarray(tokens), logits=np.asarray(model(tokens))
    )


if __name__ == "__main__":
    main()
