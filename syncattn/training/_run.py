r"""Run folders: what ``syncattn train | eval | sample`` read and write.

A run folder holds

* ``config.json``: the model config (a `syncattn.models.ModelConfig` as a dict),
  the data (corpus name, path, options), the [`syncattn.training.TrainConfig`][],
  the parameter count and the software versions;
* ``revision``: the git revision of the code that trained it (``+dirty`` when the
  checkout had local changes), or the package version outside a git checkout;
* ``log.jsonl``, ``checkpoints/`` (see [`syncattn.training.fit`][]);
* ``samples.txt`` (``syncattn sample``) and ``eval.json`` (``syncattn eval``).

Training into a folder that already holds a run resumes it, provided the
configs agree; any difference (other than how often to log, evaluate and save)
is an error that names the differing fields.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import os
import platform
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

from ._config import BOOKKEEPING_FIELDS, TrainConfig, parse_overrides, parse_value


__all__ = [
    "RunSpec",
    "make_spec",
    "train_run",
    "load_run",
    "eval_run",
    "sample_run",
    "RunConfigMismatch",
]


class RunConfigMismatch(ValueError):
    """The run folder holds a run with a different configuration."""


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """Everything that defines a training run (the contents of ``config.json``)."""

    model: dict[str, Any]
    data: dict[str, Any]
    train: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "data": self.data, "train": self.train}


# --------------------------------------------------------------------------- specs


def _train_field_value(name: str, raw: Any) -> Any:
    hint = typing.get_type_hints(TrainConfig)[name]
    value = parse_value(raw) if isinstance(raw, str) else raw
    if isinstance(value, str) and value.lower() in ("none", "null"):
        value = None
    if hint in (float, float | None) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    return value


def make_spec(
    model: str,
    config: str = "tiny",
    *,
    data: str = "embedded",
    data_path: str | os.PathLike | None = None,
    steps: int | None = None,
    seed: int = 0,
    overrides: list[str] | tuple[str, ...] = (),
) -> tuple[RunSpec, Any]:
    """Resolve the command-line choices into a [`RunSpec`][syncattn.training.RunSpec] and the corpus.

    Overrides are ``key=value``: a [`syncattn.training.TrainConfig`][] field, a
    `syncattn.models.ModelConfig` field, or ``data.OPTION`` for a corpus option
    (prefix ``train.`` / ``model.`` when a name is ambiguous). The model gets the
    corpus's ``vocab_size`` and ``pad_id``; word corpora fix ``seq_len`` to their
    row length - 1.

    Raises:
        ValueError: unknown model, config or key, a value of the wrong type, a
            sequence longer than the model's ``max_len``.
        FileNotFoundError: a missing data file (the message says how to get it).
    """
    from .. import data as data_mod, models

    if model not in ("kuramoto", "oscillator", "softmax"):
        raise ValueError(f"--model must be kuramoto, oscillator or softmax; got {model!r}.")
    data_opts, rest = {}, []
    for item in overrides:
        key, sep, value = item.partition("=")
        if key.startswith("data.") and sep:
            data_opts[key[5:]] = parse_value(value)
        else:
            rest.append(item)
    model_fields = [f.name for f in dataclasses.fields(models.ModelConfig)]
    train_fields = [f.name for f in dataclasses.fields(TrainConfig)]
    groups = parse_overrides(rest, {"train": train_fields, "model": model_fields})
    for key in ("vocab_size", "attention", "name"):
        if key in groups["model"]:
            raise ValueError(
                f"{key} is set by --model/--config/--data; do not override it."
            )

    path = None if data_path is None else str(Path(data_path).expanduser().resolve())
    corpus = data_mod.load_corpus(data, path, **data_opts)

    mcfg = models.get_config(
        config, attention=model, vocab_size=corpus.vocab_size,
        **({"pad_id": corpus.pad_id} if corpus.pad_id is not None else {}),
        **groups["model"],
    )
    train_kw = {k: _train_field_value(k, v) for k, v in groups["train"].items()}
    if steps is not None:
        train_kw["steps"] = int(steps)
    train_kw["seed"] = int(seed)
    if corpus.kind == "word":
        row = int(corpus.train.shape[1]) - 1
        if "seq_len" in train_kw and train_kw["seq_len"] != row:
            raise ValueError(
                f"corpus {data!r} comes in rows of {row + 1} ids, so seq_len must be {row}."
            )
        train_kw["seq_len"] = row
    tcfg = TrainConfig.preset(config, **train_kw)
    if tcfg.seq_len > mcfg.max_len:
        raise ValueError(
            f"seq_len={tcfg.seq_len} exceeds the model's max_len={mcfg.max_len}; set "
            f"seq_len<={mcfg.max_len} or model.max_len>={tcfg.seq_len}."
        )
    spec = RunSpec(
        model={"preset": config, **dataclasses.asdict(mcfg)},
        data={"name": data, "path": path, "options": data_opts, "kind": corpus.kind,
              "vocab_size": corpus.vocab_size},
        train=tcfg.to_dict(),
    )
    return spec, corpus


def _model_config(spec: RunSpec):
    from .. import models

    fields = {k: v for k, v in spec.model.items() if k != "preset"}
    return models.ModelConfig(**fields)


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
    path = run_dir / "config.json"
    try:
        old = json.loads(path.read_text())
    except ValueError as e:
        raise RunConfigMismatch(
            f"{path} is not valid JSON ({e}); move the folder away or use a new --out."
        ) from None
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


def revision() -> str:
    """The git revision of the installed code (``+dirty`` with local changes)."""
    from .. import __version__

    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
            timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        return f"{rev}{'+dirty' if dirty else ''}"
    except (OSError, subprocess.SubprocessError):
        return f"syncattn {__version__} (not a git checkout)"


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2) + "\n")
    os.replace(tmp, path)


def default_out(model: str, config: str, seed: int, data: str = "embedded") -> Path:
    """``runs/MODEL-CONFIG-DATA-seedN`` in the working directory."""
    return Path("runs") / f"{model}-{config}-{data}-seed{seed}"


# --------------------------------------------------------------------------- train


def train_run(
    spec: RunSpec,
    corpus,
    out: str | os.PathLike,
    *,
    progress: bool = True,
    devices=None,
    log=None,
) -> dict[str, Any]:
    """Train (or resume) the run `spec` in folder `out`; see [`syncattn.training.fit`][].

    Writes ``config.json`` and ``revision`` on a fresh start; on resume checks that
    the folder's config matches `spec`.

    Raises:
        RunConfigMismatch: the folder holds a different run.
        TrainingDiverged: NaN/inf loss (the last good checkpoint is kept).
    """
    import jax

    from .. import models
    from ._loop import fit
    from ._sharding import is_main_process

    log = log or (lambda msg: print(msg, file=sys.stderr))
    out = Path(out)
    mcfg = _model_config(spec)
    tcfg = TrainConfig(**spec.train)
    model = _build_model(mcfg, tcfg.seed)
    n_params = models.count_params(model)
    if (out / "config.json").exists():
        check_compatible(out, spec)
    elif is_main_process():
        out.mkdir(parents=True, exist_ok=True)
        payload = spec.to_json() | {
            "params": n_params,
            "versions": {
                "syncattn": _version(), "jax": jax.__version__,
                "python": platform.python_version(),
            },
            "devices": [str(d) for d in (devices or jax.devices())],
            "written": datetime.datetime.now().isoformat(timespec="seconds"),
        }
        _write_json(out / "config.json", payload)
        (out / "revision").write_text(revision() + "\n")
    log(
        f"{mcfg.attention} model, config {spec.model['preset']!r}: {n_params:,} parameters; "
        f"data {spec.data['name']} ({spec.data['kind']}, vocab {spec.data['vocab_size']}); "
        f"{tcfg.steps} steps of {tcfg.batch_size} x {tcfg.seq_len} tokens on "
        f"{len(devices or jax.devices())} device(s) -> {out}"
    )
    return fit(model, tcfg, corpus, out, devices=devices, progress=progress, log=log)


def _version() -> str:
    from .. import __version__

    return __version__


# --------------------------------------------------------------------------- load / eval / sample


def load_run(run_dir: str | os.PathLike, *, data_path: str | None = None, log=None):
    """Load a run folder: ``(spec, corpus, model, step)`` with the latest readable checkpoint.

    Args:
        run_dir: the run folder.
        data_path: where the corpus lives now, when it moved since training.

    Raises:
        FileNotFoundError: no ``config.json`` (not a run folder).
        CheckpointError: no readable checkpoint.
    """
    import equinox as eqx
    import jax

    from .. import data as data_mod
    from ._checkpoint import CheckpointError, restore_checkpoint
    from ._optim import make_optimizer
    from ._step import cast_floating

    run_dir = Path(run_dir)
    cfg_path = run_dir / "config.json"
    if not cfg_path.is_file():
        raise FileNotFoundError(
            f"{run_dir} is not a run folder (no config.json); pass the --out folder of "
            "a `syncattn train` run."
        )
    raw = json.loads(cfg_path.read_text())
    spec = RunSpec(model=raw["model"], data=raw["data"], train=raw["train"])
    path = data_path if data_path is not None else spec.data.get("path")
    corpus = data_mod.load_corpus(spec.data["name"], path, **spec.data.get("options", {}))
    tcfg = TrainConfig(**spec.train)
    model = _build_model(_model_config(spec), tcfg.seed)
    import jax.numpy as jnp

    model = cast_floating(model, jnp.float64 if tcfg.compute_dtype == "float64" else jnp.float32)
    opt_state = make_optimizer(tcfg).init(eqx.filter(model, eqx.is_inexact_array))
    template = {
        "model": model, "opt_state": opt_state, "key": jax.random.PRNGKey(0),
        "step": __import__("numpy").asarray(0, "int64"),
    }
    restored = restore_checkpoint(run_dir / "checkpoints", template, log=log)
    if restored is None:
        raise CheckpointError(
            f"{run_dir} has no checkpoint yet; train it first (`syncattn train ... --out {run_dir}`)."
        )
    state, step, _ = restored
    return spec, corpus, state["model"], int(step)


def eval_run(
    run_dir: str | os.PathLike,
    *,
    split: str = "val",
    max_batches: int | None = None,
    data_path: str | None = None,
    batch_size: int | None = None,
    log=None,
) -> dict[str, Any]:
    """Evaluate the latest checkpoint of a run on a split; record it in ``eval.json``.

    Returns:
        ``{"step", "split", "loss", "bpc" | "ppl", "tokens"}``.
    """
    from ._loop import evaluate

    if split not in ("train", "val", "test"):
        raise ValueError(f"split must be train, val or test; got {split!r}.")
    spec, corpus, model, step = load_run(run_dir, data_path=data_path, log=log)
    tokens = getattr(corpus, split)
    if tokens is None:
        raise ValueError(f"corpus {spec.data['name']!r} has no {split} split.")
    tcfg = TrainConfig(**spec.train)
    res = evaluate(
        model, tokens, kind=corpus.kind, pad_id=corpus.pad_id,
        batch_size=batch_size or tcfg.batch_size, seq_len=tcfg.seq_len,
        max_batches=max_batches, compute_dtype=tcfg.compute_dtype,
    )
    record = {"step": step, "split": split, "max_batches": max_batches, **res}
    path = Path(run_dir) / "eval.json"
    try:
        table = json.loads(path.read_text()) if path.exists() else {}
    except ValueError:
        table = {}
    table[split] = record
    _write_json(path, table)
    return record


def sample_run(
    run_dir: str | os.PathLike,
    *,
    prompt: str = "",
    length: int = 200,
    temperature: float = 1.0,
    top_k: int | None = None,
    seed: int = 0,
    num_samples: int = 1,
    data_path: str | None = None,
    log=None,
) -> list[str]:
    """Generate `num_samples` continuations of `prompt` from the latest checkpoint of a
    run, and append them to ``samples.txt``; see [`syncattn.training.generate`][]."""
    import jax
    import numpy as np

    from ._sample import generate

    spec, corpus, model, step = load_run(run_dir, data_path=data_path, log=log)
    tcfg = TrainConfig(**spec.train)
    ids = np.asarray(corpus.encode(prompt), dtype=np.int32)
    if ids.size == 0:
        start = corpus.bos_id if corpus.kind == "word" and corpus.bos_id is not None else None
        ids = np.asarray([start if start is not None else ord("\n")], np.int32)
    banned = corpus.pad_id
    texts = []
    key = jax.random.PRNGKey(seed)
    for i in range(num_samples):
        out = generate(
            model, ids, length=length, context=tcfg.seq_len, key=jax.random.fold_in(key, i),
            temperature=temperature, top_k=top_k, banned_id=banned,
        )
        texts.append(corpus.decode(np.asarray(out)))
    with (Path(run_dir) / "samples.txt").open("a") as f:
        for i, text in enumerate(texts):
            f.write(
                f"=== step {step}, seed {seed}, sample {i}, temperature {temperature}, "
                f"top_k {top_k}, prompt {prompt!r}\n{text}\n\n"
            )
    return texts
