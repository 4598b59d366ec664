import pytest


@pytest.fixture(scope="session")
def compile_cache(tmp_path_factory):
    """One JAX persistent compilation cache for the experiment tests: the smoke cells
    compile the same programs, so only the first one pays for compiling."""
    return str(tmp_path_factory.mktemp("jax-compile"))
