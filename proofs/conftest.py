"""pytest set-up for proofs/: float64 everywhere (tests/conftest.py does not apply here)."""

import jax


jax.config.update("jax_enable_x64", True)
