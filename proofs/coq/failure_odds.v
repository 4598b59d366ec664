(** * Statement 6: the cap probability bound and the failure event (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [failure_odds_spec.v]: (b) [rho(alpha)^d <=
    exp(-d cos^2(alpha)/2)] for every [alpha] in [[0, pi/2]] and every [d]
    (the [ln(2t) >= t^2/2] step by Interval with bisection); [0 <= rho < 1] on
    [[0, pi/2)]; continuity at [pi/4]; the 21 tabulated values of the failure
    study in enclosures of relative width [2e-9] (a test reads them back and
    checks the library's float64 values against them); (c) the failure event
    [phi(T) > delta] is the start [phi0 > phi_c] (the closed-form angle is
    increasing in [phi0]).

    Symbol map.  The definitions are those of [failure_odds_spec.v] (read it
    against the library); library: [syncattn.sphere.cap_probability_bound],
    [syncattn.lohe.exact_angle],
    [syncattn.lohe.finite_time_failure_probability];
    sympy proof: [proofs/proof_failure_odds.py].

    Not formalised:
    - (a) the cap measure [1/2 I_{sin^2 alpha}((d-1)/2, 1/2)] (spherical
      coordinates, the surface measure of [S^{d-1}], the incomplete beta
      function);
    - (b)'s geometric step [cap(alpha) <= rho(alpha)^d]: K. Ball's cone argument,
      written out in the docstring and the sympy proof, needs the volume of a
      ball in [R^d];
    - (c)'s probability [P(phi(T) > delta) = cap(pi - phi_c)] (the measure of
      the event proved here).

    Assumes: the standard library's axioms of the real numbers; the Interval
    tactic computes on the kernel's primitive 63-bit integers ([PrimInt63],
    [Uint63] specification axioms) and adds no other axiom. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core failure_odds_spec.
From Interval Require Import Tactic.

Lemma rho_small : forall alpha, alpha <= PI / 4 -> rho alpha = 1 / (2 * cos alpha).
Proof. intros alpha H. unfold rho. destruct (Rle_dec alpha (PI / 4)); [reflexivity | lra]. Qed.

Lemma rho_large : forall alpha, PI / 4 < alpha <= PI / 2 -> rho alpha = sin alpha.
Proof.
  intros alpha H. unfold rho.
  destruct (Rle_dec alpha (PI / 4)); [lra|]. destruct (Rle_dec alpha (PI / 2)); [reflexivity | lra].
Qed.

Lemma exp_pow : forall x d, exp x ^ d = exp (INR d * x).
Proof.
  intros x d. induction d as [| d IH].
  - simpl. rewrite Rmult_0_l, exp_0. reflexivity.
  - simpl (exp x ^ S d). rewrite IH, S_INR, <- exp_plus. f_equal. ring.
Qed.

(** The small-angle branch: [1/(2t) <= exp(-t^2/2)] for [t = cos alpha], by
    bisection on [alpha] (margins 0.07 to 0.11). *)
Lemma rho_small_le_exp : forall alpha, 0 <= alpha <= PI / 4 ->
  1 / (2 * cos alpha) <= exp (- cos alpha ^ 2 / 2).
Proof.
  intros alpha H.
  cut (1 / (2 * cos alpha) - exp (- cos alpha ^ 2 / 2) <= 0); [lra|].
  interval with (i_bisect alpha, i_prec 60).
Qed.

(** The large-angle branch: [sin^2 = 1 - cos^2 <= exp(-cos^2)]. *)
Lemma rho_large_le_exp : forall alpha, PI / 4 < alpha <= PI / 2 ->
  sin alpha <= exp (- cos alpha ^ 2 / 2).
Proof.
  intros alpha H. pose proof PI_RGT_0.
  assert (Hs : 0 <= sin alpha) by (apply sin_ge_0; lra).
  pose proof (sin2_cos2 alpha) as E. unfold Rsqr in E.
  pose proof (exp_ineq1_le (- cos alpha ^ 2)) as Hexp.
  assert (Hsq : exp (- cos alpha ^ 2 / 2) * exp (- cos alpha ^ 2 / 2) = exp (- cos alpha ^ 2)).
  { rewrite <- exp_plus. f_equal. field. }
  pose proof (exp_pos (- cos alpha ^ 2 / 2)).
  nra.
Qed.

Lemma rho_nonneg : forall alpha, 0 <= alpha <= PI / 2 -> 0 <= rho alpha.
Proof.
  intros alpha H. pose proof PI_RGT_0. destruct (Rle_dec alpha (PI / 4)) as [Hs | Hl].
  - rewrite rho_small by exact Hs. left.
    assert (0 < cos alpha) by (apply cos_gt_0; lra). apply Rdiv_lt_0_compat; lra.
  - rewrite rho_large by lra. apply sin_ge_0; lra.
Qed.

Lemma rho_le_exp : forall alpha, 0 <= alpha <= PI / 2 -> rho alpha <= exp (- cos alpha ^ 2 / 2).
Proof.
  intros alpha H. destruct (Rle_dec alpha (PI / 4)) as [Hs | Hl].
  - rewrite rho_small by exact Hs. apply rho_small_le_exp. lra.
  - rewrite rho_large by lra. apply rho_large_le_exp. lra.
Qed.

(** (i) the exponential form, for every [d]. *)
Lemma bound_exponential : forall alpha d, 0 <= alpha <= PI / 2 ->
  rho alpha ^ d <= exp (- INR d * cos alpha ^ 2 / 2).
Proof.
  intros alpha d H.
  replace (- INR d * cos alpha ^ 2 / 2) with (INR d * (- cos alpha ^ 2 / 2)) by field.
  rewrite <- exp_pow. apply pow_incr. split; [apply rho_nonneg; exact H | apply rho_le_exp; exact H].
Qed.

(** (ii) [rho < 1] before [pi/2]. *)
Lemma rho_lt_1 : forall alpha, 0 <= alpha < PI / 2 -> rho alpha < 1.
Proof.
  intros alpha H. pose proof PI_RGT_0. destruct (Rle_dec alpha (PI / 4)) as [Hs | Hl].
  - rewrite rho_small by exact Hs. cut (1 / (2 * cos alpha) <= 0.75); [lra|].
    assert (0 <= alpha <= PI / 4) by lra. interval with (i_prec 60).
  - rewrite rho_large by lra.
    assert (0 < cos alpha) by (apply cos_gt_0; lra).
    assert (0 <= sin alpha) by (apply sin_ge_0; lra).
    pose proof (sin2_cos2 alpha) as E. unfold Rsqr in E. nra.
Qed.

(** (iii) continuity at [pi/4]. *)
Lemma rho_continuous_pi4 : 1 / (2 * cos (PI / 4)) = sin (PI / 4).
Proof.
  rewrite cos_PI4, sin_PI4.
  assert (0 < sqrt 2) by (apply sqrt_lt_R0; lra).
  assert (sqrt 2 * sqrt 2 = 2) by (apply sqrt_sqrt; lra).
  field_simplify; [|lra|lra]. rewrite <- H0 at 2. field. lra.
Qed.

(** (iv) the tabulated values. *)
Lemma table_a30_d2 : 3.333333330000e-01 <= rho (PI / 6) ^ 2 <= 3.333333336667e-01.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a30_d3 : 1.924500895374e-01 <= rho (PI / 6) ^ 3 <= 1.924500899223e-01.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a30_d4 : 1.111111110000e-01 <= rho (PI / 6) ^ 4 <= 1.111111112222e-01.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a30_d8 : 1.234567900000e-02 <= rho (PI / 6) ^ 8 <= 1.234567902469e-02.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a30_d16 : 1.524157901235e-04 <= rho (PI / 6) ^ 16 <= 1.524157904283e-04.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a30_d32 : 2.323057310219e-08 <= rho (PI / 6) ^ 32 <= 2.323057314865e-08.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a30_d64 : 5.396595271958e-16 <= rho (PI / 6) ^ 64 <= 5.396595282751e-16.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a45_d2 : 4.999999995000e-01 <= rho (PI / 4) ^ 2 <= 5.000000005000e-01.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a45_d3 : 3.535533902397e-01 <= rho (PI / 4) ^ 3 <= 3.535533909468e-01.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a45_d4 : 2.499999997500e-01 <= rho (PI / 4) ^ 4 <= 2.500000002500e-01.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a45_d8 : 6.249999993750e-02 <= rho (PI / 4) ^ 8 <= 6.250000006250e-02.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a45_d16 : 3.906249996094e-03 <= rho (PI / 4) ^ 16 <= 3.906250003906e-03.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a45_d32 : 1.525878904724e-05 <= rho (PI / 4) ^ 32 <= 1.525878907776e-05.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a45_d64 : 2.328306434210e-10 <= rho (PI / 4) ^ 64 <= 2.328306438867e-10.
Proof. rewrite rho_small by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a60_d2 : 7.499999992500e-01 <= rho (PI / 3) ^ 2 <= 7.500000007500e-01.
Proof. rewrite rho_large by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a60_d3 : 6.495190521888e-01 <= rho (PI / 3) ^ 3 <= 6.495190534878e-01.
Proof. rewrite rho_large by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a60_d4 : 5.624999994375e-01 <= rho (PI / 3) ^ 4 <= 5.625000005625e-01.
Proof. rewrite rho_large by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a60_d8 : 3.164062496836e-01 <= rho (PI / 3) ^ 8 <= 3.164062503164e-01.
Proof. rewrite rho_large by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a60_d16 : 1.001129149389e-01 <= rho (PI / 3) ^ 16 <= 1.001129151392e-01.
Proof. rewrite rho_large by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a60_d32 : 1.002259574760e-02 <= rho (PI / 3) ^ 32 <= 1.002259576764e-02.
Proof. rewrite rho_large by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Lemma table_a60_d64 : 1.004524256202e-04 <= rho (PI / 3) ^ 64 <= 1.004524258211e-04.
Proof. rewrite rho_large by (pose proof PI_RGT_0; lra). split; interval with (i_prec 80). Qed.

Theorem failure_odds : failure_odds_spec.
Proof. exact bound_exponential. Qed.

Theorem rho_below_one : rho_below_one_spec.
Proof. intros alpha H. split; [apply rho_nonneg; lra | apply rho_lt_1; exact H]. Qed.

Theorem rho_continuous : rho_continuous_spec.
Proof. exact rho_continuous_pi4. Qed.

Theorem rho_table : rho_table_spec.
Proof.
  repeat split; first [apply table_a30_d2 | apply table_a30_d3 | apply table_a30_d4 | apply table_a30_d8 | apply table_a30_d16 | apply table_a30_d32 | apply table_a30_d64 | apply table_a45_d2 | apply table_a45_d3 | apply table_a45_d4 | apply table_a45_d8 | apply table_a45_d16 | apply table_a45_d32 | apply table_a45_d64 | apply table_a60_d2 | apply table_a60_d3 | apply table_a60_d4 | apply table_a60_d8 | apply table_a60_d16 | apply table_a60_d32 | apply table_a60_d64].
Qed.

(** ** (c) the failure event *)

Lemma atan_lt_iff : forall x y, x < y <-> atan x < atan y.
Proof.
  intros x y. split; [apply atan_increasing|]. intros H.
  destruct (Rlt_or_le x y) as [|Hle]; [assumption|exfalso].
  destruct Hle as [Hlt | ->]; [pose proof (atan_increasing _ _ Hlt)|]; lra.
Qed.

Lemma tan_half_pos : forall phi0, 0 < phi0 < PI -> 0 < tan (phi0 / 2).
Proof.
  intros phi0 H. unfold tan. pose proof PI_RGT_0.
  apply Rdiv_lt_0_compat; [apply sin_gt_0 | apply cos_gt_0]; lra.
Qed.

Lemma half_angle : forall phi0, 0 < phi0 < PI -> atan (tan (phi0 / 2)) = phi0 / 2.
Proof. intros phi0 H. apply atan_tan. lra. Qed.

Theorem failure_event : failure_event_spec.
Proof.
  intros a T delta phi0 Hd H0. unfold angle, critical_angle.
  pose proof (tan_half_pos delta Hd) as Td. pose proof (tan_half_pos phi0 H0) as T0.
  pose proof (exp_pos (a * T)) as E. pose proof (exp_pos (- a * T)) as E'.
  assert (EE : exp (a * T) * exp (- a * T) = 1)
    by (rewrite <- exp_plus; replace (a * T + - a * T) with 0 by ring; apply exp_0).
  split.
  - pose proof (half_angle delta Hd) as Ad. pose proof (half_angle phi0 H0) as A0.
    split; intro H.
    + assert (H' : tan (delta / 2) < tan (phi0 / 2) * exp (- a * T)) by (apply atan_lt_iff; lra).
      assert (H2 : tan (delta / 2) * exp (a * T) < tan (phi0 / 2)).
      { apply (Rmult_lt_compat_r (exp (a * T))) in H'; [|lra].
        rewrite Rmult_assoc, (Rmult_comm (exp (- a * T))), EE, Rmult_1_r in H'. exact H'. }
      apply atan_lt_iff in H2. lra.
    + assert (H' : tan (delta / 2) * exp (a * T) < tan (phi0 / 2)) by (apply atan_lt_iff; lra).
      assert (H2 : tan (delta / 2) < tan (phi0 / 2) * exp (- a * T)).
      { apply (Rmult_lt_compat_r (exp (- a * T))) in H'; [|lra].
        rewrite Rmult_assoc, EE, Rmult_1_r in H'. exact H'. }
      apply atan_lt_iff in H2. lra.
  - pose proof (atan_bound (tan (delta / 2) * exp (a * T))).
    assert (0 < tan (delta / 2) * exp (a * T)) by (apply Rmult_lt_0_compat; lra).
    apply atan_increasing in H1. rewrite atan_0 in H1. lra.
Qed.

Print Assumptions rho_below_one.
Print Assumptions rho_continuous.
Print Assumptions rho_table.
Print Assumptions failure_event.
Print Assumptions failure_odds.
