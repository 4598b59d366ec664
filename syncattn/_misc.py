"""Transitional alias: `_misc` was split into `syncattn._numerics` (sincos, safe_norm,
dtype helpers) and `syncattn._checks` (argument checks). Import from those."""

from ._checks import (  # noqa: F401
    as_float,
    check_dim,
    check_finite,
    check_nonempty,
    check_scalar_range,
    is_concrete,
)
from ._numerics import default_floating_dtype, eps_for, safe_norm, sincos  # noqa: F401
