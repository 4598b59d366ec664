"""Tests for syncattn.kuramoto's attention identity (kuramoto/_attention.py) against a
brute-force float64 computation.
"""

import hypothesis.strategies as st
import numpy as np
from hypothesis import given

from syncattn import kuramoto

from .. import strategies
from ..helpers import approx, assert_close


# --------------------------------------------------------------------------- attention identity


@given(
    seed=strategies.seeds, T=st.integers(1, 5), U=st.integers(1, 6), k=st.integers(1, 4)
)
def test_coupling_term_and_tangent_update_match_brute_force(seed, T, U, k):
    rng = np.random.default_rng(seed)
    tt = rng.uniform(-7, 7, size=(2, T, k))
    tu = rng.uniform(-7, 7, size=(2, U, k))
    A = rng.normal(size=(2, T, U))
    ref = np.zeros((2, T, k))
    for b in range(2):
        for t in range(T):
            for j in range(k):
                ref[b, t, j] = sum(
                    A[b, t, u] * np.sin(tu[b, u, j] - tt[b, t, j]) for u in range(U)
                )
    assert_close(kuramoto.coupling_term(tt, tu, A), ref, scale=10)
    G = np.einsum("btu,buk->btk", A, np.exp(1j * tu))
    assert_close(kuramoto.tangent_update(tt, G), ref, scale=10)
    assert_close(kuramoto.tangent_update(tt, (G.real, G.imag)), ref, scale=10)


def test_tangent_update_golden():
    assert float(kuramoto.tangent_update(0.0, 1j)) == 1.0
    assert float(kuramoto.tangent_update(np.pi / 2, 1.0 + 0j)) == approx(-1.0)
