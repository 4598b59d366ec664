r"""Statement 26: frustrated synchronisation attention is Kuramoto-Sakaguchi-Daido coupling on the attention graph, plus a Sakaguchi coupling frustrated by the data's transition.

Statement:
    syncattn's own formulation of the abstract of arXiv 2606.18694 ("Attention as
    Frustrated Synchronization"; no body or code was available, so this is not claimed
    to be that paper's model). One query t of one head, weights A_u = A_tu of its causal
    softmax row, phases theta, harmonics m = 1..M, Z^m_t = sum_{u<=t} A_u e^{i m th_u},
    W^m_t = sum_{u<t} A_u e^{i m th_{u+1}}, and the increment
    F_t = sum_m Im(e^{-i m th_t}(c_m Z^m_t + b_m W^m_t)) computed as
    syncattn.kuramoto.daido_update(th_t, Z, c) + daido_update(th_t, W, b):
    (a) identity (i): with c_m = |c_m| e^{i arg c_m},
        Im(e^{-i m th_t} c_m Z^m_t) = sum_u A_u |c_m| sin(m(th_u - th_t) + arg c_m); in the
        convention of syncattn.kuramoto.HarmonicCoupling, c_m = a_m e^{-i alpha_m}, so
        arg c_m = -alpha_m and the term is sum_u A_u a_m sin(m(th_u - th_t) - alpha_m), the
        Kuramoto-Sakaguchi-Daido coupling with the attention weights as the graph;
    (b) identity (ii): with delta_u = th_{u+1} - th_u, the delayed term is
        sum_{u<t} A_u |b_m| sin(m(th_u - th_t) + m delta_u + arg b_m): a Sakaguchi coupling
        whose frustration is the data's own transition;
    (c) its pull x |-> |b| sin(m(th_{u+1} - x) + arg b) vanishes at
        x = th_{u+1} + arg b / m with slope -m |b| (attracting for m|b| > 0): for arg b = 0
        the delayed term locks th_t at the successor th_{u+1};
    (d) M = 1, c_1 = 1, b = 0 is Kuramoto attention's increment
        -sin th_t Re G + cos th_t Im G = sum_{u<=t} A_u sin(th_u - th_t);
    (e) the fast path, c_m Z^m_t + b_m W^m_t = sum_{u<t} A_u P^m_u + A_t c_m e^{i m th_t}
        with P^m_u = c_m e^{i m th_u} + b_m e^{i m th_{u+1}}, then daido_update with unit
        coefficients, equals the plain composition for all coefficients;
    (f) the collective-mode block (weights A_j over modes psi_j) is the Daido coupling
        sum_j A_j H(psi_j - th_t), H(phi) = sum_m |c_m| sin(m phi + arg c_m);
    (g) F_t reads th_0 .. th_t only (the delayed sum stops at u < t, so u + 1 <= t): the
        layer is causal;
    (h) the library's layers (FrustratedAttention, float64 plain path and float32
        fast path; CollectiveModes) equal the double sums over (t, u, m);
    (i) FrustratedAttention.from_kuramoto(L) returns L's outputs bit for bit.

Proof idea:
    (a), (f) per term: Im(e^{-i m th_t} r e^{i g} e^{i m th_u}) = r sin(m th_u - m th_t + g);
    sum over u and m (linearity); the library's rotation
    (cos(m x) Re c + sin(m x) Im c) Im G - (sin(m x) Re c - cos(m x) Im c) Re G is the
    same sum by sin/cos of a difference. (b) is (a) with th_u -> th_{u+1} and
    m(th_{u+1} - th_t) = m(th_u - th_t) + m delta_u. (c) differentiate. (d) (a) at M = 1,
    r = 1, g = 0. (e) split sum_{u<=t} = sum_{u<t} + (u = t) and linearity of the real
    and imaginary parts. (g) the sums read th_u for u <= t and th_{u+1} for u < t.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a), (b), (f) per term with free r, g, m and phases, and
    (a) in daido's convention; (c) the zero and the derivative; (d); (e) for t = 3, M = 2
    with free coefficients; (g) the free symbols of F_t for t = 2.
    Coq (proofs/coq/frustrated_attention.v, against frustrated_attention_spec.v):
    (a)-(g) for every M, t, weights and phases (Coquelicot is_derive for (c)).
    Numeric (float64): FrustratedAttention against the double loop over (t, u, m) in the
    sine form, its float32 fast path, CollectiveModes, and from_kuramoto bit for bit.
    Mutation: the proof must reject the other sign convention c = a e^{+i alpha} in the
    daido form, a delayed sum that includes u = t (it reads th_{t+1}), and delta_u with
    the wrong sign; the numeric comparison must reject a layer with b conjugated.

Mirrors: syncattn.nn.FrustratedAttention, syncattn.nn.CollectiveModes,
syncattn.nn.harmonic_lift, syncattn.kuramoto.daido_update.
Source: issue 40 section 1 (syncattn's own formulation of arXiv 2606.18694's abstract);
classical theory: H. Sakaguchi and Y. Kuramoto, Prog. Theor. Phys. 76 (1986) (the phase
lag); H. Daido, Physica D 91 (1996) (harmonics, order-parameter functions).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._harness import (
    assert_close,
    assert_fails,
    assert_zero,
    check,
    pythagoras,
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 26
TITLE = (
    "Frustrated synchronisation attention: Im(e^{-i m th_t} c_m Z^m_t) = sum_u A_tu |c_m| "
    "sin(m(th_u - th_t) + arg c_m) (Kuramoto-Sakaguchi-Daido on the attention graph) and the "
    "delayed term sum_{u<t} A_tu |b_m| sin(m(th_u - th_t) + m delta_u + arg b_m) (frustration = "
    "the data's transition, locking at th_{u+1}); causal; M = 1, c = 1, b = 0 is Kuramoto attention"
)
MIRRORS = (
    "syncattn.nn.FrustratedAttention",
    "syncattn.nn.CollectiveModes",
    "syncattn.nn.harmonic_lift",
    "syncattn.kuramoto.daido_update",
)
PARTS = (
    Part("a", "Identity (i): Im(e^{-i m th_t} c_m Z^m_t), summed over m, is sum_u A_tu |c_m| sin(m(th_u - th_t) + arg c_m); with daido's c_m = a_m e^{-i alpha_m} it is sum_u A_tu a_m sin(m(th_u - th_t) - alpha_m).", "coq", coq="harmonic_identity"),
    Part("b", "Identity (ii): the delayed term is sum_{u<t} A_tu |b_m| sin(m(th_u - th_t) + m delta_u + arg b_m), delta_u = th_{u+1} - th_u.", "coq", coq="delay_identity"),
    Part("c", "The delayed pull |b| sin(m(th_{u+1} - x) + arg b) vanishes at x = th_{u+1} + arg b/m with slope -m|b|: it locks th_t at the successor (arg b = 0).", "coq", coq="locking"),
    Part("d", "M = 1, c_1 = 1, b = 0 gives Kuramoto attention's increment -sin th_t Re G + cos th_t Im G = sum_u A_tu sin(th_u - th_t).", "coq", coq="kuramoto_reduction"),
    Part("e", "The one-stream fast path (c e^{i m th_u} + b e^{i m th_{u+1}} through the strictly lower weights, plus the diagonal A_tt c e^{i m th_t}, then daido_update with unit coefficients) equals the plain composition.", "coq", coq="fused_path"),
    Part("f", "The collective-mode block's increment is the Daido coupling sum_j A_tj H(psi_j - th_t) to the modes.", "coq", coq="modes_identity"),
    Part("g", "F_t depends on th_0 .. th_t only: the delayed sum stops at u < t, so the successor u + 1 <= t.", "coq", coq="causality"),
    Part("h", "The library's FrustratedAttention (float64 plain path, float32 fast path) and CollectiveModes equal the double sums over (t, u, m).", "measured", why="a float64 comparison of the JAX implementation (softmax, gates, bound) with the double loop; Coq proves the formulas (a)-(g), not the floating-point program"),
    Part("i", "FrustratedAttention.from_kuramoto(L) returns KuramotoAttention L's outputs bit for bit.", "measured", why="bit-for-bit equality is a property of the compiled floating-point programs (the same operations), checked by running them; Coq's reals do not model it"),
)
COQ_SPEC_SHA256 = "18587b3d379fa8321a4aaf9713cdf19ff7c571f80ccab315b5fe06d95a53bfcf"

r, g, m, a, alpha = sp.symbols("r g m a alpha", real=True)
th_t, th_u, th_n, x = sp.symbols("theta_t theta_u theta_next x", real=True)


def _im(z):
    return sp.im(sp.expand_complex(z))


def _lib_term(c, mm, xt, Gr, Gi):
    """daido_update's per-harmonic rotation, with _lag_parts' (Re c, -Im c)."""
    cal, sal = sp.re(sp.expand_complex(c)), -sp.im(sp.expand_complex(c))
    ca = sp.cos(mm * xt) * cal - sp.sin(mm * xt) * sal
    sa = sp.sin(mm * xt) * cal + sp.cos(mm * xt) * sal
    return ca * Gi - sa * Gr


def daido_coefficient(a, alpha):
    """c = a e^{-i alpha} (HarmonicCoupling's convention)."""
    return a * sp.exp(-sp.I * alpha)


def wrong_coefficient(a, alpha):
    """Mutation: c = a e^{+i alpha}."""
    return a * sp.exp(sp.I * alpha)


def delta(theta, u):
    """delta_u = th_{u+1} - th_u."""
    return theta[u + 1] - theta[u]


def wrong_delta(theta, u):
    """Mutation: th_u - th_{u+1}."""
    return theta[u] - theta[u + 1]


def prove_identities(coef=daido_coefficient, dlt=delta) -> None:
    """(a), (b), (d), (f) per term, and (b) on a row of three keys."""
    polar = r * sp.exp(sp.I * g)
    one = sp.exp(sp.I * m * th_u)
    # (a)/(f): Im(e^{-i m th_t} c e^{i m th_u}) = r sin(m(th_u - th_t) + g), and the library's rotation
    want = r * sp.sin(m * (th_u - th_t) + g)
    assert_zero(sp.expand_trig(_im(sp.exp(-sp.I * m * th_t) * polar * one) - want), "(a) Im form")
    lib = _lib_term(polar, m, th_t, sp.cos(m * th_u), sp.sin(m * th_u))
    assert_zero(sp.expand_trig(lib - want), "(a) daido_update's rotation")
    # (a) in daido's convention: arg c = -alpha
    lib_d = _lib_term(coef(a, alpha), m, th_t, sp.cos(m * th_u), sp.sin(m * th_u))
    assert_zero(sp.expand_trig(lib_d - a * sp.sin(m * (th_u - th_t) - alpha)), "(a) daido convention")
    # (b) three keys u = 0, 1, 2 before t = 3: the delayed sum with th_{u+1}
    th = sp.symbols("th0:4", real=True)
    A = sp.symbols("A0:3", real=True)
    t = 3
    Wr = sum(A[u] * sp.cos(m * th[u + 1]) for u in range(t))
    Wi = sum(A[u] * sp.sin(m * th[u + 1]) for u in range(t))
    lhs = _lib_term(polar, m, th[t], Wr, Wi)
    rhs = sum(A[u] * r * sp.sin(m * (th[u] - th[t]) + m * dlt(th, u) + g) for u in range(t))
    # a polynomial in the sines and cosines of m th_i and g: reduce by sin^2 + cos^2 = 1
    res = pythagoras(sp.expand_trig(sp.expand(lhs - rhs)), [m * v for v in th] + [g])
    if res != 0:
        raise AssertionError(f"(b) delayed term, t = 3: residual {res} is not 0")
    # (d) M = 1, c = 1: -sin th_t Re G + cos th_t Im G for one key
    assert_zero(
        sp.expand_trig(_lib_term(sp.Integer(1), 1, th_t, sp.cos(th_u), sp.sin(th_u)) - sp.sin(th_u - th_t)),
        "(d) Kuramoto reduction",
    )


def prove_locking() -> None:
    """(c): the zero at th_{u+1} + g/m and the slope -m r there."""
    mm = sp.Symbol("m", positive=True)
    pull = r * sp.sin(mm * (th_n - x) + g)
    at = th_n + g / mm
    assert_zero(pull.subs(x, at), "(c) the pull vanishes at th_{u+1} + arg b / m")
    assert_zero(sp.diff(pull, x).subs(x, at) + mm * r, "(c) slope -m r")


def frustrated_row(t, M, c, b, th, A, include_diagonal=False):
    """F_t by the plain composition (sympy), the delayed sum over u < t (u <= t: mutation)."""
    last = t + 1 if include_diagonal else t
    F = 0
    for k in range(M):
        mm = k + 1
        Zr = sum(A[u] * sp.cos(mm * th[u]) for u in range(t + 1))
        Zi = sum(A[u] * sp.sin(mm * th[u]) for u in range(t + 1))
        Wr = sum(A[u] * sp.cos(mm * th[u + 1]) for u in range(last))
        Wi = sum(A[u] * sp.sin(mm * th[u + 1]) for u in range(last))
        F += _lib_term(c[k], mm, th[t], Zr, Zi) + _lib_term(b[k], mm, th[t], Wr, Wi)
    return F


def prove_fused_and_causal(include_diagonal=False) -> None:
    """(e) for t = 3, M = 2 with free complex coefficients; (g) the free symbols of F_2."""
    th = sp.symbols("th0:6", real=True)
    A = sp.symbols("A0:6", real=True)
    cr, ci, br, bi = (sp.symbols(f"{n}0:2", real=True) for n in ("cr", "ci", "br", "bi"))
    c = [cr[k] + sp.I * ci[k] for k in range(2)]
    b = [br[k] + sp.I * bi[k] for k in range(2)]
    t, M = 3, 2
    plain = frustrated_row(t, M, c, b, th, A, include_diagonal)
    fused = 0
    for k in range(M):
        mm = k + 1
        e = lambda y: sp.exp(sp.I * mm * y)  # noqa: E731
        G = sum(A[u] * (c[k] * e(th[u]) + b[k] * e(th[u + 1])) for u in range(t)) + A[t] * c[k] * e(th[t])
        G = sp.expand_complex(G)
        fused += _lib_term(sp.Integer(1), mm, th[t], sp.re(G), sp.im(G))
    assert_zero(sp.expand(sp.expand_trig(plain - fused)), "(e) fused path = plain composition")
    F2 = frustrated_row(2, M, c, b, th, A, include_diagonal)
    future = F2.free_symbols & set(th[3:])
    if future:
        raise AssertionError(f"(g) F_2 reads the future phases {sorted(map(str, future))}")


@check("symbolic")
def test_identities_symbolic():
    prove_identities()


@check("symbolic")
def test_locking_symbolic():
    prove_locking()


@check("symbolic")
def test_fused_path_and_causality_symbolic():
    prove_fused_and_causal()


@check("mutation")
def test_identities_reject_the_other_sign_convention():
    assert_fails(prove_identities, wrong_coefficient, what="c_m = a_m e^{+i alpha_m}")


@check("mutation")
def test_identities_reject_the_reversed_transition():
    assert_fails(prove_identities, daido_coefficient, wrong_delta, what="delta_u = th_u - th_{u+1}")


@check("mutation")
def test_causality_rejects_the_diagonal_in_the_delayed_sum():
    assert_fails(prove_fused_and_causal, True, what="W over u <= t (reads th_{t+1})")


# ---------------------------------------------------------------- numeric
def _brute(theta, A, c, b, H):
    """float64 double loop over (t, u, m) in the sine form (a), (b); A (H, T, T)."""
    T, k = theta.shape
    kh = k // H
    F = np.zeros((T, k))
    for t in range(T):
        for j in range(k):
            h = j // kh
            for u in range(t + 1):
                for mm in range(1, c.shape[1] + 1):
                    cm, bm = c[h, mm - 1], b[h, mm - 1]
                    F[t, j] += A[h, t, u] * abs(cm) * np.sin(mm * (theta[u, j] - theta[t, j]) + np.angle(cm))
                    if u < t:
                        F[t, j] += A[h, t, u] * abs(bm) * np.sin(
                            mm * (theta[u, j] - theta[t, j]) + mm * (theta[u + 1, j] - theta[u, j]) + np.angle(bm))
    return F


def compare(conjugate_b=False) -> None:
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    from syncattn import nn

    gen = rng("frustrated")
    T, k, H, M = 6, 4, 2, 2
    L = nn.FrustratedAttention(k, H, key=jax.random.key(0), order=M, tau=1.3)
    c = gen.normal(size=(H, M)) + 1j * gen.normal(size=(H, M))
    b = gen.normal(size=(H, M)) + 1j * gen.normal(size=(H, M))
    bb = np.conj(b) if conjugate_b else b
    L = eqx.tree_at(lambda l: (l.c_real, l.c_imag, l.b_real, l.b_imag), L,
                    tuple(jnp.asarray(v) for v in (c.real, c.imag, bb.real, bb.imag)))  # fmt: skip
    theta = jnp.asarray(gen.uniform(-np.pi, np.pi, (T, k)))
    run = eqx.filter_jit(lambda l, x: l(x, diagnostics=True))  # one compile for the mutation too
    _, aux = run(L, theta)
    A = np.asarray(aux["weights"], np.float64)
    assert_close(aux["coupling"], _brute(np.asarray(theta), A, c, b, H), "FrustratedAttention float64",
                 rtol=1e-10, atol=1e-12)  # fmt: skip
    _, aux32 = run(L, theta.astype(jnp.float32))
    assert_close(aux32["coupling"], np.asarray(aux["coupling"]), "fast path float32", rtol=1e-4, atol=1e-4)
    # the collective-mode block: the same kernel, keys the modes
    B = nn.CollectiveModes(k, 3, H, key=jax.random.key(1), order=M)
    B = eqx.tree_at(lambda l: (l.c_real, l.c_imag), B, (jnp.asarray(c.real), jnp.asarray(c.imag)))
    _, auxm = run(B, theta)
    Am, psi, th = np.asarray(auxm["weights"]), np.asarray(B.modes), np.asarray(theta)
    kh = k // H
    Fm = np.zeros((T, k))
    for t in range(T):
        for j in range(k):
            for i in range(3):
                for mm in range(1, M + 1):
                    cm = c[j // kh, mm - 1]
                    Fm[t, j] += Am[j // kh, t, i] * abs(cm) * np.sin(mm * (psi[i, j] - th[t, j]) + np.angle(cm))
    assert_close(auxm["coupling"], Fm, "CollectiveModes float64", rtol=1e-10, atol=1e-12)


@check("numeric")
def test_layers_match_the_double_sums():
    compare()


@check("mutation")
def test_comparison_rejects_a_conjugated_delay():
    assert_fails(compare, True, what="a layer with b conjugated")


@check("numeric")
def test_from_kuramoto_bit_for_bit():
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    from syncattn import nn

    Lk = nn.KuramotoAttention(8, 2, key=jax.random.key(3), tau=1.4, bound=0.7)
    Lf = nn.FrustratedAttention.from_kuramoto(Lk)
    theta = jnp.asarray(rng("from_kuramoto").uniform(-4, 4, (9, 8)))
    for dtype in (jnp.float64, jnp.float32):
        f = eqx.filter_jit(lambda l, x: l(x))
        yk, yf = np.asarray(f(Lk, theta.astype(dtype))), np.asarray(f(Lf, theta.astype(dtype)))
        if not np.array_equal(yk, yf):
            raise AssertionError(f"from_kuramoto differs in {dtype.__name__}: max {np.max(np.abs(yk - yf)):.3g}")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))
