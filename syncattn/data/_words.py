"""Word-level corpora tokenised as seed 001 (WikiText-2 and TinyStories recipes).

Both recipes give ids ``PAD=0, BOS=1, EOS=2, UNK=3`` followed by the most frequent
train words in decreasing count, ties in order of first appearance (the order of
``collections.Counter.most_common``). Words outside the vocabulary become UNK.

* WikiText-2: lower-case, put spaces around each of ``. , ! ? ; : ( ) [ ] { } " '``,
  split on whitespace. The non-empty lines of a split are concatenated into one id
  stream and cut into pieces of ``max_len - 2`` ids; each piece becomes a row
  ``BOS piece EOS``; a last piece shorter than 2 ids is dropped (so ``max_len >= 4``:
  the seed's code drops every piece of fewer than 2 ids).
* TinyStories: lower-case, every ASCII punctuation character becomes a space,
  split on whitespace. Each story becomes ``BOS ids EOS``, cut into consecutive
  pieces of ``max_len`` ids; pieces of at most 4 ids are dropped. Only a story's
  first piece starts with BOS and only its last ends with EOS.

Rows are padded with PAD to ``max_len``. Files are streamed twice (counting, then
encoding into a ``.npy`` on disk), so a corpus larger than memory is fine; the
result is cached under ``<cache>/words/`` and memory-mapped on later loads.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from ._corpus import Corpus, embedded_text_bytes
from ._tokenize import tokenize as tokenize
from ._word_files import (
    TS_SEPARATOR as TS_SEPARATOR,
    _cache_key,
    _cached_word_arrays,
    _files_cache_key,
    _find_files,
    _iter_lines,
    _iter_stories,
    _write_vocab,
)


PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3
WT2_SPECIALS = ("<PAD>", "<BOS>", "<EOS>", "<UNK>")
TS_SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")


WIKITEXT2_HELP = (
    "WikiText-2 is the folder `wikitext-2-raw` of wikitext-2-raw-v1.zip (files "
    "wiki.train.raw, wiki.valid.raw, wiki.test.raw) or `wikitext-2` of "
    "wikitext-2-v1.zip (wiki.*.tokens); download and unzip it, then pass the folder "
    "as path= / --data-path."
)
TINYSTORIES_HELP = (
    "TinyStories is the pair TinyStories-train.txt / TinyStories-valid.txt (or "
    "TinyStoriesV2-GPT4-train.txt / -valid.txt) of the roneneldan/TinyStories "
    "dataset, stories separated by <|endoftext|>; put them in one folder and pass "
    "it as path= / --data-path."
)


def build_vocab(
    counts: Counter, vocab_size: int, specials: tuple[str, ...]
) -> tuple[str, ...]:
    """``specials`` then the ``vocab_size - len(specials)`` most common words (ties: first seen)."""
    words = [
        w
        for w, _ in counts.most_common(vocab_size - len(specials))
        if w not in specials
    ]
    return (*specials, *words)


def chunk_stream(ids: np.ndarray, max_len: int) -> np.ndarray:
    """WikiText-2 rows: pieces of ``max_len - 2`` ids wrapped as ``BOS piece EOS``, PAD-padded."""
    step = max_len - 2
    n = ids.shape[0]
    n_full, rest = divmod(n, step)
    n_rows = n_full + (1 if rest >= 2 else 0)
    out = np.full((n_rows, max_len), PAD_ID, dtype=np.int32)
    out[:, 0] = BOS_ID
    out[:n_full, 1 : step + 1] = ids[: n_full * step].reshape(n_full, step)
    out[:n_full, step + 1] = EOS_ID
    if rest >= 2:
        out[n_full, 1 : rest + 1] = ids[n_full * step :]
        out[n_full, rest + 1] = EOS_ID
    return out


def story_pieces(n_words: int, max_len: int) -> list[tuple[int, int]]:
    """TinyStories pieces of ``BOS w_1..w_n EOS`` as ``(start, stop)`` offsets, short pieces dropped."""
    m = n_words + 2
    return [
        (i, min(i + max_len, m))
        for i in range(0, m, max_len)
        if min(i + max_len, m) - i > 4
    ]


def _check_sizes(vocab_size, max_len, min_len: int) -> tuple[int, int]:
    for value, name, lo in (
        (vocab_size, "vocab_size", 5),
        (max_len, "max_len", min_len),
    ):
        if (
            not isinstance(value, int | np.integer)
            or isinstance(value, bool)
            or value < lo
        ):
            raise ValueError(f"{name} must be an int >= {lo}; got {value!r}.")
    return int(vocab_size), int(max_len)


def _count_words(
    units: dict[str, Callable[[], Iterable[str]]],
    tokenizer: str,
    size: Callable[[list[str]], int],
) -> tuple[Counter, dict[str, int]]:
    """The first pass over every split's texts (lines, stories): the word counts of the
    train split and, per split, the total of ``size(words)`` over its texts (the room
    the second pass, the encoding, needs)."""
    counts: Counter = Counter()
    sizes = {}
    for split, texts in units.items():
        n = 0
        for text in texts():
            words = tokenize(text, tokenizer)
            n += size(words)
            if split == "train":
                counts.update(words)
        sizes[split] = n
    return counts, sizes


def _encoder(
    counts: Counter, vocab_size: int, specials: tuple[str, ...], tokenizer: str
) -> tuple[tuple[str, ...], Callable[[str], list[int]]]:
    """The vocabulary ([`build_vocab`][syncattn.data._words.build_vocab]) and the map
    from a text to its ids (UNK outside the vocabulary)."""
    vocab = build_vocab(counts, vocab_size, specials)
    table = {w: i for i, w in enumerate(vocab)}

    def encode(text: str) -> list[int]:
        return [table.get(w, UNK_ID) for w in tokenize(text, tokenizer)]

    return vocab, encode


def _word_corpus(
    name, tokenizer: str, vocab: tuple[str, ...], arrays, source: str
) -> Corpus:
    return Corpus(
        name=name,
        kind="word",
        vocab_size=len(vocab),
        train=arrays["train"],
        val=arrays["val"],
        test=arrays["test"],
        pad_id=PAD_ID,
        vocab=vocab,
        source=source,
        tokenizer=tokenizer,
        bos_id=BOS_ID,
        eos_id=EOS_ID,
        unk_id=UNK_ID,
    )


# ---------------------------------------------------------------- WikiText-2 recipe


def _build_wt2(
    tmp: Path,
    splits: dict[str, Callable[[], Iterable[str]]],
    vocab_size: int,
    max_len: int,
    what: str,
) -> None:
    """Two passes per split: count words (train) and tokens, then encode into one stream and chunk."""
    counts, n_tokens = _count_words(splits, "wikitext2", len)
    if n_tokens["train"] == 0:
        raise ValueError(f"{what}: the train split holds no words; is the file empty?")
    vocab, encode = _encoder(counts, vocab_size, WT2_SPECIALS, "wikitext2")
    for split, lines in splits.items():
        ids = np.empty(n_tokens[split], dtype=np.int32)
        pos = 0
        for line in lines():
            enc = encode(line)
            ids[pos : pos + len(enc)] = enc
            pos += len(enc)
        rows = chunk_stream(ids, max_len)
        if rows.shape[0] == 0:
            raise ValueError(f"{what}: the {split} split has fewer than 2 words.")
        np.save(tmp / f"{split}.npy", rows)
    _write_vocab(tmp, vocab, {"tokenizer": "wikitext2", "max_len": max_len})


def _find_wikitext_files(path) -> dict[str, Path]:
    return _find_files(
        path,
        "wikitext2",
        (
            {
                s: Path(sub, f"wiki.{f}.{ext}")
                for s, f in (("train", "train"), ("val", "valid"), ("test", "test"))
            }
            for sub in ("", "wikitext-2-raw", "wikitext-2")
            for ext in ("raw", "tokens")
        ),
        "wiki.train/valid/test.raw (or .tokens) triple",
        WIKITEXT2_HELP,
    )


def load_wikitext2(
    path, *, cache: Path, vocab_size: int = 10_000, max_len: int = 50
) -> Corpus:
    """WikiText-2 from local files, seed 001's recipe (see the module docstring)."""
    vocab_size, max_len = _check_sizes(vocab_size, max_len, 4)
    files = _find_wikitext_files(path)
    key = _files_cache_key("wikitext2", files, vocab_size, max_len, WIKITEXT2_HELP)
    splits = {
        s: (lambda p=p, s=s: _iter_lines(p, f"wikitext2 {s}")) for s, p in files.items()
    }
    arrays, vocab = _cached_word_arrays(
        cache / "words" / f"wikitext2-{key}",
        lambda tmp: _build_wt2(
            tmp, splits, vocab_size, max_len, str(files["train"].parent)
        ),
    )
    return _word_corpus(
        "wikitext2",
        "wikitext2",
        vocab,
        arrays,
        f"WikiText-2 files in {files['train'].parent} ({files['train'].suffix[1:]})",
    )


def load_embedded_words(
    path,
    *,
    cache: Path,
    vocab_size: int = 10_000,
    max_len: int = 50,
    val_fraction: float = 0.05,
    test_fraction: float = 0.05,
) -> Corpus:
    """The embedded corpus's non-empty lines, split 90/5/5 by line, WikiText-2 recipe."""
    from ._corpus import _fraction

    if path is not None:
        raise ValueError("'embedded-words' ships inside the package and takes no path.")
    vocab_size, max_len = _check_sizes(vocab_size, max_len, 4)
    f_val, f_test = (
        _fraction(val_fraction, "val_fraction"),
        _fraction(test_fraction, "test_fraction"),
    )
    stream = embedded_text_bytes(cache)
    digest = hashlib.sha256(np.asarray(stream[: 1 << 20]).tobytes()).hexdigest()[:8]
    key = _cache_key(
        {
            "recipe": "embedded-words",
            "size": int(stream.shape[0]),
            "head": digest,
            "vocab_size": vocab_size,
            "max_len": max_len,
            "val": f_val,
            "test": f_test,
        }
    )

    def lines_of() -> dict[str, list[str]]:
        lines = [ln for ln in bytes(stream).decode("utf-8").split("\n") if ln.strip()]
        n_val, n_test = round(len(lines) * f_val), round(len(lines) * f_test)
        n_train = len(lines) - n_val - n_test
        out = {"train": lines[:n_train], "val": lines[n_train : n_train + n_val]}
        if n_test:
            out["test"] = lines[n_train + n_val :]
        return out

    def build(tmp: Path) -> None:
        parts = lines_of()
        _build_wt2(
            tmp,
            {s: (lambda v=v: v) for s, v in parts.items()},
            vocab_size,
            max_len,
            "embedded-words",
        )

    arrays, vocab = _cached_word_arrays(
        cache / "words" / f"embedded-words-{key}", build
    )
    return _word_corpus(
        "embedded-words",
        "wikitext2",
        vocab,
        arrays,
        "King James Bible (public domain, shipped), lines split 90/5/5, WikiText-2 tokenisation",
    )


# ---------------------------------------------------------------- TinyStories recipe


def _find_tinystories_files(path) -> dict[str, Path]:
    return _find_files(
        path,
        "tinystories",
        (
            {"train": Path(f"{stem}-train.txt"), "val": Path(f"{stem}-valid.txt")}
            for stem in ("TinyStories", "TinyStoriesV2-GPT4")
        ),
        "TinyStories-train.txt / TinyStories-valid.txt pair",
        TINYSTORIES_HELP,
    )


def _build_tinystories(
    tmp: Path, files: dict[str, Path], vocab_size: int, max_len: int
) -> None:
    counts, n_rows = _count_words(
        {
            s: (lambda p=p, s=s: _iter_stories(p, f"tinystories {s} (count)"))
            for s, p in files.items()
        },
        "tinystories",
        lambda words: len(story_pieces(len(words), max_len)),
    )
    for split, p in files.items():
        if n_rows[split] == 0:
            raise ValueError(
                f"{p} holds no story of at least 3 words; is it a TinyStories file?"
            )
    vocab, encode = _encoder(counts, vocab_size, TS_SPECIALS, "tinystories")
    for split, p in files.items():
        out = np.lib.format.open_memmap(
            tmp / f"{split}.npy",
            mode="w+",
            dtype=np.int32,
            shape=(n_rows[split], max_len),
        )
        out[:] = PAD_ID
        r = 0
        for story in _iter_stories(p, f"tinystories {split} (encode)"):
            ids = [BOS_ID, *encode(story), EOS_ID]
            for start, stop in story_pieces(len(ids) - 2, max_len):
                out[r, : stop - start] = ids[start:stop]
                r += 1
        out.flush()
        del out
    _write_vocab(tmp, vocab, {"tokenizer": "tinystories", "max_len": max_len})


def load_tinystories(
    path, *, cache: Path, vocab_size: int = 8_004, max_len: int = 128
) -> Corpus:
    """TinyStories from local ``*-train.txt`` / ``*-valid.txt`` files, seed 001's recipe (no test split)."""
    vocab_size, max_len = _check_sizes(vocab_size, max_len, 5)
    files = _find_tinystories_files(path)
    key = _files_cache_key("tinystories", files, vocab_size, max_len, TINYSTORIES_HELP)
    arrays, vocab = _cached_word_arrays(
        cache / "words" / f"tinystories-{key}",
        lambda tmp: _build_tinystories(tmp, files, vocab_size, max_len),
    )
    return _word_corpus(
        "tinystories",
        "tinystories",
        vocab,
        arrays,
        f"TinyStories files {files['train'].name} / {files['val'].name} in {files['train'].parent}",
    )
