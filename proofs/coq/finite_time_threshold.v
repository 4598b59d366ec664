(** * Statement 12: the finite-time threshold [|h| T = ln cot(delta/2)]

    Informal statement.  Along the angle solution
    [phi(t) = 2 atan(tan(phi0/2) e^{-|h| t})] of [phi' = -|h| sin phi]
    (statement 5), for [0 < delta, phi0 < pi] and [|h| > 0]:
    (i)   the angle reaches [delta] at
          [T = (ln tan(phi0/2) - ln tan(delta/2)) / |h|], and only then (the
          angle is strictly decreasing in [t]);
    (ii)  from [phi0 = pi/2] the horizon is [|h| T = ln cot(delta/2)];
    (iii) the critical start [phi_c = 2 atan(e^u)], [u = |h| T - ln cot(delta/2)]
          (the start that reaches [delta] exactly at [T]) satisfies
          [cos phi_c = -tanh u], and [phi_c < pi/2] iff [u < 0].

    Symbol map.
    - library: [syncattn.lohe.time_to_converge] ([hit_time a phi0 delta]),
      [syncattn.lohe.finite_time_threshold] ([ln (cot (delta/2)) / a]) and
      [syncattn.lohe.exact_angle] ([angle a phi0 t]), with [a = |h|];
    - sympy proof: [proofs/proof_finite_time_threshold.py] (statement 12 of
      [syncattn verify], statement 6 of the Coq issue), part (a), and
      [proofs/proof_lohe_fixed_query.py] (e) for the hitting time.

    Assumes: only the standard library's axioms of the real numbers. *)

From Coq Require Import Reals Lra.
Open Scope R_scope.

Definition angle (a phi0 t : R) : R := 2 * atan (tan (phi0 / 2) * exp (- a * t)).

Definition hit_time (a phi0 delta : R) : R := (ln (tan (phi0 / 2)) - ln (tan (delta / 2))) / a.

Definition cot (x : R) : R := / tan x.

Lemma tan_half_pos : forall phi0, 0 < phi0 < PI -> 0 < tan (phi0 / 2).
Proof.
  intros phi0 H. unfold tan. pose proof PI_RGT_0.
  apply Rdiv_lt_0_compat; [apply sin_gt_0 | apply cos_gt_0]; lra.
Qed.

Lemma angle_at_hit_time : forall a phi0 delta, 0 < a -> 0 < phi0 < PI -> 0 < delta < PI ->
  angle a phi0 (hit_time a phi0 delta) = delta.
Proof.
  intros a phi0 delta Ha H0 Hd. unfold angle, hit_time.
  pose proof (tan_half_pos phi0 H0). pose proof (tan_half_pos delta Hd).
  replace (- a * ((ln (tan (phi0 / 2)) - ln (tan (delta / 2))) / a))
    with (ln (tan (delta / 2)) - ln (tan (phi0 / 2))) by (field; lra).
  unfold Rminus. rewrite exp_plus, exp_Ropp, !exp_ln by assumption.
  replace (tan (phi0 / 2) * (tan (delta / 2) * / tan (phi0 / 2))) with (tan (delta / 2))
    by (field; lra).
  rewrite atan_tan; [field | lra].
Qed.

Lemma angle_decreasing : forall a phi0 t1 t2, 0 < a -> 0 < phi0 < PI -> t1 < t2 ->
  angle a phi0 t2 < angle a phi0 t1.
Proof.
  intros a phi0 t1 t2 Ha H0 Ht. unfold angle.
  pose proof (tan_half_pos phi0 H0).
  apply Rmult_lt_compat_l; [lra|]. apply atan_increasing.
  apply Rmult_lt_compat_l; [exact H|]. apply exp_increasing. nra.
Qed.

Lemma hit_time_unique : forall a phi0 delta t, 0 < a -> 0 < phi0 < PI -> 0 < delta < PI ->
  angle a phi0 t = delta -> t = hit_time a phi0 delta.
Proof.
  intros a phi0 delta t Ha H0 Hd Ht.
  pose proof (angle_at_hit_time a phi0 delta Ha H0 Hd) as E.
  destruct (Rtotal_order t (hit_time a phi0 delta)) as [Hlt | [Heq | Hgt]]; [|exact Heq|].
  - pose proof (angle_decreasing a phi0 _ _ Ha H0 Hlt). lra.
  - pose proof (angle_decreasing a phi0 _ _ Ha H0 Hgt). lra.
Qed.

Lemma horizon_from_half_pi : forall a delta, 0 < a -> 0 < delta < PI ->
  a * hit_time a (PI / 2) delta = ln (cot (delta / 2)).
Proof.
  intros a delta Ha Hd. unfold hit_time, cot.
  replace (PI / 2 / 2) with (PI / 4) by field. rewrite tan_PI4, ln_1.
  rewrite ln_Rinv by (apply tan_half_pos; exact Hd). field. lra.
Qed.

Lemma cos_2atan : forall X, cos (2 * atan X) = (1 - X * X) / (1 + X * X).
Proof.
  intros X. rewrite cos_2a_cos, cos_atan.
  assert (H1 : 0 < 1 + X²) by (pose proof (Rle_0_sqr X); lra).
  assert (Hs : sqrt (1 + X²) * sqrt (1 + X²) = 1 + X²) by (apply sqrt_sqrt; lra).
  assert (0 < sqrt (1 + X²)) by (apply sqrt_lt_R0; lra).
  unfold Rsqr in *.
  replace (2 * (1 / sqrt (1 + X * X)) * (1 / sqrt (1 + X * X)) - 1)
    with (2 / (sqrt (1 + X * X) * sqrt (1 + X * X)) - 1) by (field; lra).
  rewrite Hs. field. lra.
Qed.

Definition tanh (u : R) : R := (exp u - exp (- u)) / (exp u + exp (- u)).

Lemma critical_cos : forall u, cos (2 * atan (exp u)) = - tanh u.
Proof.
  intros u. rewrite cos_2atan. unfold tanh. rewrite exp_Ropp.
  pose proof (exp_pos u). field. split; nra.
Qed.

Lemma critical_below_half_pi : forall u, 2 * atan (exp u) < PI / 2 <-> u < 0.
Proof.
  intros u. split; intros H.
  - destruct (Rlt_or_le u 0) as [|Hu]; [assumption|exfalso].
    assert (1 <= exp u) by (rewrite <- exp_0; destruct Hu as [Hu|<-];
      [left; apply exp_increasing; exact Hu | right; reflexivity]).
    destruct H0 as [H0|H0].
    + pose proof (atan_increasing _ _ H0). rewrite atan_1 in H1. lra.
    + rewrite <- H0, atan_1 in H. lra.
  - pose proof (exp_increasing _ _ H). rewrite exp_0 in H0.
    pose proof (atan_increasing _ _ H0). rewrite atan_1 in H1. lra.
Qed.

(** Main theorem. *)
Theorem finite_time_threshold : forall a phi0 delta, 0 < a -> 0 < phi0 < PI -> 0 < delta < PI ->
  angle a phi0 (hit_time a phi0 delta) = delta
  /\ (forall t, angle a phi0 t = delta -> t = hit_time a phi0 delta)
  /\ a * hit_time a (PI / 2) delta = ln (cot (delta / 2))
  /\ (forall u, cos (2 * atan (exp u)) = - tanh u /\ (2 * atan (exp u) < PI / 2 <-> u < 0)).
Proof.
  intros a phi0 delta Ha H0 Hd. split; [apply angle_at_hit_time; assumption|split].
  - intros t. apply hit_time_unique; assumption.
  - split; [apply horizon_from_half_pi; assumption|].
    intros u. split; [apply critical_cos | apply critical_below_half_pi].
Qed.

Print Assumptions finite_time_threshold.
