"""jaxtyping aliases shared by the maths modules."""

from jaxtyping import (
    Array,
    ArrayLike,
    Bool,
    Complex,
    Float,
    Inexact,
    Int,
    PRNGKeyArray,
    Real,
)


ScalarLike = float | int | ArrayLike

__all__ = [
    "Array",
    "ArrayLike",
    "Bool",
    "Complex",
    "Float",
    "Inexact",
    "Int",
    "PRNGKeyArray",
    "Real",
    "ScalarLike",
]
