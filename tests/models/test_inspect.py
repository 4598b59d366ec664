"""models.attention_diagnostics: the drives of one layer, from the model's own forward pass."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import lohe, models
from syncattn.models import _layers

from ..helpers import assert_close


@pytest.fixture(scope="module")
def lm():
    cfg = models.get_config("tiny", attention="oscillator", d_osc=3, vocab_size=20, pad_id=0,
                            positions="sinusoidal")
    return models.build(cfg, key=jax.random.key(1))


def test_last_layer_diagnostics_reproduce_the_forward_pass(lm):
    tokens = jnp.array([1, 5, 7, 3, 9, 2, 0, 0])
    enc = lm.encoder
    # independent path: run blocks 0..L-2 through the encoder's own call on a model
    # truncated to those blocks, then the last attention by hand
    import equinox as eqx

    trunc = eqx.tree_at(lambda e: (e.blocks, e.final_norm), enc, (enc.blocks[:-1], None),
                        is_leaf=lambda x: x is None)
    x = trunc(tokens)
    last = enc.blocks[-1]
    y = _layers.apply_norm(last.norm1, x)
    _, aux_ref = last.attention(y, diagnostics=True)
    aux = models.attention_diagnostics(lm, tokens)
    assert_close(aux["h"], aux_ref["h"])
    # z is the equilibrium h/|h| of the drives
    assert_close(aux["z"], lohe.equilibrium(aux["h"])[0])
    assert aux["h"].shape == (lm.config.n_heads, 8, 3)
    first = models.attention_diagnostics(lm, tokens, layer=0)
    assert first["h"].shape == aux["h"].shape
    assert not np.allclose(first["h"], aux["h"])


def test_bad_layer(lm):
    with pytest.raises(ValueError, match="layer"):
        models.attention_diagnostics(lm, jnp.array([1, 2]), layer=5)
