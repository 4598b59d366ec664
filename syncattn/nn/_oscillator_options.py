"""The options of [`syncattn.nn.OscillatorAttention`][] and how they combine: each
checked once, at construction, with an error that names the option and the fix."""

from __future__ import annotations

import math

from .. import lohe
from ._common import check_choice, check_int, check_positive


__all__ = ["COUPLINGS", "ODE_FLOWS", "check_modes", "check_ode", "check_sizes"]

COUPLINGS = lohe.COUPLINGS
ODE_FLOWS = ("paper", "unit")


def check_sizes(d_model, n_heads, d_osc, max_len, d_head) -> tuple[int, ...]:
    """``(d_model, n_heads, d_head, d_osc, max_len)`` checked; `d_head` by default
    ``d_model // n_heads`` (which must then divide)."""
    d_model, n_heads = check_int(d_model, "d_model"), check_int(n_heads, "n_heads")
    if d_head is None:
        if d_model % n_heads:
            raise ValueError(
                f"d_model={d_model} is not divisible by n_heads={n_heads}; pass d_head."
            )
        d_head = d_model // n_heads
    d_head = check_int(d_head, "d_head")
    if isinstance(d_osc, bool) or not isinstance(d_osc, int) or d_osc < 2:
        raise ValueError(
            f"d_osc must be an int >= 2 (oscillators on S^(d_osc-1)); got {d_osc!r}."
        )
    return d_model, n_heads, d_head, d_osc, check_int(max_len, "max_len")


def check_modes(
    *,
    coupling,
    p,
    equilibrium,
    impl,
    anchors,
    normalize_anchors,
    ode_flow,
    d_osc: int,
    relative_rotation,
    query_scale,
) -> None:
    """The choices among the named modes, the readout exponent `p`, and the
    combinations that the linear path and the ablations L3 and L4 need."""
    check_choice(coupling, "coupling", COUPLINGS)
    check_choice(ode_flow, "ode_flow", ODE_FLOWS)
    check_choice(equilibrium, "equilibrium", ("closed", "ode"))
    check_choice(impl, "impl", ("quadratic", "linear", "chunked"))
    check_choice(anchors, "anchors", ("position", "content"))
    if (
        isinstance(p, bool)
        or not isinstance(p, (int, float))
        or not math.isfinite(p)
        or p < 1
    ):
        raise ValueError(
            f"p (readout exponent) must be a finite number >= 1; got {p!r}."
        )
    if impl == "linear":
        _check_linear(coupling, p, normalize_anchors)
    if relative_rotation and (d_osc != 2 or impl != "quadratic"):
        raise ValueError(
            "relative_rotation (L3) rotates anchors in the plane: it needs d_osc=2 and "
            f"impl='quadratic'; got d_osc={d_osc}, impl={impl!r}."
        )
    if query_scale and coupling == "elu1_features":
        raise ValueError(
            "query_scale (L4) scales the score q.k/sqrt(d_h) inside the coupling; "
            "coupling='elu1_features' is a kernel of features, not of the score."
        )


def _check_linear(coupling, p, normalize_anchors) -> None:
    """What ``impl="linear"`` needs: a kernel coupling, an integer `p`, unit anchors."""
    if coupling != "elu1_features":
        raise ValueError(
            "impl='linear' needs coupling='elu1_features' (the kernel "
            f"phi(q).phi(k)/d_h, phi = elu + 1); got {coupling!r}. ('elu1' is the "
            "published score nonlinearity elu(q.k/sqrt(d_h)) + 1, not a kernel.) "
            "Use impl='chunked' for O(T * chunk) memory with other couplings."
        )
    if p != int(p):
        raise ValueError(
            f"impl='linear' needs an integer p (polynomial readout kernel); got p={p}."
        )
    if not normalize_anchors:
        raise ValueError(
            "impl='linear' needs unit anchors (normalize_anchors=True): with ||r|| > 1, "
            "max(0, 1 + z.r) clips and the readout is no longer a polynomial kernel."
        )


def check_ode(ode_t1, ode_rtol, ode_atol, ode_seed) -> tuple:
    """``(ode_t1, ode_rtol, ode_atol, ode_seed)`` of ``equilibrium="ode"`` checked."""
    return (
        check_positive(ode_t1, "ode_t1"),
        check_positive(ode_rtol, "ode_rtol"),
        check_positive(ode_atol, "ode_atol"),
        check_int(ode_seed, "ode_seed", low=0),
    )
