"""The copy-depth diagnostic (issue 40, syncattn.stats.copy_depth): against a brute-force
Python loop over (t, s) on small strings, and the split's means and counts."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from syncattn import stats

from .strategies import token_rows


def brute_depth(row, n):
    """The largest t - s >= 1 with row[s-n+1 .. s+1] == row[t-n+1 .. t+1] (s >= n - 1), or 0."""
    T = len(row) - 1
    out = []
    for t in range(T):
        best = 0
        if t >= n - 1:
            gram = tuple(row[t - n + 1 : t + 2])
            for s in range(n - 1, t):
                if tuple(row[s - n + 1 : s + 2]) == gram:
                    best = max(best, t - s)
        out.append(best)
    return out


@settings(max_examples=60, deadline=None)
@given(x=token_rows(), n=st.integers(1, 4))
def test_copy_depth_matches_brute_force(x, n):
    got = stats.copy_depth(x, n)
    assert got.shape == (x.shape[0], x.shape[1] - 1)
    for b in range(x.shape[0]):
        assert got[b].tolist() == brute_depth(x[b].tolist(), n)
    assert stats.copy_depth(x[0], n).tolist() == brute_depth(x[0].tolist(), n)  # one row


@settings(max_examples=30, deadline=None)
@given(x=token_rows(), n=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_split_is_the_mean_over_each_set(x, n, seed):
    ell = np.random.default_rng(seed).exponential(size=(x.shape[0], x.shape[1] - 1))
    depths = (1, 2, 5)
    out = stats.copy_depth_losses(x, ell, n, depths)
    dep = np.array([brute_depth(r.tolist(), n) for r in x])
    for d, loss, count in zip(depths, out["loss"], out["count"], strict=True):
        sel = [ell[b, t] for b in range(dep.shape[0]) for t in range(dep.shape[1]) if dep[b, t] >= d]
        assert count == len(sel)
        assert (np.isnan(loss) and not sel) or loss == pytest.approx(np.mean(sel))
    novel = [ell[b, t] for b in range(dep.shape[0]) for t in range(dep.shape[1]) if dep[b, t] == 0]
    assert out["count_novel"] == len(novel) and out["count_all"] == ell.size
    assert out["count"] == sorted(out["count"], reverse=True)  # nested sets


def test_text_example_and_defaults():
    text = b"the cat sat on the mat; the cat sat on the hat"
    x = np.frombuffer(text, np.uint8).astype(np.int64)
    dep = stats.copy_depth(x)  # n = 6
    # "the cat sat on the " repeats 24 bytes later: its continuation is predictable there
    i = text.index(b"sat", 20)  # the second "sat": predicting its 'a' and 't' copies lag 24
    assert dep[i] == 24 and dep[i + 1] == 24
    assert dep[-1] == 0  # "the h" never seen before
    out = stats.copy_depth_losses(x, np.ones(len(x) - 1))
    assert out["depths"] == list(stats.COPY_DEPTHS) and out["n"] == 6
    assert out["count"][0] > 0 and out["count"][-1] == 0 and np.isnan(out["loss"][-1])


def test_bad_input():
    with pytest.raises(ValueError, match="integer array"):
        stats.copy_depth(np.zeros(5))
    with pytest.raises(ValueError, match="at least 2 tokens"):
        stats.copy_depth(np.zeros(1, int))
    with pytest.raises(ValueError, match="n must be"):
        stats.copy_depth(np.arange(5), 0)
    with pytest.raises(ValueError, match=r"losses must have shape"):
        stats.copy_depth_losses(np.arange(5), np.zeros(5))
    with pytest.raises(ValueError, match="finite"):
        stats.copy_depth_losses(np.arange(5), np.array([0.0, np.nan, 0, 0]))
    with pytest.raises(ValueError, match="depths"):
        stats.copy_depth_losses(np.arange(5), np.zeros(4), depths=(0,))
