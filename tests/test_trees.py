"""The one tree cast and the one parameter count (syncattn/_trees.py), against a plain
walk over the leaves; `nn`, `models` and `training` use these and no copy of them."""

import ast
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import syncattn
from syncattn import _trees, models, training
from syncattn.nn import _common


class _Holder(eqx.Module):
    w32: jax.Array
    w64: jax.Array
    ids: jax.Array
    flags: jax.Array
    z: jax.Array
    host: np.ndarray
    scale: float
    name: str = eqx.field(static=True, default="h")


def _holder():
    return _Holder(
        w32=jnp.arange(6, dtype=jnp.float32).reshape(2, 3) / 7,
        w64=jnp.linspace(0.0, 1.0, 5, dtype=jnp.float64),
        ids=jnp.arange(4, dtype=jnp.int32),
        flags=jnp.array([True, False]),
        z=jnp.array([1 + 2j], dtype=jnp.complex64),
        host=np.ones((3, 1), np.float64),
        scale=0.5,
    )


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", jnp.float64])
def test_cast_floating_casts_exactly_the_real_floating_arrays(dtype):
    tree = _holder()
    out = _trees.cast_floating(tree, dtype)
    want = {"float32": np.float32, "bfloat16": jnp.bfloat16}.get(dtype, dtype)
    for name in ("w32", "w64", "host"):  # every real floating array, NumPy ones included
        before, after = getattr(tree, name), getattr(out, name)
        assert after.dtype == want
        np.testing.assert_array_equal(np.asarray(after), np.asarray(before).astype(want))
    for name in ("ids", "flags", "z"):
        assert getattr(out, name) is getattr(tree, name)
    assert out.scale == 0.5 and out.name == "h"


def test_cast_floating_bad_name():
    with pytest.raises(ValueError, match="float32"):
        _trees.cast_floating(_holder(), "float16x")


def test_count_parameters_against_a_walk():
    tree = _holder()
    # float32 2x3 + float64 5 + complex 1 + NumPy float64 3x1; ints and bools are not parameters
    assert _trees.count_parameters(tree) == 6 + 5 + 1 + 3
    shapes = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype),
                          eqx.filter(tree, eqx.is_array))
    assert _trees.count_parameters(shapes) == 6 + 5 + 1 + 3


def test_the_public_names_are_the_leaf():
    cfg = models.get_config("tiny", attention="softmax")
    model = models.build(cfg, key=jax.random.key(0))
    walk = sum(x.size for x in jax.tree.leaves(model) if eqx.is_inexact_array(x))
    assert models.count_params(model) == training.count_parameters(model) == walk
    assert models.config_params(cfg) == walk
    assert training.cast_floating is _trees.cast_floating
    assert training.count_parameters is _trees.count_parameters
    assert _common.cast is _trees.cast_floating
    half = models.cast(model, jnp.bfloat16)
    assert {x.dtype for x in jax.tree.leaves(half) if eqx.is_inexact_array(x)} == {np.dtype(jnp.bfloat16)}


def _casts_over_trees(source: str) -> list[int]:
    """Lines where a `tree_map` / `jax.tree.map` maps a lambda that calls `.astype`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("map", "tree_map"):
            for arg in node.args:
                if isinstance(arg, ast.Lambda) and any(
                    isinstance(n, ast.Attribute) and n.attr == "astype" for n in ast.walk(arg)
                ):
                    lines.append(node.lineno)
    return lines


def test_no_other_tree_cast_in_the_package():
    root = Path(syncattn.__file__).parent
    found = {str(p.relative_to(root)): _casts_over_trees(p.read_text()) for p in root.rglob("*.py")}
    assert {k: v for k, v in found.items() if v} == {}
    # the detector finds the copies this replaced
    old = "m = jax.tree.map(\n  lambda x: x.astype(d) if eqx.is_inexact_array(x) else x, m)\n"
    assert _casts_over_trees(old) == [1]
    assert _casts_over_trees("m = jax.tree_util.tree_map(lambda a: a.astype(d), m)") == [1]


def test_cast_floating_complex_too():
    """complex leaves follow the precision asked for only with complex_too, and only where
    a complex type of that precision exists."""
    tree = {"c": jnp.ones(2, jnp.complex64), "r": jnp.ones(2, jnp.float32), "i": jnp.arange(2)}
    out = _trees.cast_floating(tree, "float64", complex_too=True)
    assert (out["c"].dtype, out["r"].dtype, out["i"].dtype) == (
        np.dtype(np.complex128), np.dtype(np.float64), tree["i"].dtype)
    np.testing.assert_array_equal(out["c"], np.ones(2, np.complex128))
    assert _trees.cast_floating(tree, "float64")["c"].dtype == np.dtype(np.complex64)
    assert _trees.cast_floating(tree, "bfloat16", complex_too=True)["c"].dtype == np.dtype(np.complex64)
