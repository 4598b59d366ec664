"""syncattn._mappings: the mapping count against an independent count, the threshold
rule, and the claim that JAX's cleared caches give the compiled programs' mappings back."""

import gc

import jax
import jax.numpy as jnp
import pytest

from syncattn import _mappings


pytestmark = pytest.mark.skipif(_mappings.mapping_count() is None, reason="no /proc/self/maps")


def _count_by_lines():
    with open("/proc/self/maps") as f:
        return len(f.readlines())


def test_count_and_limit_read_the_kernel_files():
    # independent: line count of the maps file (a mapping or two may come and go between
    # the two reads: the allocator)
    assert abs(_mappings.mapping_count() - _count_by_lines()) <= 4
    with open("/proc/sys/vm/max_map_count") as f:
        assert _mappings.mapping_limit() == int(f.read())


def test_compiled_programs_hold_mappings_and_relieve_gives_them_back(monkeypatch):
    jax.clear_caches()
    gc.collect()
    before = _mappings.mapping_count()
    fns = [jax.jit(lambda x, i=i: jnp.sin(x) * i) for i in range(60)]
    for f in fns:
        f(jnp.ones(3)).block_until_ready()
    grown = _mappings.mapping_count()
    assert grown - before >= 60  # at least one mapping per compiled program
    # above the threshold: cleared, and most of the growth is given back
    monkeypatch.setattr(_mappings, "mapping_limit", lambda: grown)
    assert _mappings.relieve(fraction=0.5) is True
    after = _mappings.mapping_count()
    assert after - before < 0.5 * (grown - before)
    # below it: nothing is cleared (a compiled program stays compiled)
    monkeypatch.setattr(_mappings, "mapping_limit", lambda: 10 * after)
    f = jax.jit(lambda x: x + 1.0)
    f(jnp.ones(3))
    n_cached = f._cache_size()
    assert _mappings.relieve(fraction=0.5) is False
    assert f._cache_size() == n_cached == 1


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, float("nan")])
def test_fraction_outside_the_unit_interval_is_an_error(bad):
    with pytest.raises(ValueError, match="fraction"):
        _mappings.relieve(bad)
