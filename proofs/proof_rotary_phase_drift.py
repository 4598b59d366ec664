r"""Statement 2: rotary position is a phase drift, computed by dot-product attention.

Statement:
    The gated cosine score of Kuramoto attention

        s_tu = (tau / sqrt(k)) sum_j gq_tj gk_uj cos(theta_tj - theta_uj + omega_j (t - u))

    equals (tau / sqrt(k)) < R(omega t) q_t , R(omega u) k_u >, where
    q_tj = gq_tj (cos theta_tj, sin theta_tj) and k_uj = gk_uj (cos theta_uj, sin theta_uj)
    are the lifted, gated features and R(omega t) rotates the j-th 2-d block by
    the angle omega_j t (a RoPE rotation). So standard dot-product attention with
    RoPE computes it, and it depends on the positions only through t - u.

Proof idea:
    (i) Rotations compose: R(a)^T R(b) = R(b - a) (2x2 matrices, symbolic).
    (ii) For one coordinate j, <R(omega t) q, R(omega u) k> = q^T R(omega (u - t)) k
         = gq gk cos(theta_t - theta_u + omega (t - u)) by the cosine addition
         formula.
    (iii) The 2k-dimensional dot product is the sum of the k block dot products,
          so (ii) and linearity of the sum over j give the statement for every k.
    (iv) Shifting both positions, t -> t + c and u -> u + c, leaves each term,
         hence s_tu, unchanged: the score is a function of t - u.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (i); (ii) and (iv) for the generic coordinate with
    gates, phases, frequency and positions free; the full statement for k = 3
    as a cross-check. The extension to every k is the linearity step (iii).
    Numeric (float64): the lambdified score against a RoPE dot product built
    from ``torus.lift`` and explicit rotation matrices, and against the same
    score written with ``torus.angle_diff`` (cos is 2 pi periodic, so wrapping
    is harmless), at random gates, phases, frequencies and positions; shift
    invariance at random offsets.
    Mutation: the proof applied to a score with omega_j (t + u) in place of
    omega_j (t - u) must fail, and the numeric comparison must reject keys
    rotated the wrong way, R(-omega u).

Mirrors: syncattn.torus.lift, syncattn.torus.angle_diff.
Source: seed 000 (Kuramoto attention, arXiv 2606.11585), the gated phase
similarity s_tu and contribution 4: rotary embeddings act as a
position-dependent phase drift omega_j (t - u), the natural frequencies of the
Kuramoto model.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._harness import assert_close, assert_fails, assert_zero, check, rng, run_module
from ._parts import Part


NUMBER = 2
TITLE = "Rotary position is a phase drift: the gated cosine score is a RoPE dot product of lifted features"
MIRRORS = ("syncattn.torus.lift", "syncattn.torus.angle_diff")
PARTS = (
    Part(
        "a",
        "The gated cosine score equals the RoPE dot product (tau/sqrt k) <R(omega t) q_t, R(omega u) k_u> of the lifted features, for every number k of blocks.",
        "coq",
        coq="rotary_phase_drift",
    ),
    Part(
        "b",
        "The score depends on the positions only through t - u (s(t, u) = s(t - u, 0); shifting both positions changes nothing).",
        "coq",
        coq="rotary_relative",
    ),
    Part(
        "i",
        "The 2x2 rotations form a group: R(a) R(b) = R(a + b), R(0) = I, R(-a) inverts R(a).",
        "coq",
        coq="rotary_group",
    ),
    Part(
        "ii",
        "The rotations preserve the inner product.",
        "coq",
        coq="rotary_isometry",
    ),
)
# SHA-256 of proofs/coq/rotary_phase_drift_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "c7726a000e6020d8be8b40124b81179faa17690cde44871d73cc7e0e3de48533"

gq, gk = sp.symbols("g_q g_k", real=True)
th_t, th_u, omega, t, u, c, a, b = sp.symbols(
    "theta_t theta_u omega t u c a b", real=True
)
tau, k_dim = sp.symbols("tau k", positive=True)


def R(phi):
    return sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])


def lift(phi):
    return sp.Matrix([sp.cos(phi), sp.sin(phi)])


def score_term(gq, gk, th_t, th_u, omega, t, u):
    """One coordinate of the gated cosine score (without tau / sqrt(k))."""
    return gq * gk * sp.cos(th_t - th_u + omega * (t - u))


def wrong_score_term(gq, gk, th_t, th_u, omega, t, u):
    """Mutation: the drift written with t + u."""
    return gq * gk * sp.cos(th_t - th_u + omega * (t + u))


def _simp(e):
    r = sp.expand(sp.expand_trig(sp.expand(e)))  # exact cancellation, cheap
    return r if r == 0 else sp.simplify(r)


def prove(term=score_term, k: int = 3) -> None:
    """Symbolic proof that ``term`` is a RoPE dot product and shift invariant."""
    # (i) rotations compose
    assert_zero(R(a).T * R(b) - R(b - a), "R(a)^T R(b) = R(b - a)", simplify=_simp)
    # (ii) generic coordinate
    rope = (R(omega * t) * (gq * lift(th_t))).dot(R(omega * u) * (gk * lift(th_u)))
    s = term(gq, gk, th_t, th_u, omega, t, u)
    assert_zero(s - rope, "generic coordinate vs RoPE dot product", simplify=_simp)
    # (iv) relative position
    assert_zero(s.subs({t: t + c, u: u + c}) - s, "shift invariance", simplify=_simp)
    # cross-check: the whole score for k coordinates as a 2k-dim dot product
    G = sp.symbols(f"gq0:{k}", real=True), sp.symbols(f"gk0:{k}", real=True)
    P = sp.symbols(f"p0:{k}", real=True), sp.symbols(f"q0:{k}", real=True)
    W = sp.symbols(f"w0:{k}", real=True)
    Q = sp.Matrix.vstack(*[R(W[j] * t) * (G[0][j] * lift(P[0][j])) for j in range(k)])
    K = sp.Matrix.vstack(*[R(W[j] * u) * (G[1][j] * lift(P[1][j])) for j in range(k)])
    s_full = (
        tau
        / sp.sqrt(k_dim)
        * sum(term(G[0][j], G[1][j], P[0][j], P[1][j], W[j], t, u) for j in range(k))
    )
    assert_zero(s_full - tau / sp.sqrt(k_dim) * Q.dot(K), f"k = {k}", simplify=_simp)


@check("symbolic")
def test_rope_symbolic():
    prove(score_term)


@check("mutation")
def test_rope_rejects_sum_of_positions():
    assert_fails(prove, wrong_score_term, what="a drift omega (t + u)")


# ---------------------------------------------------------------- numeric
term_numpy = sp.lambdify(
    [gq, gk, th_t, th_u, omega, t, u],
    score_term(gq, gk, th_t, th_u, omega, t, u),
    "numpy",
)


def _rotate(phi, v):
    """Apply R(phi) (a 2x2 rotation) to the last axis of v, blockwise."""
    rot = np.stack(
        [
            np.stack([np.cos(phi), -np.sin(phi)], -1),
            np.stack([np.sin(phi), np.cos(phi)], -1),
        ],
        -2,
    )
    return np.einsum("...ab,...b->...a", rot, v)


def rope_scores(
    theta_q, theta_k, gate_q, gate_k, omega_, pos_q, pos_k, tau_, *, key_sign=1.0
):
    """Dot-product attention scores with RoPE on lifted, gated features."""
    from syncattn import torus

    k = theta_q.shape[-1]
    q = gate_q[..., None] * np.asarray(torus.lift(theta_q))  # (T, k, 2)
    kk = gate_k[..., None] * np.asarray(torus.lift(theta_k))  # (U, k, 2)
    q = _rotate(omega_ * pos_q[:, None], q).reshape(len(pos_q), 2 * k)
    kk = _rotate(key_sign * omega_ * pos_k[:, None], kk).reshape(len(pos_k), 2 * k)
    return tau_ / np.sqrt(k) * q @ kk.T


def _points(shift=0.0):
    g = rng("rotary_phase_drift")
    T, U, k = 4, 6, 5
    return dict(
        theta_q=g.uniform(-7, 7, (T, k)),
        theta_k=g.uniform(-7, 7, (U, k)),
        gate_q=np.log1p(np.exp(g.normal(size=(T, k)))),  # softplus gates, positive
        gate_k=np.log1p(np.exp(g.normal(size=(U, k)))),
        omega_=g.uniform(-1.0, 1.0, k),
        pos_q=np.arange(T, dtype=np.float64) + 2.0 + shift,
        pos_k=np.arange(U, dtype=np.float64) + shift,
        tau_=1.7,
    )


def lambdified_scores(p):
    k = p["theta_q"].shape[-1]
    terms = term_numpy(
        p["gate_q"][:, None, :],
        p["gate_k"][None, :, :],
        p["theta_q"][:, None, :],
        p["theta_k"][None, :, :],
        p["omega_"],
        p["pos_q"][:, None, None],
        p["pos_k"][None, :, None],
    )
    return p["tau_"] / np.sqrt(k) * terms.sum(-1)


def compare(scores=rope_scores) -> None:
    from syncattn import torus

    p = _points()
    want = lambdified_scores(p)
    assert_close(
        scores(**p), want, "RoPE dot product of torus.lift features", atol=1e-11
    )
    k = p["theta_q"].shape[-1]
    diff = np.asarray(
        torus.angle_diff(p["theta_q"][:, None, :], p["theta_k"][None, :, :])
    )
    drift = p["omega_"] * (p["pos_q"][:, None, None] - p["pos_k"][None, :, None])
    via_diff = (
        p["tau_"]
        / np.sqrt(k)
        * np.sum(p["gate_q"][:, None] * p["gate_k"][None] * np.cos(diff + drift), -1)
    )
    assert_close(via_diff, want, "score written with torus.angle_diff", atol=1e-11)
    shifted = _points(shift=rng("rotary_shift").uniform(-50, 50))
    assert_close(
        scores(**shifted),
        want,
        "shift invariance of the RoPE scores",
        rtol=1e-10,
        atol=1e-10,
    )


@check("numeric")
def test_rope_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_wrong_key_rotation():
    wrong = lambda **p: rope_scores(**p, key_sign=-1.0)
    assert_fails(compare, wrong, what="keys rotated by R(-omega u)")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))
