r"""Statement 7: the readout weights are a probability vector that sharpens with p.

Statement:
    For unit queries z_i, unit anchors r_j, a mask mu_ij in {0, 1} with at least
    one unmasked j per row, and p >= 1,

        a_ij = mu_ij max(0, 1 + z_i . r_j)^p / sum_k mu_ik max(0, 1 + z_i . r_k)^p

    (i) a_ij >= 0 and sum_j a_ij = 1, with a_ij = 0 on masked keys;
    (ii) on the sphere 1 + z . r = ||z + r||^2 / 2 >= 0, so the clipping is inactive
         and p = 1 is the seed's affine readout (1 + z.r_j) / sum_l (1 + z.r_l);
    (iii) as p grows the weights concentrate on the best-aligned anchors: the
          ratio to the best anchor, (b_j / b_1)^p, decreases to 0; the weight of
          a unique best anchor increases to 1; m tied best anchors share 1/m.

Proof idea:
    (i) Every unnormalised weight mu_j b_j^p is a non-negative number to a power
        p >= 1; dividing by their positive sum S gives sum_j mu_j b_j^p / S = 1
        (the generic term argument: the sum of the numerators is S).
    (ii) ||z + r||^2 = ||z||^2 + 2 z.r + ||r||^2 = 2 (1 + z.r) on the sphere.
    (iii) With b_j = b_1 / (1 + eps_j), eps_j > 0, the ratio is (1 + eps_j)^{-p}:
          derivative -log(1 + eps_j) (1 + eps_j)^{-p} < 0 and limit 0; the best
          weight is 1 / (1 + sum_j (1 + eps_j)^{-p}), increasing in p with limit 1.
    (iv) [1, z] . [1, r] = 1 + z . r, and the dot product of tensor powers is the
         power of the dot product: (a tensor b) . (c tensor d) = (a . c)(b . d).
    (v) At z = 0 every base is 1 + 0 = 1, so the numerators are mu_ij.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (i) for n = 5 keys with free non-negative
    weights and a mask pattern, and non-negativity of b^p for b >= 0, p >= 1;
    (ii) in d = 3 with free components (the factor structure is dimension free:
    the residual is (||z||^2 - 1)/2 + (||r||^2 - 1)/2); (iii) for the generic
    ratio and for n = 3 keys (best weight monotone, limit 1; a tie gives 1/2).
    Numeric (float64): ``lohe.readout`` against the lambdified weights for p in
    {1, 2.5, 7} with random unit vectors and masks (rows sum to 1,
    non-negative, zero where masked), p = 1 against the affine readout, and
    concentration on the argmax at large p; ``lohe.readout_kernel`` against the
    lambdified unnormalised weights (raw anchors, so max(0, .) clips),
    ``lohe.readout_features`` against (1 + z.r)^p, ``lohe.normalize_readout``
    (division and its uniform fallback) and ``lohe.readout`` at z = 0.
    (iv) symbolic for d = 2 and p = 1, 2, 3 with free components; (v) symbolic
    for the mask pattern of (i).
    Mutation: features without their leading 1 must fail (iv); the proof must reject the base z . r (the +1 shift dropped) and a
    normalisation over all keys, masked ones included; the numeric comparison
    must reject a readout normalised over all keys.

Mirrors: syncattn.lohe.readout, syncattn.lohe.readout_kernel,
syncattn.lohe.readout_features, syncattn.lohe.normalize_readout.
Source: seed 001 (fixed-query oscillator attention, arXiv 2606.12059): the
readout a_ij = (1 + z_i*^T r_j) / sum_l (1 + z_i*^T r_l), "an affine
normalisation, no exponentiation", and "readout sharpening": an exponent p > 1,
analogous to an inverse temperature, improves results.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._harness import (
    assert_close,
    assert_fails,
    assert_true,
    assert_zero,
    check,
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 7
TITLE = "Readout: weights max(0, 1 + z.r)^p are non-negative, sum to 1 over unmasked keys, sharpen as p grows"
MIRRORS = (
    "syncattn.lohe.readout",
    "syncattn.lohe.readout_kernel",
    "syncattn.lohe.readout_features",
    "syncattn.lohe.normalize_readout",
)
PARTS = (
    Part(
        "i(nonneg)",
        "Every readout weight a_ij >= 0 (uniform fallback included).",
        "coq",
        coq="readout_nonneg",
    ),
    Part(
        "i(sum)",
        "sum_j a_ij = 1 when at least one key of the row is unmasked, for every number of keys.",
        "coq",
        coq="readout",
    ),
    Part(
        "i(masked)",
        "a_ij = 0 on masked keys.",
        "coq",
        coq="readout_masked",
    ),
    Part(
        "ii(sphere)",
        "On the sphere 1 + z.r = ||z + r||^2 / 2 >= 0 (any dimension), so the clipping max(0, .) is inactive.",
        "coq",
        coq="readout_sphere",
    ),
    Part(
        "ii(affine)",
        "At p = 1 without clipping the readout is the seed's affine (1 + z.r_j) / sum_l (1 + z.r_l) over the unmasked keys.",
        "coq",
        coq="readout_affine",
    ),
    Part(
        "mono",
        "On the unmasked keys the weight is monotone in the alignment z.r_j (p >= 1).",
        "coq",
        coq="readout_monotone",
    ),
    Part(
        "iii(ratio)",
        "For 0 < b < b_1 the ratio (b / b_1)^p to the best anchor strictly decreases in p.",
        "coq",
        coq="readout_sharpens",
    ),
    Part(
        "iii(limit)",
        "The ratio (b / b_1)^p tends to 0 as p grows.",
        "coq",
        coq="readout_ratio_limit",
    ),
    Part(
        "iii(best)",
        "The weight of a unique best anchor increases to 1 as p grows; m tied best anchors share 1/m.",
        "sympy",
        why="Checked symbolically for n = 3 keys; the general-n monotonicity of 1/(1 + sum_j r_j^p) is not formalised.",
    ),
    Part(
        "iv",
        "The features psi_p = [1, x]^{tensor p} satisfy psi_p(z).psi_p(r) = (1 + z.r)^p.",
        "sympy",
        why="The flattened tensor-power indexing of readout_features is not formalised; sympy checks d = 2, p = 1, 2, 3 with free components.",
    ),
    Part(
        "v",
        "At z = 0 every numerator is the mask bit mu_ij.",
        "coq",
        coq="readout_origin",
    ),
)
# SHA-256 of proofs/coq/readout_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "c8dadc06d7dffabc8c1f547211b402c69971af60ef15040d5a74fe1a9bde9bc7"

p = sp.Symbol("p", positive=True)
bb, b1 = sp.symbols("b b_1", nonnegative=True)
eps = sp.symbols("epsilon1:3", positive=True)


def base(z, r):
    return 1 + z.dot(r)


def wrong_base(z, r):
    """Mutation: the +1 shift dropped."""
    return z.dot(r)


def normalise(b, mask):
    """mu_j b_j^p / sum_k mu_k b_k^p."""
    den = sum(m * bk**p for m, bk in zip(mask, b))
    return [m * bk**p / den for m, bk in zip(mask, b)]


def wrong_normalise(b, mask):
    """Mutation: masked keys still counted in the denominator."""
    den = sum(bk**p for bk in b)
    return [m * bk**p / den for m, bk in zip(mask, b)]


def prove(base=base, normalise=normalise) -> None:
    """Symbolic proof of (i)-(iii) for the given base and normalisation."""
    # (ii) 1 + z.r = |z + r|^2 / 2 on the sphere (d = 3, free components)
    z, r = (
        sp.Matrix(sp.symbols("z0:3", real=True)),
        sp.Matrix(sp.symbols("r0:3", real=True)),
    )
    residual = sp.expand(base(z, r) - (z + r).dot(z + r) / 2)
    sphere_part = -(z.dot(z) - 1) / 2 - (r.dot(r) - 1) / 2
    assert_zero(
        residual - sp.expand(sphere_part), "(ii) 1 + z.r = |z + r|^2/2 on the sphere"
    )
    # (i) non-negativity of b^p, normalisation over unmasked keys, zero on masked keys
    assert_true((bb**p).is_nonnegative, "(i) b^p >= 0 for b >= 0")
    b = sp.symbols("c0:5", positive=True)
    mask = (1, 0, 1, 1, 0)
    a = normalise(b, mask)
    assert_zero(sum(a) - 1, "(i) weights sum to 1 over unmasked keys")
    for aj, m in zip(a, mask):
        if m == 0:
            assert_zero(aj, "(i) masked keys get weight 0")
        else:
            assert_true(aj.is_nonnegative, "(i) unmasked weights are non-negative")
    # (iii) generic ratio (b_j / b_1)^p with b_j = b_1 / (1 + eps)
    ratio = (1 / (1 + eps[0])) ** p
    assert_true((-sp.diff(ratio, p)).is_positive, "(iii) ratio decreasing in p")
    if sp.limit(ratio, p, sp.oo) != 0:
        raise AssertionError("(iii) ratio does not tend to 0")
    # (iii) n = 3: the weights are scale invariant (b -> c b), so take b_1 = 1;
    # the best weight increases to 1, a tie of two shares 1/2
    cs = sp.Symbol("c", positive=True)
    keys = (b1, b1 / (1 + eps[0]), b1 / (1 + eps[1]))
    scaled = normalise([cs * k for k in keys], (1, 1, 1))
    for w_s, w in zip(scaled, normalise(keys, (1, 1, 1))):
        Bp, Cp = sp.symbols("B C", positive=True)  # b_1^p and c^p as atoms, then cancel
        power_base = lambda e: sp.cancel(
            sp.expand_power_base(e, force=True).subs({b1**p: Bp, cs**p: Cp})
        )
        assert_zero(w_s - w, "(iii) scale invariance", simplify=power_base)
    best = normalise([k.subs(b1, 1) for k in keys], (1, 1, 1))[0]
    assert_true(
        sp.factor(sp.diff(best, p)).is_positive, "(iii) best weight increasing in p"
    )
    if sp.limit(best, p, sp.oo) != 1:
        raise AssertionError("(iii) best weight does not tend to 1")
    tie = normalise((1, 1, 1 / (1 + eps[0])), (1, 1, 1))[0]
    if sp.limit(tie, p, sp.oo) != sp.Rational(1, 2):
        raise AssertionError("(iii) tied best anchors do not share the weight")


@check("symbolic")
def test_readout_symbolic():
    prove()


@check("mutation")
def test_readout_rejects_dropped_shift():
    assert_fails(prove, wrong_base, what="the base z . r")


@check("mutation")
def test_readout_rejects_masked_denominator():
    assert_fails(
        prove, base, wrong_normalise, what="a denominator that counts masked keys"
    )


# ---------------------------------------------------------------- numeric
M, D = 5, 4
_z = sp.Matrix(sp.symbols(f"z0:{D}", real=True))
_r = [sp.Matrix(sp.symbols(f"r{j}_0:{D}", real=True)) for j in range(M)]
_mu = sp.symbols(f"mu0:{M}", real=True)
_w = normalise([sp.Max(0, base(_z, rj)) for rj in _r], _mu)
weights_numpy = sp.lambdify([list(_z), [list(rj) for rj in _r], _mu, p], _w, "numpy")


def _unit(g, shape):
    x = g.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def compare(readout=None) -> None:
    from syncattn import lohe

    readout = readout or lohe.readout
    g = rng("readout")
    z, r = _unit(g, (3, D)), _unit(g, (M, D))
    mask = g.random((3, M)) < 0.7
    mask[:, 0] = True  # at least one unmasked key per row
    for pp in (1.0, 2.5, 7.0):
        got = np.asarray(readout(z, r, mask=mask, p=pp))
        want = np.stack(
            weights_numpy(
                list(z.T),
                [list(rj[:, None]) for rj in r],
                [mask[:, j] for j in range(M)],
                pp,
            ),
            -1,
        )
        assert_close(got, want, f"lohe.readout, p={pp}")
        assert_close(got.sum(-1), np.ones(3), f"rows sum to 1, p={pp}")
        if np.any(got < 0) or np.any(got[~mask] != 0):
            raise AssertionError(f"negative or masked-in weights, p={pp}")
    affine = (1 + z @ r.T) / (1 + z @ r.T).sum(-1, keepdims=True)
    assert_close(readout(z, r, p=1.0), affine, "p = 1 is the affine readout")
    sharp = np.asarray(readout(z, r, p=400.0))
    best = np.argmax(z @ r.T, -1)
    if np.any(sharp[np.arange(3), best] < 0.99):
        raise AssertionError("weights do not concentrate on the best anchor at p = 400")


@check("numeric")
def test_readout_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_masked_denominator():
    from syncattn import lohe

    def wrong(z, r, *, mask=None, p=1.0):
        u = np.asarray(lohe.readout(z, r, p=p)) * (
            1 + 0 * np.asarray(mask)
        )  # normalised over all keys
        return np.where(mask, u, 0.0)

    assert_fails(compare, wrong, what="a readout normalised over all keys")


# ---------------------------------------------------------------- (iv), (v)
def features(x, pp):
    """psi_p(x) = [1, x]^{tensor p}, flattened (sympy)."""
    one = [sp.Integer(1), *x]
    out = list(one)
    for _ in range(pp - 1):
        out = [a * b for a in out for b in one]
    return out


def wrong_features(x, pp):
    """Mutation: the leading 1 dropped."""
    out = list(x)
    for _ in range(pp - 1):
        out = [a * b for a in out for b in x]
    return out


def prove_features(features=features) -> None:
    z, r = sp.symbols("z0:2", real=True), sp.symbols("r0:2", real=True)
    for pp in (1, 2, 3):
        lhs = sum(a * b for a, b in zip(features(z, pp), features(r, pp)))
        assert_zero(sp.expand(lhs - (1 + z[0] * r[0] + z[1] * r[1]) ** pp),
                    f"(iv) psi_p(z).psi_p(r) = (1 + z.r)^p, p={pp}")  # fmt: skip
    # (v) z = 0: base 1 everywhere, the weights are the normalised mask
    mask = (1, 0, 1, 1, 0)
    zero = sp.Matrix([0, 0, 0])
    rs = [sp.Matrix(sp.symbols(f"a{j}_0:3", real=True)) for j in range(5)]
    a = normalise([base(zero, rj) for rj in rs], mask)
    for aj, m in zip(a, mask):
        assert_zero(aj - sp.Rational(m, sum(mask)), "(v) z = 0 reads out uniformly")


@check("symbolic")
def test_readout_features_symbolic():
    prove_features()


@check("mutation")
def test_features_reject_missing_one():
    assert_fails(prove_features, wrong_features, what="features without their leading 1")


_u = [sp.Max(0, base(_z, rj)) ** p for rj in _r]
kernel_numpy = sp.lambdify([list(_z), [list(rj) for rj in _r], p], _u, "numpy")


@check("numeric")
def test_readout_pieces_match_implementation():
    from syncattn import lohe

    g = rng("readout_pieces")
    z = _unit(g, (3, D))
    r = _unit(g, (M, D)) * g.uniform(0.3, 2.5, (M, 1))  # raw anchors: some clip
    for pp in (1.0, 2.5):
        want = np.stack(kernel_numpy(list(z.T), [list(rj[:, None]) for rj in r], pp), -1)
        assert_close(lohe.readout_kernel(z, r, p=pp), want, f"readout_kernel, p={pp}")
    ru = _unit(g, (M, D))
    for pp in (1, 2, 3):
        got = np.asarray(lohe.readout_features(z, pp)) @ np.asarray(lohe.readout_features(ru, pp)).T
        assert_close(got, (1 + z @ ru.T) ** pp, f"readout_features, p={pp}")
    num, den = g.normal(size=(4, 2)), np.array([[2.0], [0.0], [0.5], [0.0]])
    fb = g.normal(size=(4, 2))
    want = np.where(den > 0, num / np.where(den > 0, den, 1.0), fb)
    assert_close(lohe.normalize_readout(num, den, fb), want, "normalize_readout")
    mask = g.random((3, M)) < 0.6
    mask[:, 0] = True
    a0 = np.asarray(lohe.readout(np.zeros((3, D)), ru, mask=mask, p=2.0))
    assert_close(a0, mask / mask.sum(-1, keepdims=True), "readout at z = 0 is uniform")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))
