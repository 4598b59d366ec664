r"""Run folders: what ``syncattn train | eval | sample`` read and write.

A run folder holds

* ``config.json``: the model config (a `syncattn.models.ModelConfig` as a dict),
  the data (corpus name, path, options), the [`syncattn.training.TrainConfig`][],
  the parameter count and the software versions;
* ``revision``: the git revision of the code that trained it (``+dirty`` when the
  checkout had local changes), or the package version outside a git checkout;
* ``log.jsonl``, ``checkpoints/`` (see [`syncattn.training.fit`][]);
* ``samples.txt`` (``syncattn sample``) and ``eval.json`` (``syncattn eval``),
  written by `syncattn.training._load`.

Training into a folder that already holds a run resumes it, provided the
configs agree; any difference (other than how often to log, evaluate and save)
is an error that names the differing fields. A folder that holds no checkpoint
yet (an attempt that failed before its first save) holds nothing to resume and is
taken over by the new run.

Everything is validated before anything is written
([`syncattn.training.validate_run`][]); every file is written
atomically (`syncattn.training._files`), and one training process at a time holds
a run folder (an OS lock on ``RUN/.lock``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._outputs import revision as revision
from ._config import BOOKKEEPING_FIELDS, TrainConfig, run_overrides
from ._files import (
    atomic_write,
)


__all__ = [
    "RunSpec",
    "make_spec",
    "RunConfigMismatch",
    "RunFolderError",
    "read_config",
    "validate_run",
]


class RunConfigMismatch(ValueError):
    """The run folder holds a run with a different configuration (exit status 2)."""

    exit_code = 2


class RunFolderError(ValueError):
    """A run folder's ``config.json`` (or ``eval.json``) is unreadable or incomplete (exit status 2)."""

    exit_code = 2


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """Everything that defines a training run: typed configs, serialised only into
    ``config.json`` (`to_json`).

    Attributes:
        model: the `syncattn.models.ModelConfig`.
        data: the corpus: ``name``, ``path``, ``options``, ``kind``, ``vocab_size``.
        train: the [`syncattn.training.TrainConfig`][].
        preset: the ``--config`` name the model came from (default: ``model.name``).
        budget: the plan of a ``--minutes`` run (`syncattn.training.budget_spec`), or
            ``None``; written to ``config.json``, not compared on resume.

    ``model`` and ``train`` may also be given as the dicts of a ``config.json``
    (``model`` with its ``preset`` key); they are then constructed (and validated)
    here, once.
    """

    model: Any  # a ModelConfig (or its config.json dict)
    data: dict[str, Any]
    train: Any  # a TrainConfig (or its config.json dict)
    preset: str | None = None
    budget: dict[str, Any] | None = None

    def __post_init__(self):
        if isinstance(self.model, Mapping):
            fields = dict(self.model)
            preset = fields.pop("preset", None)
            object.__setattr__(self, "model", _model_config_class().from_dict(fields))
            if self.preset is None:
                object.__setattr__(self, "preset", preset)
        if isinstance(self.train, Mapping):
            object.__setattr__(self, "train", TrainConfig(**self.train))
        if self.preset is None:
            object.__setattr__(self, "preset", self.model.name)

    def to_json(self) -> dict[str, Any]:
        """The ``config.json`` sections: ``model`` (with ``preset``), ``data``, ``train``
        (and ``budget``, when planned)."""
        out = {
            "model": {"preset": self.preset, **dataclasses.asdict(self.model)},
            "data": self.data,
            "train": self.train.to_dict(),
        }
        return out | ({"budget": self.budget} if self.budget is not None else {})


def _model_config_class():
    from ..models import ModelConfig

    return ModelConfig


# --------------------------------------------------------------------------- specs


def make_spec(
    model: str,
    config: str = "tiny",
    *,
    data: str = "embedded",
    data_path: str | os.PathLike | None = None,
    steps: int | None = None,
    seed: int = 0,
    overrides: Iterable[str] | Mapping[str, Any] = (),
) -> tuple[RunSpec, Any]:
    """Resolve the command-line choices into a [`RunSpec`][syncattn.training.RunSpec] and the corpus.

    Overrides are ``key=value`` strings, or a ``{key: value}`` mapping of typed
    values (what the experiments pass): a [`syncattn.training.TrainConfig`][] field, a
    `syncattn.models.ModelConfig` field, or ``data.OPTION`` for a corpus option
    (prefix ``train.`` / ``model.`` when a name is ambiguous). Each is parsed once, by
    its field's type (`syncattn._overrides`), and each config is constructed (and
    validated) once. The model gets the
    corpus's ``vocab_size`` and ``pad_id``; word corpora fix ``seq_len`` to their
    row length - 1.

    Nothing is written; [`train_run`][syncattn.training.train_run] validates the
    whole run ([`syncattn.training.validate_run`][]) before it
    writes.

    Raises:
        ValueError: unknown model, config or key, a key given twice, a value of the
            wrong type or range (e.g. ``seed``).
        FileNotFoundError: a missing data file (the message says how to get it).
    """
    from .. import data as data_mod, models

    groups = run_overrides(overrides)
    data_opts = groups["data"]
    for key in ("vocab_size", "attention", "name"):
        if key in groups["model"]:
            raise ValueError(
                f"{key} is set by --model/--config/--data; do not override it."
            )

    path = None if data_path is None else str(Path(data_path).expanduser().resolve())
    corpus = data_mod.load_corpus(data, path, **data_opts)

    # --model is checked once, by get_config (the preset exists for that attention)
    mcfg = models.get_config(
        config, attention=model, vocab_size=corpus.vocab_size,
        **({"pad_id": corpus.pad_id} if corpus.pad_id is not None else {}),
        **groups["model"],
    )
    train_kw = dict(groups["train"])
    if steps is not None:
        train_kw["steps"] = steps
    train_kw["seed"] = seed
    if corpus.kind == "word":
        row = int(corpus.train.shape[1]) - 1
        if "seq_len" in train_kw and train_kw["seq_len"] != row:
            raise ValueError(
                f"corpus {data!r} comes in rows of {row + 1} ids, so seq_len must be {row}."
            )
        train_kw["seq_len"] = row
    tcfg = TrainConfig.preset(config, **train_kw)
    spec = RunSpec(
        model=mcfg,
        data={"name": data, "path": path, "options": data_opts, "kind": corpus.kind,
              "vocab_size": corpus.vocab_size},
        train=tcfg,
        preset=config,
    )
    return spec, corpus


def _model_config(spec: RunSpec):
    """Deprecated: ``spec.model`` (a RunSpec now holds the ModelConfig)."""
    return spec.model


def read_config(run_dir: str | os.PathLike) -> RunSpec:
    """The [`RunSpec`][syncattn.training.RunSpec] in ``run_dir/config.json``, checked.

    Raises:
        FileNotFoundError: no ``config.json`` (not a run folder).
        RunFolderError: ``config.json`` is not JSON, not an object, lacks
            ``model``, ``data`` or ``train``, or holds values that no longer make a
            valid configuration; the message names the file.
    """
    run_dir = Path(run_dir)
    path = run_dir / "config.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"{run_dir} is not a run folder (no config.json); pass the --out folder of "
            "a `syncattn train` run."
        )
    what_to_do = (
        "It is written by `syncattn train`: restore it (e.g. from a backup), or train "
        "into a new --out folder."
    )
    try:
        raw = json.loads(path.read_bytes())
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
        raise RunFolderError(f"{path} is not valid JSON ({e}). {what_to_do}") from None
    missing = [k for k in ("model", "data", "train") if not isinstance(
        raw.get(k) if isinstance(raw, dict) else None, dict)]
    if missing:
        raise RunFolderError(
            f"{path} is not a run config: it lacks the section(s) "
            f"{', '.join(missing)}. {what_to_do}"
        )
    try:
        for key in ("name", "kind"):
            if key not in raw["data"]:
                raise ValueError(f"data has no {key!r}")
        spec = RunSpec(model=raw["model"], data=raw["data"], train=raw["train"],
                       budget=raw.get("budget"))
    except (TypeError, ValueError) as e:
        raise RunFolderError(f"{path} holds an invalid run config ({e}). {what_to_do}") from None
    return spec


def validate_run(spec: RunSpec, corpus) -> tuple[Any, TrainConfig]:
    """Check a run before anything of it is written: ``(ModelConfig, TrainConfig)``.

    The spec's configs validated their own fields when they were constructed
    (once, in [`make_spec`][syncattn.training.make_spec] or from ``config.json``);
    here the pieces are checked against each other: the model is a language model (``task="lm"``:
    a classifier preset such as ``paper-b-sva`` is trained by ``syncattn
    experiment``), ``seq_len`` fits the model's ``max_len``, and the training and
    validation splits each hold at least one window of ``seq_len + 1`` tokens, and
    ``compute_dtype`` suits the model's states ($U(n)$ group models: float32 or
    float64, not bfloat16).

    Raises:
        ValueError: the first failed check, naming the setting and its range.
    """
    from ..data import require_window

    mcfg, tcfg, preset = spec.model, spec.train, spec.preset
    if mcfg.task != "lm":
        raise ValueError(
            f"--config {preset!r} is a {mcfg.task} preset (task={mcfg.task!r}); "
            "`syncattn train` trains language models (task='lm'): choose tiny, 1m, 5m "
            "or paper-b-lm. The agreement classifier is trained by `syncattn experiment`."
        )
    from ..models import check_dtype

    check_dtype(mcfg, tcfg.compute_dtype)  # U(n): no bfloat16
    if tcfg.seq_len > mcfg.max_len:
        raise ValueError(
            f"seq_len={tcfg.seq_len} exceeds the model's max_len={mcfg.max_len}; set "
            f"seq_len<={mcfg.max_len} or model.max_len>={tcfg.seq_len}."
        )
    if mcfg.vocab_size < corpus.vocab_size:
        raise ValueError(
            f"the model's vocab_size={mcfg.vocab_size} is smaller than the corpus's "
            f"{corpus.vocab_size}."
        )
    name = spec.data.get("name", corpus.name)
    source = _corpus_source(corpus)
    require_window(
        corpus.train,
        tcfg.seq_len,
        f"the training split of corpus {name!r}",
        source=source,
    )
    require_window(
        corpus.val, tcfg.seq_len, f"the validation split of corpus {name!r}",
        hint="a larger validation split (data.val_fraction=...)", source=source,
    )
    return mcfg, tcfg


def _corpus_source(corpus) -> str:
    """Where `corpus` came from and its size, for the errors of a split too short: its
    ``source`` (a text corpus: the file) and, for a byte stream, its length in bytes
    (one token each) and the size of each split."""
    if corpus.kind != "byte":
        return corpus.source
    sizes = {
        s: getattr(corpus, s).size
        for s in ("train", "val", "test")
        if getattr(corpus, s) is not None
    }
    split = ", ".join(f"{n:,} {s}" for s, n in sizes.items())
    return f"{corpus.source}, {sum(sizes.values()):,} bytes = tokens ({split})"


def _build_model(config, seed: int):
    """`models.build(config, key=jax.random.key(seed))`, cached: a model is an immutable
    pytree, so a second run, resume or eval in the same process reuses it (building
    runs many small eager ops)."""
    from .. import models

    return _cached_build(config, int(seed), models.build)


@functools.lru_cache(maxsize=4)
def _cached_build(config, seed, build):
    import jax

    return build(config, key=jax.random.key(seed))


def _diff(old: dict, new: dict, prefix: str, ignore=frozenset()) -> list[str]:
    out = []
    for k in sorted(set(old) | set(new)):
        if k in ignore:
            continue
        a, b = old.get(k, "<absent>"), new.get(k, "<absent>")
        if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
            out.append(f"{prefix}{k}: {a!r} in the folder, {b!r} now")
    return out


def check_compatible(run_dir: Path, spec: RunSpec) -> None:
    """Raise [`RunConfigMismatch`][syncattn.training.RunConfigMismatch] if ``run_dir/config.json`` describes another run."""
    old = read_config(run_dir).to_json()
    new = json.loads(json.dumps(spec.to_json()))
    diffs = _diff(old.get("model", {}), new["model"], "model.")
    diffs += _diff(
        {k: v for k, v in old.get("data", {}).items()},
        new["data"], "data.",
    )
    diffs += _diff(old.get("train", {}), new["train"], "train.", BOOKKEEPING_FIELDS)
    if diffs:
        raise RunConfigMismatch(
            f"{run_dir} holds a different run:\n  " + "\n  ".join(diffs) + "\n"
            "To resume it, repeat its own settings (see its config.json); to start "
            "another run, pass a new --out folder."
        )


def _write_json(path: Path, obj: Any) -> None:
    atomic_write(path, json.dumps(obj, indent=2) + "\n")


def default_out(model: str, config: str, seed: int, data: str = "embedded") -> Path:
    """``runs/MODEL-CONFIG-DATA-seedN`` in the working directory."""
    return Path("runs") / f"{model}-{config}-{data}-seed{seed}"


# --------------------------------------------------------------------------- train


def _holds_checkpoints(run_dir: Path) -> bool:
    """Whether ``run_dir/checkpoints`` holds any checkpoint, readable or set aside."""
    from ._checkpoint import list_checkpoints, list_quarantined

    ckpt = run_dir / "checkpoints"
    return bool(list_checkpoints(ckpt) or list_quarantined(ckpt))
