"""Shared machinery for the proof modules: check labels, seeded points, assertions.

Every ``proof_<name>.py`` module defines

* ``NUMBER`` (its place in the list of statements), ``TITLE`` (one line) and
  ``MIRRORS`` (the syncattn functions it ties to);
* ``test_*`` functions, each labelled with :func:`check` as ``"symbolic"``
  (a sympy proof), ``"numeric"`` (float64 comparison with the implementation,
  or a numerical theorem check) or ``"mutation"`` (the same proof applied to a
  deliberately wrong variant must fail).

pytest runs the ``test_*`` functions directly; ``syncattn verify`` collects them
with :func:`collect` and runs them under :func:`configured`. A check passes when
it returns and fails when it raises.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from types import ModuleType

import numpy as np
import sympy as sp


KINDS = ("symbolic", "numeric", "mutation")


@dataclasses.dataclass
class Config:
    """Run-time knobs shared by all checks.

    ``quick`` shrinks the numerical theorem checks (pytest runs them quick; the
    CLI runs them full unless ``--quick``). ``seed`` seeds every random point.
    """

    quick: bool = True
    seed: int = 0


CONFIG = Config()


@contextlib.contextmanager
def configured(*, quick: bool, seed: int) -> Iterator[Config]:
    """Temporarily set :data:`CONFIG` (restored on exit, so pytest is unaffected)."""
    old = dataclasses.replace(CONFIG)
    CONFIG.quick, CONFIG.seed = bool(quick), int(seed)
    try:
        yield CONFIG
    finally:
        CONFIG.quick, CONFIG.seed = old.quick, old.seed


def check(kind: str, *, slow: bool = False) -> Callable:
    """Label a ``test_*`` function as a ``symbolic``, ``numeric`` or ``mutation`` check.

    ``slow=True`` marks a simulation-based theorem check (a diffrax solve, whose
    compilation dominates): pytest deselects it by default (``-m slow`` runs
    it), ``syncattn verify`` runs it unless ``--quick``.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}.")

    def label(fn: Callable) -> Callable:
        fn.check_kind, fn.slow = kind, slow
        pytest = sys.modules.get("pytest")  # mark only under pytest (a test dependency)
        return pytest.mark.slow(fn) if slow and pytest is not None else fn

    return label


@dataclasses.dataclass(frozen=True)
class Check:
    """One check of a proof module: its name (without ``test_``), kind, and function."""

    name: str
    kind: str
    fn: Callable[[], None]
    slow: bool = False


def collect(module: ModuleType) -> list[Check]:
    """The checks of a proof module (its ``test_*`` functions), in definition order.

    Looked up on the module at call time, so a monkeypatched check is honoured.
    """
    out = []
    for name, fn in vars(module).items():
        if name.startswith("test_") and callable(fn):
            kind = getattr(fn, "check_kind", "numeric")
            out.append(
                Check(
                    name.removeprefix("test_"),
                    kind,
                    fn,
                    bool(getattr(fn, "slow", False)),
                )
            )
    return out


def rng(tag: str) -> np.random.Generator:
    """A generator seeded by ``CONFIG.seed`` and a per-check tag (order independent)."""
    return np.random.default_rng([CONFIG.seed, zlib.crc32(tag.encode())])


def assert_zero(expr, what: str, simplify: Callable = sp.simplify) -> None:
    """Assert that a sympy expression (or Matrix) simplifies to exactly zero."""
    if isinstance(expr, sp.MatrixBase):
        residual = expr.applyfunc(simplify)
        ok = residual.is_zero_matrix
    else:
        residual = simplify(expr)
        ok = residual == 0
    if not ok:
        raise AssertionError(f"{what}: residual {residual} is not 0")


def pythagoras(expr, angles):
    """Remainder of ``expr`` modulo sin^2 + cos^2 = 1 for each angle (0 iff it is a trig identity).

    ``expr`` must be a polynomial (or a fraction of polynomials, numerator used)
    in sin(a), cos(a) of the given angles and other symbols; sums of angles must
    be expanded first (``sp.expand_trig``). The relations form a Groebner basis
    (their leading terms are coprime), so the remainder is 0 exactly when the
    expression vanishes identically.
    """
    subs, gens, rels = {}, [], []
    for a in angles:
        S, C = sp.Dummy(f"s_{a}"), sp.Dummy(f"c_{a}")
        subs[sp.sin(a)], subs[sp.cos(a)] = S, C
        gens += [S, C]
        rels.append(S**2 + C**2 - 1)
    num, _ = sp.fraction(sp.together(sp.expand(expr).subs(subs)))
    num = sp.expand(num)
    if num == 0:
        return sp.Integer(0)
    _, r = sp.reduced(num, rels, *gens)
    return sp.expand(r)


def assert_true(fact, what: str) -> None:
    """Assert that a sympy predicate (or Python bool) is *provably* true (``is True``)."""
    if not (fact is True or fact is sp.true):
        raise AssertionError(f"{what}: sympy could not establish it (got {fact!r})")


def assert_close(
    actual, desired, what: str, *, rtol: float = 1e-12, atol: float = 1e-12
) -> None:
    """float64 comparison of the implementation with the lambdified statement."""
    actual, desired = np.asarray(actual), np.asarray(desired)
    if actual.shape != desired.shape:
        raise AssertionError(
            f"{what}: shape {actual.shape} != expected {desired.shape}"
        )
    if not np.all(np.isfinite(actual)):
        raise AssertionError(f"{what}: implementation returned non-finite values")
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, err_msg=what)


def assert_fails(proof: Callable, *args, what: str, **kwargs) -> None:
    """Mutation check: ``proof(*args)`` must raise ``AssertionError``."""
    try:
        proof(*args, **kwargs)
    except AssertionError:
        return
    raise AssertionError(f"mutation survived: the proof accepted {what}")


def run_module(module_globals: dict) -> int:
    """``python proofs/proof_x.py``: run its checks with float64 and print a summary."""
    import jax

    jax.config.update("jax_enable_x64", True)
    module = sys.modules[module_globals["__name__"]]
    failed = 0
    for c in collect(module):
        name, kind = c.name, c.kind
        t0 = time.perf_counter()
        try:
            c.fn()
            status = "pass"
        except Exception as e:  # report every failure, keep going
            status, failed = f"FAIL ({type(e).__name__}: {e})", failed + 1
        print(f"{kind:<9} {name:<40} {time.perf_counter() - t0:6.2f}s {status}")
    return 1 if failed else 0


def trig_zero(e):
    """`e` expanded (trig sums of angles expanded); simplified only if that is not
    already 0 and `e` vanishes at a rational point. A sum that is non-zero there is not
    identically zero and is returned as it is: sympy's simplify of such a sum (the
    mutants') can run for many minutes."""
    r = sp.expand(sp.expand_trig(sp.expand(e)))
    if r == 0:
        return r
    symbols = sorted(r.free_symbols, key=str)
    point = {s: sp.Rational(k + 3, k + 7) for k, s in enumerate(symbols)}
    if abs(sp.N(r.subs(point), 30)) > 1e-20:
        return r
    return sp.simplify(r)
