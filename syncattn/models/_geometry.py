r"""The geometry of a synchronisation model: one table from the attention name to a
[`syncattn.geometry.Geometry`][] (issue 41).

Every geometry fact the models need (the state's shape and size, real or complex, the
lift width $m$, whether the states are phases) is read from the object
[`geometry_of`][syncattn.models.geometry_of] returns, through the geometry's contract;
no module of `models` re-derives it from the attention's name or ``sync.group``.

Adding a geometry model is one line of ``SPACES``: the attention name and a constructor
from the ``sync`` part of the config (docs/geometric_attention.md, "Adding a geometry").
Its layers are the generic ones: [`syncattn.nn.SyncAttention`][] on the geometry,
[`syncattn.nn.StateEmbedding`][], [`syncattn.nn.LiftSwiGLU`][] and the readouts.
"""

from __future__ import annotations

from collections.abc import Callable

from ..geometry import Geometry, Sphere, Stiefel, Torus, from_space


__all__ = ["SPACES", "geometry_of", "phase_states"]


def _torus(sync) -> Geometry:
    return Torus()


SPACES: dict[str, Callable[..., Geometry]] = {
    "kuramoto": _torus,
    "sphere": lambda sync: Sphere(sync.sphere_dim, sync.drift),
    "group": lambda sync: from_space(sync.group, drift=sync.drift),
    "stiefel": lambda sync: Stiefel(sync.stiefel_p, sync.sphere_dim, sync.drift),
    "frustrated": _torus,
    "frustrated-mf": _torus,
}
"""``{attention: constructor(sync) -> Geometry}``: the synchronisation models (their
order is ``SYNC_ATTENTIONS``'), each with the geometry its states live on, built from
the config's ``sync`` part ([`syncattn.models.SyncConfig`][])."""


def geometry_of(config) -> Geometry:
    r"""The geometry of a synchronisation model's states: ``SPACES[config.attention]
    (config.sync)``.

    ``"kuramoto"``, ``"frustrated"``, ``"frustrated-mf"``: $\mathbb{T}^1$
    ([`Torus`][syncattn.geometry.Torus]); ``"sphere"``: $S^{n-1}$,
    ``Sphere(sync.sphere_dim, sync.drift)``; ``"group"``: $SO(n)$ or $U(n)$,
    ``geometry.from_space(sync.group, drift=sync.drift)``; ``"stiefel"``:
    $\mathrm{St}(p, n)$, ``Stiefel(sync.stiefel_p, sync.sphere_dim, sync.drift)``.

    Args:
        config: a [`ModelConfig`][syncattn.models.ModelConfig] (anything with
            ``attention`` and ``sync``).

    Raises:
        ValueError: ``config.attention`` is not a synchronisation model (``"softmax"``,
            ``"oscillator"``: their states are vectors of $\mathbb{R}^d$, no geometry).

    Example:
        >>> from syncattn import models
        >>> geo = models.geometry_of(models.get_config("tiny", attention="group",
        ...                                            **{"sync.group": "u2"}))
        >>> geo.fiber, geo.m, geo.complex
        ((2, 2), 8, True)
    """
    attention = config.attention
    if attention not in SPACES:
        raise ValueError(
            f"geometry_of needs a synchronisation model (attention in {tuple(SPACES)}); "
            f"got attention={attention!r}, whose states live in R^d_model, on no geometry."
        )
    return SPACES[attention](config.sync)


def phase_states(geometry: Geometry) -> bool:
    r"""Whether the states are phases $\theta \in \mathbb{T}^k$: one real coordinate per
    oscillator (``fiber == ()``), so a step $\theta \to \theta + \Delta$ can be scaled
    (the torus models' phase embedding, angle feed-forward, prototype phases and
    dropout on the increment)."""
    return geometry.fiber == ()
