(** * The float32 fused sin/cos kernel: its error on the reduced range (Gappa + Interval)

    Informal statement.  On its reduced range, the float32 kernel of
    [syncattn._numerics.sincos] computes, for a float32 [r] with
    [|r| <= 403/512] (= 0.787109375, just above [pi/4] to cover the rounding of
    the quadrant), with every operation rounded to nearest-even in binary32 and
    the Taylor coefficients rounded to binary32 once,

        r2 = r*r
        s  = r + (r*r2) * (c1 + r2*(c2 + r2*(c3 + r2*c4)))          (degree 9)
        c  = 1 + r2 * (d0 + r2*(d1 + r2*(d2 + r2*(d3 + r2*d4))))   (degree 10)

    with [c_i] = binary32(-1/6, 1/120, -1/5040, 1/362880) and
    [d_i] = binary32(-1/2, 1/24, -1/720, 1/40320, -1/3628800)
    (the Horner loop of [_horner], innermost first), and
        [|s - sin r| <= 5e-8],  [|c - cos r| <= 7.5e-8].
    The rounding error of the operation sequence is proved by Gappa (the
    [gappa] tactic: Gappa's certificate is checked by Coq against Flocq's
    rounding), the truncation error of the Taylor polynomials by Interval
    (Taylor models); Coq adds the two.

    Not covered: the Cody-Waite reduction [x -> (k, r)] and the quadrant
    rotation (exact sign/swap), i.e. the error for large [|x|]; the tests
    measure it ([tests/test_misc.py], [atol 2e-7] for [|x| < 10^4]).  The model
    assumes XLA evaluates each float32 multiply and add separately (no fused
    multiply-add); a test checks that the library's kernel and a numpy
    emulation of exactly this sequence agree bit for bit on [|x| <= pi/4].

    Symbol map.
    - library: [syncattn._numerics._sincos32] at quadrant [k = 0]
      ([sin_kernel], [cos_kernel]; [sin_poly], [cos_poly] are the exact
      polynomials with the unrounded coefficients [_SIN_C[:4]], [_COS_C[:5]]);
    - no sympy proof: the kernel is tested numerically in [tests/test_misc.py].

    Assumes: the standard library's axioms of the real numbers and the
    specification axioms of the kernel's primitive 63-bit integers
    ([Uint63], used by Interval's reflection); Gappa and Flocq add none. *)

From Coq Require Import Reals Lra.
From Flocq Require Import Core.
From Gappa Require Import Gappa_tactic.
From Interval Require Import Tactic.
Open Scope R_scope.

(** Rounding to the nearest binary32, ties to even (subnormals included). *)
Notation rnd := (round radix2 (FLT_exp (-149) 24) ZnearestE).

Definition sin_kernel (r : R) : R :=
  let r2 := rnd (r * r) in
  let h3 := rnd (rnd (-1/5040) + rnd (r2 * rnd (1/362880))) in
  let h2 := rnd (rnd (1/120) + rnd (r2 * h3)) in
  let h1 := rnd (rnd (-1/6) + rnd (r2 * h2)) in
  rnd (r + rnd (rnd (r * r2) * h1)).

Definition cos_kernel (r : R) : R :=
  let r2 := rnd (r * r) in
  let g4 := rnd (rnd (1/40320) + rnd (r2 * rnd (-1/3628800))) in
  let g3 := rnd (rnd (-1/720) + rnd (r2 * g4)) in
  let g2 := rnd (rnd (1/24) + rnd (r2 * g3)) in
  let g1 := rnd (rnd (-1/2) + rnd (r2 * g2)) in
  rnd (1 + rnd (r2 * g1)).

Definition sin_poly (r : R) : R :=
  r + r * (r * r) * (-1/6 + (r * r) * (1/120 + (r * r) * (-1/5040 + (r * r) * (1/362880)))).

Definition cos_poly (r : R) : R :=
  1 + (r * r) * (-1/2 + (r * r) * (1/24 + (r * r) * (-1/720
    + (r * r) * (1/40320 + (r * r) * (-1/3628800))))).

(** Rounding errors of the float32 operation sequence (Gappa). *)
Lemma sin_rounding : forall x, - (403 / 512) <= rnd x <= 403 / 512 ->
  Rabs (sin_kernel (rnd x) - sin_poly (rnd x)) <= 99 / 2147483648.
Proof. intros x H. cbv beta zeta delta [sin_kernel sin_poly]. gappa. Qed.

Lemma cos_rounding : forall x, - (403 / 512) <= rnd x <= 403 / 512 ->
  Rabs (cos_kernel (rnd x) - cos_poly (rnd x)) <= 155 / 2147483648.
Proof. intros x H. cbv beta zeta delta [cos_kernel cos_poly]. gappa. Qed.

(** Truncation errors of the Taylor polynomials (Interval). *)
Lemma sin_truncation : forall r, - (403 / 512) <= r <= 403 / 512 ->
  Rabs (sin_poly r - sin r) <= 2 / 1000000000.
Proof. intros r H. unfold sin_poly. interval with (i_taylor r, i_degree 14, i_prec 60). Qed.

Lemma cos_truncation : forall r, - (403 / 512) <= r <= 403 / 512 ->
  Rabs (cos_poly r - cos r) <= 2 / 10000000000.
Proof. intros r H. unfold cos_poly. interval with (i_taylor r, i_degree 14, i_prec 60). Qed.

(** The reduced range covers [[-pi/4, pi/4]]. *)
Lemma reduced_range_covers : PI / 4 <= 403 / 512.
Proof. interval with (i_prec 60). Qed.

Lemma triangle : forall a b c e1 e2, Rabs (a - b) <= e1 -> Rabs (b - c) <= e2 ->
  Rabs (a - c) <= e1 + e2.
Proof.
  intros a b c e1 e2 H1 H2. replace (a - c) with ((a - b) + (b - c)) by ring.
  eapply Rle_trans; [apply Rabs_triang | lra].
Qed.

(** Main theorem. *)
Theorem sincos_float32 : forall x, - (403 / 512) <= rnd x <= 403 / 512 ->
  Rabs (sin_kernel (rnd x) - sin (rnd x)) <= 5 / 100000000
  /\ Rabs (cos_kernel (rnd x) - cos (rnd x)) <= 75 / 1000000000.
Proof.
  intros x H. split.
  - eapply Rle_trans; [apply (triangle _ (sin_poly (rnd x)));
      [apply sin_rounding | apply sin_truncation]; exact H | lra].
  - eapply Rle_trans; [apply (triangle _ (cos_poly (rnd x)));
      [apply cos_rounding | apply cos_truncation]; exact H | lra].
Qed.

Print Assumptions sincos_float32.
