"""The trained models of the robustness experiment: their cells (trained, resumed or reused),
loading them back, and scoring them with a substrate key.

The cells are the other experiments' own: the agreement classifier is experiment 4's
[`SVACell`][syncattn.experiments.agreement.SVACell] (its names, its training
[`sva_cell`][syncattn.experiments.agreement.sva_cell]), the language models experiment
5's [`lm_cell`][syncattn.experiments.scaling.lm_cell]; so `agreement_from` and
`runs_from` can point at those experiments' output folders and their finished cells are
used as they are.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._grid import RESULT


@dataclasses.dataclass(frozen=True)
class Trained:
    """One trained model of the sweep.

    Attributes:
        task: ``"agreement"`` or ``"lm"``.
        model: ``"oscillator"`` or ``"softmax"``.
        d_osc: the oscillator dimension (``None`` for softmax).
        cell: the training cell (an `SVACell` or a `TrainCell`).
        folder: its run folder.
        result: its ``result.json``.
    """

    task: str
    model: str
    d_osc: int | None
    cell: Any
    folder: Path
    result: dict

    @property
    def seed(self) -> int:
        return int(self.cell.seed)

    @property
    def label(self) -> str:
        m = f"{self.model}-d{self.d_osc}" if self.d_osc is not None else self.model
        return f"{m}-seed{self.seed}"


# --------------------------------------------------------------------------- cells


def sva_recipe(config):
    """Experiment 4's recipe with this run's choices (d_osc = 2, the paper's)."""
    from .._sva import SVARecipe

    return SVARecipe(
        d_osc=2,
        epochs=config.sva_epochs,
        n_train=config.sva_n_train,
        n_val=config.sva_n_val,
        data_path=config.sva_data_path,
    )


def sva_cells(config) -> list:
    """Experiment 4's cells (same names) for this run's models at ``config.seeds``."""
    from .._sva import sva_cells

    return sva_cells(sva_recipe(config), tuple(config.models), tuple(config.seeds))


def lm_cells(config) -> list:
    """Experiment 5's cells (same names) at ``config.dims`` (and softmax), seeds ``config.lm_seeds``."""
    from .._dosc import lm_cell
    from .._reuse import recipe

    sc = recipe(config)
    out = []
    for seed in config.lm_seeds:
        out += [lm_cell(sc, "oscillator", seed, d) for d in config.dims]
        if "softmax" in config.lm_models:
            out.append(lm_cell(sc, "softmax", seed))
    return out


def _reused(cells, source: str | None, out: Path, grid, fn, desc: str):
    """Results and folders of `cells`: finished ones in ``source/runs`` reused, the others
    trained (or resumed) by `fn` in ``out/runs``."""
    shared = Path(source) / "runs" if source is not None else None
    if shared is not None and not shared.is_dir():
        raise FileNotFoundError(
            f"{source!r} has no runs/ folder; pass an experiment's --out folder."
        )
    folders = [
        shared / c.name
        if shared is not None and (shared / c.name / RESULT).is_file()
        else out / "runs" / c.name
        for c in cells
    ]
    todo = [c for c, f in zip(cells, folders, strict=True) if f.parent == out / "runs"]
    if todo:
        grid.run(todo, out / "runs", fn, desc=desc)
    return [json.loads((f / RESULT).read_text()) for f in folders], folders


def train(config, out: Path, grid) -> list[Trained]:
    """Every model of the run, trained here unless a reused folder holds it."""
    from .._grid import train_cell
    from .._sva import sva_cell

    trained = []
    if "agreement" in config.tasks:
        cells = sva_cells(config)
        results, folders = _reused(
            cells, config.agreement_from, out, grid, sva_cell, "robustness: agreement"
        )
        trained += [
            Trained(
                "agreement", c.model, 2 if c.model == "oscillator" else None, c, f, r
            )
            for c, r, f in zip(cells, results, folders, strict=True)
        ]
    if "lm" in config.tasks:
        cells = lm_cells(config)
        results, folders = _reused(
            cells, config.runs_from, out, grid, train_cell, "robustness: lm"
        )
        for c, r, f in zip(cells, results, folders, strict=True):
            d = c.overrides.get("model.d_osc")
            trained.append(
                Trained("lm", c.model, d if c.model == "oscillator" else None, c, f, r)
            )
    return trained


# --------------------------------------------------------------------------- scoring


class Keyed(eqx.Module):
    """A model whose dropout key is its substrate key: ``Keyed(m)(x, key=k)`` is
    ``m(x, key=None, substrate_key=k)`` (evaluation: no dropout). So the training
    package's per-row key splitting gives every row its own substrate draw."""

    model: Any

    def __call__(self, tokens, *, mask=None, key=None):
        return self.model(tokens, mask=mask, key=None, substrate_key=key)

    def classify(self, tokens, position, *, mask=None, key=None):
        return self(tokens, mask=mask, key=key)[position]


@dataclasses.dataclass
class Scorer:
    """Scores one trained model on fixed validation data, with or without a substrate.

    ``scorer(model, key)`` returns the metric (hard accuracy in percent for the
    classifier; PPL or BPC for a language model) of `model` (the trained one, or a
    [`syncattn.nn.with_substrate`][] copy) with substrate draws from `key` (``None``:
    the ideal substrate's deterministic path).
    """

    task: str
    metric: str
    data: list
    kind: str | None = None
    pad_id: int | None = None

    def __call__(self, model, key) -> float:
        if self.task == "agreement":
            return _sva_accuracy(model, self.data, key)
        return _lm_metric(model, self.data, key, self.pad_id, self.kind)[self.metric]


def dynamic_scorer(scorer: Scorer, config) -> Scorer | None:
    """The scorer on the first ``config.dynamic_sentences`` sentences (classifier, whole
    batches of 500) or ``config.dynamic_batches`` batches (LM); ``None``: no subset."""
    if scorer.task == "agreement":
        n = config.dynamic_sentences
        if n is None:
            return None
        k, total = 0, 0
        while k < len(scorer.data) and total < n:  # whole batches, covering n sentences
            total += len(scorer.data[k]["label"])
            k += 1
    else:
        if config.dynamic_batches is None:
            return None
        k = int(config.dynamic_batches)
    if k >= len(scorer.data):
        return None
    return dataclasses.replace(scorer, data=scorer.data[:k])


def _sva_batches(examples, batch_size: int = 500) -> list[dict]:
    from ...data.sva import sva_batch
    from ...training import SVA_LENGTH

    out = []
    for i in range(0, len(examples), batch_size):
        b = sva_batch(examples, np.arange(i, min(i + batch_size, len(examples))))
        extra = SVA_LENGTH - b["tokens"].shape[1]
        if extra > 0:  # one shape for every batch: one compilation
            b["tokens"] = np.pad(b["tokens"], ((0, 0), (0, extra)))
            b["mask"] = np.pad(b["mask"], ((0, 0), (0, extra)))
        out.append(b)
    return out


@eqx.filter_jit
def _verb_logits(model, tokens, mask, verb_pos, key):
    keyed = Keyed(model)
    if key is None:
        return jax.vmap(lambda t, m, p: keyed.classify(t, p, mask=m))(
            tokens, mask, verb_pos
        )
    keys = jax.random.split(key, tokens.shape[0])
    return jax.vmap(lambda t, m, p, k: keyed.classify(t, p, mask=m, key=k))(
        tokens, mask, verb_pos, keys
    )


def _sva_accuracy(model, batches, key) -> float:
    from ...training import sva_metrics

    def logits(i, b):
        k = None if key is None else jax.random.fold_in(key, i)
        return np.asarray(_verb_logits(model, b["tokens"], b["mask"], b["verb_pos"], k))

    all_logits = np.concatenate([logits(i, b) for i, b in enumerate(batches)])
    cat = {
        k: np.concatenate([b[k] for b in batches])
        for k in ("label", "hard", "has_distractor")
    }
    m = sva_metrics(all_logits, cat["label"], cat["hard"], cat["has_distractor"])
    return 100.0 * m["acc_hard"]


@eqx.filter_jit
def _nll_sums(model, tokens, key, pad_id):
    from ...training import token_nll

    nll = token_nll(Keyed(model), tokens, key=key)
    w = (
        jnp.ones(nll.shape, nll.dtype)
        if pad_id is None
        else (tokens[:, 1:] != pad_id).astype(nll.dtype)
    )
    return jnp.sum(nll * w), jnp.sum(w)


def _lm_metric(model, batches, key, pad_id, kind) -> dict:
    from ...training import metric_from_loss

    total, count = 0.0, 0.0
    for i, b in enumerate(batches):
        k = None if key is None else jax.random.fold_in(key, i)
        s, c = _nll_sums(model, jnp.asarray(b), k, pad_id)
        total, count = total + float(s), count + float(c)
    loss = total / count
    return {"loss": loss, **metric_from_loss(loss, kind)}


def load(trained: Trained, config) -> tuple[Any, Scorer, np.ndarray | None]:
    """``(model, scorer, drives)``: the trained model, its scorer on the sweep's validation
    data, and the ideal drives $h$ ``(N, d_osc)`` of every head, layer and real position
    of that data (``None`` for softmax)."""
    if trained.task == "agreement":
        from .._sva import sva_fit, sva_splits

        model = sva_fit(trained.cell, trained.folder)["model"]
        val = sva_splits(trained.cell)["val"]
        val = val[: config.sweep_sentences] if config.sweep_sentences else val
        batches = _sva_batches(val)
        scorer = Scorer("agreement", "acc_hard", batches)
        h = _sva_drives(model, batches) if trained.model == "oscillator" else None
        return model, scorer, h
    from ... import data, training
    from .._dosc import drives

    spec, corpus, model, _ = training.load_run(trained.folder, log=lambda m: None)
    tr = spec.train
    n = (
        config.sweep_batches
        if config.sweep_batches is not None
        else trained.cell.eval_batches
    )
    batches = list(
        data.eval_batches(
            corpus.val, batch_size=tr.batch_size, seq_len=tr.seq_len, max_batches=n
        )
    )
    scorer = Scorer(
        "lm",
        "bpc" if corpus.kind == "byte" else "ppl",
        batches,
        corpus.kind,
        corpus.pad_id,
    )
    h = None
    if trained.model == "oscillator":
        rows = np.concatenate(batches)
        h = np.concatenate(
            [
                drives(model, rows, layer, corpus.pad_id)
                for layer in range(len(model.encoder.blocks))
            ]
        )
    return model, scorer, h


def _sva_drives(model, batches) -> np.ndarray:
    from ... import models

    fn = eqx.filter_jit(
        jax.vmap(lambda t, m: models.attention_diagnostics(model, t, 0, mask=m)["h"])
    )
    out = []
    for b in batches:
        h = np.asarray(fn(b["tokens"], b["mask"]))  # (B, heads, T, d)
        out.append(h.transpose(0, 2, 1, 3)[b["mask"]].reshape(-1, h.shape[-1]))
    return np.concatenate(out)


# --------------------------------------------------------------------------- perturbed models


def with_tolerances(model, rtol: float, atol: float):
    r"""A copy of `model` whose [`syncattn.nn.OscillatorAttention`][] layers solve their ODE
    at `rtol`/`atol` (the substrate's deterministic dynamics, e.g. frequency disorder):
    $(\mathrm{ode\_rtol}, \mathrm{ode\_atol}) := (\mathrm{rtol}, \mathrm{atol})$, nothing
    else changed (parameters shared)."""
    import copy

    from ... import nn

    if not (rtol > 0 and atol > 0):
        raise ValueError(f"rtol and atol must be > 0; got {rtol!r}, {atol!r}.")
    is_layer = lambda a: isinstance(a, nn.OscillatorAttention)

    def loosen(a):
        new = copy.copy(a)  # a shallow copy: the parameters shared
        object.__setattr__(new, "ode_rtol", float(rtol))
        object.__setattr__(new, "ode_atol", float(atol))
        return new

    return jax.tree_util.tree_map(
        lambda a: loosen(a) if is_layer(a) else a, model, is_leaf=is_layer
    )


def ode_t1(model) -> float:
    """The `ode_t1` of the model's oscillator layers (one value; the paper's $T = 30$)."""
    from ... import nn

    is_layer = lambda a: isinstance(a, nn.OscillatorAttention)
    t1 = {
        a.ode_t1
        for a in jax.tree_util.tree_leaves(model, is_leaf=is_layer)
        if is_layer(a)
    }
    if len(t1) != 1:
        raise ValueError(
            f"the model's oscillator layers have ode_t1 {sorted(t1)}; expected one value."
        )
    return float(t1.pop())


class PerturbedSoftmax(eqx.Module):
    r"""[`syncattn.nn.SoftmaxAttention`][] with the softmax analogue of a substrate's
    coupling mismatch or readout precision (the robustness experiment's softmax reference):
    a module that calls [`syncattn.nn.perturbed_softmax`][] (the equations are there)
    with its own `key`, `mismatch` $\varepsilon$ and `bits` $b$.

    The block calls attention without a key, so the draw is the module's own `key`:
    one fixed device for every sequence (the oscillator's substrate draws a device per
    sequence; both average to the expected metric over devices, softmax's draws spread
    more).
    """

    base: Any
    key: jax.Array
    mismatch: float = eqx.field(static=True)
    bits: int | None = eqx.field(static=True)

    def __init__(self, base, *, key, mismatch: float = 0.0, bits: int | None = None):
        from ... import nn

        if not isinstance(base, nn.SoftmaxAttention):
            raise TypeError(
                f"base must be a syncattn.nn.SoftmaxAttention; got {type(base).__name__}."
            )
        if not (np.isfinite(mismatch) and mismatch >= 0):
            raise ValueError(
                f"mismatch must be a finite number >= 0; got {mismatch!r}."
            )
        if bits is not None and (
            isinstance(bits, bool) or int(bits) != bits or bits < 1
        ):
            raise ValueError(f"bits must be an int >= 1 or None; got {bits!r}.")
        self.base, self.key = base, key
        self.mismatch, self.bits = float(mismatch), None if bits is None else int(bits)

    def __call__(self, x, *, mask=None):
        from ... import nn

        return nn.perturbed_softmax(
            self.base, x, self.key, mismatch=self.mismatch, bits=self.bits, mask=mask
        )


def perturb_softmax(model, key, *, mismatch: float = 0.0, bits: int | None = None):
    """A copy of `model` with every [`syncattn.nn.SoftmaxAttention`][] wrapped in
    [`PerturbedSoftmax`][syncattn.experiments.robustness._models.PerturbedSoftmax]
    (layer $\\ell$ with the key ``fold_in(key, ell)``; parameters shared)."""
    from ... import nn

    is_layer = lambda a: isinstance(a, nn.SoftmaxAttention)
    count = iter(range(1 << 30))

    def wrap(a):
        return PerturbedSoftmax(
            a, key=jax.random.fold_in(key, next(count)), mismatch=mismatch, bits=bits
        )

    return jax.tree_util.tree_map(
        lambda a: wrap(a) if is_layer(a) else a, model, is_leaf=is_layer
    )
