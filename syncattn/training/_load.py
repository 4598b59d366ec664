r"""Reading a trained run folder: ``syncattn eval`` and ``syncattn sample``.

[`syncattn.training.load_run`][] restores the latest readable checkpoint (reading
only); [`syncattn.training.eval_run`][] and [`syncattn.training.sample_run`][]
score and continue text from it and record the result atomically in
``eval.json`` / ``samples.txt``. The command line prints a result first and records
it after (``record_eval``, ``record_samples``), so that a full or read-only disk
loses nothing.
"""

from __future__ import annotations

import json
import operator
import os
import sys
from pathlib import Path
from typing import Any

from ._files import atomic_write, records_lock
from ._run import _build_model, _write_json, read_config


__all__ = [
    "load_run",
    "eval_run",
    "record_eval",
    "sample_run",
    "generate_samples",
    "record_samples",
    "MAX_SAMPLE_LENGTH",
    "MAX_SAMPLES",
]

# `syncattn sample`: at most this many new tokens per sample and this many samples
# (each token costs one forward pass over the context window).
MAX_SAMPLE_LENGTH = 100_000
MAX_SAMPLES = 1000




def load_run(run_dir: str | os.PathLike, *, data_path: str | None = None, log=None):
    """Load a run folder: ``(spec, corpus, model, step)`` with the latest readable checkpoint.

    Reads only: nothing in the folder is written or renamed.

    Args:
        run_dir: the run folder.
        data_path: where the corpus lives now, when it moved since training.

    Raises:
        FileNotFoundError: no ``config.json`` (not a run folder), or the corpus moved.
        RunFolderError: a broken ``config.json`` (the message names it).
        CheckpointError: no readable checkpoint.
    """
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import numpy as np

    from .. import data as data_mod
    from ._checkpoint import CheckpointError, restore_checkpoint
    from ._optim import make_optimizer
    from ._step import cast_floating

    run_dir = Path(run_dir)
    spec = read_config(run_dir)
    path = data_path if data_path is not None else spec.data.get("path")
    corpus = data_mod.load_corpus(spec.data["name"], path, **spec.data.get("options", {}))
    tcfg = spec.train
    model = _build_model(spec.model, tcfg.seed)
    model = cast_floating(model, jnp.float64 if tcfg.compute_dtype == "float64" else jnp.float32)
    opt_state = make_optimizer(tcfg).init(eqx.filter(model, eqx.is_inexact_array))
    template = {
        "model": model, "opt_state": opt_state, "key": jax.random.PRNGKey(0),
        "step": np.asarray(0, "int64"),
    }
    restored = restore_checkpoint(run_dir / "checkpoints", template, log=log)
    if restored is None:
        raise CheckpointError(
            f"{run_dir} has no checkpoint yet; train it first (`syncattn train ... --out {run_dir}`)."
        )
    state, step, _ = restored
    return spec, corpus, state["model"], int(step)


def _count(value, name: str, low: int, high: int | None = None) -> int:
    """`value` as an int in ``[low, high]``; the message names `name` (with its flag)."""
    try:
        if isinstance(value, bool):
            raise TypeError
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int; got {value!r}.") from None
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high:,}]"
        raise ValueError(f"{name} must be an int {bound}; got {value:,}.")
    return value


def eval_run(
    run_dir: str | os.PathLike,
    *,
    split: str = "val",
    max_batches: int | None = None,
    data_path: str | None = None,
    batch_size: int | None = None,
    log=None,
    record: bool = True,
) -> dict[str, Any]:
    """Evaluate the latest checkpoint of a run on a split; record it in ``eval.json``.

    Args:
        record: write the result into ``eval.json`` (see `record_eval`); the
            command line prints first and records after, so that a read-only or
            full disk does not lose the score.

    Returns:
        ``{"step", "split", "loss", "bpc" | "ppl", "tokens"}``.
    """
    from ._loop import evaluate

    if split not in ("train", "val", "test"):
        raise ValueError(f"split must be train, val or test; got {split!r}.")
    if batch_size is not None:
        batch_size = _count(batch_size, "batch_size (--batch-size)", 1)
    if max_batches is not None:
        max_batches = _count(max_batches, "max_batches (--batches)", 1)
    spec, corpus, model, step = load_run(run_dir, data_path=data_path, log=log)
    tokens = getattr(corpus, split)
    if tokens is None:
        raise ValueError(f"corpus {spec.data['name']!r} has no {split} split.")
    tcfg = spec.train
    res = evaluate(
        model, tokens, kind=corpus.kind, pad_id=corpus.pad_id,
        batch_size=tcfg.batch_size if batch_size is None else batch_size,
        seq_len=tcfg.seq_len, max_batches=max_batches, compute_dtype=tcfg.compute_dtype,
    )
    result = {"step": step, "split": split, "max_batches": max_batches, **res}
    if record:
        record_eval(run_dir, result, log=log)
    return result


def record_eval(run_dir: str | os.PathLike, result: dict[str, Any], *, log=None) -> Path:
    """Set ``eval.json[result["split"]] = result`` atomically (other splits kept).

    An unreadable ``eval.json`` is replaced (with a message); concurrent
    ``syncattn eval`` runs wait for each other (``RUN/.records.lock``).
    """
    log = log or (lambda msg: print(msg, file=sys.stderr))
    run_dir = Path(run_dir)
    path = run_dir / "eval.json"
    with records_lock(run_dir):
        table: Any = {}
        if path.exists():
            try:
                table = json.loads(path.read_bytes())
            except ValueError as e:
                log(f"{path} was unreadable ({e}); it is replaced.")
        if not isinstance(table, dict):
            table = {}
        table[result["split"]] = result
        _write_json(path, table)
    return path


def _prompt_ids(corpus, prompt: str, vocab_size: int, log):
    """The prompt's ids, checked against the encoding and the run's vocabulary."""
    import numpy as np

    if not isinstance(prompt, str):
        raise TypeError(f"the prompt (--prompt) must be text; got {type(prompt).__name__}.")
    try:
        prompt.encode("utf-8")
    except UnicodeEncodeError as e:
        raw = prompt[e.start:e.end].encode("utf-8", "surrogateescape")
        raise ValueError(
            f"the prompt (--prompt) is not valid UTF-8: bytes {raw!r} at character "
            f"{e.start}. This run reads UTF-8 text ({corpus.kind} tokens); pass the "
            "prompt in UTF-8 (check the terminal's encoding, e.g. LANG=C.UTF-8)."
        ) from None
    ids = np.asarray(corpus.encode(prompt))
    if ids.size > MAX_SAMPLE_LENGTH:
        raise ValueError(
            f"the prompt (--prompt) is {ids.size:,} tokens; at most {MAX_SAMPLE_LENGTH:,}."
        )
    if ids.size and int(ids.max()) >= vocab_size:
        raise ValueError(
            f"the prompt (--prompt) holds token id {int(ids.max())}, outside this run's "
            f"vocabulary of {vocab_size} ids."
        )
    if corpus.kind == "word" and ids.size and corpus.unk_id is not None:
        from ..data import tokenize

        known = set(corpus.vocab or ())
        unknown = [w for w in tokenize(prompt, corpus.tokenizer) if w not in known]
        if unknown:
            shown = ", ".join(repr(w) for w in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
            log(
                f"--prompt: {len(unknown)} of {ids.size} words are not in the run's "
                f"vocabulary and read as {corpus.vocab[corpus.unk_id]!r}: {shown}"
            )
    return ids


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
    run, and append them to ``samples.txt``; see [`syncattn.training.generate`][].

    `length` is at most ``MAX_SAMPLE_LENGTH`` (100,000) tokens and `num_samples`
    at most 1,000. The prompt must be valid UTF-8 and, as ids, lie in the run's
    vocabulary; words a word-level run does not know are named (they read as
    ``<unk>``).

    Raises:
        ValueError: a bound above, a prompt that is not UTF-8 or too long.
    """
    texts, header = generate_samples(
        run_dir, prompt=prompt, length=length, temperature=temperature, top_k=top_k,
        seed=seed, num_samples=num_samples, data_path=data_path, log=log,
    )
    record_samples(run_dir, texts, **header)
    return texts


def generate_samples(run_dir, *, prompt="", length=200, temperature=1.0, top_k=None, seed=0,
                     num_samples=1, data_path=None, log=None) -> tuple[list[str], dict]:
    """[`sample_run`][syncattn.training.sample_run] without the recording:
    ``(texts, header)``, where ``record_samples(run_dir, texts, **header)`` records them
    (the command line prints first, so that a full or read-only disk loses nothing)."""
    import jax
    import numpy as np

    from ._sample import generate

    length = _count(length, "length (--length)", 0, MAX_SAMPLE_LENGTH)
    num_samples = _count(num_samples, "num_samples (--num)", 1, MAX_SAMPLES)
    seed = _count(seed, "seed (--seed)", 0, 2**32 - 1)
    if top_k is not None:
        top_k = _count(top_k, "top_k (--top-k)", 1)
    log = log or (lambda msg: print(msg, file=sys.stderr))
    spec, corpus, model, step = load_run(run_dir, data_path=data_path, log=log)
    tcfg = spec.train
    ids = _prompt_ids(corpus, prompt, spec.model.vocab_size, log).astype(np.int32)
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
    return texts, dict(step=step, seed=seed, temperature=temperature, top_k=top_k,
                       prompt=prompt)


def record_samples(run_dir: str | os.PathLike, texts: list[str], *, step, seed, temperature,
                   top_k, prompt) -> Path:
    """Append `texts` to ``samples.txt`` atomically (the whole file is rewritten through
    a temporary, so a full disk leaves the previous file)."""
    run_dir = Path(run_dir)
    path = run_dir / "samples.txt"
    block = "".join(
        f"=== step {step}, seed {seed}, sample {i}, temperature {temperature}, "
        f"top_k {top_k}, prompt {prompt!r}\n{text}\n\n"
        for i, text in enumerate(texts)
    )
    with records_lock(run_dir):
        old = path.read_bytes() if path.exists() else b""
        atomic_write(path, old + block.encode("utf-8"))
    return path
