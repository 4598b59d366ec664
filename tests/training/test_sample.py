"""Sampling: the compiled loop equals a plain Python loop; top-k / temperature laws."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn.training._sample import generate, sampling_logits
from tests.training._standin import TinyLM


def _python_greedy(model, prompt, length, context):
    forward = eqx.filter_jit(lambda m, x: m(x))  # one compile per window length
    seq = list(prompt)
    for _ in range(length):
        window = np.asarray(seq[-context:], np.int32)
        logits = np.asarray(forward(model, jnp.asarray(window)))[-1]
        seq.append(int(np.argmax(logits)))
    return seq


@pytest.mark.parametrize("context", [4, 32])
def test_greedy_generation_equals_a_python_loop(context):
    model = TinyLM(9, key=jax.random.PRNGKey(3))
    prompt = np.array([1, 4, 2], np.int32)
    got = generate(model, prompt, length=12, context=context, key=jax.random.PRNGKey(0),
                   temperature=0.0)
    assert got.tolist() == _python_greedy(model, prompt.tolist(), 12, context)
    # top_k = 1 at any temperature is greedy too
    got1 = generate(model, prompt, length=12, context=context, key=jax.random.PRNGKey(5),
                    temperature=1.3, top_k=1)
    assert got1.tolist() == got.tolist()


class _Fixed(eqx.Module):
    """Logits that ignore the input: every position has the same law."""

    z: jax.Array

    def __call__(self, tokens, *, key=None):
        return jnp.broadcast_to(self.z, (tokens.shape[0], self.z.shape[0]))


def test_sampled_frequencies_follow_tempered_top_k_law():
    z = jnp.log(jnp.array([0.5, 0.25, 0.15, 0.1]))
    model = _Fixed(z)
    toks = generate(model, np.array([0]), length=4000, context=3, key=jax.random.PRNGKey(1),
                    temperature=2.0, top_k=3)
    freq = np.bincount(np.asarray(toks[1:]), minlength=4) / 4000
    p = np.array([0.5, 0.25, 0.15, 0.0]) ** 0.5  # (p_v)^(1/T), top 3, renormalised
    p /= p.sum()
    np.testing.assert_allclose(freq, p, atol=0.03)  # ~4 standard errors
    # banned id never drawn
    toks = generate(model, np.array([0]), length=500, context=3, key=jax.random.PRNGKey(2),
                    banned_id=0)
    assert 0 not in np.asarray(toks[1:])


def test_sampling_logits_and_errors():
    z = jnp.array([1.0, 3.0, 2.0, 0.0])
    out = sampling_logits(z, temperature=0.5, top_k=2)
    assert np.isneginf(np.asarray(out)[[0, 3]]).all()
    np.testing.assert_allclose(np.asarray(out)[[1, 2]], [6.0, 4.0])
    model = TinyLM(5, key=jax.random.PRNGKey(0))
    k = jax.random.PRNGKey(0)
    with pytest.raises(ValueError, match="prompt"):
        generate(model, np.array([], np.int32), length=3, context=4, key=k)
    with pytest.raises(ValueError, match="temperature"):
        generate(model, np.array([1]), length=3, context=4, key=k, temperature=-1.0)
    with pytest.raises(ValueError, match="top_k"):
        generate(model, np.array([1]), length=3, context=4, key=k, top_k=0)
    assert generate(model, np.array([1, 2]), length=0, context=4, key=k).tolist() == [1, 2]
