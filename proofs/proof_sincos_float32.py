r"""Statement 20: the float32 sin/cos kernel, eager and under jax.jit, within 1.05e-7.

Statement:
    ``syncattn._numerics._sincos32`` computes, for a float32 x, the quadrant
    k = round(x * float32(2/pi)) (half to even), the Cody-Waite remainder
    r = ((x - k p0) - k p1) - k p2 (p0 + p1 + p2 the float32 split of pi/2),
    s = r + (r r2) h(r2) and c = 1 + r2 g(r2) (r2 = r r; h, g the Horner loops of
    the degree-9/10 Taylor coefficients rounded to float32), and rotates (s, c)
    by k mod 4. One Python source runs as two float32 operation sequences:
    *plain*, every multiply and add rounded on its own, and *fused*, each
    ``a - k p``, ``c_i + r2 acc``, ``r + (r r2) h1`` and ``1 + r2 g1`` one fused
    multiply-add (rounded once), ``r * r`` and ``r * r2`` plain multiplies.
    (a), (b) plain sequence, every float32 |r| <= 403/512 (just above pi/4):
         |s - sin r| <= 5e-8 and |c - cos r| <= 7.5e-8.
    (c), (d) the same bounds for the fused sequence.
    (e) for every float32 |x| <= 10^4, both sequences: the first two reduction
        steps are exact, |r| <= 403/512 and |r - (x - k pi/2)| <= 3e-8.
    (f) the rotation is exact: it maps (sin y, cos y) to
        (sin(y + k pi/2), cos(y + k pi/2)) for every integer k.
    (g) hence for every float32 |x| <= 10^4 both outputs of both sequences lie
        within 1.05e-7 of sin x and cos x.
    (h) eager calls, and ``jax.jit`` at XLA's backend optimisation level 0, run
        the plain sequence; ``jax.jit`` at levels 1-3 (the default) on XLA:CPU
        (x86-64 with FMA) runs the fused one, bit for bit for every normal or zero
        x. XLA:CPU flushes subnormals to zero (the model rounds gradually): for
        0 < |x| < 2^-126 it returns (0, 1), an error below 2^-126.
    (i) the float32 constants of the Coq model are the library's.

Proof idea:
    (a)-(d) split the error at the exact polynomial with the unrounded
        coefficients: its distance to sin/cos is a Taylor truncation (Interval,
        Taylor models), the rounding error of the sequence is bounded by Gappa;
        the two add.
    (e) |x 2/pi - k| <= 1/2 + |x| 6.4e-8 + 2^-150 (|2/pi - float32(2/pi)| and
        one rounding of x * float32(2/pi)), so |x - k pi/2| <= 0.78642 and
        |k| <= 6367. Then k p0 = 201 k 2^-7 and k p1 = 2029 k 2^-22 are float32
        (so the fused and plain sequences agree on them), x - k p0 is exact by
        Sterbenz's lemma (k p0 / 2 <= x <= 2 k p0 for k >= 1, mirrored for
        k <= -1), and (x - k p0) - k p1 is a multiple of 2^-24 below 1 (x is a
        multiple of 2^-24 once |x| >= 1/2). The last step rounds once (fused)
        or twice (plain): at most 2^-25 + 2^-36 (Gappa), plus
        |k| |pi/2 - p0 - p1 - p2| <= 6367 * 2e-15.
    (f) k pi/2 = (k mod 4) pi/2 + 2 pi (k div 4); the four quarter turns by
        the addition formulas.
    (g) |sin r - sin(x - k pi/2)| <= |r - (x - k pi/2)| (sin, cos are 1-Lipschitz),
        so each of s, c is within 7.5e-8 + 3e-8 of the sine/cosine of the exact
        remainder, and (f) moves both errors unchanged.
    (h) LLVM contracts fmul + fadd into an FMA when XLA:CPU compiles with its
        default optimisation (the jitted kernel's assembly has ``vfmadd`` for each
        add that follows a multiply). The emulations decide bit for bit.

What is symbolic and what is numeric:
    Coq (``proofs/coq/sincos_float32.v`` against ``sincos_float32_spec.v``):
    (a)-(g) in full. Symbolic (exact rational arithmetic): (i) the Taylor
    coefficients, float32(2/pi) and the three parts of pi/2 rounded from the
    library's float64 values equal the spec's ``rnd32`` of the exact rationals and
    its dyadic constants; the numpy FMA emulation equals exact rational rounding,
    on random triples and on a triple where rounding through float64 twice is
    wrong. Numeric (float32 against float64 ``np.sin``/``np.cos``): (h) eager
    calls against the plain emulation, the jitted kernel compiled at levels 0 and
    3 against the plain and fused emulations, on |x| <= pi/4 and |x| <= 10^4;
    with +-0 and subnormal inputs, which give (0, 1) eagerly and jitted;
    the bounds of (a)-(e), (g) on samples of both emulations. The exhaustive check
    over all float32 |r| <= 403/512 is ``tests/test_sincos_float32.py`` (slow).
    Mutation: the jitted kernel must differ from the plain emulation (and eager
    from the fused one); the FMA emulation through float64 without rounding to
    odd must fail the exact check; the sampled bounds must reject bounds ten
    times smaller.

Mirrors: syncattn._numerics.sincos.
Source: not a claim of the seeds: the library's own kernel (issue 38 §3).
``sincos`` is the hot loop of every phase flow of the library (Kuramoto, the
rotary layers), so in float32 its error is part of every computed phase.
"""

from __future__ import annotations

import hashlib
import re
from fractions import Fraction
from pathlib import Path

import numpy as np

from ._harness import CONFIG, assert_fails, check, rng, run_module
from ._parts import Part


NUMBER = 20
TITLE = "float32 sin/cos kernel: eager and jitted (fused multiply-add) sequences within 1.05e-7 for |x| <= 1e4"
MIRRORS = ("syncattn._numerics.sincos",)

PARTS = (
    Part(
        "a",
        "Plain sequence: for every float32 |r| <= 403/512, |s - sin r| <= 5e-8.",
        "coq",
        coq="sin_kernel_bound",
    ),
    Part(
        "b",
        "Plain sequence: for every float32 |r| <= 403/512, |c - cos r| <= 7.5e-8.",
        "coq",
        coq="cos_kernel_bound",
    ),
    Part(
        "c",
        "Fused multiply-add sequence: for every float32 |r| <= 403/512, |s - sin r| <= 5e-8.",
        "coq",
        coq="sin_kernel_fma_bound",
    ),
    Part(
        "d",
        "Fused multiply-add sequence: for every float32 |r| <= 403/512, |c - cos r| <= 7.5e-8.",
        "coq",
        coq="cos_kernel_fma_bound",
    ),
    Part(
        "e",
        "Cody-Waite reduction, both sequences, float32 |x| <= 1e4: |r| <= 403/512 and "
        "|r - (x - k pi/2)| <= 3e-8.",
        "coq",
        coq="reduction",
    ),
    Part(
        "f",
        "The quadrant rotation is exact: (sin y, cos y) -> (sin(y + k pi/2), cos(y + k pi/2)).",
        "coq",
        coq="rotation",
    ),
    Part(
        "g",
        "Both sequences, every float32 |x| <= 1e4: both outputs within 1.05e-7 of sin x, cos x.",
        "coq",
        coq="sincos_float32",
    ),
    Part(
        "h",
        "Eager calls and jit at XLA backend optimisation level 0 run the plain sequence; jit at "
        "levels 1-3 (the default) on XLA:CPU (x86-64 with FMA) runs the fused one, bit for bit "
        "for normal and zero inputs; subnormal inputs are flushed to zero, giving (0, 1).",
        "measured",
        why="a property of the compiler and the CPU, not of the mathematics: checked bit for "
        "bit against two numpy emulations on samples (exhaustively on |r| <= 403/512 in a slow test)",
    ),
    Part(
        "i",
        "The float32 constants of the Coq model (rnd32 of the Taylor coefficients, the dyadic "
        "2/pi and parts of pi/2) are exactly the library's np.float32 constants.",
        "sympy",
        why="a check of the library's source values (exact rational arithmetic), not a theorem",
    ),
)

SPEC = Path(__file__).resolve().parent / "coq" / "sincos_float32_spec.v"
COQ_SPEC_SHA256 = "ed747587f615ec1329ae693b085e161a3b709f143391cda8f019ad44370ceba0"

# the proved bounds (sincos_float32_spec.v)
SIN_BOUND, COS_BOUND = 5e-8, 7.5e-8
REDUCTION_BOUND, TOTAL_BOUND = 3e-8, 1.05e-7
R_MAX, X_MAX = 403 / 512, 1e4

# the spec's constants, exact: the Taylor coefficients (rounded by rnd32 in the spec)
# and the reduction's float32 dyadics
SIN_COEFFS = (
    Fraction(-1, 6),
    Fraction(1, 120),
    Fraction(-1, 5040),
    Fraction(1, 362880),
)
COS_COEFFS = (
    Fraction(-1, 2),
    Fraction(1, 24),
    Fraction(-1, 720),
    Fraction(1, 40320),
    Fraction(-1, 3628800),
)
TWO_OVER_PI32 = Fraction(10680707, 2**24)
PIO2_PARTS = (Fraction(201, 2**7), Fraction(2029, 2**22), Fraction(10625385, 2**47))

F32, F64 = np.float32, np.float64


# --------------------------------------------------------------------------- exact rounding
def rnd32_exact(q: Fraction) -> Fraction:
    """Round a rational to the nearest float32, ties to even (subnormals; no overflow)."""
    if q == 0:
        return Fraction(0)
    sign, a = (1, q) if q > 0 else (-1, -q)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2^e <= a < 2^(e+2)
    if a >= Fraction(2) ** (e + 1):
        e += 1
    elif a < Fraction(2) ** e:
        e -= 1
    ulp = Fraction(2) ** max(e - 23, -149)
    n, rest = divmod(a, ulp)
    n = int(n)
    if rest > ulp / 2 or (rest == ulp / 2 and n % 2 == 1):
        n += 1
    return sign * n * ulp


# --------------------------------------------------------------------------- emulations
def fma32(a, b, c):
    """float32 ``a * b + c`` rounded once, in numpy.

    a*b is exact in float64 (24 + 24 bits), so a*b + c needs one rounding to float32;
    rounding it first to float64 (nearest) and then to float32 can round twice the
    wrong way. Instead the float64 sum is rounded to *odd*: TwoSum gives the exact
    error e of s = fl(a*b + c); if e != 0 and s's last bit is even, s moves one
    float64 ulp towards the exact sum. Rounding to odd in 53 >= 24 + 2 bits, then to
    nearest float32, is the correctly rounded float32 result (Boldo and Melquiond,
    "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
    to odd", IEEE Trans. Computers 57, 2008); ``test_fma_emulation_is_exact``
    checks it against exact rationals.
    """
    a, b, c = (np.asarray(v, F32).astype(F64) for v in (a, b, c))
    p = a * b
    s = p + c
    bv = s - p
    e = (p - (s - bv)) + (c - bv)  # TwoSum: s + e == p + c exactly
    # an inexact s with an even last bit moves one ulp towards the exact sum: up in
    # magnitude (its bits + 1) when e has the sign of s, else down (bits - 1)
    bits = s.view(np.int64)
    fix = (e != 0) & ((bits & 1) == 0)
    step = np.where((e > 0) == (s > 0), 1, -1)
    return (bits + fix * step).view(F64).astype(F32)


def fma32_naive(a, b, c):
    """Mutation: a*b + c rounded to float64, then to float32 (double rounding)."""
    a, b, c = (np.asarray(v, F32).astype(F64) for v in (a, b, c))
    return (a * b + c).astype(F32)


def _f32(q: Fraction) -> np.float32:
    return F32(float(rnd32_exact(q)))


def kernel32(r, fused: bool, fma=fma32):
    """(s, c) of the spec's ``sin_kernel``/``cos_kernel`` (plain) or their ``_fma`` forms."""
    r = np.asarray(r, F32)
    r2 = r * r

    def step(c, acc):  # c + r2 * acc
        return fma(r2, acc, c) if fused else c + r2 * acc

    h = np.full_like(r2, _f32(SIN_COEFFS[-1]))
    for q in SIN_COEFFS[-2::-1]:
        h = step(_f32(q), h)
    rr2 = r * r2
    s = fma(rr2, h, r) if fused else r + rr2 * h
    g = np.full_like(r2, _f32(COS_COEFFS[-1]))
    for q in COS_COEFFS[-2::-1]:
        g = step(_f32(q), g)
    c = fma(r2, g, F32(1)) if fused else F32(1) + r2 * g
    return s, c


def reduce32(x, fused: bool):
    """(k, r) of the spec's ``quadrant`` and ``reduce`` (plain) or ``reduce_fma``."""
    x = np.asarray(x, F32)
    k = np.rint(x * F32(float(TWO_OVER_PI32)))  # half to even
    r = x
    for p in PIO2_PARTS:
        p = F32(float(p))
        r = fma32(-k, p, r) if fused else r - k * p
    return k, r


def rotate(k, s, c):
    """The spec's ``rotate``: (s, c), (c, -s), (-s, -c), (-c, s) for k mod 4 = 0..3."""
    q = np.mod(np.asarray(k, F64).astype(np.int64), 4)
    sin = np.select([q == 0, q == 1, q == 2], [s, c, -s], -c)
    cos = np.select([q == 0, q == 1, q == 2], [c, -s, -c], s)
    return sin, cos


def sincos32(x, fused: bool):
    """The spec's ``sincos32`` (plain) or ``sincos32_fma``, in numpy float32."""
    k, r = reduce32(x, fused)
    return rotate(k, *kernel32(r, fused))


def bits(a) -> np.ndarray:
    return np.asarray(a, F32).view(np.uint32)


def assert_bit_exact(got, want, what: str) -> None:
    """Bit-for-bit equality of float32 arrays (signed zeros included)."""
    got_b, want_b = bits(got), bits(want)
    bad = np.flatnonzero(got_b != want_b)
    if bad.size:
        i = bad[0]
        raise AssertionError(
            f"{what}: {bad.size} of {got_b.size} results differ bit for bit, "
            f"e.g. {np.asarray(got).ravel()[i]!r} != {np.asarray(want).ravel()[i]!r}"
        )


# --------------------------------------------------------------------------- the library
def library_eager(x):
    from syncattn import _numerics

    s, c = _numerics.sincos(np.asarray(x, F32))
    return np.asarray(s), np.asarray(c)


def library_jit(x, level: int = 3, fn=None):
    """The kernel compiled by ``jax.jit`` at XLA backend optimisation level ``level``
    (3, XLA's default, is what callers get; the default test run sets 0 globally, so
    the level is set per compilation here)."""
    import jax
    import jax.numpy as jnp

    from syncattn import _numerics

    x = jnp.asarray(np.asarray(x, F32))
    compiled = (
        jax.jit(fn or _numerics.sincos)
        .lower(x)
        .compile(compiler_options={"xla_backend_optimization_level": level})
    )
    return tuple(np.asarray(v) for v in compiled(x))


def samples(tag: str, n: int, bound: float) -> np.ndarray:
    x = rng(tag).uniform(-bound, bound, n).astype(F32)
    return x[np.abs(x.astype(F64)) <= bound]


TINY = np.finfo(F32).tiny  # 2^-126, the smallest normal float32
SUBNORMALS = np.array(
    [1e-45, -1e-45, 1e-40, -3e-39, TINY / 2, -np.nextafter(TINY, F32(0))], F32
)


def with_zeros_and_subnormals(x: np.ndarray) -> np.ndarray:
    return np.concatenate([x, [F32(0), -F32(0)], SUBNORMALS])


def as_xla_cpu_runs(x, sin, cos):
    """XLA:CPU flushes subnormal inputs to zero: for 0 < |x| < 2^-126 it returns
    (+0, 1) where the model (gradual underflow) gives (x, 1)."""
    flushed = (x != 0) & (np.abs(x) < TINY)
    return np.where(flushed, F32(0), sin), np.where(flushed, F32(1), cos)


def _sample_sizes() -> tuple[int, int]:
    return (20_001, 200_001) if CONFIG.quick else (1_000_001, 4_000_001)


# --------------------------------------------------------------------------- (i) constants
def _spec_text() -> str:
    return SPEC.read_text()


def _spec_dyadic(name: str) -> Fraction:
    m = re.search(rf"Definition {name} : R := (\d+) / (\d+)\.", _spec_text())
    if not m:
        raise AssertionError(f"the spec defines no {name} as p / q")
    return Fraction(int(m.group(1)), int(m.group(2)))


@check("symbolic")
def test_spec_constants_are_the_library_constants():
    """(i): every float32 constant of the kernel, as the library rounds it (np.float32 of
    a float64), equals the spec's exact value."""
    from syncattn import _numerics

    lib_sin, lib_cos = _numerics._SIN_C[:4], _numerics._COS_C[:5]
    for lib, exact in zip(lib_sin + lib_cos, SIN_COEFFS + COS_COEFFS):
        if lib != float(exact):
            raise AssertionError(f"library coefficient {lib!r} is not float64({exact})")
        if Fraction(float(F32(lib))) != rnd32_exact(exact):
            raise AssertionError(f"np.float32({lib!r}) is not rnd32({exact})")
    spec = _spec_text()
    for exact in SIN_COEFFS + COS_COEFFS:
        if f"rnd32 ({exact.numerator}/{exact.denominator})" not in spec:
            raise AssertionError(f"the spec's kernels do not use rnd32 ({exact})")
    if (
        not Fraction(float(F32(2.0 / np.pi)))
        == _spec_dyadic("two_over_pi32")
        == TWO_OVER_PI32
    ):
        raise AssertionError("two_over_pi32 is not np.float32(2 / np.pi)")
    for name, lib, exact in zip(
        ("pio2_hi", "pio2_mid", "pio2_lo"), _numerics._PIO2_F32, PIO2_PARTS
    ):
        if not Fraction(float(F32(lib))) == _spec_dyadic(name) == exact:
            raise AssertionError(f"{name} is not np.float32({lib!r})")
    digest = hashlib.sha256(SPEC.read_bytes()).hexdigest()
    if digest != COQ_SPEC_SHA256:
        raise AssertionError(
            f"the spec changed (sha256 {digest}): review it, update the pin"
        )


def _hard_triple() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a * b = 2^-24 + 2^-60 (2^36 + 1 = 1774001 * 38737), c = 1: the exact sum lies just
    above the float32 midpoint 1 + 2^-24, but its float64 rounding is the midpoint."""
    assert 1774001 * 38737 == 2**36 + 1
    a, b = F32(1774001 * 2.0**-21), F32(38737 * 2.0**-39)
    return np.array([a, -a]), np.array([b, b]), np.array([F32(1), F32(-1)])


def check_fma(fma, n: int) -> None:
    """``fma`` equals the exact rounding of a*b + c, on random and on hard triples."""
    g = rng("fma")
    a = (g.uniform(-1, 1, n) * 2.0 ** g.integers(-30, 4, n)).astype(F32)
    b = (g.uniform(-1, 1, n) * 2.0 ** g.integers(-30, 4, n)).astype(F32)
    c = (g.uniform(-1, 1, n) * 2.0 ** g.integers(-30, 4, n)).astype(F32)
    # near-cancellation: c close to -a*b
    c[: n // 4] = (-(a[: n // 4].astype(F64) * b[: n // 4])).astype(F32)
    ha, hb, hc = _hard_triple()
    a, b, c = np.concatenate([a, ha]), np.concatenate([b, hb]), np.concatenate([c, hc])
    got = fma(a, b, c)
    for i in range(a.size):
        exact = rnd32_exact(
            Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        )
        if Fraction(float(got[i])) != exact:
            raise AssertionError(
                f"fma({a[i]!r}, {b[i]!r}, {c[i]!r}) = {got[i]!r}, exact {float(exact)!r}"
            )


@check("symbolic")
def test_fma_emulation_is_exact():
    """The emulation behind (h) rounds a*b + c once, exactly as an FMA does."""
    check_fma(fma32, 2000 if CONFIG.quick else 20000)


@check("mutation")
def test_exact_check_rejects_double_rounding():
    assert_fails(
        check_fma, fma32_naive, 200, what="a*b + c rounded to float64, then float32"
    )


# --------------------------------------------------------------------------- (h) sequences
@check("numeric")
def test_eager_calls_run_the_plain_sequence():
    """(h): eager ``sincos`` on float32 is the plain sequence, bit for bit (subnormal
    inputs flushed to zero)."""
    n_small, n_large = _sample_sizes()
    for x in (
        samples("eager-small", n_small, np.pi / 4),
        samples("eager-large", n_small, X_MAX),
    ):
        x = with_zeros_and_subnormals(x)
        s, c = library_eager(x)
        es, ec = as_xla_cpu_runs(x, *sincos32(x, fused=False))
        assert_bit_exact(s, es, "eager sin vs the plain sequence")
        assert_bit_exact(c, ec, "eager cos vs the plain sequence")


@check("numeric")
def test_jit_runs_the_fused_sequence():
    """(h): jitted at levels 1-3 (3 is XLA's default), the fused sequence; at level 0,
    the plain one; bit for bit, on |x| <= pi/4 (quadrant 0, all levels) and |x| <= 1e4
    (levels 0 and 3), subnormal inputs flushed to zero."""
    n_large = _sample_sizes()[1]
    small = with_zeros_and_subnormals(samples("jit-small", n_large, np.pi / 4))
    large = with_zeros_and_subnormals(samples("jit-large", n_large, X_MAX))
    for x, levels in ((small, (0, 1, 2, 3)), (large, (0, 3))):
        for level in levels:
            fused = level > 0
            s, c = library_jit(x, level)
            es, ec = as_xla_cpu_runs(x, *sincos32(x, fused=fused))
            assert_bit_exact(s, es, f"jit level {level} sin vs fused={fused}")
            assert_bit_exact(c, ec, f"jit level {level} cos vs fused={fused}")


@check("mutation")
def test_the_sequences_are_told_apart():
    """The bit-exact comparisons discriminate: jit is not the plain sequence, eager is not
    the fused one."""
    x = with_zeros_and_subnormals(samples("eager-small", _sample_sizes()[0], np.pi / 4))
    s, _ = library_jit(x, 3)
    assert_fails(
        assert_bit_exact, s, sincos32(x, fused=False)[0], "j", what="jit = plain"
    )
    s, _ = library_eager(x)
    assert_fails(
        assert_bit_exact, s, sincos32(x, fused=True)[0], "e", what="eager = fused"
    )


# --------------------------------------------------------------------------- (a)-(g) bounds
BOUNDS = {
    "sin(r)": SIN_BOUND,
    "cos(r)": COS_BOUND,
    "r": REDUCTION_BOUND,
    "sin(x)": TOTAL_BOUND,
    "cos(x)": TOTAL_BOUND,
}
_WORST: dict = {}


def worst_errors() -> dict:
    """The largest errors of both emulations on samples (cached per seed and size):
    the kernels on |r| <= 403/512, the reduction and the whole kernel on |x| <= 1e4,
    against float64 sin, cos and x - k pi/2 (their own errors below 1e-12)."""
    key = (CONFIG.seed, CONFIG.quick)
    if key in _WORST:
        return _WORST[key]
    n = _sample_sizes()[1]
    r = np.concatenate([samples("bounds-r", n, R_MAX), [F32(R_MAX), -F32(R_MAX)]])
    x = samples("bounds-x", n, X_MAX)
    quarter = F32(np.pi / 4)
    x = np.concatenate([x, [F32(X_MAX), quarter, np.nextafter(quarter, F32(1))]])
    worst = {}
    for fused in (False, True):
        tag = "fused" if fused else "plain"
        s, c = kernel32(r, fused)
        worst[f"{tag} sin(r)"] = np.max(np.abs(s.astype(F64) - np.sin(r.astype(F64))))
        worst[f"{tag} cos(r)"] = np.max(np.abs(c.astype(F64) - np.cos(r.astype(F64))))
        k, rr = reduce32(x, fused)
        if np.max(np.abs(rr)) > R_MAX:
            raise AssertionError(f"{tag}: a reduced argument above 403/512")
        exact = x.astype(F64) - k.astype(F64) * (np.pi / 2)
        worst[f"{tag} r"] = np.max(np.abs(rr.astype(F64) - exact))
        s, c = rotate(k, *kernel32(rr, fused))
        worst[f"{tag} sin(x)"] = np.max(np.abs(s.astype(F64) - np.sin(x.astype(F64))))
        worst[f"{tag} cos(x)"] = np.max(np.abs(c.astype(F64) - np.cos(x.astype(F64))))
    _WORST[key] = worst
    return worst


def check_bounds(worst: dict, bounds: dict = BOUNDS) -> None:
    for key, err in worst.items():
        bound = bounds[key.split()[1]]
        if not err <= bound:
            raise AssertionError(f"{key}: error {err:.3g} above the bound {bound:.3g}")


@check("numeric")
def test_proved_bounds_hold_on_samples():
    """(a)-(e), (g) on samples of both sequences."""
    check_bounds(worst_errors())


@check("mutation")
def test_samples_reject_bounds_ten_times_smaller():
    for key in BOUNDS:
        smaller = dict(BOUNDS, **{key: BOUNDS[key] / 10})
        assert_fails(check_bounds, worst_errors(), smaller, what=f"{key} bound / 10")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))
