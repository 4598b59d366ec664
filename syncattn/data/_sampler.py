"""Batches: a stateless random sampler and a deterministic evaluation iterator.

`sample_batch` is a pure function of ``(seed, step)``: resuming a run at step
``s`` needs no data-loader state, only ``s``. Indexing a ``np.memmap`` with the
window indices reads just the touched pages, so the corpus never has to fit in
memory.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator

import numpy as np
from jaxtyping import Int, Integer


def _int(value, name: str, minimum: int) -> int:
    try:
        v = operator.index(value)
    except TypeError as e:
        raise TypeError(f"{name} must be an int; got {type(value).__name__}.") from e
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {v}.")
    return v


def _check_tokens(tokens) -> np.ndarray:
    if not isinstance(tokens, np.ndarray):
        raise TypeError(
            f"tokens must be a numpy array (or np.memmap); got {type(tokens).__name__}."
        )
    if tokens.ndim not in (1, 2):
        raise ValueError(
            "tokens must be a 1-D stream (n,) or a 2-D chunk array (n_chunks, max_len); "
            f"got shape {tokens.shape}."
        )
    if not np.issubdtype(tokens.dtype, np.integer):
        raise TypeError(f"tokens must hold integer ids; got dtype {tokens.dtype}.")
    if tokens.shape[0] == 0:
        raise ValueError("tokens is empty.")
    return tokens


def _check_rows_seq_len(tokens: np.ndarray, seq_len) -> None:
    max_len = tokens.shape[1]
    if seq_len is not None and _int(seq_len, "seq_len", 1) + 1 != max_len:
        raise ValueError(
            f"tokens holds rows of max_len={max_len} ids, so seq_len must be "
            f"max_len - 1 = {max_len - 1} (or None); got {seq_len}. Word corpora come "
            "as fixed rows: set the model's context to max_len - 1."
        )


def sample_batch(
    tokens: Integer[np.ndarray, " n"] | Integer[np.ndarray, "n_chunks max_len"],
    *,
    seed: int,
    step: int,
    batch_size: int,
    seq_len: int | None,
) -> Int[np.ndarray, "batch_size window"]:
    r"""Random training windows, a pure function of ``(seed, step)``.

    For a 1-D stream $x_0,\dots,x_{n-1}$, row $b$ is the window

    $$X_{b,j} = x_{s_b + j}, \qquad j = 0,\dots,L, \qquad
      s_b \sim \mathcal{U}\{0,\dots,n-L-1\}$$

    of $L+1$ ids (inputs $X_{b,:L}$, targets $X_{b,1:}$), with $L$ = `seq_len`.
    For a 2-D chunk array it returns rows $r_b \sim \mathcal{U}\{0,\dots,
    n_\text{chunks}-1\}$ whole, shape ``(batch_size, max_len)``. The starts (or
    rows) are drawn independently with replacement from
    ``np.random.default_rng([seed, step])``.

    Args:
        tokens: 1-D id stream or 2-D chunk array (``np.memmap`` welcome).
        seed: run seed, ``>= 0``.
        step: training step, ``>= 0``.
        batch_size: rows per batch, ``>= 1``.
        seq_len: window length $L \ge 1$ for streams; for chunk arrays ``None`` or
            ``max_len - 1``.

    Returns:
        ``int32`` array ``(batch_size, seq_len + 1)``, or ``(batch_size, max_len)``.

    Raises:
        ValueError: stream shorter than ``seq_len + 1``, bad sizes or a
            ``seq_len`` that does not fit the rows.
    """
    tokens = _check_tokens(tokens)
    seed = _int(seed, "seed", 0)
    step = _int(step, "step", 0)
    batch_size = _int(batch_size, "batch_size", 1)
    rng = np.random.default_rng([seed, step])
    if tokens.ndim == 2:
        _check_rows_seq_len(tokens, seq_len)
        rows = rng.integers(0, tokens.shape[0], size=batch_size)
        return np.asarray(tokens[rows], dtype=np.int32)
    if seq_len is None:
        raise ValueError("seq_len is required for a 1-D token stream.")
    seq_len = _int(seq_len, "seq_len", 1)
    n = tokens.shape[0]
    if n < seq_len + 1:
        raise ValueError(
            f"the stream has {n} tokens, fewer than seq_len + 1 = {seq_len + 1}; "
            "use a shorter seq_len or a larger split."
        )
    starts = rng.integers(0, n - seq_len, size=batch_size)
    index = starts[:, None] + np.arange(seq_len + 1)[None, :]
    return np.asarray(tokens[index], dtype=np.int32)


def require_window(
    tokens, seq_len: int, what: str, *, hint: str = "more data", source: str = ""
) -> int:
    r"""Check that `tokens` holds at least one window of ``seq_len + 1`` ids; return the
    number of evaluation windows ([`num_eval_windows`][syncattn.data.num_eval_windows]).

    A 1-D stream of $n$ ids needs $n \ge L + 1$, i.e. more than $L$ = `seq_len` ids
    (then both `sample_batch` and `eval_batches` have a window), and has
    $\lfloor (n - 1)/L \rfloor$ evaluation windows; a 2-D chunk array needs rows of
    $L + 1$ ids. Training calls it on the training and validation splits before it
    writes anything.

    Args:
        tokens: the split, a 1-D stream or 2-D chunk rows.
        seq_len: the window length $L \ge 1$.
        what: the split's name in the error (``"the training split of corpus 'text'"``).
        hint: the other remedy the error suggests, after a shorter `seq_len`.
        source: where the split came from (the file and its size), appended to the
            error.

    Raises:
        ValueError: ``"{what} has n tokens, fewer than one window of seq_len + 1 ...
            The corpus: {source}."``.
    """
    tokens = _check_tokens(tokens)
    if tokens.ndim == 2:
        _check_rows_seq_len(tokens, seq_len)
        return tokens.shape[0]
    seq_len = _int(seq_len, "seq_len", 1)
    n = tokens.shape[0]
    if n < seq_len + 1:
        raise ValueError(
            f"{what} has {n:,} tokens, fewer than one window of seq_len + 1 = "
            f"{seq_len + 1:,} (a split must hold more than seq_len = {seq_len:,} tokens); "
            f"use a shorter seq_len or {hint}." + (f" The corpus: {source}." if source else "")
        )
    return (n - 1) // seq_len


def num_eval_windows(tokens: np.ndarray, seq_len: int | None) -> int:
    """Number of rows `eval_batches` yields in all: $\\lfloor (n-1)/L \\rfloor$ windows, or ``n_chunks``."""
    tokens = _check_tokens(tokens)
    if tokens.ndim == 2:
        _check_rows_seq_len(tokens, seq_len)
        return tokens.shape[0]
    if seq_len is None:
        raise ValueError("seq_len is required for a 1-D token stream.")
    return (tokens.shape[0] - 1) // _int(seq_len, "seq_len", 1)


def eval_batches(
    tokens: Integer[np.ndarray, " n"] | Integer[np.ndarray, "n_chunks max_len"],
    *,
    batch_size: int,
    seq_len: int | None,
    max_batches: int | None = None,
) -> Iterator[Int[np.ndarray, "b window"]]:
    r"""Deterministic evaluation batches covering a split once.

    For a 1-D stream, window $w$ is $x_{wL}, \dots, x_{wL+L}$ for
    $w = 0,\dots,W-1$ with $W = \lfloor (n-1)/L \rfloor$: consecutive windows share
    one id, so every target $x_1,\dots,x_{WL}$ is scored exactly once (the last
    $(n-1) - WL < L$ targets are not scored). For a 2-D chunk array the rows are
    yielded in order. Batches hold `batch_size` windows; the last may be smaller.

    Args:
        tokens: 1-D id stream or 2-D chunk array.
        batch_size: windows per batch, ``>= 1``.
        seq_len: $L$; for chunk arrays ``None`` or ``max_len - 1``.
        max_batches: stop after this many batches (the first ones); ``None`` = all.

    Yields:
        ``int32`` arrays ``(b, seq_len + 1)`` or ``(b, max_len)``, ``b <= batch_size``.
    """
    n_windows = num_eval_windows(tokens, seq_len)
    batch_size = _int(batch_size, "batch_size", 1)
    if max_batches is not None:
        max_batches = _int(max_batches, "max_batches", 1)
    if n_windows == 0:
        raise ValueError(
            f"the stream has {tokens.shape[0]} tokens, too few for one window of "
            f"seq_len + 1 = {seq_len + 1}."
        )
    return _eval_iter(tokens, n_windows, batch_size, seq_len, max_batches)


def _eval_iter(tokens, n_windows, batch_size, seq_len, max_batches):
    for k, first in enumerate(range(0, n_windows, batch_size)):
        if max_batches is not None and k >= max_batches:
            return
        last = min(first + batch_size, n_windows)
        if tokens.ndim == 2:
            yield np.asarray(tokens[first:last], dtype=np.int32)
        else:
            # windows [wL, wL + L] for w in [first, last): one contiguous read
            block = np.asarray(
                tokens[first * seq_len : last * seq_len + 1], dtype=np.int32
            )
            starts = np.arange(last - first)[:, None] * seq_len
            yield block[starts + np.arange(seq_len + 1)[None, :]]
