"""Byte corpora: embedded text, enwik8, any UTF-8 file; caching and memory maps."""

import hashlib
import lzma
from pathlib import Path

import numpy as np
import pytest

import syncattn.data as data
from syncattn.data import _corpus


EMBEDDED = Path(_corpus.__file__).parent / "_embedded"


def test_embedded_resource_matches_its_record():
    raw = lzma.decompress((EMBEDDED / "kjv.txt.xz").read_bytes())
    note = (EMBEDDED / "README.md").read_text()
    # the README records the size and hash of the uncompressed text, and the licence
    assert f"{len(raw):,} bytes" in note
    assert hashlib.sha256(raw).hexdigest() in note
    assert "public domain" in note
    assert len(raw) >= 2_000_000
    assert (EMBEDDED / "kjv.txt.xz").stat().st_size < 2_000_000
    text = raw.decode("utf-8")  # ASCII in fact
    assert text.startswith(
        "Genesis 1\n\n1 In the beginning God created the heaven and the earth.\n"
    )
    assert text.rstrip().endswith(
        "The grace of our Lord Jesus Christ be with you all. Amen."
    )


def test_jargon_resource_matches_its_record_and_loads(cache):
    xz = EMBEDDED / "jargon.txt.xz"
    raw = lzma.decompress(xz.read_bytes())
    note = (EMBEDDED / "README.md").read_text()
    part = note[note.index("(`jargon.txt.xz`)") :]
    assert f"{len(raw):,} bytes" in part and f"{xz.stat().st_size:,} bytes" in part
    assert hashlib.sha256(raw).hexdigest() in part and "public domain" in part
    text = raw.decode("utf-8")
    assert "The Jargon File" in text[:200] and "(version 4.4.7)" in text[:200]
    share = sum(b > 127 for b in raw) / len(raw)
    assert f"{100 * share:.1f} %" in part
    c = data.load_corpus("jargon")
    assert (c.name, c.kind, c.vocab_size) == ("jargon", "byte", 256)
    assert np.concatenate([c.train, c.val, c.test]).tobytes() == raw
    assert abs(c.test.size - 0.05 * len(raw)) <= 1
    with pytest.raises(ValueError, match="'jargon' corpus ships inside the package"):
        data.load_corpus("jargon", "some/file")


def test_embedded_is_memmapped_cached_and_split(cache):
    c = data.load_corpus()
    assert (
        c.name == "embedded"
        and c.kind == "byte"
        and c.vocab_size == 256
        and c.pad_id is None
    )
    assert c.max_len is None and repr(c).startswith(
        "Corpus(name='embedded', kind='byte'"
    )
    raw = lzma.decompress((EMBEDDED / "kjv.txt.xz").read_bytes())
    for split in (c.train, c.val, c.test):
        assert isinstance(split, np.memmap) and split.dtype == np.uint8
    whole = np.concatenate([c.train, c.val, c.test])
    assert whole.tobytes() == raw
    n = len(raw)
    assert abs(c.val.size - 0.05 * n) <= 1 and abs(c.test.size - 0.05 * n) <= 1
    files = list((cache / "embedded").glob("*.npy"))
    assert len(files) == 1
    # a second load reads the cache: same file, no rebuild
    mtime = files[0].stat().st_mtime_ns
    c2 = data.load_corpus("embedded")
    assert files[0].stat().st_mtime_ns == mtime
    assert np.array_equal(c2.val, c.val)


def test_cache_dir_option_and_env(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNCATTN_CACHE", str(tmp_path / "env"))
    assert data.cache_dir() == tmp_path / "env"
    assert data.cache_dir(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv("SYNCATTN_CACHE")
    assert data.cache_dir() == Path("~/.cache/syncattn").expanduser()
    data.load_corpus("embedded", cache_dir=tmp_path / "opt")
    assert list((tmp_path / "opt" / "embedded").glob("*.npy"))


def test_corrupt_cache_is_a_clear_error(cache):
    data.load_corpus()
    (f,) = (cache / "embedded").glob("*.npy")
    f.write_bytes(b"not a numpy file")
    with pytest.raises(ValueError, match="corrupt.*delete it"):
        data.load_corpus()


def test_byte_encode_decode_round_trip(cache):
    c = data.load_corpus()
    s = "Héllo, wörld — ∮ 𝛉"
    ids = c.encode(s)
    assert ids.dtype == np.uint8 and ids.tobytes() == s.encode("utf-8")
    assert c.decode(ids) == s
    assert c.decode(list(ids)) == s
    with pytest.raises(ValueError, match=r"\[0, 256\)"):
        c.decode([300])
    with pytest.raises(TypeError, match="str"):
        c.encode(b"bytes")


# ---------------------------------------------------------------- text files


def test_text_file_split_and_memmap(tmp_path, cache):
    body = ("première ligne\n" * 50 + "last line ✓\n").encode("utf-8")
    p = tmp_path / "t.txt"
    p.write_bytes(body)
    c = data.load_corpus("text", p, val_fraction=0.2)
    n = len(body)
    n_val = round(0.2 * n)
    assert isinstance(c.train, np.memmap) and c.test is None
    assert (
        c.train.tobytes() == body[: n - n_val] and c.val.tobytes() == body[n - n_val :]
    )
    c3 = data.load_corpus("text", str(p), val_fraction=0.1, test_fraction=0.1)
    assert c3.train.size + c3.val.size + c3.test.size == n
    assert c3.test.tobytes() == body[n - c3.test.size :]


def test_text_file_errors(tmp_path, cache):
    with pytest.raises(FileNotFoundError, match="needs path"):
        data.load_corpus("text")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        data.load_corpus("text", tmp_path / "missing.txt")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        data.load_corpus("text", empty)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine text " * 10 + b"\xff\xfe broken")
    with pytest.raises(ValueError, match="not valid UTF-8.*offset 100"):
        data.load_corpus("text", bad)
    assert data.load_corpus("text", bad, check_utf8=False).train.size > 0
    tiny = tmp_path / "tiny.txt"
    tiny.write_bytes(b"ab")
    with pytest.raises(ValueError, match="too few"):
        data.load_corpus("text", tiny, val_fraction=0.1)
    with pytest.raises(ValueError, match=r"val_fraction must lie in \[0, 1\)"):
        data.load_corpus("text", bad, val_fraction=1.5, check_utf8=False)


def test_utf8_check_across_block_boundary(tmp_path, cache, monkeypatch):
    # a multi-byte character cut by the block boundary is still valid
    monkeypatch.setattr(_corpus, "_UTF8_BLOCK", 7)
    p = tmp_path / "t.txt"
    p.write_text("aaaaaa€bbbbbbbbb€" * 20, encoding="utf-8")
    assert data.load_corpus("text", p).val.size > 0


# ---------------------------------------------------------------- enwik8


def test_enwik8_missing_explains_download(tmp_path, cache):
    for path in (None, tmp_path / "enwik8", tmp_path):
        with pytest.raises(FileNotFoundError, match=r"100,000,000.*unzip"):
            data.load_corpus("enwik8", path)
    (tmp_path / "enwik8.zip").write_bytes(b"PK")
    with pytest.raises(FileNotFoundError, match="unzip it first"):
        data.load_corpus("enwik8", tmp_path / "enwik8")


def test_enwik8_wrong_size(tmp_path, cache):
    p = tmp_path / "enwik8"
    p.write_bytes(b"<mediawiki>" * 100)
    with pytest.raises(
        ValueError, match=r"1,100 bytes but enwik8 has exactly 100,000,000"
    ):
        data.load_corpus("enwik8", p)


def test_enwik8_right_size_standard_split(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(_corpus, "ENWIK8_SIZE", 2000)
    rng = np.random.default_rng(0)
    body = rng.integers(
        0, 256, 2000, dtype=np.uint8
    ).tobytes()  # raw bytes, need not be UTF-8
    (tmp_path / "enwik8").write_bytes(body)
    for path in (tmp_path / "enwik8", tmp_path):  # the file, or its folder
        c = data.load_corpus("enwik8", path)
        assert isinstance(c.train, np.memmap)
        # 90/5/5 of the (patched) size, as 90M/5M/5M of the real one
        assert c.train.tobytes() == body[:1800]
        assert c.val.tobytes() == body[1800:1900]
        assert c.test.tobytes() == body[1900:]


def test_unknown_name_and_option(cache):
    with pytest.raises(ValueError, match="unknown corpus name 'enwik9'.*embedded"):
        data.load_corpus("enwik9")
    with pytest.raises(ValueError, match=r"no option\(s\) \['seq_len'\]"):
        data.load_corpus("embedded", seq_len=3)
    with pytest.raises(ValueError, match="takes no path"):
        data.load_corpus("embedded", "some/file")


def test_corpus_record_checks():
    arr = np.zeros(5, np.uint8)
    with pytest.raises(ValueError, match="kind"):
        data.Corpus("x", "char", 256, arr, arr, None)
    with pytest.raises(ValueError, match="1-D"):
        data.Corpus("x", "byte", 256, np.zeros((2, 2), np.uint8), arr, None)
    with pytest.raises(ValueError, match="empty"):
        data.Corpus("x", "byte", 256, arr, arr[:0], None)
    with pytest.raises(ValueError, match="vocab and pad_id"):
        data.Corpus(
            "x", "word", 4, np.zeros((2, 3), np.int32), np.zeros((2, 3), np.int32), None
        )
