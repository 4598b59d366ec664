(** * Statement 9: the Ott-Antonsen reduction [r' = (K/2 - gamma) r - (K/2) r^3]

    Informal statement (for [K > 0], [gamma > 0], [r >= 0]):
    (a) the stationary states are [0] and, only for [K > 2 gamma],
        [r_star = sqrt (1 - 2 gamma / K)];
    (b) [f'(0) = K/2 - gamma], [f'(r_star) = 2 gamma - K]: an exchange of stability at
        [K = 2 gamma], also read on the phase line (signs of [f] on [r > 0]);
    (c) the library's closed form [r0 / sqrt (e^{-2at} + r0^2 b (1 - e^{-2at}) / a)]
        ([2 t] in place of [(1 - e^{-2at}) / a] at [a = 0]) is defined for [t >= 0],
        starts at [r0] and solves the equation, for every [K]; at [K = 2 gamma] it is
        [r0 / sqrt (1 + 2 gamma r0^2 t)];
    (d) for the Lorentzian density, [K_c = 2 / (pi g(0)) = 2 gamma].

    Symbol map: [oa_rhs] is [syncattn.kuramoto.ott_antonsen_rhs], [oa_solution] is
    [syncattn.kuramoto.ott_antonsen], [r_star] the positive branch of
    [lorentzian_order_parameter], [critical_coupling] the library's function of that
    name (see [ott_antonsen_spec.v]).  Sympy proof: [proofs/proof_ott_antonsen.py].

    (c) also: [r(t) -> r_star] for [K > 2 gamma] and [r(t) -> 0] for [K < 2 gamma].

    (c) also: the closed form is continuous in [K] at [K = 2 gamma] (the limit of
    [(1 - e^{-2at}) / a] as [a -> 0] is [2 t], the derivative of [1 - e^{-2at}] at 0).
    (d) also: the Lorentzian integrates to 1 ([atan (w / gamma) / pi] is an
    antiderivative, with limits [+-1/2] at [+-oo]).

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core ott_antonsen_spec.
Open Scope R_scope.

(** [f(r) = (K/2) r (s - r^2)] with [s = 1 - 2 gamma / K]. *)
Lemma rhs_factor : forall r K gamma, 0 < K ->
  oa_rhs r K gamma = K / 2 * r * ((1 - 2 * gamma / K) - r ^ 2).
Proof. intros r K gamma HK. unfold oa_rhs. field. lra. Qed.

Lemma s_pos : forall K gamma, 0 < K -> 2 * gamma < K -> 0 < 1 - 2 * gamma / K.
Proof.
  intros K gamma HK Hg. replace (1 - 2 * gamma / K) with ((K - 2 * gamma) / K) by (field; lra).
  apply Rdiv_lt_0_compat; lra.
Qed.

Lemma r_star_sq : forall K gamma, 0 < K -> 2 * gamma < K ->
  r_star K gamma ^ 2 = 1 - 2 * gamma / K.
Proof.
  intros K gamma HK Hg. unfold r_star. rewrite pow2_sqrt; [reflexivity|].
  pose proof (s_pos K gamma HK Hg). lra.
Qed.

Lemma r_star_pos : forall K gamma, 0 < K -> 2 * gamma < K -> 0 < r_star K gamma.
Proof. intros K gamma HK Hg. unfold r_star. apply sqrt_lt_R0, s_pos; assumption. Qed.

Theorem stationary_states : stationary_states_spec.
Proof.
  intros K gamma r HK Hg Hr. rewrite rhs_factor by exact HK. split.
  - intros H0. destruct (Req_dec r 0) as [-> | Hr0]; [left; reflexivity | right].
    assert (Hs : (1 - 2 * gamma / K) - r ^ 2 = 0).
    { apply Rmult_integral in H0. destruct H0 as [H0 | H0]; [|exact H0].
      apply Rmult_integral in H0. destruct H0; [lra | contradiction]. }
    assert (Hr2 : 0 < r ^ 2) by (simpl; nra).
    assert (HgK : 2 * gamma < K).
    { assert (2 * gamma / K < 1) by lra.
      apply (Rmult_lt_compat_r K) in H; [|lra].
      unfold Rdiv in H. rewrite Rmult_assoc, Rinv_l, Rmult_1_r, Rmult_1_l in H; lra. }
    split; [exact HgK|]. unfold r_star.
    replace (1 - 2 * gamma / K) with (r * r) by (simpl in Hs; lra).
    rewrite sqrt_square by lra. reflexivity.
  - intros [-> | [HgK ->]]; [ring|]. rewrite r_star_sq by lra. ring.
Qed.

Theorem linear_rates : linear_rates_spec.
Proof.
  intros K gamma HK Hg.
  assert (D : forall x, is_derive (fun r => oa_rhs r K gamma) x
                (K / 2 - gamma - 3 * (K / 2) * x ^ 2)).
  { intros x. unfold oa_rhs. auto_derive; [exact I | ring]. }
  split.
  - pose proof (D 0) as H0.
    replace (K / 2 - gamma - 3 * (K / 2) * 0 ^ 2) with (K / 2 - gamma) in H0 by ring.
    exact H0.
  - intros HgK. replace (2 * gamma - K)
      with (K / 2 - gamma - 3 * (K / 2) * r_star K gamma ^ 2)
      by (rewrite r_star_sq by lra; field; lra).
    apply D.
Qed.

Theorem exchange : exchange_spec.
Proof.
  intros K gamma HK Hg. split; [| split].
  - intros HKg. split; [lra|]. intros r Hr. rewrite rhs_factor by exact HK.
    assert (Hs : 1 - 2 * gamma / K <= 0).
    { replace (1 - 2 * gamma / K) with ((K - 2 * gamma) / K) by (field; lra).
      unfold Rdiv. apply Rmult_le_0_r; [lra | left; apply Rinv_0_lt_compat; lra]. }
    assert (0 < r ^ 2) by (simpl; nra).
    assert (0 < K / 2 * r) by nra. nra.
  - intros HKg. lra.
  - intros HKg. pose proof (r_star_pos K gamma HK HKg) as Hp.
    pose proof (r_star_sq K gamma HK HKg) as Hsq.
    assert (Hs1 : 1 - 2 * gamma / K < 1).
    { assert (0 < 2 * gamma / K) by (apply Rdiv_lt_0_compat; lra). lra. }
    split; [lra | split; [lra | split; [split; [exact Hp|] | split]]].
    + assert (r_star K gamma ^ 2 < 1) by lra. simpl in H. nra.
    + intros r [Hr0 Hr]. rewrite rhs_factor by exact HK.
      assert (r ^ 2 < r_star K gamma ^ 2) by (simpl; nra).
      assert (0 < K / 2 * r) by nra. nra.
    + intros r Hr. rewrite rhs_factor by exact HK.
      assert (r_star K gamma ^ 2 < r ^ 2) by (simpl; nra).
      assert (0 < K / 2 * r) by nra. nra.
Qed.

(** [(1 - e^{-2at}) / a >= 0] for [t >= 0] (both factors have the sign of [a]). *)
Lemma frac_nonneg : forall a t, 0 <= t -> 0 <= oa_frac a t.
Proof.
  intros a t Ht. unfold oa_frac. destruct (Req_EM_T a 0) as [-> | Ha]; [lra|].
  destruct (Rlt_or_le 0 a) as [Hpos | Hneg].
  - assert (exp (-2 * a * t) <= 1).
    { rewrite <- exp_0. destruct (Req_dec t 0) as [-> | Ht0].
      + rewrite Rmult_0_r. lra.
      + left. apply exp_increasing. nra. }
    apply Rdiv_le_0_compat; lra.
  - assert (a < 0) by lra.
    assert (1 <= exp (-2 * a * t)).
    { rewrite <- exp_0. destruct (Req_dec t 0) as [-> | Ht0].
      + rewrite Rmult_0_r. lra.
      + left. apply exp_increasing. nra. }
    replace ((1 - exp (-2 * a * t)) / a) with ((exp (-2 * a * t) - 1) / (- a)) by (field; lra).
    apply Rdiv_le_0_compat; lra.
Qed.

Lemma denom_pos : forall r0 K gamma t, 0 < K -> 0 <= t -> 0 < oa_denom r0 K gamma t.
Proof.
  intros r0 K gamma t HK Ht. unfold oa_denom.
  pose proof (frac_nonneg (K / 2 - gamma) t Ht). pose proof (exp_pos (-2 * (K / 2 - gamma) * t)).
  assert (0 <= r0 ^ 2) by (simpl; nra).
  assert (0 <= r0 ^ 2 * (K / 2) * oa_frac (K / 2 - gamma) t).
  { apply Rmult_le_pos; [apply Rmult_le_pos; lra | lra]. }
  lra.
Qed.

(** The derivative of [r0 / sqrt D] where [D > 0]. *)
Lemma is_derive_inv_sqrt : forall (D : R -> R) dD r0 t, 0 < D t -> is_derive D t dD ->
  is_derive (fun s => r0 / sqrt (D s)) t (- r0 * dD / (2 * D t * sqrt (D t))).
Proof.
  intros D dD r0 t HD Hd.
  assert (Hs : 0 < sqrt (D t)) by (apply sqrt_lt_R0; exact HD).
  assert (Hss : sqrt (D t) * sqrt (D t) = D t) by (apply sqrt_sqrt; lra).
  eapply is_derive_ext; [intros s; reflexivity|].
  evar (df : R).
  assert (Hf : is_derive (fun x => r0 / sqrt x) (D t) df).
  { auto_derive; [lra | unfold df; reflexivity]. }
  pose proof (is_derive_comp (fun x => r0 / sqrt x) D t df dD Hf Hd) as Hc.
  simpl in Hc. unfold df in Hc.
  replace (- r0 * dD / (2 * D t * sqrt (D t)))
    with (scal dD (r0 * (- (1 * / (2 * sqrt (D t))) * / (sqrt (D t) * sqrt (D t))))).
  - exact Hc.
  - unfold scal; simpl; unfold mult; simpl. rewrite Hss. field. lra.
Qed.

(** The ODE from [-D'/2 = a D - r0^2 b] (Bernoulli: [u = r^{-2}] is linear). *)
Lemma ode_from_denom : forall r0 K gamma D dD, 0 < D -> -dD / 2 = (K / 2 - gamma) * D - r0 ^ 2 * (K / 2) ->
  - r0 * dD / (2 * D * sqrt D) = oa_rhs (r0 / sqrt D) K gamma.
Proof.
  intros r0 K gamma D dD HD Hb.
  assert (Hs : 0 < sqrt D) by (apply sqrt_lt_R0; exact HD).
  assert (Hss : sqrt D * sqrt D = D) by (apply sqrt_sqrt; lra).
  unfold oa_rhs. replace dD with (- 2 * ((K / 2 - gamma) * D - r0 ^ 2 * (K / 2))) by lra.
  set (S := sqrt D) in *. rewrite <- Hss. field. lra.
Qed.

Theorem closed_form : closed_form_spec.
Proof.
  intros r0 K gamma t Hr0 HK Hg Ht.
  pose proof (denom_pos r0 K gamma t HK Ht) as HD.
  split; [exact HD | split].
  - assert (E0 : oa_denom r0 K gamma 0 = 1).
    { unfold oa_denom, oa_frac. replace (-2 * (K / 2 - gamma) * 0) with 0 by ring.
      rewrite exp_0. destruct (Req_EM_T (K / 2 - gamma) 0) as [Ha | Ha]; [ring | field; lra]. }
    unfold oa_solution. rewrite E0, sqrt_1. field.
  - set (a := K / 2 - gamma). set (c := r0 ^ 2 * (K / 2)).
    unfold oa_solution.
    destruct (Req_EM_T a 0) as [Ha | Ha].
    + assert (E : forall s, oa_denom r0 K gamma s = exp (-2 * a * s) + c * (2 * s)).
      { intros s. unfold oa_denom, oa_frac. fold a. fold c.
        destruct (Req_EM_T a 0); [reflexivity | contradiction]. }
      assert (Hd : is_derive (oa_denom r0 K gamma) t (-2 * a * exp (-2 * a * t) + 2 * c)).
      { eapply is_derive_ext; [intros s; symmetry; apply E|].
        auto_derive; [exact I | ring]. }
      pose proof (is_derive_inv_sqrt _ _ r0 t HD Hd) as H.
      rewrite (ode_from_denom r0 K gamma) in H; [exact H | exact HD|].
      rewrite E. fold a c. rewrite Ha. field.
    + assert (E : forall s, oa_denom r0 K gamma s = exp (-2 * a * s) + c * ((1 - exp (-2 * a * s)) / a)).
      { intros s. unfold oa_denom, oa_frac. fold a. fold c.
        destruct (Req_EM_T a 0); [contradiction | reflexivity]. }
      assert (Hd : is_derive (oa_denom r0 K gamma) t
                     (-2 * a * exp (-2 * a * t) + 2 * c * exp (-2 * a * t))).
      { eapply is_derive_ext; [intros s; symmetry; apply E|].
        auto_derive; [exact I | field; exact Ha]. }
      pose proof (is_derive_inv_sqrt _ _ r0 t HD Hd) as H.
      rewrite (ode_from_denom r0 K gamma) in H; [exact H | exact HD|].
      rewrite E. fold a c. field. exact Ha.
Qed.

(** [-b t -> -oo] for [b > 0]. *)
Lemma lim_neg_linear : forall b, 0 < b -> is_lim (fun t => - b * t) p_infty m_infty.
Proof.
  intros b Hb. apply is_lim_spec. intros M. exists (- M / b). intros x Hx.
  assert (E : b * (- M / b) = - M) by (field; lra). nra.
Qed.

Lemma lim_exp_neg : forall b, 0 < b -> is_lim (fun t => exp (- b * t)) p_infty 0.
Proof.
  intros b Hb.
  apply (is_lim_comp exp (fun t => - b * t) p_infty 0 m_infty).
  - exact is_lim_exp_m.
  - apply lim_neg_linear. exact Hb.
  - exists 0. intros y _. discriminate.
Qed.

Theorem limits : limits_spec.
Proof.
  intros r0 K gamma Hr0 HK Hg. set (a := K / 2 - gamma). set (c := r0 ^ 2 * (K / 2)).
  assert (Hc : 0 < c) by (unfold c; apply Rmult_lt_0_compat; [apply pow_lt|]; lra).
  split.
  - intros HKg. assert (Ha : 0 < a) by (unfold a; lra).
    assert (HD : forall t, oa_denom r0 K gamma t = c / a + (1 - c / a) * exp (-2 * a * t)).
    { intros t. unfold oa_denom, oa_frac. fold a c.
      destruct (Req_EM_T a 0); [lra|]. field. lra. }
    assert (HDlim : is_lim (oa_denom r0 K gamma) p_infty (c / a)).
    { apply (is_lim_ext (fun t => c / a + (1 - c / a) * exp (- (2 * a) * t))).
      { intros t. rewrite HD. repeat f_equal. ring. }
      pose proof (is_lim_scal_l _ (1 - c / a) p_infty 0 (lim_exp_neg (2 * a) ltac:(lra))) as H.
      simpl in H.
      pose proof (is_lim_plus' (fun _ => c / a) _ p_infty (c / a) _ (is_lim_const (c / a) p_infty) H) as L.
      replace (c / a + (1 - c / a) * 0) with (c / a) in L by ring. exact L. }
    assert (Hca : 0 < c / a) by (apply Rdiv_lt_0_compat; lra).
    assert (Hcont : continuous (fun y => r0 / sqrt y) (c / a)).
    { assert (Hex : ex_derive (fun y => r0 / sqrt y) (c / a)).
      { auto_derive. pose proof (sqrt_lt_R0 _ Hca). repeat split; lra. }
      exact (ex_derive_continuous _ _ Hex). }
    pose proof (is_lim_comp_continuous _ _ p_infty (c / a) HDlim Hcont) as H.
    replace (r_star K gamma) with (r0 / sqrt (c / a)); [exact H|].
    (* both are positive with the same square *)
    assert (Hs : 0 < sqrt (c / a)) by (apply sqrt_lt_R0; exact Hca).
    pose proof (r_star_pos K gamma HK HKg) as Hp. pose proof (r_star_sq K gamma HK HKg) as Hsq.
    assert (Hss : sqrt (c / a) * sqrt (c / a) = c / a) by (apply sqrt_sqrt; lra).
    assert (E : (r0 / sqrt (c / a)) ^ 2 = r_star K gamma ^ 2).
    { rewrite Hsq. unfold Rdiv at 1. rewrite Rpow_mult_distr.
      replace ((/ sqrt (c / a)) ^ 2) with (/ (c / a)) by (simpl; rewrite Rmult_1_r, <- Rinv_mult, Hss; reflexivity).
      unfold c, a. field. split; [lra | split; [lra | lra]]. }
    assert (0 < r0 / sqrt (c / a)) by (apply Rdiv_lt_0_compat; lra).
    simpl in E. nra.
  - intros HKg. assert (Ha : a < 0) by (unfold a; lra).
    apply (is_lim_le_le_loc (fun _ => 0) (fun t => r0 * exp (a * t))).
    + exists 0. intros t Ht. pose proof (denom_pos r0 K gamma t HK (Rlt_le _ _ Ht)) as HD.
      assert (Hs : 0 < sqrt (oa_denom r0 K gamma t)) by (apply sqrt_lt_R0; exact HD).
      unfold oa_solution. split; [left; apply Rdiv_lt_0_compat; lra|].
      (* D >= e^{-2at} = (e^{-at})^2, so sqrt D >= e^{-at} *)
      assert (HDe : exp (- a * t) * exp (- a * t) <= oa_denom r0 K gamma t).
      { rewrite <- exp_plus. unfold oa_denom. fold a.
        replace (- a * t + - a * t) with (-2 * a * t) by ring.
        pose proof (frac_nonneg a t (Rlt_le _ _ Ht)). assert (0 <= r0 ^ 2 * (K / 2) * oa_frac a t).
        { apply Rmult_le_pos; [apply Rmult_le_pos; [apply pow_le|]|]; lra. }
        lra. }
      assert (Hge : exp (- a * t) <= sqrt (oa_denom r0 K gamma t)).
      { rewrite <- (sqrt_square (exp (- a * t))) by (left; apply exp_pos).
        apply sqrt_le_1_alt. exact HDe. }
      pose proof (exp_pos (- a * t)) as He.
      assert (Ee : exp (a * t) = / exp (- a * t)) by (rewrite <- exp_Ropp; f_equal; ring).
      rewrite Ee. unfold Rdiv. apply Rmult_le_compat_l; [lra|].
      apply Rinv_le_contravar; lra.
    + apply is_lim_const.
    + pose proof (is_lim_scal_l _ r0 p_infty 0 (lim_exp_neg (- a) ltac:(lra))) as H.
      simpl in H. rewrite Rmult_0_r in H.
      apply (is_lim_ext (fun t => r0 * exp (- - a * t))); [intros t; repeat f_equal; ring | exact H].
Qed.

Theorem at_threshold : at_threshold_spec.
Proof.
  intros r0 gamma t. unfold oa_solution, oa_denom, oa_frac.
  replace (2 * gamma / 2 - gamma) with 0 by field.
  destruct (Req_EM_T 0 0) as [_ | H]; [|contradiction].
  rewrite Rmult_0_r, Rmult_0_l, exp_0. f_equal. f_equal. field.
Qed.

Theorem lorentzian_threshold : lorentzian_threshold_spec.
Proof.
  intros gamma Hg. unfold critical_coupling, lorentzian.
  pose proof PI_RGT_0. field. split; lra.
Qed.

(** (c) continuity in [K] at the threshold. *)
Lemma frac_continuous : forall t, continuous (fun a => oa_frac a t) 0.
Proof.
  intros t. apply continuity_pt_filterlim.
  assert (Hd : derivable_pt_lim (fun a => 1 - exp (-2 * a * t)) 0 (2 * t)).
  { apply is_derive_Reals. auto_derive; [exact I|].
    rewrite Rmult_0_r, Rmult_0_l, exp_0. ring. }
  intros eps Heps. destruct (Hd eps Heps) as [delta Hdel].
  exists delta. split; [apply cond_pos|].
  intros a [[_ Ha0] Hda]. simpl in Hda |- *. unfold R_dist in *. rewrite Rminus_0_r in Hda.
  unfold oa_frac.
  destruct (Req_EM_T a 0) as [E|E]; [congruence|].
  destruct (Req_EM_T 0 0) as [_|E0]; [|contradiction].
  specialize (Hdel a (not_eq_sym Ha0) Hda).
  rewrite Rplus_0_l, Rmult_0_r, Rmult_0_l, exp_0 in Hdel. replace (1 - 1) with 0 in Hdel by ring. rewrite Rminus_0_r in Hdel.
  exact Hdel.
Qed.

Theorem continuous_at_threshold : continuous_at_threshold_spec.
Proof.
  intros r0 gamma t Hr0 Hg Ht.
  assert (Hd : 0 < oa_denom r0 (2 * gamma) gamma t).
  { unfold oa_denom, oa_frac. replace (2 * gamma / 2 - gamma) with 0 by field.
    destruct (Req_EM_T 0 0) as [_|E0]; [|contradiction].
    rewrite Rmult_0_r, Rmult_0_l, exp_0. replace (2 * gamma / 2) with gamma by field. assert (0 <= r0 ^ 2 * gamma * (2 * t)) by (apply Rmult_le_pos; [apply Rmult_le_pos; [apply pow2_ge_0|lra]|lra]). lra. }
  unfold oa_solution, Rdiv. apply (continuous_mult (K := R_AbsRing) (fun _ => r0)); [apply continuous_const|].
  apply continuous_Rinv_comp.
  2: { apply Rgt_not_eq, Rlt_gt, sqrt_lt_R0, Hd. }
  apply continuous_sqrt_comp. unfold oa_denom.
  apply (continuous_plus (V := R_NormedModule)).
  - apply continuous_exp_comp. apply (ex_derive_continuous (V := R_NormedModule)).
    auto_derive. exact I.
  - apply (continuous_mult (K := R_AbsRing)).
    + apply (ex_derive_continuous (V := R_NormedModule)). auto_derive. exact I.
    + apply (continuous_comp (fun K => K / 2 - gamma) (fun a => oa_frac a t)).
      * apply (ex_derive_continuous (V := R_NormedModule)). auto_derive. exact I.
      * replace (2 * gamma / 2 - gamma) with 0 by field. apply frac_continuous.
Qed.
(** (d) the Lorentzian is a probability density. *)
Lemma atan_lim_p : is_lim atan p_infty (PI / 2).
Proof.
  apply (is_lim_ext_loc (fun x => PI / 2 - atan (/ x))).
  - exists 0. intros x Hx. rewrite atan_inv by lra. ring.
  - replace (PI / 2) with (PI / 2 - atan 0) at 2 by (rewrite atan_0; ring).
    apply (is_lim_minus (fun _ => PI / 2) (fun x => atan (/ x)) p_infty (PI / 2) (atan 0)).
    + apply is_lim_const.
    + apply (is_lim_comp_continuous Rinv atan p_infty 0).
      * replace (Finite 0) with (Rbar_inv p_infty) by reflexivity.
        apply is_lim_inv; [apply is_lim_id | discriminate].
      * apply continuous_atan.
    + rewrite atan_0. unfold is_Rbar_minus, is_Rbar_plus. simpl. f_equal. f_equal. ring.
Qed.

Lemma atan_lim_m : is_lim atan m_infty (- (PI / 2)).
Proof.
  apply (is_lim_ext (fun x => - atan (- x))).
  - intros x. rewrite atan_opp. ring.
  - replace (Finite (- (PI / 2))) with (Rbar_opp (PI / 2)) by reflexivity.
    apply is_lim_opp.
    apply (is_lim_comp atan Ropp m_infty (PI / 2) p_infty).
    + exact atan_lim_p.
    + replace p_infty with (Rbar_opp m_infty) by reflexivity. apply is_lim_opp, is_lim_id.
    + exists 0. intros x _. discriminate.
Qed.

Lemma lim_scale_p : forall g, 0 < g -> is_lim (fun w => w / g) p_infty p_infty.
Proof.
  intros g Hg P [M HM]. exists (Rmax 0 M * g). intros x Hx. apply HM.
  apply (Rmult_lt_reg_r g); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
  pose proof (Rmax_r 0 M). pose proof (Rmax_l 0 M). nra.
Qed.

Lemma lim_scale_m : forall g, 0 < g -> is_lim (fun w => w / g) m_infty m_infty.
Proof.
  intros g Hg P [M HM]. exists (Rmin 0 M * g). intros x Hx. apply HM.
  apply (Rmult_lt_reg_r g); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
  pose proof (Rmin_r 0 M). pose proof (Rmin_l 0 M). nra.
Qed.

Theorem lorentzian_normalised : lorentzian_normalised_spec.
Proof.
  intros gamma Hg. pose proof PI_RGT_0 as Hpi.
  set (F := fun w => atan (w / gamma) / PI).
  assert (HD : forall w, is_derive F w (lorentzian gamma w)).
  { intros w. unfold F, lorentzian. auto_derive; [exact I|].
    assert (0 < 1 + (w / gamma) ^ 2) by (pose proof (pow2_ge_0 (w / gamma)); lra).
    assert (0 < w ^ 2 + gamma ^ 2) by (pose proof (pow2_ge_0 w); simpl; nra).
    field. repeat split; lra. }
  replace 1 with (1 / 2 - (- (1 / 2))) by field.
  apply (is_RInt_gen_ext (Derive F)).
  - apply Filter_prod with (fun _ => True) (fun _ => True);
      [exact filter_true | exact filter_true |].
    intros a b _ _ x _. apply is_derive_unique, HD.
  - apply is_RInt_gen_Derive.
    + apply Filter_prod with (fun _ => True) (fun _ => True);
        [exact filter_true | exact filter_true |].
      intros a b _ _ x _. eexists; apply HD.
    + apply Filter_prod with (fun _ => True) (fun _ => True);
        [exact filter_true | exact filter_true |].
      intros a b _ _ x _.
      apply (continuous_ext (lorentzian gamma)).
      { intros y. symmetry. apply is_derive_unique, HD. }
      apply (ex_derive_continuous (V := R_NormedModule)). unfold lorentzian. auto_derive.
      pose proof (pow2_ge_0 x). assert (0 < gamma ^ 2) by (simpl; nra).
      intros Hz. apply Rmult_integral in Hz. simpl in *. nra.
    + unfold F. replace (- (1 / 2)) with (- (PI / 2) / PI) by (field; lra).
      apply (is_lim_scal_r (fun w => atan (w / gamma)) (/ PI) m_infty (- (PI / 2))).
      apply (is_lim_comp atan (fun w => w / gamma) m_infty (- (PI / 2)) m_infty).
      * exact atan_lim_m.
      * apply lim_scale_m; lra.
      * exists 0. intros x _. discriminate.
    + unfold F. replace (1 / 2) with (PI / 2 / PI) by (field; lra).
      apply (is_lim_scal_r (fun w => atan (w / gamma)) (/ PI) p_infty (PI / 2)).
      apply (is_lim_comp atan (fun w => w / gamma) p_infty (PI / 2) p_infty).
      * exact atan_lim_p.
      * apply lim_scale_p; lra.
      * exists 0. intros x _. discriminate.
Qed.
Print Assumptions stationary_states.
Print Assumptions linear_rates.
Print Assumptions exchange.
Print Assumptions closed_form.
Print Assumptions limits.
Print Assumptions at_threshold.
Print Assumptions lorentzian_threshold.
Print Assumptions continuous_at_threshold.
Print Assumptions lorentzian_normalised.
