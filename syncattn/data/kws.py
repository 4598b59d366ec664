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
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ._corpus import cache_dir as _cache_dir


__all__ = [
    "KEYWORDS",
    "UNKNOWN_WORDS",
    "CLASSES",
    "ACCENTS",
    "VARIANTS",
    "NOISE_COLORS",
    "SAMPLE_RATE",
    "N_MELS",
    "N_FRAMES",
    "KWSDataConfig",
    "KWSData",
    "EspeakNotFound",
    "espeak_path",
    "synthesize",
    "colored_noise",
    "add_noise",
    "place",
    "log_mel",
    "voice_split",
    "clip_plan",
    "render_clip",
    "generate",
    "load_kws",
    "normalize",
    "config_hash",
]

KEYWORDS = ("yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go")
"""Speech Commands' ten keywords (seed 001's ``CLASSES_10``), class ids 0-9."""

UNKNOWN_WORDS = (
    "bed", "bird", "cat", "dog", "eight", "five", "four", "happy", "house", "marvin",
    "nine", "one", "seven", "sheila", "six", "three", "tree", "two", "wow", "zero",
    "learn", "follow", "forward", "backward", "visual",
)  # fmt: skip
"""The auxiliary Speech Commands v0.02 words: class ``"unknown"``."""

CLASSES = (*KEYWORDS, "unknown", "silence")
"""Class names by id: the keywords, then ``"unknown"`` (10) and ``"silence"`` (11)."""

ACCENTS = (
    "en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan",
    "en-gb-x-gbcwmd", "en-029", "en-us-nyc",
)  # fmt: skip
"""espeak-ng's English voices (pronunciation rules), drawn per clip."""

VARIANTS = (
    "adam", "Alex", "Alicia", "Andrea", "Andy", "Annie", "antonio", "aunty", "belinda",
    "benjamin", "boris", "caleb", "david", "Demonic", "Denis", "Diogo", "ed", "edward",
    "edward2", "Gene", "Gene2", "gustave", "announcer", "Henrique", "Hugo", "iven",
    "iven2", "iven3", "iven4", "Jacky", "john", "kaukovalta", "Lee", "linda", "marcelo",
    "Marco", "Mario", "max", "Michael", "michel", "miguel", "Mike", "Nguyen", "pablo",
    "paul", "pedro", "quincy", "RicishayMax", "RicishayMax2", "RicishayMax3", "rob",
    "robert", "robosoft", "robosoft2", "robosoft3", "robosoft4", "robosoft5",
    "robosoft6", "robosoft7", "robosoft8", "steph", "steph2", "steph3", "Storm",
    "Tweaky", "UniRobot", "zac", "anika", "anikaRobot", "AnxiousAndy", "fast", "f2",
    "f3", "f4", "f5", "whisperf", "grandpa", "klatt", "klatt2", "klatt3", "klatt4",
    "klatt5", "klatt6", "m2", "m3", "m4", "m5", "m6", "m7", "norbert", "sandro",
    "shelby", "travis", "victor", "whisper", "m8", "f1", "croak", "m1", "grandma",
)  # fmt: skip
"""espeak-ng 1.51's voice variants (file names under ``voices/!v``): the speakers."""

NOISE_COLORS = ("white", "pink", "brown")
"""Additive noise spectra: power $\\propto f^0$, $f^{-1}$, $f^{-2}$."""

SAMPLE_RATE = 16_000
N_FFT, WIN_LENGTH, HOP_LENGTH = 512, 400, 320
N_MELS = 40
N_FRAMES = 49
"""Seed 001's front end: 1 s at 16 kHz, 49 frames of 40 log-mels (R:training/kws_dataset.py)."""

ESPEAK_RATE = 22_050
"""espeak-ng's output sample rate."""

GENERATOR_VERSION = 1
"""Bumped whenever the generation changes; part of the cache hash."""

SPLITS = ("train", "val", "test")


class EspeakNotFound(FileNotFoundError):
    """``espeak-ng`` is not on ``PATH`` (install it: ``apt-get install espeak-ng``)."""


def espeak_path() -> str:
    """The ``espeak-ng`` executable on ``PATH``.

    Raises:
        EspeakNotFound: when there is none, with the install command.
    """
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise EspeakNotFound(
            "espeak-ng was not found on PATH; the keyword-spotting data set is "
            "synthesised with it. Install it (Debian/Ubuntu: `apt-get install -y "
            "espeak-ng`; macOS: `brew install espeak-ng`), or point SYNCATTN_CACHE at a "
            "cache that already holds the generated set."
        )
    return exe


def _espeak_version(exe: str) -> str:
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.strip().split("  Data at")[0]


def _espeak_variants(exe: str) -> set[str]:
    out = subprocess.run([exe, "--voices=variant"], capture_output=True, text=True, check=True)
    names = set()
    for line in out.stdout.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 5 and parts[4].startswith("!v/"):
            names.add(parts[4][3:])
    return names


def _librosa():
    try:
        import librosa
    except ImportError as e:
        raise ImportError(
            "the keyword-spotting features need librosa: pip install 'syncattn[kws]' "
            "(or pip install librosa)."
        ) from e
    return librosa


# --------------------------------------------------------------------------- audio


def synthesize(
    word: str, *, accent: str, variant: str, speed: int, pitch: int, exe: str | None = None
) -> np.ndarray:
    r"""One word spoken by espeak-ng, resampled to 16 kHz, silence trimmed.

    ``espeak-ng -v ACCENT+VARIANT -s SPEED -p PITCH -z --stdout WORD``; the 16-bit
    samples $/2^{15}$ at 22,050 Hz are resampled by the polyphase filter of
    ``scipy.signal.resample_poly`` (up 320, down 441), and the leading and
    trailing samples below 1 % of the peak are cut.

    Args:
        word: the text.
        accent: one of `ACCENTS` (or any espeak-ng voice).
        variant: one of `VARIANTS`.
        speed: words per minute (80-450).
        pitch: 0-99.
        exe: the executable (default: [`espeak_path`][syncattn.data.kws.espeak_path]).

    Returns:
        float64 samples in $[-1, 1]$ at `SAMPLE_RATE`.

    Raises:
        EspeakNotFound: no espeak-ng; RuntimeError: it failed or produced no sound.
    """
    from scipy.signal import resample_poly

    exe = exe or espeak_path()
    cmd = [exe, "-v", f"{accent}+{variant}", "-s", str(int(speed)), "-p", str(int(pitch)),
           "-z", "--stdout", word]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True)
    raw = proc.stdout
    i = raw.find(b"data")
    if proc.returncode != 0 or i < 0:
        raise RuntimeError(f"espeak-ng failed on {cmd}: {proc.stderr.decode(errors='replace')}")
    pcm = np.frombuffer(raw[i + 8 : i + 8 + (len(raw) - i - 8) // 2 * 2], dtype="<i2")
    x = resample_poly(pcm.astype(np.float64) / 32768.0, 320, 441)
    loud = np.nonzero(np.abs(x) >= 0.01 * np.abs(x).max(initial=0.0))[0]
    if pcm.size == 0 or loud.size == 0 or not np.abs(x).max() > 0:
        raise RuntimeError(f"espeak-ng produced no sound for {cmd}.")
    return x[loud[0] : loud[-1] + 1]


def colored_noise(n: int, color: str, rng: np.random.Generator) -> np.ndarray:
    r"""Gaussian noise of length $n$ with power spectrum $\propto f^{-\beta}$, unit RMS.

    $\beta = 0, 1, 2$ for ``"white"``, ``"pink"``, ``"brown"``: the real FFT of white
    noise is scaled by $f^{-\beta/2}$ (the DC bin set to 0 for pink and brown), inverted,
    and the result divided by its RMS $\sqrt{\frac1n\sum_t x_t^2}$.
    """
    if color not in NOISE_COLORS:
        raise ValueError(f"color must be one of {NOISE_COLORS}; got {color!r}.")
    if n < 2:
        raise ValueError(f"n must be >= 2; got {n}.")
    w = rng.standard_normal(n)
    if color != "white":
        beta = {"pink": 1.0, "brown": 2.0}[color]
        spec = np.fft.rfft(w)
        f = np.fft.rfftfreq(n)
        scale = np.zeros_like(f)
        scale[1:] = f[1:] ** (-beta / 2)
        w = np.fft.irfft(spec * scale, n)
    return w / np.sqrt(np.mean(w**2))


def add_noise(signal: np.ndarray, noise: np.ndarray, snr_db: float) -> np.ndarray:
    r"""$s + \sigma\,\nu$ with $\sigma$ chosen for a signal-to-noise ratio of `snr_db`.

    $$\mathrm{SNR} = 10\log_{10}\frac{\sum_t s_t^2}{\sum_t (\sigma\nu_t)^2},\qquad
      \sigma = \sqrt{\frac{\sum_t s_t^2}{\sum_t \nu_t^2}}\;10^{-\mathrm{SNR}/20},$$

    the powers taken over the whole clip (the padding around the word included).

    Raises:
        ValueError: shapes differ, or the signal or the noise is all zeros.
    """
    s, v = np.asarray(signal, np.float64), np.asarray(noise, np.float64)
    if s.shape != v.shape or s.ndim != 1:
        raise ValueError(f"signal and noise must be 1-D of one length; got {s.shape}, {v.shape}.")
    ps, pn = float(np.sum(s**2)), float(np.sum(v**2))
    if not (ps > 0 and pn > 0):
        raise ValueError("signal and noise must not be all zeros (the SNR is undefined).")
    return s + np.sqrt(ps / pn) * 10.0 ** (-float(snr_db) / 20.0) * v


def place(speech: np.ndarray, offset: float, n: int = SAMPLE_RATE) -> np.ndarray:
    r"""`speech` inside $n$ zeros, starting at $\lfloor u\,(n - m)\rfloor$ for
    $u$ = `offset` $\in [0, 1]$ and $m$ its length; a word longer than $n$ samples
    keeps its middle $n$."""
    speech = np.asarray(speech, np.float64)
    m = speech.size
    if m >= n:
        a = (m - n) // 2
        return speech[a : a + n].copy()
    out = np.zeros(n)
    a = int(np.floor(float(offset) * (n - m)))
    out[a : a + m] = speech
    return out


def log_mel(audio: np.ndarray) -> np.ndarray:
    r"""Seed 001's log-mel features of one 16 kHz clip: ``(49, 40)`` float32.

    $$S_{m,t} = \sum_k M_{m,k}\,\Bigl|\sum_n w_n\,x_{tH+n-N/2}\,e^{-2\pi i kn/N}\Bigr|^2,
      \qquad F_{t,m} = 10\log_{10}\max(S_{m,t}, 10^{-10}),$$

    with $N$ = 512, the periodic Hann window $w$ of 400 samples centred in the 512,
    hop $H$ = 320, the signal reflect-padded by $N/2$ at both ends (centred frames),
    and $M$ the 40 triangular HTK-mel filters on 0-8 kHz without area normalisation
    (torchaudio's ``MelSpectrogram`` defaults, which seed 001 uses); the first 49
    frames are kept. Computed by ``librosa.feature.melspectrogram``.

    Args:
        audio: 1-D samples; padded with zeros or cut to `SAMPLE_RATE` samples.
    """
    librosa = _librosa()
    x = np.asarray(audio, np.float64).reshape(-1)
    x = np.pad(x, (0, max(0, SAMPLE_RATE - x.size)))[:SAMPLE_RATE]
    S = librosa.feature.melspectrogram(
        y=x, sr=SAMPLE_RATE, n_fft=N_FFT, hop_length=HOP_LENGTH, win_length=WIN_LENGTH,
        window="hann", center=True, pad_mode="reflect", power=2.0, n_mels=N_MELS,
        fmin=0.0, fmax=SAMPLE_RATE / 2, htk=True, norm=None,
    )  # fmt: skip
    db = librosa.power_to_db(S, ref=1.0, amin=1e-10, top_db=None)
    return np.ascontiguousarray(db.T[:N_FRAMES], dtype=np.float32)


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
            raise ValueError(f"voices must be 3 counts >= 1 (train, val, test); got {self.voices}.")
        if sum(self.voices) > len(VARIANTS):
            raise ValueError(
                f"voices: {sum(self.voices)} speakers in all, but only {len(VARIANTS)} variants."
            )
        if self.clips_per_class < 1:
            raise ValueError(f"clips_per_class must be >= 1; got {self.clips_per_class}.")
        for name, lo, hi in (("speed", 80, 450), ("pitch", 0, 99)):
            r = getattr(self, name)
            if len(r) != 2 or not lo <= r[0] <= r[1] <= hi:
                raise ValueError(f"{name} must be a range (lo, hi) within [{lo}, {hi}]; got {r}.")
        for name in ("peak_db", "silence_db"):
            r = getattr(self, name)
            if len(r) != 2 or not r[0] <= r[1] <= 0:
                raise ValueError(f"{name} must be a range (lo, hi) of dBFS <= 0; got {r}.")
        if not self.snr_db or not all(np.isfinite(self.snr_db)):
            raise ValueError(f"snr_db must be non-empty and finite; got {self.snr_db}.")


def config_hash(config: KWSDataConfig, espeak_version: str) -> str:
    """16 hex digits of the SHA-256 of the config, the espeak-ng version and
    `GENERATOR_VERSION`: the cache folder's name."""
    payload = {"config": dataclasses.asdict(config), "espeak": espeak_version,
               "generator": GENERATOR_VERSION}  # fmt: skip
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
                    word = name if name in KEYWORDS else (
                        UNKNOWN_WORDS[int(rng.integers(len(UNKNOWN_WORDS)))]
                        if name == "unknown" else ""
                    )  # fmt: skip
                    plan.append({
                        "split": split, "voice": variant, "label": label, "word": word,
                        "accent": ACCENTS[int(rng.integers(len(ACCENTS)))],
                        "speed": int(rng.integers(config.speed[0], config.speed[1] + 1)),
                        "pitch": int(rng.integers(config.pitch[0], config.pitch[1] + 1)),
                        "offset": float(rng.uniform()),
                        "peak_db": float(rng.uniform(*config.peak_db)),
                        "color": NOISE_COLORS[int(rng.integers(len(NOISE_COLORS)))],
                        "snr_db": float(config.snr_db[int(rng.integers(len(config.snr_db)))]),
                        "silence_db": float(rng.uniform(*config.silence_db)),
                        "noise_seed": int(rng.integers(2**63)),
                    })  # fmt: skip
    return plan


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
    w = synthesize(clip["word"], accent=clip["accent"], variant=clip["voice"],
                   speed=clip["speed"], pitch=clip["pitch"], exe=exe)  # fmt: skip
    w = w * (10.0 ** (clip["peak_db"] / 20.0) / np.abs(w).max())
    speech = place(w, clip["offset"])
    audio = add_noise(speech, nu, clip["snr_db"])
    return {"audio": audio, "speech": speech, "noise": audio - speech}


def _features(clip, exe):
    return log_mel(render_clip(clip, exe)["audio"])


def generate(config: KWSDataConfig, *, workers: int = 2, progress: bool = False) -> dict:
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
        "hash": h, "config": dataclasses.asdict(config), "generator": GENERATOR_VERSION,
        "espeak_ng": version, "librosa": librosa.__version__, "classes": list(CLASSES),
        "speakers": {k: list(v) for k, v in speakers.items()},
        "counts": {s: int((data["split"] == i).sum()) for i, s in enumerate(SPLITS)},
        "features": {"sample_rate": SAMPLE_RATE, "n_fft": N_FFT, "win_length": WIN_LENGTH,
                     "hop_length": HOP_LENGTH, "n_mels": N_MELS, "frames": N_FRAMES,
                     "scale": "10 log10(power), htk mels, centred reflect-padded frames"},
        "features_sha256": hashlib.sha256(data["x"].tobytes()).hexdigest(),
        "clips": data["meta"],
    }  # fmt: skip
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{h}-"))
    np.savez(tmp / "features.npz", x=data["x"], y=data["y"], split=data["split"],
             voice=data["voice"])  # fmt: skip
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
            if shutil.which("espeak-ng") is None or man.get("espeak_ng") == _espeak_version(
                shutil.which("espeak-ng")
            ):
                return folder
    return None


def _read(folder: Path) -> KWSData:
    manifest = json.loads((folder / "manifest.json").read_text())
    with np.load(folder / "features.npz") as f:
        arrays = {k: f[k] for k in f.files}
    splits = {}
    for i, s in enumerate(SPLITS):
        sel = arrays["split"] == i
        splits[s] = {"x": arrays["x"][sel], "y": arrays["y"][sel], "voice": arrays["voice"][sel]}
    return KWSData(splits=splits, classes=tuple(manifest["classes"]), manifest=manifest,
                   path=folder)  # fmt: skip


def normalize(splits: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
    r"""Per-mel standardisation with the training statistics (seed 001's):
    $x \mapsto (x - \mu)/\max(\sigma, 10^{-5})$, $\mu_m, \sigma_m$ the mean and sample
    standard deviation of mel $m$ over all training frames."""
    tr = splits["train"]["x"].reshape(-1, splits["train"]["x"].shape[-1]).astype(np.float64)
    mu, sd = tr.mean(0), np.maximum(tr.std(0, ddof=1), 1e-5)
    return {
        s: d | {"x": ((d["x"] - mu) / sd).astype(np.float32)} for s, d in splits.items()
    }
