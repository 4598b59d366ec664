"""The espeak-ng keyword set: split by voice, determinism, SNR, features against numpy."""

import dataclasses
import json
import shutil

import numpy as np
import pytest

from syncattn.data import kws

from ..helpers import approx, assert_close


needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
librosa = pytest.importorskip("librosa")

SMALL = kws.KWSDataConfig(voices=(2, 1, 1), clips_per_class=1)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The SMALL set generated into a fresh cache (48 clips)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed")
    root = tmp_path_factory.mktemp("kws-cache")
    return kws.load_kws(SMALL, cache_dir=root), root


# --------------------------------------------------------------------------- the set


def test_shapes_labels_and_manifest(small):
    data, _ = small
    n_class = len(kws.CLASSES)
    assert kws.CLASSES[:10] == kws.KEYWORDS and kws.CLASSES[10:] == ("unknown", "silence")
    for split, n_voice in zip(("train", "val", "test"), SMALL.voices, strict=True):
        d = data.splits[split]
        n = n_voice * n_class * SMALL.clips_per_class
        assert d["x"].shape == (n, kws.N_FRAMES, kws.N_MELS) and d["x"].dtype == np.float32
        assert d["y"].shape == (n,) and np.bincount(d["y"], minlength=n_class).tolist() == [
            n_voice * SMALL.clips_per_class
        ] * n_class
        assert np.all(np.isfinite(d["x"]))
        assert data.manifest["counts"][split] == n
    m = data.manifest
    assert m["config"] == json.loads(json.dumps(dataclasses.asdict(SMALL)))
    assert m["hash"] == kws.config_hash(SMALL, m["espeak_ng"]) == data.path.name
    assert m["librosa"] == librosa.__version__
    x = np.concatenate([data.splits[s]["x"] for s in ("train", "val", "test")])
    import hashlib

    # features.npz is stored in plan order (train, val, test), as the manifest's hash
    assert hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest() == m["features_sha256"]


def test_split_by_voice_is_disjoint(small):
    data, _ = small
    voices = {s: {kws.VARIANTS[i] for i in data.splits[s]["voice"]} for s in data.splits}
    assert voices["train"].isdisjoint(voices["val"]) and voices["train"].isdisjoint(voices["test"])
    assert voices["val"].isdisjoint(voices["test"])
    assert {s: sorted(v) for s, v in voices.items()} == {
        s: sorted(v) for s, v in data.manifest["speakers"].items()
    }
    # the full default split too (no generation needed)
    sp = kws.voice_split(kws.KWSDataConfig(voices=(70, 15, 15)))
    assert [len(sp[s]) for s in ("train", "val", "test")] == [70, 15, 15]
    assert len(set(sp["train"]) | set(sp["val"]) | set(sp["test"])) == 100
    cfg = kws.KWSDataConfig(voices=(5, 2, 2), clips_per_class=1)
    sp = kws.voice_split(cfg)
    plan = kws.clip_plan(cfg)
    for split in ("train", "val", "test"):
        assert {c["voice"] for c in plan if c["split"] == split} == set(sp[split])


def test_plan_is_a_pure_function_of_the_seed():
    a = kws.clip_plan(kws.KWSDataConfig(voices=(3, 1, 1), clips_per_class=2, seed=3))
    b = kws.clip_plan(kws.KWSDataConfig(voices=(3, 1, 1), clips_per_class=2, seed=3))
    c = kws.clip_plan(kws.KWSDataConfig(voices=(3, 1, 1), clips_per_class=2, seed=4))
    assert a == b and a != c
    # one clip does not depend on the others: a larger set keeps the first speaker's clips
    big = kws.clip_plan(kws.KWSDataConfig(voices=(3, 1, 1), clips_per_class=3, seed=3))
    first = [x for x in a if x["voice"] == a[0]["voice"]]
    assert all(x in big for x in first)
    words = {x["word"] for x in a if kws.CLASSES[x["label"]] == "unknown"}
    assert words <= set(kws.UNKNOWN_WORDS) and not words & set(kws.KEYWORDS)
    assert all(x["word"] == "" for x in a if kws.CLASSES[x["label"]] == "silence")


@needs_espeak
def test_generation_is_deterministic(small, tmp_path):
    data, root = small
    # regenerated from scratch in another cache: bit-identical features
    again = kws.load_kws(SMALL, cache_dir=tmp_path, workers=1)
    assert again.path != data.path
    for s in data.splits:
        np.testing.assert_array_equal(again.splits[s]["x"], data.splits[s]["x"])
        np.testing.assert_array_equal(again.splits[s]["y"], data.splits[s]["y"])
    # the cached copy is read back without generating (espeak-ng not needed)
    mtime = (data.path / "features.npz").stat().st_mtime
    back = kws.load_kws(SMALL, cache_dir=root)
    assert back.path == data.path and (data.path / "features.npz").stat().st_mtime == mtime


@needs_espeak
def test_render_parts_and_snr(small):
    plan = kws.clip_plan(SMALL)
    word = next(c for c in plan if c["word"] == "yes")
    r = kws.render_clip(word)
    assert r["audio"].shape == (kws.SAMPLE_RATE,)
    assert_close(r["audio"], r["speech"] + r["noise"])
    snr = 10 * np.log10(np.sum(r["speech"] ** 2) / np.sum(r["noise"] ** 2))
    assert snr == approx(word["snr_db"], scale=100)
    assert np.abs(r["speech"]).max() == approx(10 ** (word["peak_db"] / 20))
    sil = kws.render_clip(next(c for c in plan if c["word"] == ""))
    assert np.all(sil["speech"] == 0)
    assert np.sqrt(np.mean(sil["noise"] ** 2)) == approx(10 ** (next(
        c for c in plan if c["word"] == "")["silence_db"] / 20))  # fmt: skip


# --------------------------------------------------------------------------- pieces


@pytest.mark.parametrize("snr", [-5.0, 0.0, 7.5, 30.0])
def test_add_noise_meets_its_snr(snr):
    rng = np.random.default_rng(0)
    s = np.concatenate([np.zeros(300), np.sin(np.arange(700) * 0.3), np.zeros(200)])
    v = rng.standard_normal(s.size) * 3.0
    mix = kws.add_noise(s, v, snr)
    # the definition: 10 log10(sum s^2 / sum (mix - s)^2), powers over the whole clip
    assert 10 * np.log10(np.sum(s**2) / np.sum((mix - s) ** 2)) == approx(snr, scale=10)
    # the noise keeps its shape: mix - s is a positive multiple of v
    k = (mix - s) / v
    assert_close(k, np.full_like(k, k[0]))
    with pytest.raises(ValueError, match="all zeros"):
        kws.add_noise(np.zeros(10), v[:10], 5.0)
    with pytest.raises(ValueError, match="1-D of one length"):
        kws.add_noise(s, v[:-1], 5.0)


@pytest.mark.parametrize("color,beta", [("white", 0.0), ("pink", 1.0), ("brown", 2.0)])
def test_colored_noise_spectrum(color, beta):
    n = 1 << 14
    x = kws.colored_noise(n, color, np.random.default_rng(1))
    assert np.mean(x**2) == approx(1.0)
    # log-log slope of the periodogram over 1/64 .. 1/4 cycles per sample (Monte Carlo:
    # about 2,000 bins, so the fitted slope is within 0.1 of -beta)
    p = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(n)
    sel = (f > 1 / 64) & (f < 1 / 4)
    slope = np.polyfit(np.log(f[sel]), np.log(p[sel]), 1)[0]
    assert abs(slope + beta) < 0.1
    with pytest.raises(ValueError, match="color"):
        kws.colored_noise(n, "blue", np.random.default_rng(0))


def test_place():
    w = np.arange(1.0, 11.0)
    out = kws.place(w, 0.5, n=30)
    assert out.shape == (30,) and np.flatnonzero(out).tolist() == list(range(10, 20))
    assert kws.place(w, 0.0, n=30)[0] == 1.0 and kws.place(w, 1.0, n=30)[-1] == 10.0
    assert kws.place(w, 0.3, n=6).tolist() == [3.0, 4.0, 5.0, 6.0, 7.0, 8.0]  # the middle


def _mel_numpy(x):
    """Independent log-mel: numpy framing + rfft, HTK mel triangles by hand (float64)."""
    n_fft, win, hop, n_mels, sr = 512, 400, 320, 40, 16000
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(win) / win)  # periodic Hann
    wpad = np.zeros(n_fft)
    wpad[(n_fft - win) // 2 : (n_fft - win) // 2 + win] = w
    xp = np.pad(x, n_fft // 2, mode="reflect")
    frames = [xp[t * hop : t * hop + n_fft] for t in range(1 + len(x) // hop)]
    power = np.abs(np.fft.rfft(np.array(frames) * wpad, axis=1)) ** 2  # (T, 257)

    def hz2mel(f):
        return 2595 * np.log10(1 + f / 700)

    def mel2hz(m):
        return 700 * (10 ** (m / 2595) - 1)

    edges = mel2hz(np.linspace(hz2mel(0), hz2mel(sr / 2), n_mels + 2))
    freqs = np.arange(n_fft // 2 + 1) * sr / n_fft
    fb = np.zeros((n_mels, freqs.size))
    for m in range(n_mels):
        lo, c, hi = edges[m], edges[m + 1], edges[m + 2]
        for k, f in enumerate(freqs):
            if lo <= f <= c:
                fb[m, k] = (f - lo) / (c - lo)
            elif c < f <= hi:
                fb[m, k] = (hi - f) / (hi - c)
    S = power @ fb.T
    return 10 * np.log10(np.maximum(S, 1e-10))[:49]


def test_log_mel_against_numpy():
    rng = np.random.default_rng(2)
    t = np.arange(kws.SAMPLE_RATE) / kws.SAMPLE_RATE
    x = 0.3 * np.sin(2 * np.pi * 440 * t) * np.exp(-3 * t) + 0.01 * rng.standard_normal(t.size)
    got = kws.log_mel(x)
    assert got.shape == (49, 40) and got.dtype == np.float32
    # dB of float32 features: 1e-4 dB of a ~[-60, 10] dB range
    assert_close(got, _mel_numpy(x), rtol=0, atol=1e-3)
    # a shorter clip is zero-padded to one second
    assert_close(kws.log_mel(x[:8000]), kws.log_mel(np.concatenate([x[:8000], np.zeros(8000)])))


def test_normalize_uses_train_statistics():
    rng = np.random.default_rng(0)
    sp = {s: {"x": rng.normal(3.0, 2.0, (n, 5, 4)).astype(np.float32), "y": np.zeros(n)}
          for s, n in (("train", 30), ("val", 7))}  # fmt: skip
    out = kws.normalize(sp)
    flat = out["train"]["x"].reshape(-1, 4).astype(np.float64)
    assert_close(flat.mean(0), np.zeros(4), dtype=np.float32, atol=1e-5)
    assert_close(flat.std(0, ddof=1), np.ones(4), dtype=np.float32)
    tr = sp["train"]["x"].reshape(-1, 4).astype(np.float64)
    want = (sp["val"]["x"] - tr.mean(0)) / tr.std(0, ddof=1)
    assert_close(out["val"]["x"], want, dtype=np.float32)


# --------------------------------------------------------------------------- errors


def test_missing_espeak_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no espeak-ng
    with pytest.raises(kws.EspeakNotFound, match="apt-get install -y espeak-ng"):
        kws.espeak_path()
    with pytest.raises(FileNotFoundError, match="espeak-ng was not found"):
        kws.load_kws(SMALL, cache_dir=tmp_path / "cache")


def test_missing_librosa_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "librosa", None)  # import librosa -> ImportError
    with pytest.raises(ImportError, match=r"syncattn\[kws\]"):
        kws.log_mel(np.zeros(100))


def test_config_checks():
    with pytest.raises(ValueError, match="voices"):
        kws.KWSDataConfig(voices=(99, 1, 1))
    with pytest.raises(ValueError, match="voices"):
        kws.KWSDataConfig(voices=(3, 0, 1))
    with pytest.raises(ValueError, match="speed"):
        kws.KWSDataConfig(speed=(50, 100))
    with pytest.raises(ValueError, match="clips_per_class"):
        kws.KWSDataConfig(clips_per_class=0)
    h = kws.config_hash(SMALL, "v")
    assert h == kws.config_hash(SMALL, "v") != kws.config_hash(SMALL, "w")
    assert h != kws.config_hash(dataclasses.replace(SMALL, seed=1), "v")
