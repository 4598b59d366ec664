"""`load_corpus`: one name for every corpus, byte (``_corpus``) or word (``_words``)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable

from . import _words
from ._corpus import (
    Corpus,
    _load_embedded,
    _load_enwik8,
    _load_jargon,
    _load_text,
    cache_dir,
)


# ---------------------------------------------------------------- dispatch


def _loaders() -> dict[str, Callable[..., Corpus]]:
    return {
        "embedded": _load_embedded,
        "jargon": _load_jargon,
        "enwik8": _load_enwik8,
        "text": _load_text,
        "wikitext2": _words.load_wikitext2,
        "tinystories": _words.load_tinystories,
        "embedded-words": _words.load_embedded_words,
    }


CORPUS_NAMES = (
    "embedded",
    "jargon",
    "enwik8",
    "text",
    "wikitext2",
    "tinystories",
    "embedded-words",
)


def load_corpus(
    name: str = "embedded", path: str | os.PathLike | None = None, **options
) -> Corpus:
    r"""Load a named corpus as memory-mapped token arrays.

    Byte corpora (token $x_t \in \{0,\dots,255\}$, one per byte):

    * ``"embedded"`` (default): the King James Bible shipped in the package
      (4.2 MB; contiguous split 90% / 5% / 5%, options ``val_fraction``,
      ``test_fraction``);
    * ``"jargon"``: the Jargon File 4.4.7 shipped in the package (1.7 MB of modern
      English prose about computing, UTF-8 with some box-drawn tables; public
      domain), split like ``"embedded"``: the held-out text of the frustrated
      experiment (docs/experiments.md), never trained on there;
    * ``"enwik8"``: the 100,000,000-byte Hutter Prize file at `path`, split
      $[0, 9\cdot10^7)$ / $[9\cdot10^7, 9.5\cdot10^7)$ / $[9.5\cdot10^7, 10^8)$;
    * ``"text"``: any UTF-8 file at `path`; the last ``val_fraction`` (default
      0.1) of its bytes is validation, an optional ``test_fraction`` follows it.

    Word corpora, tokenised as seed 001 (``vocab_size``, ``max_len`` options):

    * ``"wikitext2"``: a folder with ``wiki.{train,valid,test}.raw`` (or
      ``.tokens``); lower-cased, ``. , ! ? ; : ( ) [ ] { } " '`` split off,
      top ``vocab_size - 4`` train words (default 10,000 ids in all); the
      non-empty lines of a split are concatenated and cut into rows
      ``BOS w_{48k+1..48k+48} EOS`` of at most 50 ids (a last piece of one id
      is dropped);
    * ``"tinystories"``: a folder with ``TinyStories-train.txt`` and
      ``TinyStories-valid.txt`` (stories separated by ``<|endoftext|>``);
      lower-cased, punctuation to spaces, top 8,000 words (8,004 ids); each
      story ``BOS ids EOS`` cut into 128-id pieces, pieces of at most 4 ids
      dropped (so only a story's first piece starts with BOS);
    * ``"embedded-words"``: the embedded corpus's lines split 90/5/5 and
      tokenised like WikiText-2.

    Every corpus accepts ``cache_dir`` (default ``$SYNCATTN_CACHE`` or
    ``~/.cache/syncattn``) where derived arrays are cached as ``.npy``.

    Args:
        name: one of ``"embedded"``, ``"jargon"``, ``"enwik8"``, ``"text"``, ``"wikitext2"``,
            ``"tinystories"``, ``"embedded-words"``.
        path: file or folder of the data; ``None`` for the embedded corpora.
        **options: loader options listed above.

    Returns:
        A [`syncattn.data.Corpus`][].

    Raises:
        ValueError: unknown name or option, empty / corrupt / wrong-size file.
        FileNotFoundError: missing file, with what to download.

    Example:
        >>> corpus = load_corpus("embedded")
        >>> corpus.decode(corpus.train[:9])
        'Genesis 1'
    """
    loaders = _loaders()
    if name not in loaders:
        raise ValueError(
            f"unknown corpus name {name!r}; choose one of {', '.join(CORPUS_NAMES)}."
        )
    loader = loaders[name]
    cache = cache_dir(options.pop("cache_dir", None))
    allowed = [
        k for k in inspect.signature(loader).parameters if k not in ("path", "cache")
    ]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"corpus {name!r} has no option(s) {unknown}; its options are "
            f"{allowed + ['cache_dir']}."
        )
    return loader(path, cache=cache, **options)
