r"""The copy-depth diagnostic (issue 40): a language model's per-position loss split by
how far back the text it is predicting was seen before.

Definition (one row of tokens $x_0, \dots, x_T$; the loss $\ell_t$ at position $t$ is the
loss of predicting $x_{t+1}$ from $x_0..x_t$, as ``training.next_token_loss`` lays it
out). Position $t$ **continues a repeat at lag** $\lambda$ if the $(n+1)$-gram that
ends with the predicted token,

$$g_t = (x_{t-n+1}, \dots, x_t, x_{t+1}),$$

occurred earlier in the row ending at $s + 1$ with $\lambda = t - s \ge 1$, i.e.
$x_{s-n+1..s} = x_{t-n+1..t}$ (the last $n$ tokens of the context were seen before)
and $x_{s+1} = x_{t+1}$ (what followed them then is what comes now): a model that
finds the earlier occurrence and copies its successor predicts $x_{t+1}$. The
**copy depth** of $t$ is the largest such lag (0: none; positions $t < n - 1$, with no
full $n$-gram of context, have depth 0). The diagnostic reports, for each $d$ in
$1, 4, 16, 64, 256$, the mean loss over the positions of depth $\ge d$ (a repeat seen
$d$ or more positions back; nested sets), and over the positions of depth 0.

The default $n = 6$: on bytes, about a word and its separator, so a repeat is mostly a
genuine copy of earlier text (a name, a markup fragment, a repeated phrase) and not a
common short pattern (``"the "``, ``"ing "``), while still frequent within a 256-byte
window. Vectorised over rows and positions: the $(n+1)$-grams of a row are
numbered (``np.unique`` over the rows' grams, exact for any vocabulary) and compared
all against all, $O(T^2)$ per row.
"""

from __future__ import annotations

import numpy as np


__all__ = ["COPY_DEPTHS", "copy_depth", "copy_depth_losses"]

COPY_DEPTHS = (1, 4, 16, 64, 256)
"""The lags $d$ of the split (issue 40)."""


def _tokens(tokens) -> np.ndarray:
    x = np.asarray(tokens)
    if x.ndim == 1:
        x = x[None]
    if x.ndim != 2 or not np.issubdtype(x.dtype, np.integer):
        raise ValueError(
            "tokens must be an integer array (T + 1,) or (B, T + 1) (a row holds the context "
            f"and the predicted tokens); got dtype {x.dtype}, shape {np.shape(tokens)}."
        )
    if x.shape[1] < 2:
        raise ValueError(
            f"tokens must hold at least 2 tokens per row (T >= 1); got shape {x.shape}."
        )
    return x


def copy_depth(tokens: np.ndarray, n: int = 6) -> np.ndarray:
    r"""The copy depth of every position: the largest lag $\lambda = t - s \ge 1$ at which
    the $(n+1)$-gram $(x_{t-n+1}, \dots, x_{t+1})$ occurred before (ending at $x_{s+1}$), or 0.

    Args:
        tokens: $(T + 1,)$ or $(B, T + 1)$ integer token ids; row $b$ is one sequence.
        n: the context $n \ge 1$ that must match (module docstring: why 6).

    Returns:
        Integer depths $(T,)$ or $(B, T)$ (the shape of the losses).

    Raises:
        ValueError: `tokens` not integer 1-D or 2-D with $T \ge 1$, or `n` < 1.

    Example:
        >>> copy_depth(np.array([1, 2, 3, 1, 2, 3, 1]), n=2).tolist()  # "1 2 3" repeats at lag 3
        [0, 0, 0, 0, 3, 3]
    """
    x = _tokens(tokens)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(
            f"n must be an int >= 1 (the context that must match); got {n!r}."
        )
    B, T1 = x.shape
    T = T1 - 1
    depth = np.zeros((B, T), np.int64)
    m = T - (n - 1)  # positions t = n-1 .. T-1 have a full gram
    if m > 1:
        # gram of position t: x[t-n+1 .. t+1], n + 1 tokens; number them exactly
        idx = np.arange(n - 1, T)[:, None] + np.arange(-(n - 1), 2)[None, :]  # (m, n+1)
        grams = x[:, idx]  # (B, m, n+1)
        _, ids = np.unique(grams.reshape(-1, n + 1), axis=0, return_inverse=True)
        ids = ids.reshape(B, m)
        same = ids[:, :, None] == ids[:, None, :]  # [b, t, s]
        lag = np.arange(m)[:, None] - np.arange(m)[None, :]  # t - s
        lags = np.where(same & (lag > 0)[None], lag[None], 0)
        depth[:, n - 1 :] = lags.max(-1)
    return depth[0] if np.ndim(tokens) == 1 else depth


def copy_depth_losses(
    tokens: np.ndarray,
    losses: np.ndarray,
    n: int = 6,
    depths: tuple[int, ...] = COPY_DEPTHS,
) -> dict:
    r"""The per-position loss split by copy depth ([`copy_depth`][syncattn.stats.copy_depth]).

    $$L_{\ge d} = \frac{\sum_t \ell_t\,[\operatorname{depth}_t \ge d]}
      {\sum_t [\operatorname{depth}_t \ge d]}, \qquad
      L_0 = \text{the same over } \operatorname{depth}_t = 0$$

    over every row and position (NaN where a set is empty).

    Args:
        tokens: $(T + 1,)$ or $(B, T + 1)$ token ids.
        losses: $(T,)$ or $(B, T)$ per-position losses, $\ell_t$ the loss of $x_{t+1}$.
        n: the matched context (default 6).
        depths: the lags $d \ge 1$ (default 1, 4, 16, 64, 256).

    Returns:
        ``{"n", "depths": [d...], "loss": [L_{>=d}...], "count": [positions...],
        "loss_novel": L_0, "count_novel", "loss_all", "count_all"}`` (floats and ints).

    Raises:
        ValueError: mismatched shapes, non-finite losses, a depth < 1.

    Example:
        >>> out = copy_depth_losses(np.array([1, 2, 3, 1, 2, 3, 1]), np.arange(6.0), n=2, depths=(1, 4))
        >>> out["loss"], out["count"], out["loss_novel"]
        ([4.5, nan], [2, 0], 1.5)
    """
    x = _tokens(tokens)
    ell = np.asarray(losses, np.float64)
    if ell.ndim == 1:
        ell = ell[None]
    if ell.shape != (x.shape[0], x.shape[1] - 1):
        raise ValueError(
            f"losses must have shape (B, T) = {(x.shape[0], x.shape[1] - 1)} for tokens of "
            f"shape (B, T + 1) = {x.shape} (losses[t]: the loss of tokens[t + 1]); got "
            f"{np.shape(losses)}."
        )
    if not np.all(np.isfinite(ell)):
        raise ValueError("losses must be finite.")
    ds = [int(d) for d in depths]
    if any(d < 1 for d in ds):
        raise ValueError(f"depths must be lags >= 1; got {list(depths)}.")
    depth = copy_depth(x, n)

    def mean(mask):
        k = int(mask.sum())
        return (float(ell[mask].mean()) if k else float("nan")), k

    split = [mean(depth >= d) for d in ds]
    novel, k0 = mean(depth == 0)
    every, k = mean(np.ones_like(depth, bool))
    return {
        "n": int(n),
        "depths": ds,
        "loss": [s[0] for s in split],
        "count": [s[1] for s in split],
        "loss_novel": novel,
        "count_novel": k0,
        "loss_all": every,
        "count_all": k,
    }
