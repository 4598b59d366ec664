import os

import jax
from hypothesis import settings


jax.config.update("jax_enable_x64", True)

settings.register_profile("default", deadline=None, max_examples=25)
settings.register_profile("ci", deadline=None, max_examples=50, derandomize=True)
settings.load_profile(os.getenv("HYPOTHESIS_PROFILE", "default"))
