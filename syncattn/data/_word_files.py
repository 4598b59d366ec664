"""Streamed reading and the on-disk cache of the word-level corpora (`_words.py`).

Text files are decoded in blocks of 8 MiB (a tqdm bar from 64 MiB on), split into lines
or TinyStories stories; the cache key is the SHA-256 of the recipe, the files' paths,
sizes and modification times and the sizes asked for; a cache folder is built once,
atomically, then memory-mapped.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from ._corpus import _load_npy


TS_SEPARATOR = "<|endoftext|>"
_FORMAT_VERSION = 1
_BLOCK = 1 << 23
_PROGRESS_MIN_BYTES = 64 << 20


# ---------------------------------------------------------------- streaming readers


def _read_text_blocks(path: Path, desc: str) -> Iterator[str]:
    """Decoded UTF-8 blocks of `path`; ValueError naming the file on invalid UTF-8."""
    size = path.stat().st_size
    decoder = codecs.getincrementaldecoder("utf-8")()
    from tqdm.auto import tqdm

    with (
        open(path, "rb") as f,
        tqdm(
            total=size,
            unit="B",
            unit_scale=True,
            desc=desc,
            disable=size < _PROGRESS_MIN_BYTES,
        ) as bar,
    ):
        offset = 0
        while True:
            block = f.read(_BLOCK)
            try:
                text = decoder.decode(block, final=not block)
            except UnicodeDecodeError as e:
                raise ValueError(
                    f"{path} is not valid UTF-8 (bad byte near offset {offset + e.start}); "
                    "is it the right file, uncompressed?"
                ) from e
            if text:
                yield text
            if not block:
                return
            offset += len(block)
            bar.update(len(block))


def _iter_lines(path: Path, desc: str) -> Iterator[str]:
    carry = ""
    for text in _read_text_blocks(path, desc):
        lines = (carry + text).split("\n")
        carry = lines.pop()
        yield from lines
    if carry:
        yield carry


def _iter_stories(path: Path, desc: str) -> Iterator[str]:
    carry = ""
    for text in _read_text_blocks(path, desc):
        parts = (carry + text).split(TS_SEPARATOR)
        carry = parts.pop()
        for story in parts:
            if story.strip():
                yield story.strip()
    if carry.strip():
        yield carry.strip()


# ---------------------------------------------------------------- cache


def _file_key(path: Path) -> list:
    st = path.stat()
    return [str(path.resolve()), st.st_size, st.st_mtime_ns]


def _cache_key(payload: dict) -> str:
    text = json.dumps({"format": _FORMAT_VERSION, **payload}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _files_cache_key(
    recipe: str, files: dict[str, Path], vocab_size: int, max_len: int, help: str
) -> str:
    """The cache key of a recipe over local `files`; ValueError (with `help`) if one is empty."""
    for p in files.values():
        if p.stat().st_size == 0:
            raise ValueError(f"{p} is empty. {help}")
    return _cache_key(
        {
            "recipe": recipe,
            "files": {s: _file_key(p) for s, p in files.items()},
            "vocab_size": vocab_size,
            "max_len": max_len,
        }
    )


def _find_files(
    path, name: str, candidates: Iterable[dict[str, Path]], missing: str, help: str
) -> dict[str, Path]:
    """The first of `candidates` (split -> file, relative to the folder `path`) whose files
    all exist; FileNotFoundError naming `missing` and listing the folder otherwise."""
    if path is None:
        raise FileNotFoundError(f"no path given for {name}. {help}")
    root = Path(path).expanduser()
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a folder. {help}")
    for rel in candidates:
        files = {s: root / p for s, p in rel.items()}
        if all(p.is_file() for p in files.values()):
            return files
    found = sorted(p.name for p in root.iterdir())[:10]
    raise FileNotFoundError(f"{root} holds no {missing} (found: {found}). {help}")


def _cached_word_arrays(
    folder: Path, build: Callable[[Path], None]
) -> tuple[dict[str, np.ndarray | None], tuple[str, ...]]:
    """Build ``train/val/test.npy`` + ``vocab.json`` into `folder` once (atomically), then memory-map them."""
    if not (folder / "vocab.json").exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=folder.name + ".tmp"))
        try:
            build(tmp)
            if folder.exists():  # a concurrent build finished first, or a torn old one
                shutil.rmtree(folder)
            os.replace(tmp, folder)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp)
    try:
        vocab = tuple(json.loads((folder / "vocab.json").read_text())["vocab"])
    except (ValueError, KeyError) as e:
        raise ValueError(
            f"cache {folder} is corrupt ({e}); delete it and load again."
        ) from e
    arrays = {
        split: (
            _load_npy(folder / f"{split}.npy")
            if (folder / f"{split}.npy").exists()
            else None
        )
        for split in ("train", "val", "test")
    }
    return arrays, vocab


def _write_vocab(tmp: Path, vocab: tuple[str, ...], meta: dict) -> None:
    (tmp / "vocab.json").write_text(json.dumps({"vocab": list(vocab), **meta}))
