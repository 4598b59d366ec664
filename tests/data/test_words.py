"""Word corpora: seed 001's tokenisation, vocabulary and chunking, checked against
plain re-implementations written from the rules in EXPERIMENTS.md (B3)."""

import os
import string

import numpy as np
import pytest

import syncattn.data as data
from syncattn.data import _word_files, _words


pytestmark = pytest.mark.usefixtures("cache")  # every test on a fresh cache (conftest)


# ---------------------------------------------------------------- reference rules

WT2_PUNCT = set(".,!?;:()[]{}\"'")


def ref_wt2_tokens(line):
    out = []
    for ch in line.lower():
        out.append(f" {ch} " if ch in WT2_PUNCT else ch)
    return "".join(out).split()


def ref_ts_tokens(text):
    return "".join(
        " " if ch in string.punctuation else ch for ch in text.lower()
    ).split()


def ref_vocab(token_lists, size, specials):
    count, first = {}, {}
    for toks in token_lists:
        for t in toks:
            count[t] = count.get(t, 0) + 1
            first.setdefault(t, len(first))
    ranked = sorted(count, key=lambda w: (-count[w], first[w]))
    return list(specials) + ranked[: size - len(specials)]


def ref_wt2_rows(lines, vocab, max_len):
    index = {w: i for i, w in enumerate(vocab)}
    flat = [
        index.get(t, 3) for line in lines if line.strip() for t in ref_wt2_tokens(line)
    ]
    rows, i = [], 0
    while i < len(flat):
        piece = flat[i : i + max_len - 2]
        i += max_len - 2
        if len(piece) >= 2:
            rows.append([1, *piece, 2] + [0] * (max_len - 2 - len(piece)))
    return np.array(rows, dtype=np.int32).reshape(-1, max_len)


def ref_ts_rows(stories, vocab, max_len):
    index = {w: i for i, w in enumerate(vocab)}
    rows = []
    for s in stories:
        ids = [1] + [index.get(t, 3) for t in ref_ts_tokens(s)] + [2]
        while ids:
            piece, ids = ids[:max_len], ids[max_len:]
            if len(piece) > 4:
                rows.append(piece + [0] * (max_len - len(piece)))
    return np.array(rows, dtype=np.int32).reshape(-1, max_len)


# ---------------------------------------------------------------- fixtures in the real formats

WT2_TRAIN = (
    " \n"
    " = Valkyria Chronicles III = \n"
    " \n"
    " Senjō no Valkyria 3 : Unrecorded Chronicles ( Japanese : 戦場のヴァルキュリア3 , lit . "
    "Valkyria of the Battlefield 3 ) , commonly referred to as Valkyria Chronicles III outside "
    "Japan , is a tactical role @-@ playing video game developed by Sega and Media.Vision . \n"
    " \n"
    " = = Gameplay = = \n"
    " \n"
    ' The game \'s "Nameless" squad [ {braces} ] fought ; did they win ? Yes ! It was 1 @,@ 000 '
    "strong . The game , the game , the squad . \n"
    " \n"
)
WT2_VALID = (
    " \n = Plot = \n \n The squad fought the Empire , and won ! Unseen words here . \n"
)
WT2_TEST = " \n The game ( 2011 ) sold well . \n \n"


def write_wt2(folder, ext="raw"):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (("train", WT2_TRAIN), ("valid", WT2_VALID), ("test", WT2_TEST)):
        (folder / f"wiki.{name}.{ext}").write_text(text, encoding="utf-8")
    return folder


TS_TRAIN = [
    "One day, a little girl named Lily found a needle in her room. She knew it was "
    "difficult to play with it because it was sharp. Lily wanted to share the needle "
    "with her mom, so she could sew a button on her shirt.",
    "Once upon a time, there was a dog. The dog's name was Max! Max didn't like rain... "
    '"Woof," said Max.',
    "Hi there.",  # 2 words: BOS hi there EOS has 4 ids -> dropped
    "Tom and Sue played in the park all day long and then they went home happy.",
]
TS_VALID = ["Lily and Max went to the park. It was a sunny day!", "The end of a story."]


def write_ts(folder, stem="TinyStories"):
    folder.mkdir(parents=True, exist_ok=True)
    for split, stories in (("train", TS_TRAIN), ("valid", TS_VALID)):
        text = "".join(f"{s}\n<|endoftext|>\n" for s in stories)
        (folder / f"{stem}-{split}.txt").write_text(text, encoding="utf-8")
    return folder


# ---------------------------------------------------------------- tokenisers


def test_tokenisers_match_the_rules():
    for line in WT2_TRAIN.split("\n") + ['Don\'t (stop) [now]; {ok}? yes: "q"!']:
        assert data.tokenize(line, "wikitext2") == ref_wt2_tokens(line)
    for s in TS_TRAIN + TS_VALID + ["a-b_c @d #e 'f' “curly” café"]:
        assert data.tokenize(s, "tinystories") == ref_ts_tokens(s)
    assert data.tokenize("The dog's (Max).", "wikitext2") == [
        "the",
        "dog",
        "'",
        "s",
        "(",
        "max",
        ")",
        ".",
    ]
    assert data.tokenize("The dog's (Max).", "tinystories") == [
        "the",
        "dog",
        "s",
        "max",
    ]
    with pytest.raises(ValueError, match="tokenizer"):
        data.tokenize("x", "bpe")


# ---------------------------------------------------------------- WikiText-2


@pytest.mark.parametrize("vocab_size, max_len", [(10_000, 50), (12, 7), (20, 4)])
def test_wikitext2_matches_reference(tmp_path, vocab_size, max_len):
    folder = write_wt2(tmp_path / "wikitext-2-raw")
    c = data.load_corpus("wikitext2", folder, vocab_size=vocab_size, max_len=max_len)
    train_lines = WT2_TRAIN.split("\n")
    vocab = ref_vocab(
        [ref_wt2_tokens(ln) for ln in train_lines if ln.strip()],
        vocab_size,
        _words.WT2_SPECIALS,
    )
    assert c.vocab == tuple(vocab) and c.vocab_size == len(vocab)
    assert c.kind == "word" and c.pad_id == 0 and c.tokenizer == "wikitext2"
    assert c.max_len == max_len and "vocab_size=" in repr(c) and "<BOS>" not in repr(c)
    for split, text in (("train", WT2_TRAIN), ("val", WT2_VALID), ("test", WT2_TEST)):
        got = getattr(c, split)
        assert isinstance(got, np.memmap) and got.dtype == np.int32
        np.testing.assert_array_equal(
            got, ref_wt2_rows(text.split("\n"), vocab, max_len)
        )


def test_wikitext2_chunk_edge_cases():
    # a last piece of one id is dropped; of two ids kept
    for n, rows in ((96, 2), (97, 2), (98, 3)):
        out = _words.chunk_stream(np.arange(10, 10 + n, dtype=np.int32), 50)
        assert out.shape == (rows, 50)
        assert np.all(out[:, 0] == 1)
    out = _words.chunk_stream(np.arange(10, 108, dtype=np.int32), 50)
    np.testing.assert_array_equal(out[2, :4], [1, 106, 107, 2])
    assert np.all(out[2, 4:] == 0)


def test_wikitext2_file_variants(tmp_path):
    tok = write_wt2(tmp_path / "wikitext-2", ext="tokens")
    c = data.load_corpus("wikitext2", tok)
    assert "(tokens)" in c.source
    # the parent folder of the unzipped archive works too, and raw wins over tokens
    write_wt2(tmp_path / "wikitext-2-raw")
    both = tmp_path / "both"
    write_wt2(both, "raw")
    write_wt2(both, "tokens")
    assert "(raw)" in data.load_corpus("wikitext2", both).source
    assert (
        data.load_corpus("wikitext2", tmp_path / "wikitext-2-raw").train.shape
        == c.train.shape
    )


def test_wikitext2_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="wikitext-2-raw-v1.zip"):
        data.load_corpus("wikitext2")
    with pytest.raises(FileNotFoundError, match="not a folder"):
        data.load_corpus("wikitext2", tmp_path / "nope")
    folder = write_wt2(tmp_path / "w")
    (folder / "wiki.test.raw").unlink()
    with pytest.raises(FileNotFoundError, match="no wiki.train/valid/test.raw"):
        data.load_corpus("wikitext2", folder)
    folder = write_wt2(tmp_path / "e")
    (folder / "wiki.train.raw").write_text("")
    with pytest.raises(ValueError, match="empty"):
        data.load_corpus("wikitext2", folder)
    (folder / "wiki.train.raw").write_text(" \n \n")
    with pytest.raises(ValueError, match="no words"):
        data.load_corpus("wikitext2", folder)
    (folder / "wiki.train.raw").write_bytes(b" good words . \n \xc3\x28 bad \n")
    with pytest.raises(ValueError, match="not valid UTF-8"):
        data.load_corpus("wikitext2", folder)
    folder = write_wt2(tmp_path / "o")
    with pytest.raises(ValueError, match="max_len must be an int >= 4"):
        data.load_corpus("wikitext2", folder, max_len=3)


def test_wikitext2_cache_is_reused_and_invalidated(tmp_path, cache, monkeypatch):
    folder = write_wt2(tmp_path / "w")
    first = data.load_corpus("wikitext2", folder, max_len=9)
    built = list((cache / "words").iterdir())
    assert len(built) == 1 and (built[0] / "train.npy").exists()

    def fail(*args, **kwargs):
        raise AssertionError("rebuilt although cached")

    monkeypatch.setattr(_words, "_build_wt2", fail)
    again = data.load_corpus("wikitext2", folder, max_len=9)
    np.testing.assert_array_equal(again.train, first.train)
    assert again.vocab == first.vocab
    # editing a file changes its size/mtime: the cache key changes and it is rebuilt
    monkeypatch.undo()
    monkeypatch.setenv("SYNCATTN_CACHE", str(cache))
    with open(folder / "wiki.valid.raw", "a") as f:
        f.write(" More text . \n")
    st = os.stat(folder / "wiki.valid.raw")
    os.utime(folder / "wiki.valid.raw", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    edited = data.load_corpus("wikitext2", folder, max_len=9)
    assert len(list((cache / "words").iterdir())) == 2
    assert edited.val.shape[0] >= first.val.shape[0]


def test_word_encode_decode(tmp_path):
    c = data.load_corpus("wikitext2", write_wt2(tmp_path / "w"))
    text = "The game , the squad ( Japanese ) !"
    ids = c.encode(text)
    assert ids.dtype == np.int32
    assert c.decode(ids) == " ".join(ref_wt2_tokens(text))
    assert c.encode("zzzunseen the")[0] == c.unk_id == 3
    assert c.decode(np.array([1, c.vocab.index("the"), 2, 0, 0])) == "<BOS> the <EOS>"
    with pytest.raises(ValueError, match=r"ids must lie in \[0,"):
        c.decode([c.vocab_size])


def test_unk_fraction_with_small_vocab(tmp_path):
    c = data.load_corpus("wikitext2", write_wt2(tmp_path / "w"), vocab_size=8)
    words = [
        t for ln in WT2_TRAIN.split("\n") if ln.strip() for t in ref_wt2_tokens(ln)
    ]
    kept = set(c.vocab[4:])
    expected_unk = sum(w not in kept for w in words)
    assert int((c.train == 3).sum()) == expected_unk > 0


# ---------------------------------------------------------------- TinyStories


@pytest.mark.parametrize("vocab_size, max_len", [(8_004, 128), (10, 8), (30, 5)])
def test_tinystories_matches_reference(tmp_path, vocab_size, max_len):
    folder = write_ts(tmp_path / "ts")
    c = data.load_corpus("tinystories", folder, vocab_size=vocab_size, max_len=max_len)
    vocab = ref_vocab(
        [ref_ts_tokens(s) for s in TS_TRAIN], vocab_size, _words.TS_SPECIALS
    )
    assert c.vocab == tuple(vocab) and c.test is None and c.tokenizer == "tinystories"
    np.testing.assert_array_equal(c.train, ref_ts_rows(TS_TRAIN, vocab, max_len))
    np.testing.assert_array_equal(c.val, ref_ts_rows(TS_VALID, vocab, max_len))
    assert isinstance(c.train, np.memmap)


def test_tinystories_streaming_across_blocks(tmp_path, monkeypatch):
    folder = write_ts(tmp_path / "ts")
    whole = data.load_corpus("tinystories", folder, max_len=8, cache_dir=tmp_path / "a")
    monkeypatch.setattr(_word_files, "_BLOCK", 5)  # separators and UTF-8 chars cut by blocks
    small = data.load_corpus("tinystories", folder, max_len=8, cache_dir=tmp_path / "b")
    np.testing.assert_array_equal(whole.train, small.train)
    np.testing.assert_array_equal(whole.val, small.val)


def test_tinystories_pieces_rule():
    # BOS + n words + EOS = n + 2 ids cut into 128s; pieces of <= 4 ids dropped
    assert _words.story_pieces(2, 128) == []
    assert _words.story_pieces(3, 128) == [(0, 5)]
    assert _words.story_pieces(126, 128) == [(0, 128)]
    assert _words.story_pieces(128, 128) == [(0, 128)]  # a piece of 2 ids dropped
    assert _words.story_pieces(131, 128) == [(0, 128), (128, 133)]


def test_tinystories_v2_names_and_errors(tmp_path):
    c = data.load_corpus(
        "tinystories", write_ts(tmp_path / "v2", stem="TinyStoriesV2-GPT4")
    )
    assert "TinyStoriesV2-GPT4-train.txt" in c.source
    with pytest.raises(FileNotFoundError, match="TinyStories-train.txt"):
        data.load_corpus("tinystories", tmp_path)
    with pytest.raises(FileNotFoundError, match="no path given"):
        data.load_corpus("tinystories")
    bad = write_ts(tmp_path / "bad")
    (bad / "TinyStories-valid.txt").write_text("Hi.\n<|endoftext|>\n")
    with pytest.raises(ValueError, match="no story of at least 3 words"):
        data.load_corpus("tinystories", bad)


# ---------------------------------------------------------------- embedded words


def test_embedded_words():
    c = data.load_corpus("embedded-words", max_len=50)
    assert c.vocab_size == 10_000 and c.train.shape[1] == 50 and c.test is not None
    assert c.decode(c.train[0]).startswith(
        "<BOS> genesis 1 1 in the beginning god created the heaven"
    )
    assert np.all(c.train[:, 0] == 1)
    # every full row ends with EOS; ids in range; UNK is rare for the KJV at 10k words
    assert np.all(c.train[:-1, -1] == 2)
    assert c.train.max() < c.vocab_size
    assert float((np.asarray(c.train) == 3).mean()) < 0.01
    assert c.decode(c.test[-1]).endswith(
        "the grace of our lord jesus christ be with you all . amen . <EOS>"
    )
