"""``syncattn train | eval | sample | report``: the command-line front of the run folders.

Every command validates before it writes, and maps every error to one message
and an exit status (`syncattn._failures`): 0 success, 1 unexpected error or out of
memory, 2 bad input or configuration, 3 training stopped on a NaN/inf loss, 4 no
readable checkpoint, 5 run folder in use, 6 file-system error, 130 / 143 stopped
by SIGINT / SIGTERM (after a checkpoint). ``--debug`` (or ``SYNCATTN_DEBUG=1``)
shows the traceback instead.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .._commands import parse_command_line
from .._failures import run_command


_EPILOG_TRAIN = """\
overrides: KEY=VALUE, a training field (lr, batch_size, seq_len, warmup_steps,
  weight_decay, clip_norm, compute_dtype, eval_every, ckpt_every, keep, ...), a model
  field (d_model, n_layers, dropout, d_osc, positions, ...; a sub-config field by a
  dotted key: sync.sphere_dim=3, sync.group=u2, sync.readout=vonmises) or data.OPTION (a corpus
  option, e.g. data.val_fraction=0.1). Prefix train./model. if a name is ambiguous.
  Values are typed by the field (true/false, none, 1e-3); an unknown key (the error
  suggests the closest) or a key given twice is an error. `syncattn experiment` and
  `syncattn study` take the same KEY=VALUE syntax.

Training into a folder that holds the same run resumes it from its latest checkpoint.
Ctrl-C (SIGINT) or SIGTERM finishes the step, saves a checkpoint and exits 130 / 143;
the same command resumes. One process at a time trains into a folder.

Exit status: 0 done, 1 unexpected error or out of memory, 2 bad input, 3 NaN/inf
loss, 4 no readable checkpoint (see --restart), 5 folder in use, 6 file-system
error (disk full, read-only, ...), 130 / 143 stopped by SIGINT / SIGTERM.

Several hosts: run the same command on every host with --coordinator-address
HOST:PORT --num-processes N --process-id I (or SYNCATTN_COORDINATOR_ADDRESS,
SYNCATTN_NUM_PROCESSES, SYNCATTN_PROCESS_ID); jax.distributed joins them and the
batch is sharded over every device of every host.
"""


def _debug_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--debug", action="store_true",
        help="show the Python traceback of an error (also: SYNCATTN_DEBUG=1)",
    )


def train(argv: list[str] | None = None) -> int:
    """``syncattn train --model M [--config C] [--data D] ... [KEY=VALUE ...]``."""
    p = argparse.ArgumentParser(
        prog="syncattn train", description="Train a language model into a run folder.",
        epilog=_EPILOG_TRAIN, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # checked in one place, by models.get_config (the preset must exist for it)
    from ..models import ATTENTIONS

    p.add_argument("--model", required=True, metavar="{" + ",".join(ATTENTIONS) + "}",
                   help="the attention (sphere, group: the Lohe models; sync.sphere_dim=N, "
                   "sync.group=so3|u2|..., sync.readout=...)")
    p.add_argument("--config", default="tiny", help="model preset: tiny, 1m, 5m, paper-b-lm, "
                   "or auto: the size --minutes affords, 20 tokens per parameter (default tiny)")
    p.add_argument("--data", default="embedded", help="corpus name (default: the embedded text)")
    p.add_argument("--data-path", help="file or folder of the corpus (enwik8, text, wikitext2, tinystories)")
    p.add_argument("--steps", type=int, help="optimiser steps (default: the preset's)")
    p.add_argument("--minutes", type=float, help="a time budget: the steps (and with --config "
                   "auto the size) that end the run, evaluations and checkpoints included, "
                   "within M minutes, from a measured warm-up")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, help="run folder (default runs/MODEL-CONFIG-DATA-seedN)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--restart", action="store_true",
        help="when every checkpoint of the run is unreadable, train it again from step 0 "
        "(without it such a run is refused)",
    )
    _debug_flag(p)
    p.add_argument("--coordinator-address", help="multi-host: HOST:PORT of process 0")
    p.add_argument("--num-processes", type=int, help="multi-host: number of processes")
    p.add_argument("--process-id", type=int, help="multi-host: this process's id")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE")
    args = parse_command_line(p, argv)
    if isinstance(args, int):
        return args

    return run_command("train", lambda: _train(args), debug=args.debug)


def _train(args) -> int:
    from . import _budget
    from ._run import default_out, make_spec
    from ._sharding import initialize_distributed
    from ._train_run import train_run

    started, age = _budget.clock(), _budget.process_age()
    initialize_distributed(args.coordinator_address, args.num_processes, args.process_id)
    out = args.out or default_out(args.model, args.config, args.seed, args.data)
    if args.minutes is not None or args.config == "auto":
        spec, corpus = _budget.budget_spec(
            args.model, args.config, args.minutes, data=args.data, data_path=args.data_path,
            steps=args.steps, seed=args.seed, overrides=args.overrides, out=out,
            started=started, age=age,
        )
    else:
        spec, corpus = make_spec(
            args.model, args.config, data=args.data, data_path=args.data_path,
            steps=args.steps, seed=args.seed, overrides=args.overrides,
        )
    res = train_run(spec, corpus, out, progress=not args.quiet, restart=args.restart,
                    stop_on_signal=True,
                    replan=_budget.Replanner.for_spec(spec, started=started, age=age,
                                                       clock=_budget.clock))
    took = _budget.clock() - started + age
    ev = res.get("eval") or {}
    metric = "bpc" if corpus.kind == "byte" else "ppl"
    val = f", val {metric} {ev[metric]:.4f}" if metric in ev else ""
    budget = f" in {took / 60:.2f} of {args.minutes:g} minutes" if args.minutes else ""
    print(f"step {res['step']}: train loss {res['loss']:.4f}{val}{budget} -> {out}")
    return 0


def evaluate(argv: list[str] | None = None) -> int:
    """``syncattn eval RUN [--split val|test|train] [--batches N]``."""
    p = argparse.ArgumentParser(
        prog="syncattn eval",
        description="Score a run's latest checkpoint: BPC (byte corpora) or perplexity (word corpora).",
    )
    p.add_argument("run", type=Path, help="run folder")
    p.add_argument("--split", default="val", choices=("val", "test", "train"))
    p.add_argument("--batches", type=int, help="at most this many batches (default: the whole split)")
    p.add_argument("--batch-size", type=int, help="default: the run's batch_size")
    p.add_argument("--data-path", help="where the corpus lives now, if it moved")
    _debug_flag(p)
    args = parse_command_line(p, argv)
    if isinstance(args, int):
        return args
    return run_command("eval", lambda: _evaluate(args), debug=args.debug)


def _evaluate(args) -> int:
    from ._load import eval_run, record_eval

    res = eval_run(args.run, split=args.split, max_batches=args.batches,
                   data_path=args.data_path, batch_size=args.batch_size, record=False)
    metric = "bpc" if "bpc" in res else "ppl"
    print(f"{args.run} step {res['step']} {res['split']}: loss {res['loss']:.4f} nats/token, "
          f"{metric} {res[metric]:.4f} over {res['tokens']:,} tokens", flush=True)
    _record(lambda: record_eval(args.run, res), "the score above", "eval.json")
    return 0


def _record(write, what: str, name: str) -> None:
    try:
        write()
    except OSError as e:
        e.add_note(f"{what} was not recorded in {name}.")
        raise


def sample(argv: list[str] | None = None) -> int:
    """``syncattn sample RUN [--prompt TEXT] [--length N] [--temperature T] [--top-k K]``."""
    p = argparse.ArgumentParser(
        prog="syncattn sample", description="Generate text from a run's latest checkpoint; append to samples.txt.",
    )
    p.add_argument("run", type=Path, help="run folder")
    p.add_argument("--prompt", default="", help="text to continue (default: a newline / BOS)")
    p.add_argument("--length", type=int, default=200, help="tokens to generate (at most 100000)")
    p.add_argument("--temperature", type=float, default=0.8, help="0 = greedy")
    p.add_argument("--top-k", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num", type=int, default=1, help="number of samples (at most 1000)")
    p.add_argument("--data-path", help="where the corpus lives now, if it moved")
    _debug_flag(p)
    args = parse_command_line(p, argv)
    if isinstance(args, int):
        return args
    return run_command("sample", lambda: _sample(args), debug=args.debug)


def _sample(args) -> int:
    from ._load import generate_samples, record_samples

    texts, header = generate_samples(
        args.run, prompt=args.prompt, length=args.length, temperature=args.temperature,
        top_k=args.top_k, seed=args.seed, num_samples=args.num, data_path=args.data_path,
    )
    for text in texts:
        print(text)
        print()
    _record(lambda: record_samples(args.run, texts, **header), "the text above", "samples.txt")
    return 0


def report(argv: list[str] | None = None) -> int:
    """``syncattn report RUN [RUN ...] [--out DIR]``."""
    p = argparse.ArgumentParser(
        prog="syncattn report",
        description="Loss curves of run folders in one PNG, and a markdown table of final metrics.",
    )
    p.add_argument("runs", nargs="+", type=Path, help="run folders")
    p.add_argument("--out", type=Path, default=Path("syncattn-report"), help="output folder")
    _debug_flag(p)
    args = parse_command_line(p, argv)
    if isinstance(args, int):
        return args
    return run_command("report", lambda: _report(args), debug=args.debug)


def _report(args) -> int:
    from ._report import report as make_report

    files = make_report(args.runs, args.out)
    print(files["markdown"].read_text())
    print(f"wrote {files['png']} and {files['markdown']}")
    return 0
