"""Multi-host training for real: two `syncattn train` processes joined by `jax.distributed`
on 127.0.0.1, one CPU device each, against one process with two devices.

Expected: the same losses, gradient norms, evaluations and checkpoint bytes, **bit for
bit**. Both runs execute the same partitioned XLA program on a 2-device mesh, each
device on the same rows of the same global batch; the only cross-device reductions
(gradient, loss and norm all-reduces) have two terms, and $a + b = b + a$ exactly,
whether XLA sums them in one process or gloo sums them across two. (With three or
more processes the all-reduce order may differ and agreement would be to round-off.)

The resume case gives each process its own run folder, as on hosts without a shared
disk: process 0 holds a checkpoint, process 1 an empty folder. The run resumes
from process 0's state on both (`broadcast_from_main`) and ends on the uninterrupted
run's checkpoint; without that broadcast process 1 would start from step 0 and the
two would stop agreeing on how many steps to run.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from syncattn.training import list_checkpoints, read_log


ROOT = Path(__file__).resolve().parents[2]
STEPS, EVERY = 6, 3
TIMEOUT = 600  # per phase; a loaded 2-core machine is slow


def _cmd(out):
    return [
        sys.executable, "-m", "syncattn.cli", "train", "--model", "softmax", "--config", "tiny",
        "--steps", str(STEPS), "--out", str(out), "--quiet", "batch_size=4", "seq_len=32",
        f"eval_every={EVERY}", f"ckpt_every={EVERY}", "log_every=1", "eval_batches=2",
        "keep=2", "dropout=0.1",
    ]


def _env(devices, **extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu")
    for var in ("XLA_FLAGS", "SYNCATTN_COORDINATOR_ADDRESS", "SYNCATTN_NUM_PROCESSES",
                "SYNCATTN_PROCESS_ID", "JAX_COMPILATION_CACHE_DIR"):
        env.pop(var, None)
    env.update(extra)
    if devices > 1:
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    return env


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one_process(out):
    return subprocess.run(_cmd(out), check=True, cwd=ROOT, env=_env(2), capture_output=True,
                          text=True, timeout=TIMEOUT)


def _two_processes(out0, out1, logs):
    """Process 0 told by flags, process 1 by the environment variables (both paths).
    Returns each process's (stdout, stderr)."""
    address = f"127.0.0.1:{_free_port()}"
    cmds = [
        ([*_cmd(out0), "--coordinator-address", address, "--num-processes", "2",
          "--process-id", "0"], _env(1)),
        (_cmd(out1), _env(1, SYNCATTN_COORDINATOR_ADDRESS=address, SYNCATTN_NUM_PROCESSES="2",
                          SYNCATTN_PROCESS_ID="1")),
    ]
    logs.mkdir(parents=True)
    files = [(logs / f"p{i}.out", logs / f"p{i}.err") for i in range(2)]
    procs = []
    for (cmd, env), (out, err) in zip(cmds, files, strict=True):
        with out.open("w") as fo, err.open("w") as fe:
            procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fo, stderr=fe))
    try:
        for p in procs:
            p.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
            p.wait()
    texts = [(out.read_text(), err.read_text()) for out, err in files]
    for i, (p, (_, err)) in enumerate(zip(procs, texts, strict=True)):
        assert p.returncode == 0, f"process {i} failed (status {p.returncode}):\n{err[-3000:]}"
    return texts


def _records(run):
    """The log without wall-clock fields."""
    return [{k: v for k, v in r.items() if k not in ("time", "tokens_per_s")}
            for r in read_log(run / "log.jsonl")]


def _checkpoints(run):
    return {s: (p / "state.eqx").read_bytes() for s, p in list_checkpoints(run / "checkpoints")}


def test_broadcast_from_main_is_the_identity_in_one_process():
    import jax.numpy as jnp

    from syncattn.training import broadcast_from_main

    tree = {"w": jnp.arange(3.0), "n": 7, "s": "static"}
    assert broadcast_from_main(tree) is tree  # no collective, nothing copied


@pytest.mark.slow  # about 1.5 minutes on 2 cores: five training processes
def test_two_processes_equal_one_process_with_two_devices(tmp_path):
    ref, multi = tmp_path / "ref", tmp_path / "multi"
    _one_process(ref)
    # a shared run folder (a cluster file system): process 0 writes, process 1 reads
    (out0, err0), (out1, err1) = _two_processes(multi, multi, tmp_path / "logs-shared")
    assert "on 2 device(s)" in err0 and "on 2 device(s)" in err1  # the mesh spans both

    want = _records(ref)
    assert [r["step"] for r in want if r["kind"] == "train"] == list(range(1, STEPS + 1))
    assert all(r["devices"] == 2 for r in want if r["kind"] == "train")
    assert _records(multi) == want  # losses, grad norms, lr, evaluations: bit for bit
    ckpts = _checkpoints(ref)
    assert sorted(ckpts) == [EVERY, STEPS]
    assert _checkpoints(multi) == ckpts  # model, optimiser state, key: the same bytes
    # both processes computed the same result; the last line reports it
    assert out0.splitlines()[-1] == out1.splitlines()[-1]
    assert out0.splitlines()[-1].startswith(f"step {STEPS}: train loss ")

    # resume with one folder per host (no shared disk): process 0 has the step-3
    # checkpoint, process 1 nothing
    local0, local1 = tmp_path / "host0", tmp_path / "host1"
    shutil.copytree(multi, local0)
    shutil.rmtree(local0 / "checkpoints" / f"step_{STEPS:08d}")
    (_, err0), (_, err1) = _two_processes(local0, local1, tmp_path / "logs-local")
    assert f"(step {EVERY})" in next(ln for ln in err0.splitlines() if ln.startswith("resumed from"))
    assert "resumed from" not in err1  # it took process 0's state instead
    assert not local1.exists()  # process 1 wrote nothing
    assert _records(local0) == want
    assert _checkpoints(local0)[STEPS] == ckpts[STEPS]
    meta = json.loads((local0 / "checkpoints" / f"step_{STEPS:08d}" / "meta.json").read_text())
    assert meta["step"] == STEPS
