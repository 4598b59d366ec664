"""The stateless sampler and the evaluation iterator."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from syncattn.data import eval_batches, num_eval_windows, require_window, sample_batch


STREAM = np.arange(1000, dtype=np.uint16) % 251  # window contents reveal their start


def _start(row):
    """Start offset of a window of STREAM, found by brute force."""
    hits = [
        s
        for s in range(STREAM.size - row.size + 1)
        if np.array_equal(STREAM[s : s + row.size], row)
    ]
    assert hits
    return hits[0]


@given(seed=st.integers(0, 2**32), step=st.integers(0, 10**6))
def test_sample_batch_is_pure_in_seed_and_step(seed, step):
    a = sample_batch(STREAM, seed=seed, step=step, batch_size=4, seq_len=16)
    b = sample_batch(STREAM, seed=seed, step=step, batch_size=4, seq_len=16)
    assert a.dtype == np.int32 and a.shape == (4, 17)
    assert np.array_equal(a, b)
    # an independent draw from the documented generator gives the same starts
    starts = np.random.default_rng([seed, step]).integers(0, STREAM.size - 16, size=4)
    expected = np.stack([STREAM[s : s + 17] for s in starts]).astype(np.int32)
    assert np.array_equal(a, expected)


def test_sample_batch_differs_across_steps_and_seeds():
    a = sample_batch(STREAM, seed=0, step=0, batch_size=8, seq_len=16)
    assert not np.array_equal(
        a, sample_batch(STREAM, seed=0, step=1, batch_size=8, seq_len=16)
    )
    assert not np.array_equal(
        a, sample_batch(STREAM, seed=1, step=0, batch_size=8, seq_len=16)
    )


def test_sample_batch_windows_are_contiguous_and_cover_the_ends():
    short = np.arange(12, dtype=np.int32)
    starts = set()
    for step in range(300):
        batch = sample_batch(short, seed=3, step=step, batch_size=4, seq_len=9)
        assert np.all(np.diff(batch, axis=1) == 1)  # contiguous windows
        starts.update(batch[:, 0].tolist())
    assert starts == {0, 1, 2}  # every legal start, no out-of-range one


def test_sample_batch_reads_memmap_without_loading(tmp_path):
    p = tmp_path / "stream.bin"
    STREAM.astype(np.uint8).tofile(p)
    mm = np.memmap(p, dtype=np.uint8, mode="r")
    got = sample_batch(mm, seed=5, step=7, batch_size=3, seq_len=10)
    want = sample_batch(
        STREAM.astype(np.uint8), seed=5, step=7, batch_size=3, seq_len=10
    )
    assert np.array_equal(got, want)
    for row in got:
        s = _start(row.astype(np.uint16))
        assert 0 <= s <= STREAM.size - 11


def test_sample_batch_rows():
    rows = np.arange(7 * 5, dtype=np.int32).reshape(7, 5)
    b = sample_batch(rows, seed=1, step=2, batch_size=6, seq_len=None)
    want = rows[np.random.default_rng([1, 2]).integers(0, 7, size=6)]
    assert np.array_equal(b, want) and b.dtype == np.int32
    assert np.array_equal(
        b, sample_batch(rows, seed=1, step=2, batch_size=6, seq_len=4)
    )
    with pytest.raises(ValueError, match="max_len - 1 = 4"):
        sample_batch(rows, seed=1, step=2, batch_size=6, seq_len=8)


def test_sample_batch_errors():
    with pytest.raises(ValueError, match="fewer than seq_len"):
        sample_batch(STREAM[:5], seed=0, step=0, batch_size=1, seq_len=5)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        sample_batch(STREAM, seed=-1, step=0, batch_size=1, seq_len=5)
    with pytest.raises(TypeError, match="step must be an int"):
        sample_batch(STREAM, seed=0, step=1.5, batch_size=1, seq_len=5)
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        sample_batch(STREAM, seed=0, step=0, batch_size=0, seq_len=5)
    with pytest.raises(ValueError, match="seq_len is required"):
        sample_batch(STREAM, seed=0, step=0, batch_size=1, seq_len=None)
    with pytest.raises(TypeError, match="integer ids"):
        sample_batch(STREAM.astype(float), seed=0, step=0, batch_size=1, seq_len=5)
    with pytest.raises(TypeError, match="numpy array"):
        sample_batch(list(STREAM), seed=0, step=0, batch_size=1, seq_len=5)
    with pytest.raises(ValueError, match="1-D stream"):
        sample_batch(
            STREAM.reshape(10, 10, 10), seed=0, step=0, batch_size=1, seq_len=5
        )


@given(n=st.integers(2, 200), seq_len=st.integers(1, 30), batch_size=st.integers(1, 9))
def test_eval_batches_score_every_target_once(n, seq_len, batch_size):
    stream = np.arange(n, dtype=np.int64)
    if n - 1 < seq_len:
        with pytest.raises(ValueError, match="too few"):
            eval_batches(stream, batch_size=batch_size, seq_len=seq_len)
        return
    batches = list(eval_batches(stream, batch_size=batch_size, seq_len=seq_len))
    assert all(b.shape[1] == seq_len + 1 and b.dtype == np.int32 for b in batches)
    assert (
        all(b.shape[0] == batch_size for b in batches[:-1])
        and 1 <= batches[-1].shape[0] <= batch_size
    )
    windows = np.concatenate(batches)
    assert windows.shape[0] == num_eval_windows(stream, seq_len) == (n - 1) // seq_len
    targets = windows[:, 1:].reshape(-1)
    # every target x_1..x_{WL} exactly once, in order; fewer than seq_len left out
    assert np.array_equal(targets, np.arange(1, targets.size + 1))
    assert (n - 1) - targets.size < seq_len
    assert np.array_equal(windows[:, :-1].reshape(-1), np.arange(targets.size))


def test_eval_batches_rows_and_max_batches():
    rows = np.arange(10 * 4, dtype=np.int32).reshape(10, 4)
    got = list(eval_batches(rows, batch_size=3, seq_len=None))
    assert [b.shape for b in got] == [(3, 4), (3, 4), (3, 4), (1, 4)]
    assert np.array_equal(np.concatenate(got), rows)
    assert len(list(eval_batches(rows, batch_size=3, seq_len=3, max_batches=2))) == 2
    with pytest.raises(ValueError, match="max_len - 1"):
        eval_batches(rows, batch_size=3, seq_len=7)
    with pytest.raises(ValueError, match="max_batches must be >= 1"):
        eval_batches(rows, batch_size=3, seq_len=None, max_batches=0)
    # deterministic: two passes agree
    a = list(eval_batches(STREAM, batch_size=4, seq_len=33))
    b = list(eval_batches(STREAM, batch_size=4, seq_len=33))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@given(n=st.integers(2, 200), seq_len=st.integers(1, 50))
def test_require_window_counts_the_windows_or_names_the_source(n, seq_len):
    # a stream of n ids has a window iff n > seq_len; the count is that of the windows
    # x_{wL} .. x_{wL+L} inside the stream, counted one by one
    tokens = np.zeros(n, dtype=np.uint8)
    if n > seq_len:
        brute = sum(1 for w in range(n) if w * seq_len + seq_len + 1 <= n)
        assert require_window(tokens, seq_len, "the split") == brute
        return
    with pytest.raises(ValueError) as e:
        require_window(tokens, seq_len, "the split", source="UTF-8 file /x/a.txt, 9 bytes")
    msg = str(e.value)
    assert msg.startswith(f"the split has {n} tokens, fewer than one window of seq_len + 1 ")
    assert f"more than seq_len = {seq_len} tokens" in msg
    assert msg.endswith("The corpus: UTF-8 file /x/a.txt, 9 bytes.")
