"""Experiment 3 at smoke size (on experiment 1's trained Kuramoto cell)."""

import json

import numpy as np
import pytest

from syncattn import data
from syncattn.experiments import dynamics
from syncattn.training import load_run

from ..helpers import approx, assert_close
from .conftest import smoke_on_table_runs


@pytest.fixture(scope="module")
def smoke(tmp_path_factory, table_smoke, compile_cache):
    return smoke_on_table_runs("dynamics", tmp_path_factory, table_smoke, compile_cache)


@pytest.mark.slow  # ~22 s of compiling experiment 3's cell; CI runs it (.ci/run)
def test_dynamics_smoke(smoke, table_smoke):
    assert {"config.json", "results.json", "dynamics.csv", "dynamics.png"} <= {
        p.name for p in smoke.iterdir()}
    res = json.loads((smoke / "results.json").read_text())
    (seed,) = res["per_seed"]
    assert seed["status"] == "ok" and len(seed["trained"]["local_order"]) == 2
    assert set(res["verdicts"]) == {"local_order_near_1", "global_order_falls_with_depth",
                                    "omega_higher_in_early_layers"}
    # independent check of layer 1: its input is the phase embedding, so its global
    # order is |mean_t exp(i Phi[x_t])| averaged over coordinates and windows (numpy)
    _, corpus, model, _ = load_run(table_smoke / "runs" / "tiny-kuramoto-seed0")
    x = next(data.eval_batches(corpus.val, batch_size=2, seq_len=32, max_batches=1))[:, :-1]
    phi = np.asarray(model.embedding.phases, np.float64)[x]  # (B, T, k)
    ref = np.abs(np.exp(1j * phi).mean(1)).mean()
    assert seed["trained"]["global_order"][0] == approx(ref, np.float32)  # float32 model
    omega = [np.abs(np.asarray(a.omega)).mean() for a in model.attentions]
    # float32 means of the float32 weights, summed in another order
    assert_close(seed["trained"]["omega_abs"], omega, np.float32, scale=0.1)
    for k in ("local_order", "global_order"):
        assert all(0.0 <= v <= 1.0 + 1e-6 for v in seed["trained"][k] + seed["init"][k])


def test_verdict_rules():
    s = {"local_order": [0.95, 0.92], "global_order": [0.5, 0.4, 0.3],
         "omega_abs": [0.2, 0.3, 0.1]}
    v = dynamics.verdicts(s, 0.9)
    assert v["local_order_near_1"] == "holds"
    assert v["global_order_falls_with_depth"] == "holds"
    assert v["omega_higher_in_early_layers"].startswith("partly")
    s = {"local_order": [0.95, 0.5], "global_order": [0.3, 0.4], "omega_abs": [0.1, 0.1]}
    v = dynamics.verdicts(s, 0.9)
    assert v["local_order_near_1"].startswith("does not hold")
    assert v["global_order_falls_with_depth"] == "does not hold"
    assert v["omega_higher_in_early_layers"] == "does not hold"


def test_block_grad_norms_against_finite_differences():
    """Each block's norm is the loss's directional derivative along that block's own
    normalised gradient (central differences, float64), and the blocks partition the
    parameters (their squares sum to the global norm's)."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    from syncattn import models
    from syncattn.training import next_token_loss

    cfg = models.get_config("tiny", attention="kuramoto", n_layers=2)
    model = models.build(cfg, key=jax.random.key(0))
    x = jax.random.randint(jax.random.key(1), (2, 9), 0, cfg.vocab_size)
    got = dynamics.block_grad_norms(model, x)
    assert list(got) == ["embedding", "attention.1", "ffn.1", "attention.2", "ffn.2", "readout"]
    params, static = eqx.partition(model, eqx.is_inexact_array)
    g = eqx.filter_grad(lambda m: next_token_loss(m, x))(model)
    total = sum(float(jnp.sum(v ** 2)) for v in jax.tree.leaves(eqx.filter(g, eqx.is_inexact_array)))
    assert sum(v ** 2 for v in got.values()) == approx(total)

    def along(block, eps=1e-5):
        gb = eqx.filter(g, eqx.is_inexact_array)
        u = jax.tree.map(jnp.zeros_like, params)
        u = eqx.tree_at(block, u, replace_fn=lambda _: jax.tree.map(lambda a: a, block(gb)))
        n = np.sqrt(sum(float(jnp.sum(v ** 2)) for v in jax.tree.leaves(block(gb))))

        @jax.jit
        def loss(t):
            p = jax.tree.map(lambda a, b: a + t * b / n, params, u)
            return next_token_loss(eqx.combine(p, static), x)

        return float((loss(eps) - loss(-eps)) / (2 * eps))

    assert along(lambda m: m.readout) == approx(got["readout"], scale=1e4)
    assert along(lambda m: m.attentions[1]) == approx(got["attention.2"], scale=1e4)
