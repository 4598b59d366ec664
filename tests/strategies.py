"""Hypothesis strategies shared by the tests (keyword knobs, strategies as defaults)."""

import hypothesis.extra.numpy as npst
import hypothesis.strategies as st
import jax.numpy as jnp
import numpy as np


@st.composite
def phases(
    draw,
    *,
    n=st.integers(1, 9),
    batch=st.lists(st.integers(1, 3), max_size=2),
    bound=20.0,
):
    shape = (*draw(batch), draw(n))
    return jnp.asarray(
        draw(npst.arrays(np.float64, shape, elements=st.floats(-bound, bound)))
    )


@st.composite
def unit_vectors(
    draw, *, d=st.integers(2, 8), batch=st.lists(st.integers(1, 3), max_size=2)
):
    dd = draw(d)
    shape = (*draw(batch), dd)
    x = draw(npst.arrays(np.float64, shape, elements=st.floats(-1, 1)))
    x = x + 1e-3 * (np.arange(dd) + 1)  # keep away from the origin
    return jnp.asarray(x / np.linalg.norm(x, axis=-1, keepdims=True))


seeds = st.integers(0, 2**31 - 1)


@st.composite
def harmonics(draw, *, order=st.integers(1, 4), bound=2.0):
    """Kuramoto-Daido coefficients: `(amplitudes, frustrations)`, float64 `(M,)` each.

    Amplitudes of either sign (negative = repulsive harmonics), lags in $[-\\pi, \\pi]$.
    """
    m = draw(order)
    a = draw(npst.arrays(np.float64, (m,), elements=st.floats(-bound, bound)))
    alpha = draw(npst.arrays(np.float64, (m,), elements=st.floats(-np.pi, np.pi)))
    return a, alpha


@st.composite
def token_rows(draw, *, rows=st.integers(1, 3), length=st.integers(2, 40), vocab=st.integers(1, 4)):
    """Small token strings `(B, T + 1)` int64 over a small alphabet (so n-grams repeat)."""
    b, t, v = draw(rows), draw(length), draw(vocab)
    return draw(npst.arrays(np.int64, (b, t), elements=st.integers(0, v - 1)))


@st.composite
def pvalue_lists(draw, *, size=st.integers(1, 12), missing=True):
    """p-values in [0, 1] (float), some of them `None` when `missing` (a test not made),
    with ties drawn on purpose (values from a coarse grid half the time)."""
    grid = st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.05, 0.2, 0.5, 1.0])
    value = st.one_of(grid, st.floats(0.0, 1.0))
    item = st.one_of(st.none(), value) if missing else value
    n = draw(size)
    return draw(st.lists(item, min_size=n, max_size=n))
