r"""Seed 001's synthetic subject-verb agreement (SVA) task.

Sentences follow two templates (Linzen-style agreement with an attractor):

* simple, probability 0.4: ``the N V .`` (subject at 1, verb at 2);
* with a prepositional phrase, probability 0.6: ``the N P the N2 V .``
  (subject at 1, distractor ``N2`` at 4, verb at 5).

The subject is singular or plural with probability 1/2 each. With probability 1/2
the verb agrees with the subject (``label = 1``); otherwise its number is flipped
(``label = 0``). In a PP sentence the distractor agrees with the subject with
probability 1/2 ("easy"); when it disagrees the sentence is "hard". The draws are
made with Python's ``random.Random(seed)`` in a fixed order, so the splits are
seed 001's exactly: train 40,000 (seed 0), val 4,000 (seed 1), test 4,000 (seed 2).

Ids: ``<PAD>=0, <BOS>=1, <EOS>=2, <UNK>=3``, then the 165 distinct words in sorted
order (169 ids). A model reads ``BOS tokens EOS`` and classifies at the verb,
position ``verb_idx + 1``.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from pathlib import Path

import numpy as np
from jaxtyping import Bool, Int


def _words(text: str) -> tuple[str, ...]:
    """The whitespace-separated words of `text`, in order."""
    return tuple(text.split())


# The word lists are seed 001's (R:training/sva_dataset.py); order matters for the
# random draws. fish, deer (both numbers) and fly / flies (noun and verb) repeat.
NOUNS_SG = _words("""
    key book cat dog child box plant lamp table chair
    map cup bag ball coin door bird fish tree car
    star ring shoe hat pen rock leaf wall flag seed
    duck fox frog mouse horse goat wolf bear deer owl
    ant bee fly crab boat ship tank van bus jet
""")
NOUNS_PL = _words("""
    keys books cats dogs children boxes plants lamps tables chairs
    maps cups bags balls coins doors birds fish trees cars
    stars rings shoes hats pens rocks leaves walls flags seeds
    ducks foxes frogs mice horses goats wolves bears deer owls
    ants bees flies crabs boats ships tanks vans buses jets
""")
VERBS_SG = _words("""
    is has was sits runs falls works stands flies swims
    waits plays stays eats sleeps moves looks grows lives walks
    rests talks stops drops rolls spins hops digs pulls bites
""")
VERBS_PL = _words("""
    are have were sit run fall work stand fly swim
    wait play stay eat sleep move look grow live walk
    rest talk stop drop roll spin hop dig pull bite
""")
PREPS = ("on", "under", "near", "beside", "above", "with", "by")

PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3
SPECIALS = ("<PAD>", "<BOS>", "<EOS>", "<UNK>")
VOCAB: tuple[str, ...] = SPECIALS + tuple(
    sorted({"the", ".", *NOUNS_SG, *NOUNS_PL, *VERBS_SG, *VERBS_PL, *PREPS})
)
WORD_TO_ID = {w: i for i, w in enumerate(VOCAB)}

SPLITS = {"train": (40_000, 0), "val": (4_000, 1), "test": (4_000, 2)}
"""Split name -> (number of sentences, ``random.Random`` seed), as in seed 001."""

FIELDS = (
    "tokens",
    "label",
    "subject_idx",
    "verb_idx",
    "distractor_idx",
    "has_distractor",
    "distractor_agrees",
)
P_PP = 0.60


def encode(words) -> list[int]:
    """Ids of `words` in [`syncattn.data.sva.VOCAB`][]; unknown words become ``UNK=3``."""
    return [WORD_TO_ID.get(w, UNK_ID) for w in words]


def _sentence(rng: random.Random) -> dict:
    # the order of the draws is seed 001's: pp, number, subject, label, verb, prep,
    # distractor agreement, distractor
    has_pp = rng.random() < P_PP
    singular = rng.random() < 0.5
    subject = rng.choice(NOUNS_SG if singular else NOUNS_PL)
    agrees = rng.random() < 0.5
    verb_sg = singular if agrees else not singular
    verb = rng.choice(VERBS_SG if verb_sg else VERBS_PL)
    record = {"label": int(agrees), "subject_idx": 1}
    if not has_pp:
        record.update(
            tokens=["the", subject, verb, "."],
            verb_idx=2,
            distractor_idx=None,
            has_distractor=False,
            distractor_agrees=None,
        )
    else:
        prep = rng.choice(PREPS)
        distractor_agrees = rng.random() < 0.5
        distractor_sg = singular if distractor_agrees else not singular
        distractor = rng.choice(NOUNS_SG if distractor_sg else NOUNS_PL)
        record.update(
            tokens=["the", subject, prep, "the", distractor, verb, "."],
            verb_idx=5,
            distractor_idx=4,
            has_distractor=True,
            distractor_agrees=distractor_agrees,
        )
    return {k: record[k] for k in FIELDS}


def generate_sva(n: int, seed: int) -> list[dict]:
    r"""`n` SVA sentences drawn with ``random.Random(seed)``.

    $$P(\text{PP}) = 0.6,\quad P(\text{sg}) = P(\text{label}=1) = P(\text{N2 agrees}\mid\text{PP}) = \tfrac12,$$

    all independent; ``generate_sva(4000, 1)`` is seed 001's validation split.

    Args:
        n: number of sentences, ``>= 0``.
        seed: seed of Python's ``random.Random``.

    Returns:
        records with the keys of [`syncattn.data.sva.FIELDS`][] (JSON-ready:
        ``distractor_idx`` / ``distractor_agrees`` are ``None`` in simple sentences).
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"n must be an int >= 0; got {n!r}.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int; got {type(seed).__name__}.")
    rng = random.Random(seed)
    return [_sentence(rng) for _ in range(n)]


def _check_record(r, where: str) -> dict:
    if not isinstance(r, dict) or set(r) != set(FIELDS):
        got = sorted(r) if isinstance(r, dict) else type(r).__name__
        raise ValueError(
            f"{where}: an SVA record needs exactly the fields {list(FIELDS)}; got {got}."
        )
    toks = r["tokens"]
    if not (isinstance(toks, list) and toks and all(isinstance(t, str) for t in toks)):
        raise ValueError(f"{where}: tokens must be a non-empty list of words.")
    if r["label"] not in (0, 1):
        raise ValueError(f"{where}: label must be 0 or 1; got {r['label']!r}.")
    if not isinstance(r["verb_idx"], int) or not 0 <= r["verb_idx"] < len(toks):
        raise ValueError(
            f"{where}: verb_idx {r['verb_idx']!r} is not a position of tokens."
        )
    return r


def write_jsonl(records, path: str | os.PathLike) -> None:
    """Write SVA records one JSON object per line (atomically: temp file then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for i, r in enumerate(records):
                _check_record(r, f"record {i}")
                f.write(json.dumps({k: r[k] for k in FIELDS}) + "\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    """Read SVA records written by [`syncattn.data.sva.write_jsonl`][] (or seed 001's files)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"SVA file {path} does not exist.")
    out = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(
                    f"{path}:{lineno} is not valid JSON ({e}); regenerate the file."
                ) from e
            out.append(_check_record(r, f"{path}:{lineno}"))
    if not out:
        raise ValueError(f"{path} holds no records.")
    return out


def load_sva(
    dir: str | os.PathLike | None = None, *, cache_dir: str | os.PathLike | None = None
) -> dict[str, list[dict]]:
    """The train / val / test splits: read from ``dir/sva_{split}.jsonl``, or generated and cached.

    Args:
        dir: a folder holding ``sva_train.jsonl``, ``sva_val.jsonl`` and
            ``sva_test.jsonl`` (seed 001's ``data/sva``). ``None``: generate the
            splits of [`syncattn.data.sva.SPLITS`][] once and cache them under
            ``<cache_dir>/sva/``.
        cache_dir: see [`syncattn.data.cache_dir`][].

    Returns:
        ``{"train": [...], "val": [...], "test": [...]}``.
    """
    if dir is not None:
        root = Path(dir).expanduser()
        missing = [s for s in SPLITS if not (root / f"sva_{s}.jsonl").is_file()]
        if missing:
            raise FileNotFoundError(
                f"{root} lacks {', '.join(f'sva_{s}.jsonl' for s in missing)}; pass a folder "
                "with the three splits, or dir=None to generate them."
            )
        return {s: read_jsonl(root / f"sva_{s}.jsonl") for s in SPLITS}
    from ._corpus import cache_dir as _cache_dir

    root = _cache_dir(cache_dir) / "sva" / "v1"
    out = {}
    for split, (n, seed) in SPLITS.items():
        p = root / f"sva_{split}.jsonl"
        if not p.is_file():
            write_jsonl(generate_sva(n, seed), p)
        out[split] = read_jsonl(p)
    return out


def is_hard(record: dict) -> bool:
    """True when the sentence has a distractor whose number differs from the subject's."""
    return bool(record["has_distractor"]) and record["distractor_agrees"] is False


def sva_batch(
    examples: list[dict], idx
) -> dict[str, Int[np.ndarray, "b l"] | Int[np.ndarray, " b"] | Bool[np.ndarray, " b"]]:
    r"""A padded batch of the records ``examples[i]`` for ``i`` in `idx`.

    Row $b$ of ``tokens`` is ``BOS w_1 ... w_n EOS`` followed by PAD up to the batch's
    longest row $L$; the model classifies at ``verb_pos`` $=$ ``verb_idx + 1``.

    Args:
        examples: records, e.g. ``load_sva()["train"]``.
        idx: indices into `examples` (int array-like, 1-D, non-empty).

    Returns:
        ``tokens`` (B, L) int32, ``mask`` (B, L) bool (True on real tokens),
        ``verb_pos`` (B,) int32, ``label`` (B,) int32, ``hard`` (B,) bool,
        ``has_distractor`` (B,) bool.
    """
    index = np.asarray(idx)
    if index.ndim != 1 or index.size == 0 or not np.issubdtype(index.dtype, np.integer):
        raise ValueError(
            f"idx must be a non-empty 1-D integer array; got shape {index.shape}, dtype {index.dtype}."
        )
    if index.min() < -len(examples) or index.max() >= len(examples):
        raise ValueError(f"idx out of range for {len(examples)} examples.")
    rows = [examples[i] for i in index.tolist()]
    length = max(len(r["tokens"]) for r in rows) + 2
    tokens = np.full((len(rows), length), PAD_ID, dtype=np.int32)
    for b, r in enumerate(rows):
        ids = [BOS_ID, *encode(r["tokens"]), EOS_ID]
        tokens[b, : len(ids)] = ids
    return {
        "tokens": tokens,
        "mask": tokens != PAD_ID,
        "verb_pos": np.array([r["verb_idx"] + 1 for r in rows], dtype=np.int32),
        "label": np.array([r["label"] for r in rows], dtype=np.int32),
        "hard": np.array([is_hard(r) for r in rows], dtype=bool),
        "has_distractor": np.array(
            [bool(r["has_distractor"]) for r in rows], dtype=bool
        ),
    }
