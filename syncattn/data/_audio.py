r"""The audio side of the keyword set ([`syncattn.data.kws`][]): espeak-ng speech,
coloured noise at a chosen SNR, placement in a one-second clip, seed 001's log-mel
front end. Public through `syncattn.data.kws`.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np


__all__ = [
    "NOISE_COLORS",
    "SAMPLE_RATE",
    "N_MELS",
    "N_FRAMES",
    "EspeakNotFound",
    "espeak_path",
    "synthesize",
    "colored_noise",
    "add_noise",
    "place",
    "log_mel",
]


NOISE_COLORS = ("white", "pink", "brown")
"""Additive noise spectra: power $\\propto f^0$, $f^{-1}$, $f^{-2}$."""

SAMPLE_RATE = 16_000
N_FFT, WIN_LENGTH, HOP_LENGTH = 512, 400, 320
N_MELS = 40
N_FRAMES = 49
"""Seed 001's front end: 1 s at 16 kHz, 49 frames of 40 log-mels (R:training/kws_dataset.py)."""

ESPEAK_RATE = 22_050
"""espeak-ng's output sample rate."""


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
    out = subprocess.run(
        [exe, "--voices=variant"], capture_output=True, text=True, check=True
    )
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
    word: str,
    *,
    accent: str,
    variant: str,
    speed: int,
    pitch: int,
    exe: str | None = None,
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
    voice = ["-v", f"{accent}+{variant}", "-s", str(int(speed)), "-p", str(int(pitch))]
    cmd = [exe, *voice, "-z", "--stdout", word]
    proc = subprocess.run(cmd, capture_output=True)
    raw = proc.stdout
    i = raw.find(b"data")
    if proc.returncode != 0 or i < 0:
        raise RuntimeError(
            f"espeak-ng failed on {cmd}: {proc.stderr.decode(errors='replace')}"
        )
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
        raise ValueError(
            f"signal and noise must be 1-D of one length; got {s.shape}, {v.shape}."
        )
    ps, pn = float(np.sum(s**2)), float(np.sum(v**2))
    if not (ps > 0 and pn > 0):
        raise ValueError(
            "signal and noise must not be all zeros (the SNR is undefined)."
        )
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
        y=x,
        sr=SAMPLE_RATE,
        n_fft=N_FFT,
        hop_length=HOP_LENGTH,
        win_length=WIN_LENGTH,
        window="hann",
        center=True,
        pad_mode="reflect",
        power=2.0,
        n_mels=N_MELS,
        fmin=0.0,
        fmax=SAMPLE_RATE / 2,
        htk=True,
        norm=None,
    )
    db = librosa.power_to_db(S, ref=1.0, amin=1e-10, top_db=None)
    return np.ascontiguousarray(db.T[:N_FRAMES], dtype=np.float32)
