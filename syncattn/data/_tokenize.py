"""Seed 001's word tokenisers (a leaf: `Corpus.encode` and the word loaders both use it)."""

from __future__ import annotations

import re
import string


_WT2_PUNCT = re.compile(r"""([.,!?;:()\[\]{}"'])""")
_TS_TABLE = str.maketrans(string.punctuation, " " * len(string.punctuation))


def tokenize(text: str, tokenizer: str | None) -> list[str]:
    r"""Split `text` into words by seed 001's rule ``"wikitext2"`` or ``"tinystories"``.

    ``"wikitext2"``: lower-case, spaces around each of ``. , ! ? ; : ( ) [ ] { } " '``,
    split on whitespace. ``"tinystories"``: lower-case, every ASCII punctuation
    character becomes a space, split on whitespace.

    Raises:
        ValueError: another `tokenizer`.
    """
    if tokenizer == "wikitext2":
        return _WT2_PUNCT.sub(r" \1 ", text.lower()).split()
    if tokenizer == "tinystories":
        return text.lower().translate(_TS_TABLE).split()
    raise ValueError(
        f"tokenizer must be 'wikitext2' or 'tinystories'; got {tokenizer!r}."
    )
