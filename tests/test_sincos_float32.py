"""The float32 ``sincos`` run the way library callers run it (statement 20, issue 38 §3).

Every caller of ``_numerics.sincos`` runs it under ``jax.jit``. On XLA:CPU at the default
backend optimisation level that compiles to the fused multiply-add sequence of
``proofs/coq/sincos_float32_spec.v`` (``sincos32_fma``); eager calls run the plain one
(``sincos32``). The default test run sets XLA's level to 0 for the whole process
(tests/conftest.py), so these tests pick the level per compilation. The independent
computations are the numpy emulations of ``proofs/proof_sincos_float32.py`` (its FMA is
exact: checked there against rational arithmetic). The exhaustive checks are ``slow``.
"""

import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from proofs import proof_sincos_float32 as spec
from syncattn import _numerics


ROOT = Path(__file__).resolve().parents[1]
F32 = np.float32
XLA_DEFAULT_LEVEL = 3  # XLA's default backend optimisation level


def _compiled(fn, *args, level=XLA_DEFAULT_LEVEL):
    options = {"xla_backend_optimization_level": level}
    return jax.jit(fn).lower(*args).compile(compiler_options=options)


def _points(seed, n, bound):
    return np.random.default_rng(seed).uniform(-bound, bound, n).astype(F32)


@pytest.mark.parametrize("bound", [np.pi / 4, 1e4])
def test_jitted_sincos_is_the_fused_sequence(bound):
    x = jnp.asarray(_points(0, 4001, bound))
    s, c = _compiled(_numerics.sincos, x)(x)
    es, ec = spec.sincos32(np.asarray(x), fused=True)
    spec.assert_bit_exact(s, es, "jitted sin")
    spec.assert_bit_exact(c, ec, "jitted cos")


def test_a_caller_inside_jit_gets_the_fused_sequence_of_its_rounded_argument():
    """The rotary layers call sincos(pos * omega) inside their jitted step: the product
    is rounded to float32 first, then the kernel runs fused (the multiply does not fuse
    into the reduction), and its derivative is the fused cosine."""
    pos, omega = _points(1, 4001, 2000.0), _points(2, 4001, 5.0)
    s, c = _compiled(lambda p, w: _numerics.sincos(p * w), pos, omega)(pos, omega)
    es, ec = spec.sincos32(pos * omega, fused=True)
    spec.assert_bit_exact(s, es, "sin(pos * omega)")
    spec.assert_bit_exact(c, ec, "cos(pos * omega)")
    x = jnp.asarray(pos * omega)
    d = _compiled(jax.vmap(jax.grad(lambda t: _numerics.sincos(t)[0])), x)(x)
    spec.assert_bit_exact(d, ec, "d sin / dx")


def test_eager_sincos_is_the_plain_sequence():
    x = _points(3, 4001, 1e4)
    s, c = _numerics.sincos(jnp.asarray(x))
    es, ec = spec.sincos32(x, fused=False)
    spec.assert_bit_exact(s, es, "eager sin")
    spec.assert_bit_exact(c, ec, "eager cos")


@pytest.mark.slow
def test_plain_jit_without_xla_flags_is_the_fused_sequence():
    """What a user gets: a fresh process, no XLA_FLAGS, plain jax.jit."""
    code = (
        "import jax, jax.numpy as jnp, numpy as np\n"
        "from proofs import proof_sincos_float32 as spec\n"
        "from syncattn import _numerics\n"
        "x = np.random.default_rng(4).uniform(-1e4, 1e4, 100001).astype(np.float32)\n"
        "s, c = jax.jit(_numerics.sincos)(jnp.asarray(x))\n"
        "es, ec = spec.sincos32(x, fused=True)\n"
        "spec.assert_bit_exact(s, es, 'sin'); spec.assert_bit_exact(c, ec, 'cos')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-2000:]


def _all_reduced_floats(chunk):
    """Every float32 in [0, 403/512], ascending, in chunks (about 1.06e9 values)."""
    last = int(F32(spec.R_MAX).view(np.uint32))
    for start in range(0, last + 1, chunk):
        yield np.arange(start, min(start + chunk, last + 1), dtype=np.uint32).view(F32)


@pytest.mark.slow
def test_every_reduced_float_is_within_the_proved_kernel_bounds():
    """(a)-(d) over all float32 |r| <= 403/512, as the kernel runs: jitted at XLA's
    default level (fused) and eagerly (plain). The negative half by symmetry, checked bit
    for bit (sin odd, cos even, each rounding symmetric; sin(-0) is +0); bit for bit
    against the numpy emulations on every 64th normal float (the emulation costs about
    1.5 us a value here). XLA:CPU flushes subnormals to zero: for |r| < 2^-126 the kernel
    returns (0, 1), checked here, an error below 2^-126 (the model rounds gradually)."""
    chunk = 1 << 22
    tiny = np.finfo(F32).tiny
    shape = jax.ShapeDtypeStruct((chunk,), jnp.float32)
    fused = _compiled(_numerics._sincos32_poly, shape)
    worst = {}
    for r in _all_reduced_floats(chunk):
        n = r.size
        padded = jnp.asarray(np.pad(r, (0, chunk - n)))
        normal = r >= tiny
        r64 = r.astype(np.float64)
        sin64, cos64 = np.sin(r64), np.cos(r64)
        for tag, run in (("fused", fused), ("plain", _numerics._sincos32_poly)):
            s, c = (np.asarray(v)[:n] for v in run(padded))
            sn, cn = (np.asarray(v)[:n] for v in run(-padded))
            spec.assert_bit_exact(sn[normal], -s[normal], f"{tag}: sin(-r) = -sin(r)")
            spec.assert_bit_exact(cn, c, f"{tag}: cos(-r) = cos(r)")
            flushed = ~normal
            assert np.all(s[flushed] == 0) and np.all(sn[flushed] == 0), tag
            assert np.all(c[flushed] == 1), tag
            for name, got, want in (("sin", s, sin64), ("cos", c, cos64)):
                err = float(np.max(np.abs(got.astype(np.float64) - want)))
                worst[tag, name] = max(worst.get((tag, name), 0.0), err)
            pick = np.flatnonzero(normal)[::64]
            es, ec = spec.kernel32(r[pick], fused=tag == "fused")
            spec.assert_bit_exact(s[pick], es, f"{tag} sin vs its emulation")
            spec.assert_bit_exact(c[pick], ec, f"{tag} cos vs its emulation")
    for tag in ("fused", "plain"):
        assert worst[tag, "sin"] <= spec.SIN_BOUND, worst
        assert worst[tag, "cos"] <= spec.COS_BOUND, worst
