"""The training-step check shared by the language-model tests of this folder."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


@eqx.filter_jit
def next_token_loss(m, b, key):
    """Mean next-token cross-entropy of model `m` on the rows of `b`, one dropout key per row."""
    keys = jax.random.split(key, b.shape[0])
    logits = jax.vmap(lambda t, k: m(t, key=k))(b[:, :-1], keys)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, b[:, 1:, None], axis=-1))


def finite_loss_grad(model, batch):
    """The gradient of [`next_token_loss`][] (key 0) after checking that the loss and
    every inexact leaf of the gradient are finite."""
    val, g = eqx.filter_value_and_grad(next_token_loss)(model, batch, jax.random.key(0))
    assert np.isfinite(float(val))
    leaves = jax.tree_util.tree_leaves(eqx.filter(g, eqx.is_inexact_array))
    assert all(bool(jnp.all(jnp.isfinite(x))) for x in leaves)
    return g


def check_causal(call, model, x, positions, shift: int, vocab: int = 256):
    """``call(model, x)``, after checking causality on it: for every t in `positions`,
    changing the tokens after t (each plus `shift`, mod `vocab`) leaves the logits up
    to t bit-for-bit unchanged and changes the later ones."""
    out = call(model, x)
    for t in positions:
        y = x.at[t + 1 :].set((x[t + 1 :] + shift) % vocab)
        out2 = call(model, y)
        np.testing.assert_array_equal(
            np.asarray(out2[: t + 1]), np.asarray(out[: t + 1])
        )
        assert not np.allclose(np.asarray(out2[t + 1 :]), np.asarray(out[t + 1 :]))
    return out
