"""Corpora as memory-mapped token arrays, a stateless batch sampler, and the SVA task.

- [`syncattn.data.load_corpus`][]: byte corpora (``"embedded"``, ``"enwik8"``,
  ``"text"``) and word corpora (``"wikitext2"``, ``"tinystories"``,
  ``"embedded-words"``) as a [`syncattn.data.Corpus`][];
- [`syncattn.data.sample_batch`][]: random windows, a pure function of
  ``(seed, step)``; [`syncattn.data.eval_batches`][]: deterministic coverage of a split;
- `syncattn.data.sva`: seed 001's synthetic subject-verb agreement task.

Nothing here imports JAX: batches are numpy ``int32`` arrays.
"""

from . import sva as sva
from ._corpus import (
    ENWIK8_SIZE as ENWIK8_SIZE,
    Corpus as Corpus,
    cache_dir as cache_dir,
)
from ._load import CORPUS_NAMES as CORPUS_NAMES, load_corpus as load_corpus
from ._sampler import (
    eval_batches as eval_batches,
    num_eval_windows as num_eval_windows,
    require_window as require_window,
    sample_batch as sample_batch,
)
from ._tokenize import tokenize as tokenize


__all__ = [
    "CORPUS_NAMES",
    "ENWIK8_SIZE",
    "Corpus",
    "cache_dir",
    "eval_batches",
    "load_corpus",
    "num_eval_windows",
    "require_window",
    "sample_batch",
    "sva",
    "tokenize",
]
