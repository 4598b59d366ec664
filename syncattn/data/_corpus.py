"""Corpora as memory-mapped token arrays: the `Corpus` record and the byte-level loaders.

Conventions:

* a byte corpus is a 1-D ``uint8`` stream (token = byte, vocabulary 256); its splits
  are contiguous slices of one ``np.memmap``, so nothing is read until a batch
  touches it;
* a word corpus is a 2-D ``int32`` array ``(n_chunks, max_len)``, one training
  sequence per row, padded with ``pad_id`` (see `syncattn.data._words`);
* derived arrays (the decompressed embedded text, word-level token arrays) are
  cached as ``.npy`` files under the cache directory and reopened with
  ``np.load(..., mmap_mode="r")``.
"""

from __future__ import annotations

import codecs
import dataclasses
import functools
import hashlib
import lzma
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ._tokenize import tokenize


ENWIK8_SIZE = 100_000_000
"""Size of the enwik8 file in bytes (the first $10^8$ bytes of an English Wikipedia dump)."""

ENWIK8_SPLIT = (90_000_000, 5_000_000, 5_000_000)
"""The standard enwik8 train / validation / test split, in bytes."""

ENWIK8_HELP = (
    "enwik8 is the 100,000,000-byte file `enwik8` of the Hutter Prize: download "
    "enwik8.zip from the Hutter Prize site (mattmahoney.net/dc/enwik8.zip, also "
    "linked from prize.hutter1.net), unzip it, and pass the unzipped file (or the "
    "folder holding it) as path= / --data-path."
)

EMBEDDED_NAME = "kjv.txt.xz"
JARGON_NAME = "jargon.txt.xz"
_EMBEDDED_DIR = Path(__file__).parent / "_embedded"
_UTF8_BLOCK = 1 << 24


def cache_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """The folder for derived arrays: `cache_dir`, else ``$SYNCATTN_CACHE``, else ``~/.cache/syncattn``."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get("SYNCATTN_CACHE")
    if env:
        return Path(env).expanduser()
    return Path("~/.cache/syncattn").expanduser()


@dataclasses.dataclass(frozen=True, eq=False)
class Corpus:
    r"""A tokenised corpus split into train / val / (test) token arrays.

    Byte corpora (``kind="byte"``) hold 1-D ``uint8`` streams with vocabulary
    $\{0,\dots,255\}$: ``encode`` is UTF-8 encoding and ``decode`` UTF-8 decoding
    (invalid sequences become U+FFFD). Word corpora (``kind="word"``) hold 2-D
    ``int32`` arrays ``(n_chunks, max_len)`` whose rows are ``BOS ids EOS`` padded
    with ``pad_id`` (seed 001's chunking, see [`syncattn.data.load_corpus`][]);
    ``encode`` tokenises with the corpus's own rule and maps unknown words to
    ``unk_id``; ``decode`` joins the words with spaces and drops padding.

    Attributes:
        name: loader name (``"embedded"``, ``"enwik8"``, ...).
        kind: ``"byte"`` or ``"word"``.
        vocab_size: number of token ids; every id lies in ``[0, vocab_size)``.
        train, val, test: token arrays; ``test`` may be ``None``.
        pad_id: padding id of word corpora; ``None`` for byte streams.
        vocab: the words of a word corpus, indexed by id; ``None`` for bytes.
        source: where the data came from (for logs).
        tokenizer: word corpora only: ``"wikitext2"`` or ``"tinystories"``.
        bos_id, eos_id, unk_id: special ids of word corpora.
    """

    name: str
    kind: Literal["byte", "word"]
    vocab_size: int
    train: np.ndarray
    val: np.ndarray
    test: np.ndarray | None
    pad_id: int | None = None
    vocab: tuple[str, ...] | None = None
    source: str = ""
    tokenizer: str | None = None
    bos_id: int | None = None
    eos_id: int | None = None
    unk_id: int | None = None

    def __post_init__(self):
        if self.kind not in ("byte", "word"):
            raise ValueError(f"kind must be 'byte' or 'word'; got {self.kind!r}.")
        want_ndim = 1 if self.kind == "byte" else 2
        for split in ("train", "val", "test"):
            arr = getattr(self, split)
            if arr is None and split == "test":
                continue
            if not isinstance(arr, np.ndarray) or arr.ndim != want_ndim:
                raise ValueError(
                    f"{split} of a {self.kind} corpus must be a {want_ndim}-D numpy array; "
                    f"got {type(arr).__name__} with shape {getattr(arr, 'shape', None)}."
                )
            if arr.size == 0:
                raise ValueError(f"{split} split of corpus {self.name!r} is empty.")
        if self.kind == "word" and (self.vocab is None or self.pad_id is None):
            raise ValueError("a word corpus needs vocab and pad_id.")
        if self.vocab is not None and len(self.vocab) != self.vocab_size:
            raise ValueError(
                f"len(vocab)={len(self.vocab)} differs from vocab_size={self.vocab_size}."
            )

    @property
    def max_len(self) -> int | None:
        """Row length of a word corpus (a model sees ``max_len - 1`` positions); ``None`` for bytes."""
        return int(self.train.shape[1]) if self.kind == "word" else None

    def __repr__(self) -> str:
        sizes = ", ".join(
            f"{s}={getattr(self, s).shape}"
            for s in ("train", "val", "test")
            if getattr(self, s) is not None
        )
        return f"Corpus(name={self.name!r}, kind={self.kind!r}, vocab_size={self.vocab_size}, {sizes}, source={self.source!r})"

    @functools.cached_property
    def _word_to_id(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.vocab or ())}

    def encode(self, text: str) -> np.ndarray:
        """Token ids of `text`: UTF-8 bytes (``uint8``) or word ids (``int32``, no BOS/EOS)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str; got {type(text).__name__}.")
        if self.kind == "byte":
            return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy()
        table = self._word_to_id
        return np.asarray(
            [table.get(w, self.unk_id) for w in tokenize(text, self.tokenizer)],
            dtype=np.int32,
        )

    def decode(self, ids) -> str:
        """Text of token ids `ids` (any integer array-like); the inverse of `encode` up to tokenisation."""
        arr = np.asarray(ids)
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"ids must be integers; got dtype {arr.dtype}.")
        arr = arr.reshape(-1).astype(np.int64)
        if arr.size and (arr.min() < 0 or arr.max() >= self.vocab_size):
            raise ValueError(
                f"ids must lie in [0, {self.vocab_size}); got range "
                f"[{arr.min()}, {arr.max()}]."
            )
        if self.kind == "byte":
            return arr.astype(np.uint8).tobytes().decode("utf-8", errors="replace")
        vocab = self.vocab or ()
        return " ".join(vocab[i] for i in arr.tolist() if i != self.pad_id)


# ---------------------------------------------------------------- file helpers


def _atomic_save_npy(path: Path, arr: np.ndarray) -> None:
    """Write ``arr`` to ``path`` through a temporary file and a rename (no torn caches)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, arr)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _load_npy(path: Path) -> np.ndarray:
    try:
        return np.load(path, mmap_mode="r")
    except (ValueError, OSError) as e:
        raise ValueError(
            f"cache file {path} is corrupt ({e}); delete it and load again to rebuild."
        ) from e


def cached_array(path: Path, build: Callable[[], np.ndarray]) -> np.ndarray:
    """``np.load(path, mmap_mode="r")``, building and saving the array first if absent."""
    if not path.exists():
        _atomic_save_npy(path, np.ascontiguousarray(build()))
    return _load_npy(path)


def _check_utf8(path: Path) -> None:
    """Stream `path` through an incremental UTF-8 decoder; ValueError at the first bad byte."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    with open(path, "rb") as f:
        while True:
            block = f.read(_UTF8_BLOCK)
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as e:
                raise ValueError(
                    f"{path} is not valid UTF-8 (bad byte near offset {offset + e.start}); "
                    "pass a UTF-8 text file, or check_utf8=False to read it as raw bytes."
                ) from e
            if not block:
                return
            offset += len(block)


def _memmap_file(path: Path) -> np.memmap:
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"{path} is empty; pass a non-empty text file.")
    return np.memmap(path, dtype=np.uint8, mode="r", shape=(size,))


def _fraction(value: Any, name: str) -> float:
    try:
        f = float(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name} must be a number in [0, 1); got {value!r}.") from e
    if not 0.0 <= f < 1.0:
        raise ValueError(f"{name} must lie in [0, 1); got {value!r}.")
    return f


def _byte_splits(
    stream: np.ndarray, val_fraction: float, test_fraction: float, what: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Contiguous train | val | test slices of a byte stream (views of the same memmap)."""
    n = stream.shape[0]
    n_val = int(round(n * val_fraction))
    n_test = int(round(n * test_fraction))
    n_train = n - n_val - n_test
    if n_val < 1 or n_train < 1 or (test_fraction > 0 and n_test < 1):
        raise ValueError(
            f"{what} has {n} bytes: too few for val_fraction={val_fraction} and "
            f"test_fraction={test_fraction} (each split needs at least one byte)."
        )
    train = stream[:n_train]
    val = stream[n_train : n_train + n_val]
    test = stream[n_train + n_val :] if n_test else None
    return train, val, test


# ---------------------------------------------------------------- byte loaders


def _embedded_path(name: str = EMBEDDED_NAME) -> Path:
    return _EMBEDDED_DIR / name


def embedded_text_bytes(cache: Path, name: str = EMBEDDED_NAME) -> np.ndarray:
    """A decompressed embedded text (`name`: ``kjv.txt.xz``, the default corpus, or
    ``jargon.txt.xz``) as a memory-mapped ``uint8`` array (cached ``.npy``, keyed by
    the compressed file's hash)."""
    src = _embedded_path(name)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()[:16]

    def build() -> np.ndarray:
        try:
            raw = lzma.decompress(src.read_bytes())
        except lzma.LZMAError as e:
            raise ValueError(
                f"the embedded corpus {src} is corrupt ({e}); reinstall syncattn."
            ) from e
        return np.frombuffer(raw, dtype=np.uint8)

    stem = name.split(".")[0]
    return cached_array(cache / "embedded" / f"{stem}-{digest}.npy", build)


def _load_embedded(path, *, cache, val_fraction=0.05, test_fraction=0.05) -> Corpus:
    if path is not None:
        raise ValueError(
            "the 'embedded' corpus ships inside the package and takes no path; use "
            "name='text' to read your own file."
        )
    stream = embedded_text_bytes(cache)
    train, val, test = _byte_splits(
        stream,
        _fraction(val_fraction, "val_fraction"),
        _fraction(test_fraction, "test_fraction"),
        "the embedded corpus",
    )
    return Corpus(
        name="embedded",
        kind="byte",
        vocab_size=256,
        train=train,
        val=val,
        test=test,
        source=f"King James Bible (public domain), shipped as syncattn/data/_embedded/{EMBEDDED_NAME}",
    )


def _load_jargon(path, *, cache, val_fraction=0.05, test_fraction=0.05) -> Corpus:
    if path is not None:
        raise ValueError(
            "the 'jargon' corpus ships inside the package and takes no path; use "
            "name='text' to read your own file."
        )
    stream = embedded_text_bytes(cache, JARGON_NAME)
    train, val, test = _byte_splits(
        stream,
        _fraction(val_fraction, "val_fraction"),
        _fraction(test_fraction, "test_fraction"),
        "the jargon corpus",
    )
    return Corpus(
        name="jargon",
        kind="byte",
        vocab_size=256,
        train=train,
        val=val,
        test=test,
        source=f"The Jargon File 4.4.7 (public domain), shipped as syncattn/data/_embedded/{JARGON_NAME}",
    )


def _load_enwik8(path, *, cache) -> Corpus:
    del cache
    if path is None:
        raise FileNotFoundError(f"no path given for enwik8. {ENWIK8_HELP}")
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / "enwik8"
    if not p.exists():
        hint = ""
        if p.with_suffix(".zip").exists() or Path(str(p) + ".zip").exists():
            hint = " (found a .zip beside it: unzip it first)"
        raise FileNotFoundError(f"enwik8 file {p} does not exist{hint}. {ENWIK8_HELP}")
    size = p.stat().st_size
    if size != ENWIK8_SIZE:
        raise ValueError(
            f"{p} has {size:,} bytes but enwik8 has exactly {ENWIK8_SIZE:,}; it is "
            f"truncated, zipped or another file. {ENWIK8_HELP}"
        )
    stream = np.memmap(p, dtype=np.uint8, mode="r", shape=(size,))
    # The standard split scales with the file (90/5/5); at the real size it is 90M/5M/5M.
    n_train = size * ENWIK8_SPLIT[0] // sum(ENWIK8_SPLIT)
    n_val = size * ENWIK8_SPLIT[1] // sum(ENWIK8_SPLIT)
    return Corpus(
        name="enwik8",
        kind="byte",
        vocab_size=256,
        train=stream[:n_train],
        val=stream[n_train : n_train + n_val],
        test=stream[n_train + n_val :],
        source=f"enwik8 at {p} (standard 90M/5M/5M split)",
    )


def _load_text(
    path, *, cache, val_fraction=0.1, test_fraction=0.0, check_utf8=True
) -> Corpus:
    del cache
    if path is None:
        raise FileNotFoundError(
            "name='text' needs path= (--data-path): a UTF-8 text file to read byte by byte."
        )
    p = Path(path).expanduser()
    if not p.is_file():
        raise FileNotFoundError(
            f"text corpus file {p} does not exist or is not a file."
        )
    stream = _memmap_file(p)
    if check_utf8:
        _check_utf8(p)
    train, val, test = _byte_splits(
        stream,
        _fraction(val_fraction, "val_fraction"),
        _fraction(test_fraction, "test_fraction"),
        str(p),
    )
    return Corpus(
        name="text",
        kind="byte",
        vocab_size=256,
        train=train,
        val=val,
        test=test,
        source=f"UTF-8 file {p} (last {val_fraction:g} as val)",
    )
