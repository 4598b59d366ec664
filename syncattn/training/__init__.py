r"""Training: optimiser and schedule, the compiled step, data parallelism, checkpoints, logs.

* [`syncattn.training.TrainConfig`][]: the frozen training configuration (presets
  "tiny", "1m", "5m"; key=value overrides).
* [`syncattn.training.make_optimizer`][], [`syncattn.training.lr_schedule`][]: AdamW,
  warm-up + cosine, global-norm clipping (optax).
* [`syncattn.training.next_token_loss`][], [`syncattn.training.make_train_step`][],
  [`syncattn.training.make_eval_step`][]: the loss and the jit-compiled steps.
* [`syncattn.training.data_mesh`][], [`syncattn.training.shard_batch`][],
  [`syncattn.training.initialize_distributed`][],
  [`syncattn.training.broadcast_from_main`][]: `jax.sharding` data parallelism
  over the local devices; `jax.distributed` for several hosts.
* [`syncattn.training.save_checkpoint`][], [`syncattn.training.restore_checkpoint`][]:
  atomic checkpoints, last k kept, fallback past a corrupt one.
* [`syncattn.training.fit`][]: the one training loop, for any
  [`syncattn.training.Task`][] (its loss, batches and evaluation):
  [`syncattn.training.language_model_task`][] (with the BPC / perplexity
  evaluation [`syncattn.training.evaluate`][]) or [`syncattn.training.sva_task`][].
* [`syncattn.training.fit_classifier`][], [`syncattn.training.evaluate_sva`][],
  [`syncattn.training.sva_metrics`][]: the agreement classifier (seed 001's SVA task).
* [`syncattn.training.count_parameters`][], [`syncattn.training.cast_floating`][]:
  the parameter count and the floating-point cast of a model.
* [`syncattn.training.generate`][]: autoregressive sampling.
* [`syncattn.training.budget_spec`][], [`syncattn.training.plan_steps`][],
  [`syncattn.training.Replanner`][]: a run sized to a time budget (``syncattn train
  --minutes M [--config auto]``), re-planned as it goes.
* [`syncattn.training.train_run`][] and friends: run folders (config.json,
  log.jsonl, checkpoints/, samples.txt, revision) behind ``syncattn train``,
  ``eval``, ``sample`` and ``report``; [`syncattn.training.validate_run`][] checks a
  run before anything is written, and one process at a time trains into a folder
  ([`syncattn.training.RunBusy`][]).
"""

from .._trees import (
    cast_floating as cast_floating,
    count_parameters as count_parameters,
)
from ._budget import (
    TOKENS_PER_PARAM as TOKENS_PER_PARAM,
    Replanner as Replanner,
    StepCosts as StepCosts,
    auto_lr as auto_lr,
    budget_spec as budget_spec,
    measure_costs as measure_costs,
    next_size as next_size,
    plan_steps as plan_steps,
    planned_seconds as planned_seconds,
    process_age as process_age,
)
from ._checkpoint import (
    CheckpointError as CheckpointError,
    list_checkpoints as list_checkpoints,
    list_quarantined as list_quarantined,
    restore_checkpoint as restore_checkpoint,
    save_checkpoint as save_checkpoint,
)
from ._classify import (
    FAILURE_THRESHOLD as FAILURE_THRESHOLD,
    SVA_LENGTH as SVA_LENGTH,
    SVA_METRICS as SVA_METRICS,
    evaluate_sva as evaluate_sva,
    fit_classifier as fit_classifier,
    mean_float32 as mean_float32,
    sva_metrics as sva_metrics,
    sva_task as sva_task,
    verb_bce_loss as verb_bce_loss,
)
from ._config import (
    TrainConfig as TrainConfig,
    parse_overrides as parse_overrides,
    run_overrides as run_overrides,
)
from ._files import RunBusy as RunBusy
from ._load import eval_run as eval_run, load_run as load_run, sample_run as sample_run
from ._loop import (
    TrainingDiverged as TrainingDiverged,
    TrainingInterrupted as TrainingInterrupted,
    fit as fit,
    held_run_folder as held_run_folder,
    read_log as read_log,
)
from ._optim import (
    check_horizons as check_horizons,
    lr_schedule as lr_schedule,
    make_optimizer as make_optimizer,
)
from ._report import report as report, summarise_run as summarise_run
from ._run import (
    RunConfigMismatch as RunConfigMismatch,
    RunFolderError as RunFolderError,
    RunSpec as RunSpec,
    make_spec as make_spec,
    read_config as read_config,
    validate_run as validate_run,
)
from ._sample import generate as generate, sampling_logits as sampling_logits
from ._sharding import (
    broadcast_from_main as broadcast_from_main,
    data_mesh as data_mesh,
    initialize_distributed as initialize_distributed,
    replicate as replicate,
    shard_batch as shard_batch,
)
from ._step import (
    auto_splits as auto_splits,
    descent_gradient as descent_gradient,
    make_eval_step as make_eval_step,
    make_train_step as make_train_step,
    metric_from_loss as metric_from_loss,
    next_token_loss as next_token_loss,
    token_nll as token_nll,
)
from ._task import (
    Task as Task,
    evaluate as evaluate,
    language_model_task as language_model_task,
)
from ._train_run import train_run as train_run


__all__ = [
    "FAILURE_THRESHOLD",
    "SVA_LENGTH",
    "SVA_METRICS",
    "evaluate_sva",
    "fit_classifier",
    "mean_float32",
    "sva_metrics",
    "sva_task",
    "Task",
    "language_model_task",
    "verb_bce_loss",
    "TOKENS_PER_PARAM",
    "StepCosts",
    "auto_lr",
    "budget_spec",
    "measure_costs",
    "next_size",
    "plan_steps",
    "planned_seconds",
    "process_age",
    "CheckpointError",
    "list_checkpoints",
    "list_quarantined",
    "restore_checkpoint",
    "save_checkpoint",
    "TrainConfig",
    "parse_overrides",
    "run_overrides",
    "TrainingDiverged",
    "TrainingInterrupted",
    "count_parameters",
    "evaluate",
    "fit",
    "held_run_folder",
    "read_log",
    "lr_schedule",
    "make_optimizer",
    "check_horizons",
    "Replanner",
    "report",
    "summarise_run",
    "RunConfigMismatch",
    "RunFolderError",
    "RunBusy",
    "RunSpec",
    "eval_run",
    "load_run",
    "make_spec",
    "read_config",
    "sample_run",
    "train_run",
    "validate_run",
    "generate",
    "sampling_logits",
    "broadcast_from_main",
    "data_mesh",
    "initialize_distributed",
    "replicate",
    "shard_batch",
    "cast_floating",
    "make_eval_step",
    "make_train_step",
    "descent_gradient",
    "metric_from_loss",
    "next_token_loss",
    "token_nll",
    "auto_splits",
]
