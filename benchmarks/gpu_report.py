"""The two Python steps of benchmarks/gpu.sh: describe the machine, and summarise a run.

    python benchmarks/gpu_report.py env --out OUT/env.json --mode gpu --budget 560
    python benchmarks/gpu_report.py report OUT [--wall SECONDS]

``env`` records the JAX backend, the devices (kind, memory), the library versions,
the CPU count and load average, ``nvidia-smi`` when there is one, and the code's
revision. ``report`` reads what the stages of gpu.sh wrote into OUT (stages.jsonl,
env.json, attention-DTYPE/results.json, training-CONFIG-DTYPE.json,
experiment1/results.json or, when the experiment ran out of time, its run folders'
logs) and writes OUT/summary.json and OUT/summary.md: one markdown table per
benchmark, labelled with the machine. A stage that timed out, failed or was skipped
is listed as such and its table is left out; nothing is filled in.

``report`` needs only the standard library (it runs after the time-boxed stages).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
DTYPES = ("float32", "bfloat16")


# --------------------------------------------------------------------------- env


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _nvidia_smi() -> list[str] | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [line.strip() for line in out.splitlines() if line.strip()]


def describe_machine(mode: str, budget: int | None) -> dict:
    """What ran the benchmarks: backend, devices, versions, CPUs, load, revision."""
    import jax

    sys.path.insert(0, str(ROOT))
    from syncattn.training._run import revision

    devices = jax.devices()
    memory = None
    try:
        stats = devices[0].memory_stats() or {}
        memory = stats.get("bytes_limit")
    except Exception:  # noqa: BLE001 - not every backend reports memory
        pass
    return {
        "mode": mode,
        "budget_s": budget,
        "backend": jax.default_backend(),
        "device_kind": devices[0].device_kind,
        "n_devices": len(devices),
        "devices": [str(d) for d in devices],
        "device_memory_bytes": memory,
        "default_matmul_precision": jax.config.jax_default_matmul_precision,
        "versions": {name: _version(name) for name in (
            "jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin", "equinox", "diffrax",
            "optax", "numpy", "torch",
        )},
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "nvidia_smi": _nvidia_smi(),
        "revision": revision(),
        "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
    }


# --------------------------------------------------------------------------- report


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _read_jsonl(path: Path) -> list[dict]:
    records = []
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return records
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def _num(x, fmt: str) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return format(x, fmt)


def machine_label(env: dict | None) -> str:
    """One line naming the machine, e.g. ``1 x NVIDIA H200 (gpu), jax 0.11.0, 16 CPUs``."""
    if not env:
        return "unknown machine (the env stage did not finish)"
    kind = env.get("device_kind") or "?"
    smi = env.get("nvidia_smi")
    extra = f"; nvidia-smi: {smi[0]}" if smi else ""
    return (f"{env.get('n_devices')} x {kind} ({env.get('backend')}), jax "
            f"{(env.get('versions') or {}).get('jax')}, {env.get('cpus')} CPUs, "
            f"{env.get('date_utc')} UTC, revision {env.get('revision')}{extra}")


def attention_rows(out: Path) -> dict[str, list[dict]]:
    """dtype -> the rows of ``attention-DTYPE/results.json`` (``"DTYPE (partial)"``
    when the stage was stopped after some T values)."""
    found = {}
    for dtype in DTYPES:
        res = _read_json(out / f"attention-{dtype}" / "results.json")
        if res and res.get("rows"):  # partial: the T values done before the time box
            found[dtype + (" (partial)" if res.get("partial") else "")] = res["rows"]
    return found


def training_results(out: Path) -> dict[str, dict]:
    """``CONFIG-DTYPE`` -> the JSON of ``training-CONFIG-DTYPE.json``."""
    found = {}
    for path in sorted(out.glob("training-*.json")):
        res = _read_json(path)
        if res and res.get("rows"):
            found[path.stem.removeprefix("training-")] = res
    return found


def experiment_result(out: Path) -> dict | None:
    """Experiment 1's outcome: results.json when it finished, else the run folders' progress."""
    folder = out / "experiment1"
    res = _read_json(folder / "results.json")
    if res is not None:
        return {"complete": True, "rows": res.get("rows", []), "corpus": res.get("corpus"),
                "paper": res.get("paper"), "table": res.get("table")}
    runs = sorted(p for p in (folder / "runs").glob("*") if p.is_dir()) if folder.is_dir() else []
    if not runs:
        return None
    rows = []
    for run in runs:
        log = _read_jsonl(run / "log.jsonl")
        trains = [r for r in log if r.get("kind") == "train"]
        evals = [r for r in log if r.get("kind") == "eval"]
        cfg = _read_json(run / "config.json") or {}
        rows.append({
            "cell": run.name, "model": (cfg.get("model") or {}).get("attention"),
            "step": trains[-1]["step"] if trains else 0,
            "steps": (cfg.get("train") or {}).get("steps"),
            "last_eval_bpc": evals[-1].get("bpc") if evals else None,
            "status": "done" if _read_json(run / "result.json") is not None else "incomplete",
        })
    return {"complete": False, "runs": rows}


def _stage_table(stages: list[dict]) -> list[str]:
    lines = ["| stage | status | wall (s) | limit (s) |", "|---|---|---:|---:|"]
    for s in stages:
        lines.append(f"| {s['stage']} | {s['status']} | {s['wall_s']:.1f} | {s['limit_s']} |")
    return lines


def _attention_table(rows_by_dtype: dict[str, list[dict]]) -> list[str]:
    lines = [
        "| dtype | T | layer | fwd+bwd (ms) | time / softmax | memory (MiB) | memory / softmax | note |",
        "|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for dtype, rows in rows_by_dtype.items():
        for r in rows:
            note = "" if r.get("batch_run") == r.get("batch") else f"timed at batch {r.get('batch_run')}, scaled"
            lines.append(
                f"| {dtype} | {r['T']} | {r['layer']} | {_num(1e3 * r['time_s'], '.3f')} | "
                f"{_num(r.get('time_ratio'), '.2f')} | {_num(r.get('mem_total_mb'), '.0f')} | "
                f"{_num(r.get('mem_ratio'), '.2f')} | {note} |"
            )
    return lines


def _training_table(results: dict[str, dict]) -> list[str]:
    lines = [
        "| config | batch | dtype | model | params | train step (ms) | tokens/s | tokens/s / softmax | compile (s) |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for res in results.values():
        for name, r in res["rows"].items():
            step = r.get("step_s")
            lines.append(
                f"| {res.get('config')} | {res.get('batch_size')} x {res.get('seq_len')} | "
                f"{res.get('dtype')} | {name} | {_num(r.get('params'), ',')} | "
                f"{_num(None if step is None else 1e3 * step, '.2f')} | "
                f"{_num(r.get('tokens_per_s'), ',.0f')} | "
                f"{_num(r.get('tokens_per_s_vs_softmax'), '.2f')} | "
                f"{_num(r.get('compile_step_s'), '.1f')} |"
            )
    return lines


def _experiment_lines(exp: dict) -> list[str]:
    if exp["complete"]:
        corpus = (exp.get("corpus") or {}).get("name")
        lines = [f"Corpus: {corpus}" + (
            "" if corpus == "enwik8" else " (not enwik8: not comparable with the paper's numbers)"),
            "", "| size | model | seed | status | steps | val BPC | paper (mean ± std) |",
            "|---|---|---|---|---:|---:|---|"]
        paper = exp.get("paper") or {}
        for r in exp["rows"]:
            ref = (paper.get(r.get("size")) or {}).get(r.get("model")) or {}
            ref_s = (f"{ref['mean']} ± {ref['std']}" if "std" in ref
                     else str(ref.get("mean", "-")))
            lines.append(f"| {r.get('size')} | {r.get('model')} | {r.get('seed')} | "
                         f"{r.get('status')} | {_num(r.get('step'), 'd')} | "
                         f"{_num(r.get('val_bpc'), '.4f')} | {ref_s} |")
        return lines
    lines = ["Ran out of time before the end: the run folders' progress "
             "(re-run gpu.sh into the same --out to resume).", "",
             "| cell | model | step | of | last val BPC | status |", "|---|---|---:|---:|---:|---|"]
    for r in exp["runs"]:
        lines.append(f"| {r['cell']} | {r['model']} | {r['step']} | {_num(r['steps'], 'd')} | "
                     f"{_num(r['last_eval_bpc'], '.4f')} | {r['status']} |")
    return lines


def report(out: Path, wall: float | None = None) -> dict:
    """Write ``out/summary.json`` and ``out/summary.md``; return the summary."""
    out = Path(out)
    env = _read_json(out / "env.json")
    stages = _read_jsonl(out / "stages.jsonl")
    att = attention_rows(out)
    train = training_results(out)
    exp = experiment_result(out)
    summary = {
        "machine": machine_label(env), "env": env, "wall_s": wall, "stages": stages,
        "complete": bool(stages) and all(s["status"] == "ok" for s in stages),
        "attention": att, "training": train, "experiment1": exp,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    mode = (env or {}).get("mode", "?")
    md = [f"# syncattn GPU benchmarks ({mode})", "", f"Machine: {summary['machine']}.", ""]
    if wall is not None:
        md += [f"Total wall time {wall:.0f} s (budget {(env or {}).get('budget_s')} s).", ""]
    md += ["## Stages", "", *_stage_table(stages), ""]
    md += ["## Attention layers (benchmarks/attention.py)", ""]
    md += [*_attention_table(att), ""] if att else ["No complete attention run.", ""]
    md += ["## Training step (benchmarks/training.py)", ""]
    md += [*_training_table(train), ""] if train else ["No complete training run.", ""]
    md += ["## Experiment 1, one seed (syncattn experiment table)", ""]
    md += [*_experiment_lines(exp), ""] if exp else ["The experiment did not start.", ""]
    (out / "summary.md").write_text("\n".join(md))
    return summary


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("env", help="describe the machine into a JSON file")
    e.add_argument("--out", type=Path, required=True)
    e.add_argument("--mode", default="gpu", choices=("gpu", "dry-run", "cpu-fallback"))
    e.add_argument("--budget", type=int)
    r = sub.add_parser("report", help="summary.json and summary.md of a gpu.sh folder")
    r.add_argument("folder", type=Path)
    r.add_argument("--wall", type=float)
    a = p.parse_args(argv)
    if a.cmd == "env":
        info = describe_machine(a.mode, a.budget)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(info, indent=2) + "\n")
        print(machine_label(info))
        return 0
    report(a.folder, a.wall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
