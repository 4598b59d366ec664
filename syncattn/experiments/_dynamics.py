r"""The dynamics of a trained Kuramoto LM: per-layer order and frequencies, per-block
gradient norms, the verdicts on seed 000's three claims.

Shared by the dynamics experiment and the ladder's item 3 (neither imports the other).
"""

from __future__ import annotations

import numpy as np


def layer_statistics(model, tokens) -> dict[str, np.ndarray]:
    """Per-layer means of the diagnostics of a Kuramoto LM on a batch of windows.

    Args:
        model: a [`syncattn.models.KuramotoLM`][].
        tokens: ``(B, T)`` integer ids.

    Returns:
        ``{"local_order", "global_order", "omega_abs", "omega_abs_median"}``, each
        ``(n_layers,)`` float64: the means over windows, positions and coordinates
        defined in `syncattn.experiments.dynamics`' docstring.
    """
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    @eqx.filter_jit
    def stats(m, x):
        def one(t):
            _, layers = m(t, diagnostics=True)
            return (
                jnp.stack([jnp.mean(a["local_order"]) for a in layers]),
                jnp.stack([jnp.mean(a["global_order"]) for a in layers]),
            )

        loc, glob = jax.vmap(one)(x)
        return loc.mean(0), glob.mean(0)

    loc, glob = stats(model, jnp.asarray(tokens, jnp.int32))
    omega = np.stack(
        [np.abs(np.asarray(a.omega, np.float64)) for a in model.attentions]
    )
    return {
        "local_order": np.asarray(loc, np.float64),
        "global_order": np.asarray(glob, np.float64),
        "omega_abs": omega.mean(1),
        "omega_abs_median": np.median(omega, 1),
    }


def block_grad_norms(model, tokens) -> dict[str, float]:
    r"""The gradient norm of the next-token loss per block of a Kuramoto LM,

    $$\big\|\nabla_{\psi_b}\mathcal L(\psi)\big\|_2,\qquad
      \mathcal L = \mathcal L_{\text{next token}}(x),$$

    with $\mathcal L$ the mean next-token cross-entropy
    ([`next_token_loss`][syncattn.training.next_token_loss]), for the blocks $b$: ``embedding``, ``attention.l`` and ``ffn.l`` per layer $l$
    (1-based), ``readout``; on windows ``tokens`` ``(B, T + 1)`` (inputs and targets),
    without dropout. What the gradient reaches where, at initialisation and after
    training, is issue 20's look at "what training does to each block".
    """
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    from ..training import next_token_loss

    @eqx.filter_jit
    def grads(m, x):
        return eqx.filter_grad(lambda mm: next_token_loss(mm, x))(m)

    g = grads(model, jnp.asarray(tokens, jnp.int32))

    def norm(tree) -> float:
        leaves = [
            np.asarray(v, np.float64)
            for v in jax.tree.leaves(eqx.filter(tree, eqx.is_inexact_array))
        ]
        return float(np.sqrt(sum(np.sum(v * v) for v in leaves))) if leaves else 0.0

    out = {"embedding": norm(g.embedding)}
    for i, a in enumerate(g.attentions):
        out[f"attention.{i + 1}"] = norm(a)
        if g.ffns is not None:
            out[f"ffn.{i + 1}"] = norm(g.ffns[i])
    out["readout"] = norm(g.readout)
    return out


def _trend(values) -> str:
    v = np.asarray(values, float)
    if v.size < 2:
        return "undecided (one layer)"
    if np.all(np.diff(v) < 0):
        return "holds"
    if v[-1] < v[0]:
        return "partly (last < first, not monotone)"
    return "does not hold"


def verdicts(stats: dict, local_threshold: float) -> dict[str, str]:
    """The three claims' verdicts for per-layer statistics (the dynamics experiment's three claims, `syncattn.experiments.dynamics`)."""
    loc = np.asarray(stats["local_order"], float)
    return {
        "local_order_near_1": (
            "holds"
            if np.all(loc >= local_threshold)
            else f"does not hold (min {loc.min():.3f} < {local_threshold})"
        ),
        "global_order_falls_with_depth": _trend(stats["global_order"]),
        "omega_higher_in_early_layers": _trend(stats["omega_abs"]),
    }


def measure_run(folder, n_sequences: int, local_threshold: float = 0.9) -> dict:
    """The statistics of a trained Kuramoto LM's run folder and of its model at
    initialisation (same seed), on the first `n_sequences` validation windows of its
    corpus ([`layer_statistics`][syncattn.experiments._dynamics.layer_statistics]).

    Returns:
        ``{"step", "corpus", "trained", "init", "verdicts", "grad_norms"}``: the
        checkpoint's step, the corpus name, the two statistics (lists per layer), the
        trained model's [`verdicts`][syncattn.experiments._dynamics.verdicts] and the
        [`block_grad_norms`][syncattn.experiments._dynamics.block_grad_norms] of both
        models on the same windows (``{"trained", "init"}``).
    """
    import jax

    from .. import data as data_mod, models
    from ..training import load_run

    spec, corpus, model, step = load_run(folder, log=lambda m: None)
    batch = next(
        data_mod.eval_batches(
            corpus.val,
            batch_size=n_sequences,
            seq_len=spec.train.seq_len,
            max_batches=1,
        )
    )
    window = batch[:, :-1]
    init = models.build(spec.model, key=jax.random.key(spec.train.seed))
    trained = layer_statistics(model, window)
    initial = layer_statistics(init, window)
    return {
        "step": step,
        "corpus": corpus.name,
        "trained": {k: v.tolist() for k, v in trained.items()},
        "init": {k: v.tolist() for k, v in initial.items()},
        "verdicts": verdicts(trained, local_threshold),
        "grad_norms": {
            "trained": block_grad_norms(model, batch),
            "init": block_grad_norms(init, batch),
        },
    }
