import os

import pytest

from syncattn import cli


@pytest.fixture(scope="session")
def compile_cache(tmp_path_factory):
    """One JAX persistent compilation cache for the experiment tests: the smoke cells
    compile the same programs, so only the first one pays for compiling."""
    return str(tmp_path_factory.mktemp("jax-compile"))


def run_cli(*args, cache=None):
    """``syncattn experiment ...`` with the tests' compilation cache."""
    old = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    if cache:
        os.environ["JAX_COMPILATION_CACHE_DIR"] = cache
    try:
        return cli.main(["experiment", *args, "--quiet"])
    finally:
        if old is None:
            os.environ.pop("JAX_COMPILATION_CACHE_DIR", None)
        else:
            os.environ["JAX_COMPILATION_CACHE_DIR"] = old


def smoke_on_table_runs(name, tmp_path_factory, table_smoke, cache):
    """Experiment `name` (2 or 3) at smoke size on experiment 1's run folders (``runs=``);
    its output folder."""
    out = tmp_path_factory.mktemp(name)
    runs = table_smoke / "runs"
    assert run_cli(name, "--smoke", "--out", str(out), f"runs={runs}", cache=cache) == 0
    return out


@pytest.fixture(scope="session")
def table_smoke(tmp_path_factory, compile_cache):
    """Experiment 1 at smoke size; experiments 2 and 3 reuse its trained cells."""
    out = tmp_path_factory.mktemp("table")
    assert run_cli("table", "--smoke", "--out", str(out), cache=compile_cache) == 0
    return out
