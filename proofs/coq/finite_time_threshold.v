(** * Statement 12: the finite-time threshold (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [finite_time_threshold_spec.v]: the closed-form angle
    ([syncattn.lohe.exact_angle]) and the angle of every solution of the flow
    on the sphere reach [delta] exactly at [syncattn.lohe.time_to_converge],
    and only then; from [pi/2] the horizon is [ln cot(delta/2)]
    ([syncattn.lohe.finite_time_threshold]); the critical start
    [phi_c = 2 atan(e^u)] has [cos phi_c = -tanh u] and [phi_c < pi/2] iff
    [u < 0]; the cap bounds [rho^d] of the failing cap and of the band are at
    most [exp(-d tanh^2(u)/2)] and [exp(-d sin^2(eta)/2)].

    Symbol map.  The definitions are those of [finite_time_threshold_spec.v] (read it
    against the library); library: [syncattn.lohe.time_to_converge],
    [syncattn.lohe.finite_time_threshold], [syncattn.lohe.exact_angle],
    [syncattn.sphere.cap_probability_bound];
    sympy proof: [proofs/proof_finite_time_threshold.py].

    Proof idea: the closed form is strictly decreasing in [t]; a solution's
    angle is the closed form (statement 5, [lohe_fixed_query]); the rates
    apply statement 6's [rho(alpha)^d <= exp(-d cos^2(alpha)/2)] at
    [alpha = pi - phi_c], [phi_c] and [pi/2 - eta].

    Not formalised: every probability: (b) [P(phi(T) > delta) = cap(pi - phi_c)]
    (above) or [1 - cap(phi_c)] (below), [= 1/2] at [u = 0]; the cap bound
    [cap <= rho^d] (statement 6); (c) [P(|phi0 - pi/2| >= eta) = 2 cap(pi/2 - eta)];
    (d) the limit for random drives.  These need the uniform measure on the
    sphere; the sympy proof and the Monte Carlo checks of
    [proofs/proof_finite_time_threshold.py] cover them.

    Assumes: the standard library's axioms of the real numbers and, through
    statement 6's Interval proof, the primitive 63-bit integers ([PrimInt63],
    [Uint63] specification axioms). *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core finite_time_threshold_spec failure_odds lohe_fixed_query.
Import CoreSpec failure_odds_spec finite_time_threshold_spec.

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

Theorem finite_time_threshold : finite_time_threshold_spec.
Proof.
  intros a phi0 delta Ha H0 Hd. split; [apply angle_at_hit_time; assumption|].
  intros t. apply hit_time_unique; assumption.
Qed.

Theorem threshold_along_solutions : threshold_along_solutions_spec.
Proof.
  intros n h z phi delta HN Hz Hs Hphi Hd t.
  assert (E : forall s, phi s = angle (norm n h) (phi 0) s)
    by (intro s; apply (lohe_fixed_query n h z phi); assumption).
  destruct (Hphi 0) as [H0 _].
  rewrite E. split.
  - apply hit_time_unique; assumption.
  - intros ->. apply angle_at_hit_time; assumption.
Qed.

Theorem threshold_horizon : threshold_horizon_spec.
Proof. exact horizon_from_half_pi. Qed.

Theorem critical_start : critical_start_spec.
Proof.
  intros a T delta Hd.
  assert (Ht : 0 < tan (delta / 2)) by (apply tan_half_pos; exact Hd).
  assert (E : tan (delta / 2) * exp (a * T) = exp (a * T - ln (cot (delta / 2)))).
  { unfold cot. rewrite ln_Rinv by exact Ht. unfold Rminus. rewrite Ropp_involutive, exp_plus, exp_ln by exact Ht.
    ring. }
  unfold critical_angle. rewrite E. split; [reflexivity|]. apply critical_below_half_pi.
Qed.

Theorem threshold_critical_cos : threshold_critical_cos_spec.
Proof. exact critical_cos. Qed.

Lemma tanh_sq : forall u, (- tanh u) ^ 2 = tanh u ^ 2.
Proof. intros u. ring. Qed.

Theorem threshold_rate : threshold_rate_spec.
Proof.
  intros u d. pose proof PI_RGT_0.
  pose proof (atan_bound (exp u)) as Hb.
  split; [|split].
  - intros Hu.
    assert (H1 : 1 < exp u) by (rewrite <- exp_0; apply exp_increasing; exact Hu).
    apply atan_increasing in H1. rewrite atan_1 in H1.
    replace (tanh u ^ 2) with (cos (PI - 2 * atan (exp u)) ^ 2).
    + apply bound_exponential. lra.
    + rewrite cos_minus, cos_PI, sin_PI, critical_cos. ring.
  - intros Hu.
    assert (H1 : exp u < 1) by (rewrite <- exp_0; apply exp_increasing; exact Hu).
    assert (H2 : 0 < exp u) by apply exp_pos.
    apply atan_increasing in H1. rewrite atan_1 in H1.
    apply atan_increasing in H2. rewrite atan_0 in H2.
    replace (tanh u ^ 2) with (cos (2 * atan (exp u)) ^ 2).
    + apply bound_exponential. lra.
    + rewrite critical_cos. ring.
  - rewrite exp_0, atan_1. field.
Qed.

Theorem band_rate : band_rate_spec.
Proof.
  intros eta d H. replace (sin eta) with (cos (PI / 2 - eta)).
  - apply bound_exponential. lra.
  - rewrite cos_minus, cos_PI2, sin_PI2. ring.
Qed.

Print Assumptions threshold_along_solutions.
Print Assumptions threshold_horizon.
Print Assumptions critical_start.
Print Assumptions threshold_critical_cos.
Print Assumptions threshold_rate.
Print Assumptions band_rate.
Print Assumptions finite_time_threshold.
