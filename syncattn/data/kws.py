r"""A spoken-keyword data set synthesised with ``espeak-ng``: a regenerable proxy for Speech Commands.

Seed 001's first bidirectional task is keyword spotting on Google Speech Commands
v0.02 (../shared/EXPERIMENTS.md B1), which cannot be downloaded here. This module
builds a stand-in that any machine with ``espeak-ng`` regenerates bit for bit from
a seed:

* **classes**: the ten Speech Commands keywords (`KEYWORDS`: yes, no, up, down,
  left, right, on, off, stop, go), ``"unknown"`` (one of the auxiliary Speech
  Commands words, `UNKNOWN_WORDS`) and ``"silence"`` (noise only): `CLASSES`, 12;
* **voices**: an espeak-ng *voice variant* (`VARIANTS`: formants, pitch range,
  breathiness, Klatt synthesis, whisper, ...) is one speaker. Each clip draws an
  English accent (`ACCENTS`), a speed (words per minute) and a pitch;
* **split by voice**: the variants are shuffled with the seed and dealt into
  train, validation and test, so no test speaker is ever heard in training (the
  accents are shared between splits, as dialects are between speakers);
* **noise**: every clip gets additive white, pink or brown noise at an SNR drawn
  from `KWSDataConfig.snr_db` ([`syncattn.data.kws.add_noise`][]), and the
  ``"silence"`` clips are that noise alone;
* **features**: one second at 16 kHz, seed 001's log-mel front end (n_fft 512,
  window 400, hop 320, 40 HTK mels, power in dB), 49 frames x 40 mels, computed
  with librosa ([`syncattn.data.kws.log_mel`][]).

[`syncattn.data.kws.load_kws`][] generates the set once into
``cache_dir()/kws/<hash>/`` (``features.npz`` and ``manifest.json`` holding the
generation config, the espeak-ng and librosa versions and the hash) and reads it
back afterwards. A machine without ``espeak-ng`` gets a clear error (it can still
read a set cached elsewhere); one without librosa is told to install the optional
extra ``syncattn[kws]``.

This is a *synthetic proxy*: synthetic speech is far more regular than Speech
Commands' crowd-sourced recordings, so its accuracies are not the paper's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from . import _audio
from ._audio import (
    ESPEAK_RATE as ESPEAK_RATE,
    HOP_LENGTH,
    N_FFT,
    N_FRAMES as N_FRAMES,
    N_MELS as N_MELS,
    NOISE_COLORS as NOISE_COLORS,
    SAMPLE_RATE as SAMPLE_RATE,
    WIN_LENGTH,
    EspeakNotFound as EspeakNotFound,
    _espeak_variants,
    _espeak_version,
    _librosa,
    add_noise as add_noise,
    colored_noise as colored_noise,
    espeak_path as espeak_path,
    log_mel as log_mel,
    place as place,
    synthesize as synthesize,
)
from ._corpus import cache_dir as _cache_dir


__all__ = [
    "KEYWORDS",
    "UNKNOWN_WORDS",
    "CLASSES",
    "ACCENTS",
    "VARIANTS",
    "KWSDataConfig",
    "KWSData",
    *_audio.__all__,  # the synthesiser and features, re-exported
    "voice_split",
    "clip_plan",
    "render_clip",
    "generate",
    "load_kws",
    "normalize",
    "config_hash",
]


def _words(text: str) -> tuple[str, ...]:
    """The whitespace-separated words of `text`, in order."""
    return tuple(text.split())


KEYWORDS = ("yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go")
"""Speech Commands' ten keywords (seed 001's ``CLASSES_10``), class ids 0-9."""

UNKNOWN_WORDS = _words("""
    bed bird cat dog eight five four happy house marvin nine one seven sheila six
    three tree two wow zero learn follow forward backward visual
""")
"""The auxiliary Speech Commands v0.02 words: class ``"unknown"``."""

CLASSES = (*KEYWORDS, "unknown", "silence")
"""Class names by id: the keywords, then ``"unknown"`` (10) and ``"silence"`` (11)."""

ACCENTS = _words("""
    en-us en-gb en-gb-scotland en-gb-x-rp en-gb-x-gbclan en-gb-x-gbcwmd en-029
    en-us-nyc
""")
"""espeak-ng's English voices (pronunciation rules), drawn per clip."""

VARIANTS = _words("""
    adam Alex Alicia Andrea Andy Annie antonio aunty belinda benjamin boris caleb
    david Demonic Denis Diogo ed edward edward2 Gene Gene2 gustave announcer
    Henrique Hugo iven iven2 iven3 iven4 Jacky john kaukovalta Lee linda marcelo
    Marco Mario max Michael michel miguel Mike Nguyen pablo paul pedro quincy
    RicishayMax RicishayMax2 RicishayMax3 rob robert robosoft robosoft2 robosoft3
    robosoft4 robosoft5 robosoft6 robosoft7 robosoft8 steph steph2 steph3 Storm
    Tweaky UniRobot zac anika anikaRobot AnxiousAndy fast f2 f3 f4 f5 whisperf
    grandpa klatt klatt2 klatt3 klatt4 klatt5 klatt6 m2 m3 m4 m5 m6 m7 norbert
    sandro shelby travis victor whisper m8 f1 croak m1 grandma
""")
"""espeak-ng 1.51's voice variants (file names under ``voices/!v``): the speakers."""

GENERATOR_VERSION = 1
"""Bumped whenever the generation changes; part of the cache hash."""

SPLITS = ("train", "val", "test")


# --------------------------------------------------------------------------- the set


@dataclasses.dataclass(frozen=True)
class KWSDataConfig:
    """What the generated set is a function of (with the espeak-ng version).

    Attributes:
        seed: the seed of every draw (voice split, clip parameters, noise).
        voices: number of speakers (variants) per split, ``(train, val, test)``; at
            most ``len(VARIANTS)`` in all.
        clips_per_class: clips of each class per speaker (keywords: that many
            renditions of each word; ``"unknown"``: that many random auxiliary words;
            ``"silence"``: that many noise clips).
        speed: words-per-minute range, both ends included.
        pitch: espeak-ng pitch range (0-99), both ends included.
        snr_db: SNRs (dB) drawn uniformly per clip for the additive noise.
        peak_db: range of the word's peak level (dBFS), drawn uniformly.
        silence_db: range of the RMS level (dBFS) of the ``"silence"`` clips.
    """

    seed: int = 0
    voices: tuple[int, ...] = (40, 10, 10)
    clips_per_class: int = 8
    speed: tuple[int, ...] = (120, 220)
    pitch: tuple[int, ...] = (20, 80)
    snr_db: tuple[float, ...] = (0.0, 5.0, 10.0, 20.0, 40.0)
    peak_db: tuple[float, ...] = (-20.0, -1.0)
    silence_db: tuple[float, ...] = (-60.0, -20.0)

    def __post_init__(self):
        if len(self.voices) != 3 or min(self.voices) < 1:
            raise ValueError(
                f"voices must be 3 counts >= 1 (train, val, test); got {self.voices}."
            )
        if sum(self.voices) > len(VARIANTS):
            raise ValueError(
                f"voices: {sum(self.voices)} speakers in all, but only {len(VARIANTS)} variants."
            )
        if self.clips_per_class < 1:
            raise ValueError(
                f"clips_per_class must be >= 1; got {self.clips_per_class}."
            )
        for name, lo, hi in (("speed", 80, 450), ("pitch", 0, 99)):
            r = getattr(self, name)
            if len(r) != 2 or not lo <= r[0] <= r[1] <= hi:
                raise ValueError(
                    f"{name} must be a range (lo, hi) within [{lo}, {hi}]; got {r}."
                )
        for name in ("peak_db", "silence_db"):
            r = getattr(self, name)
            if len(r) != 2 or not r[0] <= r[1] <= 0:
                raise ValueError(
                    f"{name} must be a range (lo, hi) of dBFS <= 0; got {r}."
                )
        if not self.snr_db or not all(np.isfinite(self.snr_db)):
            raise ValueError(f"snr_db must be non-empty and finite; got {self.snr_db}.")


def config_hash(config: KWSDataConfig, espeak_version: str) -> str:
    """16 hex digits of the SHA-256 of the config, the espeak-ng version and
    `GENERATOR_VERSION`: the cache folder's name."""
    payload = {
        "config": dataclasses.asdict(config),
        "espeak": espeak_version,
        "generator": GENERATOR_VERSION,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def voice_split(config: KWSDataConfig) -> dict[str, tuple[str, ...]]:
    """The speakers of each split: `VARIANTS` permuted by
    ``numpy.random.default_rng((seed, 0))``, dealt in order into train, val, test."""
    order = np.random.default_rng((config.seed, 0)).permutation(len(VARIANTS))
    out, i = {}, 0
    for split, n in zip(SPLITS, config.voices, strict=True):
        out[split] = tuple(VARIANTS[j] for j in order[i : i + n])
        i += n
    return out


def clip_plan(config: KWSDataConfig) -> list[dict[str, Any]]:
    """Every clip's parameters, in a fixed order (split, speaker, class, repetition).

    Clip $c$ draws from its own ``numpy.random.default_rng((seed, 1, split, speaker,
    class, repetition))``, so a clip does not depend on the others (nor on the order
    they are rendered in): accent, speed, pitch, word, offset, peak level, noise colour,
    SNR, silence level and the noise seed.
    """
    plan = []
    for s, (split, voices) in enumerate(voice_split(config).items()):
        for v, variant in enumerate(voices):
            for label, name in enumerate(CLASSES):
                for r in range(config.clips_per_class):
                    rng = np.random.default_rng((config.seed, 1, s, v, label, r))
                    plan.append(_clip(config, rng, split, variant, label, name))
    return plan


def _clip(config: KWSDataConfig, rng, split: str, variant: str, label: int, name: str):
    """One clip's parameters (`clip_plan`), drawn from `rng` in the order listed."""
    if name in KEYWORDS:
        word = name
    elif name == "unknown":
        word = UNKNOWN_WORDS[int(rng.integers(len(UNKNOWN_WORDS)))]
    else:
        word = ""
    return {
        "split": split,
        "voice": variant,
        "label": label,
        "word": word,
        "accent": ACCENTS[int(rng.integers(len(ACCENTS)))],
        "speed": int(rng.integers(config.speed[0], config.speed[1] + 1)),
        "pitch": int(rng.integers(config.pitch[0], config.pitch[1] + 1)),
        "offset": float(rng.uniform()),
        "peak_db": float(rng.uniform(*config.peak_db)),
        "color": NOISE_COLORS[int(rng.integers(len(NOISE_COLORS)))],
        "snr_db": float(config.snr_db[int(rng.integers(len(config.snr_db)))]),
        "silence_db": float(rng.uniform(*config.silence_db)),
        "noise_seed": int(rng.integers(2**63)),
    }


def render_clip(clip: dict[str, Any], exe: str | None = None) -> dict[str, np.ndarray]:
    r"""The waveform of one planned clip, and its parts.

    A word clip is the trimmed word ([`synthesize`][syncattn.data.kws.synthesize])
    scaled to the peak level $10^{\text{peak\_db}/20}$, [`place`][syncattn.data.kws.place]d
    in one second, plus noise of its colour at its SNR
    ([`add_noise`][syncattn.data.kws.add_noise]). A ``"silence"`` clip is the noise
    alone at RMS $10^{\text{silence\_db}/20}$.

    Returns:
        ``{"audio", "speech", "noise"}``: the clip and its two components
        (``audio = speech + noise``; ``speech`` is zero for silence).
    """
    rng = np.random.default_rng(clip["noise_seed"])
    nu = colored_noise(SAMPLE_RATE, clip["color"], rng)
    if clip["word"] == "":
        speech = np.zeros(SAMPLE_RATE)
        noise = 10.0 ** (clip["silence_db"] / 20.0) * nu
        return {"audio": speech + noise, "speech": speech, "noise": noise}
    w = synthesize(
        clip["word"],
        accent=clip["accent"],
        variant=clip["voice"],
        speed=clip["speed"],
        pitch=clip["pitch"],
        exe=exe,
    )
    w = w * (10.0 ** (clip["peak_db"] / 20.0) / np.abs(w).max())
    speech = place(w, clip["offset"])
    audio = add_noise(speech, nu, clip["snr_db"])
    return {"audio": audio, "speech": speech, "noise": audio - speech}


def _features(clip, exe):
    return log_mel(render_clip(clip, exe)["audio"])


def generate(
    config: KWSDataConfig, *, workers: int = 2, progress: bool = False
) -> dict:
    """Render and featurise every clip of `config`: ``{"x", "y", "split", "voice",
    "meta"}`` (``x``: ``(N, 49, 40)`` float32; ``meta``: the plan).

    `workers` espeak-ng processes run at once (threads; the result does not depend on
    it).

    Raises:
        EspeakNotFound: no espeak-ng; ValueError: variants missing from this espeak-ng.
    """
    exe = espeak_path()
    _librosa()
    missing = sorted(set(VARIANTS) - _espeak_variants(exe))
    if missing:
        raise ValueError(
            f"this espeak-ng ({_espeak_version(exe)}) lacks the voice variants {missing}; "
            "the set is defined on espeak-ng 1.51's variants."
        )
    plan = clip_plan(config)
    with ThreadPoolExecutor(max_workers=max(1, int(workers))) as pool:
        it = pool.map(lambda c: _features(c, exe), plan)
        if progress:
            from tqdm.auto import tqdm

            it = tqdm(it, total=len(plan), desc="kws data", leave=False)
        x = np.stack(list(it))
    return {
        "x": x,
        "y": np.array([c["label"] for c in plan], np.int32),
        "split": np.array([SPLITS.index(c["split"]) for c in plan], np.int8),
        "voice": np.array([VARIANTS.index(c["voice"]) for c in plan], np.int16),
        "meta": plan,
    }


@dataclasses.dataclass(frozen=True, eq=False)
class KWSData:
    """A loaded keyword set.

    Attributes:
        splits: ``{"train" | "val" | "test": {"x": (N, 49, 40) float32 log-mels (dB),
            "y": (N,) int32 class ids, "voice": (N,) int16 indices into `VARIANTS`}}``.
        classes: `CLASSES`.
        manifest: the generation record (config, hash, versions, counts, speakers).
        path: the cache folder.
    """

    splits: dict[str, dict[str, np.ndarray]]
    classes: tuple[str, ...]
    manifest: dict[str, Any]
    path: Path


def load_kws(
    config: KWSDataConfig | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    workers: int = 2,
    progress: bool = False,
) -> KWSData:
    """The keyword set of `config`, generated into the cache on first use.

    The folder is ``cache_dir()/kws/<config_hash>`` (``cache_dir`` as
    [`syncattn.data.cache_dir`][]); it holds ``features.npz`` and ``manifest.json``.
    A folder whose manifest matches the config is read without espeak-ng or librosa.

    Raises:
        EspeakNotFound: the set is not cached and espeak-ng is missing.
        ImportError: the set is not cached and librosa is missing.
    """
    config = config or KWSDataConfig()
    root = _cache_dir(cache_dir) / "kws"
    cached = _find_cached(root, config)
    if cached is not None:
        return _read(cached)
    exe = espeak_path()
    version = _espeak_version(exe)
    h = config_hash(config, version)
    folder = root / h
    data = generate(config, workers=workers, progress=progress)
    librosa = _librosa()
    speakers = voice_split(config)
    manifest = {
        "hash": h,
        "config": dataclasses.asdict(config),
        "generator": GENERATOR_VERSION,
        "espeak_ng": version,
        "librosa": librosa.__version__,
        "classes": list(CLASSES),
        "speakers": {k: list(v) for k, v in speakers.items()},
        "counts": {s: int((data["split"] == i).sum()) for i, s in enumerate(SPLITS)},
        "features": {
            "sample_rate": SAMPLE_RATE,
            "n_fft": N_FFT,
            "win_length": WIN_LENGTH,
            "hop_length": HOP_LENGTH,
            "n_mels": N_MELS,
            "frames": N_FRAMES,
            "scale": "10 log10(power), htk mels, centred reflect-padded frames",
        },
        "features_sha256": hashlib.sha256(data["x"].tobytes()).hexdigest(),
        "clips": data["meta"],
    }
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{h}-"))
    np.savez(
        tmp / "features.npz",
        x=data["x"],
        y=data["y"],
        split=data["split"],
        voice=data["voice"],
    )
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1))
    try:
        os.replace(tmp, folder)
    except OSError:  # another process finished it first: keep theirs
        shutil.rmtree(tmp, ignore_errors=True)
    return _read(folder)


def _find_cached(root: Path, config: KWSDataConfig) -> Path | None:
    if not root.is_dir():
        return None
    want = dataclasses.asdict(config)
    want = json.loads(json.dumps(want))  # tuples as lists, as in the manifest
    for folder in sorted(root.iterdir()):
        m = folder / "manifest.json"
        if folder.name.startswith(".") or not m.is_file():
            continue
        man = json.loads(m.read_text())
        if man.get("config") == want and man.get("generator") == GENERATOR_VERSION:
            exe = shutil.which("espeak-ng")
            if exe is None or man.get("espeak_ng") == _espeak_version(exe):
                return folder
    return None


def _read(folder: Path) -> KWSData:
    manifest = json.loads((folder / "manifest.json").read_text())
    with np.load(folder / "features.npz") as f:
        arrays = {k: f[k] for k in f.files}
    splits = {}
    for i, s in enumerate(SPLITS):
        sel = arrays["split"] == i
        splits[s] = {
            "x": arrays["x"][sel],
            "y": arrays["y"][sel],
            "voice": arrays["voice"][sel],
        }
    return KWSData(
        splits=splits,
        classes=tuple(manifest["classes"]),
        manifest=manifest,
        path=folder,
    )


def normalize(
    splits: dict[str, dict[str, np.ndarray]],
) -> dict[str, dict[str, np.ndarray]]:
    r"""Per-mel standardisation with the training statistics (seed 001's):
    $x \mapsto (x - \mu)/\max(\sigma, 10^{-5})$, $\mu_m, \sigma_m$ the mean and sample
    standard deviation of mel $m$ over all training frames."""
    x = splits["train"]["x"]
    tr = x.reshape(-1, x.shape[-1]).astype(np.float64)
    mu, sd = tr.mean(0), np.maximum(tr.std(0, ddof=1), 1e-5)
    return {
        s: d | {"x": ((d["x"] - mu) / sd).astype(np.float32)} for s, d in splits.items()
    }
