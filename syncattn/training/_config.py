"""The training configuration: a frozen dataclass with named presets and key=value overrides."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from .. import _overrides


__all__ = ["TrainConfig", "parse_overrides", "BOOKKEEPING_FIELDS", "MAX_SEED"]

MAX_SEED = 2**32 - 2  # the dropout key is PRNGKey(seed + 1): a uint32

_COMPUTE_DTYPES = ("float32", "bfloat16", "float64")

# Fields that change how a run is observed, not what it computes: a resumed run may
# change them freely (every other field must match the run folder's config.json).
BOOKKEEPING_FIELDS = frozenset(
    {"eval_every", "eval_batches", "ckpt_every", "keep", "log_every"}
)


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    r"""How to train: optimiser, schedule, batch shape, and how often to evaluate and save.

    The learning rate follows a linear warm-up then a cosine decay,

    $$\eta(s) = \begin{cases} \eta_{\max}\, s / s_w & s < s_w \\
      \eta_{\min} + \tfrac12(\eta_{\max}-\eta_{\min})
      \left(1 + \cos\frac{\pi (s - s_w)}{S - s_w}\right) & s_w \le s \le S \end{cases}$$

    with $\eta_{\max}$ = `lr`, $\eta_{\min}$ = `lr * min_lr_ratio`, $s_w$ =
    `warmup_steps` and $S$ = `steps` (see [`syncattn.training.lr_schedule`][]).

    Attributes:
        steps: number of optimiser updates $S$.
        batch_size: global batch (sequences per step, split over the devices).
        seq_len: tokens per training sequence (the model sees `seq_len` inputs and
            predicts `seq_len` targets). Word corpora fix it to their row length - 1.
        lr: peak learning rate $\eta_{\max} > 0$.
        min_lr_ratio: $\eta_{\min}/\eta_{\max} \in [0, 1]$.
        warmup_steps: $s_w \ge 0$ (clipped to `steps`).
        weight_decay: decoupled AdamW weight decay $\lambda \ge 0$.
        b1, b2, eps: AdamW moments and denominator offset.
        clip_norm: global gradient-norm clip $c > 0$ (``None``: no clipping).
        compute_dtype: "float32" (default), "bfloat16" (parameters are stored in
            float32 and cast for the forward/backward pass; the loss is in float32)
            or "float64".
        seed: the run's seed (parameter init, data order, dropout), in
            $[0, 2^{32} - 2]$.
        eval_every, eval_batches: evaluate every `eval_every` steps on at most
            `eval_batches` validation batches.
        ckpt_every, keep: save a checkpoint every `ckpt_every` steps; keep the last
            `keep`.
        log_every: write the training loss to log.jsonl every `log_every` steps.
    """

    steps: int = 1000
    batch_size: int = 32
    seq_len: int = 128
    lr: float = 1e-3
    min_lr_ratio: float = 0.1
    warmup_steps: int = 100
    weight_decay: float = 0.01
    b1: float = 0.9
    b2: float = 0.99
    eps: float = 1e-8
    clip_norm: float | None = 1.0
    compute_dtype: str = "float32"
    seed: int = 0
    eval_every: int = 200
    eval_batches: int = 20
    ckpt_every: int = 200
    keep: int = 3
    log_every: int = 10

    def __post_init__(self):
        _positive_int(self, "steps", "batch_size", "seq_len", "eval_every")
        _positive_int(self, "eval_batches", "ckpt_every", "keep", "log_every")
        if not isinstance(self.warmup_steps, int) or self.warmup_steps < 0:
            raise ValueError(f"warmup_steps must be an int >= 0; got {self.warmup_steps!r}.")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise TypeError(f"seed must be an int; got {self.seed!r}.")
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(
                f"seed (--seed) must lie in [0, {MAX_SEED}]; got {self.seed}. It seeds "
                "the data order (numpy, non-negative) and the PRNG key seed + 1 (uint32)."
            )
        for name in ("lr", "eps"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not v > 0 or v != v or v == float("inf"):
                raise ValueError(f"{name} must be a finite number > 0; got {v!r}.")
        for name in ("b1", "b2", "min_lr_ratio"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1]; got {v!r}.")
        if not isinstance(self.weight_decay, (int, float)) or not self.weight_decay >= 0:
            raise ValueError(f"weight_decay must be >= 0; got {self.weight_decay!r}.")
        if self.clip_norm is not None and not (
            isinstance(self.clip_norm, (int, float)) and self.clip_norm > 0
        ):
            raise ValueError(f"clip_norm must be > 0 or None; got {self.clip_norm!r}.")
        if self.compute_dtype not in _COMPUTE_DTYPES:
            raise ValueError(
                f"compute_dtype must be one of {_COMPUTE_DTYPES}; got {self.compute_dtype!r}."
            )
        for key, tp in _overrides.field_types(TrainConfig).items():
            v = getattr(self, key)
            checked = _overrides.check_value(key, tp, v)
            if checked is not v:  # an int given for a float field: store the float
                object.__setattr__(self, key, checked)

    @classmethod
    def preset(cls, name: str, **overrides) -> TrainConfig:
        """The training preset that goes with model config `name` ("tiny", "1m", "5m",
        anything else: the defaults), with `overrides` applied."""
        base = _PRESETS.get(name, {})
        return cls(**{**base, **overrides})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def __getitem__(self, key: str) -> Any:
        """Deprecated: ``config[key]``, from when a ``RunSpec`` held its configs as dicts;
        use the attribute ``config.key``."""
        return _overrides.deprecated_item(self, key)


_PRESETS: dict[str, dict[str, Any]] = {
    # CPU smoke runs and CI: a few seconds per 50 steps
    "tiny": dict(
        steps=200, batch_size=8, seq_len=64, lr=3e-3, warmup_steps=10,
        eval_every=25, eval_batches=4, ckpt_every=25, log_every=5,
    ),
    "1m": dict(
        steps=5000, batch_size=32, seq_len=256, lr=2e-3, warmup_steps=200,
        eval_every=500, eval_batches=20, ckpt_every=500, log_every=50,
    ),
    # --config auto (the size a --minutes budget affords): the ladder's protocol; the lr
    # (its best at the nearest rung), steps, warm-up, evals and saves are planned
    "auto": dict(batch_size=16, seq_len=128, lr=1e-2, eval_batches=10),
    "5m": dict(
        steps=20000, batch_size=64, seq_len=256, lr=1e-3, warmup_steps=500,
        eval_every=1000, eval_batches=40, ckpt_every=1000, log_every=100,
    ),
}


def _positive_int(obj, *names):
    for name in names:
        v = getattr(obj, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be an int >= 1; got {v!r}.")


def parse_value(text: str) -> Any:
    """Deprecated: the untyped guess of `syncattn._overrides` (None, a bool, an int, a
    float, else the text). Overrides are now parsed by their field's type
    ([`parse_overrides`][syncattn.training.parse_overrides])."""
    warnings.warn(
        "syncattn.training._config.parse_value is deprecated; overrides are typed by "
        "their field (syncattn.training.parse_overrides).",
        DeprecationWarning, stacklevel=2,
    )
    return _overrides.parse_value("value", Any, text)


def _group_fields(spec: Any) -> Any:
    """A group's fields for `_overrides.parse_grouped`: a dataclass or ``{name: type}``
    as given, ``None`` (open) as given, a list of names typed by their dataclass when it
    is TrainConfig's or ModelConfig's, else untyped."""
    if spec is None or isinstance(spec, (type, Mapping)):
        return spec
    names = list(spec)
    for types_ in (_overrides.field_types(TrainConfig), _model_fields()):
        if set(names) <= set(types_):
            return {n: types_[n] for n in names}
    return dict.fromkeys(names, Any)


def _model_fields() -> dict[str, Any]:
    """The ``model`` group's keys: ModelConfig's fields and the flat aliases of its
    parts' fields (``d_osc`` for ``osc.d_osc``; `syncattn.models.override_fields`)."""
    from ..models import override_fields

    return override_fields()


def parse_overrides(
    items: Iterable[str] | Mapping[str, Any],
    groups: Mapping[str, Any],
) -> dict[str, dict[str, Any]]:
    """Split ``key=value`` strings into per-group dicts of typed values.

    A key may carry its group as a prefix (``train.lr=1e-3``, ``model.d_model=64``);
    a bare key goes to the one group that has such a field. A group whose field
    list is ``None`` is open: it takes any field, always with its prefix
    (``data.val_fraction=0.1``). Values are parsed by their field's type
    (`syncattn._overrides.parse_grouped`).

    Args:
        items: the ``key=value`` strings (or ``{key: value}``).
        groups: group name -> its dataclass (or ``{field: type}``, or field names),
            ``None``: any option, prefixed.

    Returns:
        group name -> {field: value} (every group present, possibly empty).

    Raises:
        ValueError: for an item without ``=``, a key no group knows (the message
            suggests the closest), a bare key that two groups share (the message says
            which prefix to add), a value of the wrong type, or a key given twice
            (also as ``lr`` and ``train.lr``).
    """
    return _overrides.parse_grouped(items, {g: _group_fields(f) for g, f in groups.items()})


def run_overrides(items: Iterable[str] | Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The overrides of a training run (``syncattn train``, an experiment's cell) as
    typed per-group dicts: ``{"train": {...}, "model": {...}, "data": {...}}``
    ([`parse_overrides`][syncattn.training.parse_overrides] with the groups
    [`TrainConfig`][syncattn.training.TrainConfig], `syncattn.models.ModelConfig` and the
    open ``data.OPTION``)."""
    return parse_overrides(
        items, {"train": TrainConfig, "model": _model_fields(), "data": None}
    )
