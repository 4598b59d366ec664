"""models.geometry_of (issue 41 §1): every synchronisation attention maps to the
geometry its states live on; the transformers have none (a clear error); the models'
layers are built on that geometry, and the state size is the size of the embedded
states (read from the built model's shapes, not from the geometry)."""

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

from syncattn import geometry, models


def cfg(attention, **sync):
    return models.get_config("tiny", attention=attention, **sync)


CASES = [
    ("kuramoto", {}, geometry.Torus()),
    ("frustrated", {}, geometry.Torus()),
    ("frustrated-mf", {}, geometry.Torus()),
    ("sphere", {}, geometry.Sphere(4)),
    (
        "sphere",
        {"sync.sphere_dim": 3, "sync.drift": "full"},
        geometry.Sphere(3, "full"),
    ),
    ("group", {}, geometry.Group("so", 3)),
    ("group", {"sync.group": "u2"}, geometry.Group("u", 2)),
    (
        "group",
        {"sync.group": "so4", "sync.drift": "none"},
        geometry.Group("so", 4, "none"),
    ),
    ("stiefel", {}, geometry.Stiefel(2, 4)),
    (
        "stiefel",
        {"sync.stiefel_p": 3, "sync.sphere_dim": 5, "sync.drift": "full"},
        geometry.Stiefel(3, 5, "full"),
    ),
]


def test_stiefel_p_is_checked_against_n():
    with pytest.raises(ValueError, match="sync.stiefel_p must be in"):
        cfg("stiefel", **{"sync.stiefel_p": 5})  # n = sync.sphere_dim = 4
    with pytest.raises(ValueError, match="sync.stiefel_p applies to the synchron"):
        cfg("softmax", **{"sync.stiefel_p": 1})


@pytest.mark.parametrize(("attention", "sync", "want"), CASES)
def test_each_sync_attention_maps_to_its_geometry(attention, sync, want):
    geo = models.geometry_of(cfg(attention, **sync))
    assert isinstance(geo, geometry.Geometry)
    assert geo == want


def test_the_table_is_the_sync_family():
    assert models.SYNC_ATTENTIONS == tuple(models.SPACES)
    assert set(models.SYNC_ATTENTIONS) < set(models.ATTENTIONS)
    covered = {a for a, _, _ in CASES}
    assert covered == set(models.SPACES)


@pytest.mark.parametrize("attention", ["softmax", "oscillator"])
def test_a_transformer_has_no_geometry(attention):
    with pytest.raises(ValueError, match="geometry_of needs a synchronisation model"):
        models.geometry_of(cfg(attention))


@pytest.mark.parametrize(("attention", "sync", "want"), CASES[2:] + CASES[:1])
def test_the_model_is_built_on_its_geometry(attention, sync, want):
    config = cfg(attention, **sync)
    model = eqx.filter_eval_shape(models.build, config, key=jax.random.key(0))
    assert all(a.geometry == want for a in model.attentions)
    tokens = jax.ShapeDtypeStruct((5,), jnp.int32)
    s = eqx.filter_eval_shape(lambda m, t: m.embedding(t), model, tokens)
    assert s.shape == (5, config.d_model, *want.fiber)
    assert jnp.iscomplexobj(s) == want.complex
    per_token = s.size // 5 * (2 if jnp.iscomplexobj(s) else 1)
    assert models.state_size(config) == per_token
    if want.fiber:  # a geometry's states: the generic layers on the geometry object
        assert model.embedding.geometry == want
        assert all(f.geometry == want for f in model.ffns)
        assert model.readout.geometry == want
