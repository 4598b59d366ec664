"""Seed 001's subject-verb agreement task: published facts, statistics, labels, I/O."""

import json

import numpy as np
import pytest

from syncattn.data import sva


@pytest.fixture(scope="module")
def splits():
    return {name: sva.generate_sva(n, seed) for name, (n, seed) in sva.SPLITS.items()}


def _jsonl_text(records):
    return "".join(json.dumps(r) + "\n" for r in records)


# ---------------------------------------------------------------- published facts


def test_matches_seed_001_shipped_files(splits):
    # sizes in characters of seed 001's data/sva/sva_{train,val,test}.jsonl (commit 9f87597)
    assert len(_jsonl_text(splits["train"])) == 6_978_909
    assert len(_jsonl_text(splits["val"])) == 696_314
    assert len(_jsonl_text(splits["test"])) == 698_067
    # first and last records of the shipped files
    assert splits["val"][0] == {
        "tokens": ["the", "buses", "beside", "the", "duck", "sit", "."],
        "label": 1, "subject_idx": 1, "verb_idx": 5, "distractor_idx": 4,
        "has_distractor": True, "distractor_agrees": False,
    }  # fmt: skip
    assert splits["val"][1]["tokens"] == ["the", "plants", "pull", "."]
    assert (
        splits["val"][2]["tokens"] == ["the", "bus", "stop", "."]
        and splits["val"][2]["label"] == 0
    )
    assert splits["val"][-1]["tokens"] == ["the", "cats", "swims", "."]
    assert splits["test"][-1]["tokens"] == ["the", "ducks", "runs", "."]
    assert splits["test"][-1]["label"] == 0


def test_val_cohort_counts_as_published(splits):
    # EXPERIMENTS.md B2: simple 1,666 and hard 1,153 validation sentences
    val = splits["val"]
    assert sum(not r["has_distractor"] for r in val) == 1666
    assert sum(sva.is_hard(r) for r in val) == 1153


def test_vocabulary():
    assert len(sva.NOUNS_SG) == len(sva.NOUNS_PL) == 50
    assert len(sva.VERBS_SG) == len(sva.VERBS_PL) == 30 and len(sva.PREPS) == 7
    assert sva.VOCAB[:4] == ("<PAD>", "<BOS>", "<EOS>", "<UNK>")
    assert list(sva.VOCAB[4:]) == sorted(set(sva.VOCAB[4:]))
    assert len(sva.VOCAB) == 169  # 165 distinct words: fish, deer, fly, flies repeat
    assert sva.encode(["the", "zebra", "."]) == [
        sva.WORD_TO_ID["the"],
        3,
        sva.WORD_TO_ID["."],
    ]


# ---------------------------------------------------------------- statistics and labels


def _number(word, singular, plural):
    """'sg' / 'pl' from the word lists, None when the word is in both."""
    s, p = word in singular, word in plural
    return None if s == p else ("sg" if s else "pl")


def test_labels_recomputed_from_word_lists(splits):
    checked = 0
    for r in splits["train"][:20_000]:
        toks = r["tokens"]
        assert toks[0] == "the" and toks[-1] == "."
        assert len(toks) == (7 if r["has_distractor"] else 4)
        subj = _number(toks[r["subject_idx"]], sva.NOUNS_SG, sva.NOUNS_PL)
        verb = _number(toks[r["verb_idx"]], sva.VERBS_SG, sva.VERBS_PL)
        assert verb is not None  # verbs are unambiguous
        if r["has_distractor"]:
            assert (
                r["distractor_idx"] == 4 and toks[2] in sva.PREPS and toks[3] == "the"
            )
            dist = _number(toks[4], sva.NOUNS_SG, sva.NOUNS_PL)
        else:
            assert r["distractor_idx"] is None and r["distractor_agrees"] is None
            dist = None
        if subj is None:  # fish / deer: number not visible in the word
            continue
        checked += 1
        assert r["label"] == int(subj == verb)
        if dist is not None:
            assert r["distractor_agrees"] == (dist == subj)
            assert sva.is_hard(r) == (dist != subj)
    assert checked > 19_000


def test_proportions(splits):
    train = splits["train"]
    n = len(train)
    pp = [r for r in train if r["has_distractor"]]
    sg = sum(
        r["tokens"][1] in sva.NOUNS_SG and r["tokens"][1] not in sva.NOUNS_PL
        for r in train
    )
    ambiguous = sum(r["tokens"][1] in ("fish", "deer") for r in train)

    def within(count, total, p, sds=5):
        return abs(count / total - p) <= sds * np.sqrt(p * (1 - p) / total)

    assert within(len(pp), n, 0.6)
    assert within(sum(r["label"] for r in train), n, 0.5)
    assert within(sum(r["distractor_agrees"] for r in pp), len(pp), 0.5)
    # singular subjects: half, less the fish/deer drawn from the singular list
    assert abs((sg + ambiguous / 2) / n - 0.5) < 0.015
    # about 30% of all sentences are hard, 30% easy, 40% simple
    assert within(sum(map(sva.is_hard, train)), n, 0.3)


def test_ungrammatical_half_flips_the_verb(splits):
    for r in splits["val"]:
        toks = r["tokens"]
        verb = toks[r["verb_idx"]]
        subj = toks[1]
        if subj in ("fish", "deer"):
            continue
        verb_sg = verb in sva.VERBS_SG
        subj_sg = subj in sva.NOUNS_SG
        assert verb_sg == (subj_sg if r["label"] else not subj_sg)


def test_seeded_and_deterministic():
    a = sva.generate_sva(50, 7)
    assert a == sva.generate_sva(50, 7)
    assert a != sva.generate_sva(50, 8)
    assert sva.generate_sva(0, 0) == []
    with pytest.raises(ValueError, match="n must be an int >= 0"):
        sva.generate_sva(-1, 0)
    with pytest.raises(TypeError, match="seed"):
        sva.generate_sva(3, "0")


# ---------------------------------------------------------------- I/O


def test_jsonl_round_trip(tmp_path):
    recs = sva.generate_sva(200, 3)
    p = tmp_path / "sub" / "x.jsonl"
    sva.write_jsonl(recs, p)
    assert sva.read_jsonl(p) == recs
    first = json.loads(p.read_text().splitlines()[0])
    assert list(first) == list(sva.FIELDS)


def test_jsonl_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        sva.read_jsonl(tmp_path / "none.jsonl")
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps(sva.generate_sva(1, 0)[0]) + "\n{broken\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:2 is not valid JSON"):
        sva.read_jsonl(p)
    rec = dict(sva.generate_sva(1, 0)[0])
    del rec["label"]
    p.write_text(json.dumps(rec) + "\n")
    with pytest.raises(ValueError, match="needs exactly the fields"):
        sva.read_jsonl(p)
    p.write_text("\n")
    with pytest.raises(ValueError, match="no records"):
        sva.read_jsonl(p)
    with pytest.raises(ValueError, match="label must be 0 or 1"):
        sva.write_jsonl(
            [{**sva.generate_sva(1, 0)[0], "label": 2}], tmp_path / "w.jsonl"
        )
    assert not (tmp_path / "w.jsonl").exists()


def test_load_sva_generates_caches_and_reads_dirs(tmp_path, monkeypatch):
    small = {"train": (30, 0), "val": (10, 1), "test": (10, 2)}
    monkeypatch.setattr(sva, "SPLITS", small)
    out = sva.load_sva(cache_dir=tmp_path)
    assert {k: len(v) for k, v in out.items()} == {"train": 30, "val": 10, "test": 10}
    assert out["val"] == sva.generate_sva(10, 1)
    files = sorted((tmp_path / "sva" / "v1").glob("*.jsonl"))
    assert [f.name for f in files] == [
        "sva_test.jsonl",
        "sva_train.jsonl",
        "sva_val.jsonl",
    ]

    def fail(*a, **k):
        raise AssertionError("regenerated although cached")

    monkeypatch.setattr(sva, "generate_sva", fail)
    assert sva.load_sva(cache_dir=tmp_path) == out
    # a folder in seed 001's layout
    assert sva.load_sva(tmp_path / "sva" / "v1") == out
    (tmp_path / "sva" / "v1" / "sva_test.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match="lacks sva_test.jsonl"):
        sva.load_sva(tmp_path / "sva" / "v1")


# ---------------------------------------------------------------- batches


def test_sva_batch(splits):
    recs = splits["val"]
    idx = np.array([1, 0, 6, 2])
    b = sva.sva_batch(recs, idx)
    assert b["tokens"].shape == (4, 9) and b["tokens"].dtype == np.int32
    for row, i in enumerate(idx):
        r = recs[i]
        n = len(r["tokens"])
        assert (
            b["tokens"][row, 0] == sva.BOS_ID and b["tokens"][row, n + 1] == sva.EOS_ID
        )
        assert [sva.VOCAB[t] for t in b["tokens"][row, 1 : n + 1]] == r["tokens"]
        assert np.all(b["tokens"][row, n + 2 :] == sva.PAD_ID)
        assert b["mask"][row].sum() == n + 2
        assert (
            sva.VOCAB[b["tokens"][row, b["verb_pos"][row]]]
            == r["tokens"][r["verb_idx"]]
        )
        assert b["label"][row] == r["label"]
        assert b["hard"][row] == (r["has_distractor"] and not r["distractor_agrees"])
    assert b["hard"].tolist() == [
        False,
        True,
        True,
        False,
    ]  # records 1, 0, 6, 2 of the shipped val
    short = sva.sva_batch(recs, [1, 2])
    assert short["tokens"].shape == (2, 6)  # padded to the batch's own maximum
    with pytest.raises(ValueError, match="non-empty 1-D integer"):
        sva.sva_batch(recs, [])
    with pytest.raises(ValueError, match="out of range"):
        sva.sva_batch(recs, [len(recs)])
