"""``syncattn report``: loss curves of several runs in one PNG, and a markdown table."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ._files import atomic_save, atomic_write, check_folder_target
from ._run import RunFolderError, read_config
from ._runlog import read_log


__all__ = ["report", "summarise_run"]


def summarise_run(run_dir: str | os.PathLike) -> dict[str, Any]:
    """The final metrics of a run folder, read from its files only.

    Returns:
        ``{"run", "model", "preset", "data", "params", "step", "train_loss",
        "val_loss", "val_metric", "metric", "tokens_per_s", "eval"}``, where
        ``eval`` is ``eval.json`` when ``syncattn eval`` wrote one.

    Raises:
        FileNotFoundError: no ``config.json``.
        RunFolderError: a broken ``config.json`` or ``eval.json`` (the message names it).
    """
    run_dir = Path(run_dir)
    cfg = read_config(run_dir).to_json() | _extra_fields(run_dir)
    records = read_log(run_dir / "log.jsonl")
    train = [r for r in records if r.get("kind") == "train"]
    evals = [r for r in records if r.get("kind") == "eval"]
    kind = cfg.get("data", {}).get("kind", "byte")
    metric = "bpc" if kind == "byte" else "ppl"
    tps = [r["tokens_per_s"] for r in train if r.get("tokens_per_s")]
    extra = run_dir / "eval.json"
    return {
        "run": str(run_dir),
        "model": cfg.get("model", {}).get("attention", "?"),
        "preset": cfg.get("model", {}).get("preset", "?"),
        "data": cfg.get("data", {}).get("name", "?"),
        "params": cfg.get("params"),
        "step": train[-1]["step"] if train else 0,
        "steps": cfg.get("train", {}).get("steps"),
        "train_loss": train[-1]["loss"] if train else None,
        "val_loss": evals[-1]["loss"] if evals else None,
        "val_metric": evals[-1].get(metric) if evals else None,
        "metric": metric,
        "tokens_per_s": sorted(tps)[len(tps) // 2] if tps else None,
        "eval": _read_eval(extra) if extra.is_file() else None,
        "_train": train,
        "_evals": evals,
    }


def _extra_fields(run_dir: Path) -> dict[str, Any]:
    """``params`` from config.json (read_config checked the file already)."""
    raw = json.loads((run_dir / "config.json").read_bytes())
    return {"params": raw.get("params")}


def _read_eval(path: Path) -> dict[str, Any]:
    try:
        table = json.loads(path.read_bytes())
    except ValueError as e:
        raise RunFolderError(
            f"{path} is not valid JSON ({e}); run `syncattn eval {path.parent}` to write "
            "it again, or delete it."
        ) from None
    if not isinstance(table, dict):
        raise RunFolderError(f"{path} is not a table of splits; run `syncattn eval` again.")
    return table


def _fmt(x, spec=".4f"):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return format(x, spec)


def report(run_dirs, out: str | os.PathLike) -> dict[str, Path]:
    """Plot the training and validation loss of each run against the step, and tabulate.

    Writes ``out/loss_curves.png`` (left: training loss, right: validation loss, in
    nats per token, one colour per run) and ``out/report.md`` (one row per run:
    model, config, data, parameters, steps, final training loss, final validation
    loss and BPC or perplexity, the whole-split value from ``eval.json`` when
    ``syncattn eval`` wrote one, median tokens/s).

    Returns:
        ``{"png": path, "markdown": path}``.

    Both files are written atomically (a temporary, then a rename).

    Raises:
        ValueError: no run folders given, or `out` is a file.
        FileNotFoundError: a folder without ``config.json``.
        RunFolderError: a broken ``config.json`` or ``eval.json``.
    """
    from .._outputs import new_figure, save_figure

    run_dirs = list(run_dirs)
    if not run_dirs:
        raise ValueError("give at least one run folder.")
    runs = [summarise_run(r) for r in run_dirs]
    out = check_folder_target(out, "--out")
    out.mkdir(parents=True, exist_ok=True)

    fig, (ax_t, ax_v) = new_figure(2, 1, width=5.0, height=3.6)
    names = _labels(runs)
    for run, name in zip(runs, names):
        line, = ax_t.plot([r["step"] for r in run["_train"]], [r["loss"] for r in run["_train"]],
                          lw=1.2, label=name)
        ax_v.plot([r["step"] for r in run["_evals"]], [r["loss"] for r in run["_evals"]],
                  "o-", ms=3, lw=1.2, color=line.get_color(), label=name)
    for ax, title in ((ax_t, "training loss"), (ax_v, "validation loss")):
        ax.set_xlabel("step")
        ax.set_ylabel("nats / token")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    ax_v.legend(fontsize=7)
    png = atomic_save(out / "loss_curves.png", lambda tmp: save_figure(fig, tmp))

    lines = [
        "| run | model | config | data | params | steps | train loss | val loss | val BPC / PPL | "
        "full val (`syncattn eval`) | tokens/s |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run, name in zip(runs, names):
        metric = run["metric"].upper()
        lines.append(
            f"| {name} | {run['model']} | {run['preset']} | {run['data']} | "
            f"{_fmt(run['params'], ',')} | {run['step']} | {_fmt(run['train_loss'])} | "
            f"{_fmt(run['val_loss'])} | {_fmt(run['val_metric'])} {metric} | "
            f"{_full_val(run)} | {_fmt(run['tokens_per_s'], ',.0f')} |"
        )
    md = atomic_write(
        out / "report.md",
        "# Training runs\n\n![loss curves](loss_curves.png)\n\n" + "\n".join(lines) + "\n\n"
        "Losses in nats per token; the validation columns are the last evaluation in "
        "each run's log.jsonl (a subset of the split: `eval_batches`); `syncattn eval "
        "RUN` scores the whole split. tokens/s: median over the logged intervals.\n",
    )
    return {"png": png, "markdown": md}


def _full_val(run) -> str:
    ev = (run.get("eval") or {}).get("val")
    if not ev or run["metric"] not in ev:
        return "-"
    return f"{ev[run['metric']]:.4f} {run['metric'].upper()} (step {ev.get('step')})"


def _labels(runs):
    names = [Path(r["run"]).name or r["run"] for r in runs]
    if len(set(names)) < len(names):
        names = [r["run"] for r in runs]
    return names
