(** * Statement 25 (proofs/proof_watanabe_strogatz.py): the Coq proofs *)

From Syncattn Require Import Core watanabe_strogatz_spec.
Open Scope R_scope.

Ltac comps := unfold nrm2, mobius, riccati, alpha_dot, psi_dot, chain in *;
  unfold Cconj, Cmult, Cplus, Cminus, Copp, Cdiv, Cinv, RtoC, Ci, Re, Im in *; simpl in *.

Lemma nrm2_identity : forall a u : C,
  nrm2 (u + a)%C - nrm2 (1 + Cconj a * u)%C = (nrm2 u - 1) * (1 - nrm2 a).
Proof. intros [a1 a2] [u1 u2]. comps. ring. Qed.

Lemma nrm2_div : forall x y : C, y <> RtoC 0 -> nrm2 (x / y)%C = nrm2 x / nrm2 y.
Proof.
  intros [x1 x2] [y1 y2] Hy.
  assert (Hn : y1 ^ 2 + y2 ^ 2 <> 0).
  { intro H0. apply Hy. assert (y1 = 0) by nra. assert (y2 = 0) by nra. subst. reflexivity. }
  comps. field. intro H0; apply Hn; nra.
Qed.

Lemma nrm2_pos : forall y : C, y <> RtoC 0 -> 0 < nrm2 y.
Proof.
  intros [y1 y2] Hy. comps.
  destruct (Req_dec y1 0); destruct (Req_dec y2 0); subst; [exfalso; apply Hy; reflexivity | nra..].
Qed.

Lemma denominator_nonzero : forall a u : C, nrm2 a < 1 -> nrm2 u <= 1 -> (1 + Cconj a * u)%C <> RtoC 0.
Proof.
  intros [a1 a2] [u1 u2] Ha Hu H0. injection H0 as H1 H2. comps.
  (* 1 + conj(a) u = 0 forces |a| |u| = 1 *)
  assert (Hprod : (a1 * u1 + a2 * u2) = -1) by lra.
  assert ((a1 * u1 + a2 * u2) ^ 2 + (a1 * u2 - a2 * u1) ^ 2 = (a1 ^ 2 + a2 ^ 2) * (u1 ^ 2 + u2 ^ 2)) by ring.
  nra.
Qed.

Theorem mobius_circle : mobius_circle_spec.
Proof.
  intros a u. split; [apply nrm2_identity|]. intros Ha Hu.
  assert (Hd : (1 + Cconj a * u)%C <> RtoC 0) by (apply denominator_nonzero; lra).
  unfold mobius. rewrite nrm2_div by exact Hd.
  pose proof (nrm2_identity a u) as E. rewrite Hu in E.
  pose proof (nrm2_pos _ Hd).
  assert (nrm2 (u + a)%C = nrm2 (1 + Cconj a * u)%C) by lra.
  rewrite H0. field. lra.
Qed.

Theorem mobius_disk : mobius_disk_spec.
Proof.
  intros a u Ha Hu.
  assert (Hd : (1 + Cconj a * u)%C <> RtoC 0) by (apply denominator_nonzero; lra).
  unfold mobius. rewrite nrm2_div by exact Hd.
  pose proof (nrm2_identity a u) as E. pose proof (nrm2_pos _ Hd) as P.
  assert (nrm2 (u + a)%C < nrm2 (1 + Cconj a * u)%C) by nra.
  apply (Rmult_lt_reg_r (nrm2 (1 + Cconj a * u)%C)); [exact P|].
  field_simplify; lra.
Qed.

Lemma Im_complex : forall x : C, RtoC (Im x) = ((x - Cconj x) / (2 * Ci))%C.
Proof. intros [x1 x2]. apply injective_projections; comps; field. Qed.

Lemma Cconj_mult_C : forall x y : C, Cconj (x * y)%C = (Cconj x * Cconj y)%C.
Proof. intros [x1 x2] [y1 y2]. apply injective_projections; comps; ring. Qed.

Lemma Cconj_conj_C : forall x : C, Cconj (Cconj x) = x.
Proof. intros [x1 x2]. apply injective_projections; comps; ring. Qed.

Lemma Ci_neq_0 : Ci <> RtoC 0.
Proof. intros H0. apply (f_equal snd) in H0. simpl in H0. lra. Qed.

Lemma two_neq_0 : RtoC 2 <> RtoC 0.
Proof. intros H0. apply (f_equal fst) in H0. simpl in H0. lra. Qed.

Theorem riccati_form : riccati_form_spec.
Proof.
  intros w H z Hz.
  assert (Hzz : (z * Cconj z)%C = RtoC 1).
  { destruct z as [z1 z2]. comps. apply injective_projections; simpl; nra. }
  assert (Hz0 : z <> RtoC 0).
  { intro H0. rewrite H0 in Hzz. apply (f_equal fst) in Hzz. comps. lra. }
  assert (Hzb : Cconj z = (/ z)%C).
  { transitivity (/ z * (z * Cconj z))%C; [field; exact Hz0|]. rewrite Hzz. field. exact Hz0. }
  rewrite RtoC_plus, Im_complex, Cconj_mult_C, Cconj_conj_C, Hzb.
  unfold riccati. rewrite (RtoC_inv 2) by lra.
  field. repeat split; first [exact Hz0 | exact Ci_neq_0 | exact two_neq_0].
Qed.

Lemma conj_alpha_dot : forall w H a,
  Cconj (alpha_dot w H a) = (- Ci * RtoC w * Cconj a + RtoC (/ 2) * (Cconj H - H * Cconj a * Cconj a))%C.
Proof. intros w [h1 h2] [a1 a2]. comps. apply injective_projections; simpl; field. Qed.

Lemma psi_dot_complex : forall w H a,
  RtoC (psi_dot w H a) = (RtoC w + (H * Cconj a - Cconj H * a) / (2 * Ci))%C.
Proof.
  intros w [h1 h2] [a1 a2]. unfold psi_dot.
  apply injective_projections; comps; field.
Qed.

Theorem reduced_flow : reduced_flow_spec.
Proof.
  intros w H a u Hd. unfold chain.
  rewrite conj_alpha_dot, psi_dot_complex.
  unfold alpha_dot, riccati, mobius.
  rewrite (RtoC_inv 2) by lra.
  field. repeat split; first [exact Hd | exact Ci_neq_0 | exact two_neq_0].
Qed.

Theorem alpha_stays_in_disk : alpha_stays_in_disk_spec.
Proof. intros w [h1 h2] [a1 a2]. comps. field. Qed.

Lemma nrm2_complex : forall x : C, RtoC (nrm2 x) = (x * Cconj x)%C.
Proof. intros [x1 x2]. apply injective_projections; comps; ring. Qed.

Lemma Cconj_plus_C : forall x y : C, Cconj (x + y)%C = (Cconj x + Cconj y)%C.
Proof. intros [x1 x2] [y1 y2]. apply injective_projections; comps; ring. Qed.

Lemma Cconj_one : Cconj (RtoC 1) = RtoC 1.
Proof. apply injective_projections; comps; ring. Qed.

Lemma Cconj_neq_0 : forall x : C, x <> RtoC 0 -> Cconj x <> RtoC 0.
Proof. intros x Hx H0. apply Hx. rewrite <- (Cconj_conj_C x), H0. apply injective_projections; comps; ring. Qed.

Lemma unit_inverse : forall w : C, nrm2 w = 1 -> w <> RtoC 0 /\ Cconj w = (/ w)%C.
Proof.
  intros w Hw.
  assert (Hww : (w * Cconj w)%C = RtoC 1) by (rewrite <- nrm2_complex, Hw; reflexivity).
  assert (Hw0 : w <> RtoC 0).
  { intro H0. rewrite H0 in Hww. apply (f_equal fst) in Hww. comps. lra. }
  split; [exact Hw0|].
  transitivity (/ w * (w * Cconj w))%C; [field; exact Hw0|]. rewrite Hww. field. exact Hw0.
Qed.

Lemma mod_identity : forall c1 c2 w1 w2 : R, w1 ^ 2 + w2 ^ 2 = 1 ->
  nrm2 (1 + (c1, c2) * (w1, w2))%C = 1 + nrm2 (c1, c2) + 2 * Re ((c1, c2) * (w1, w2))%C.
Proof.
  intros c1 c2 w1 w2 Hw. comps.
  assert (E : (1 + (c1 * w1 - c2 * w2)) * ((1 + (c1 * w1 - c2 * w2)) * 1)
              + (0 + (c1 * w2 + c2 * w1)) * ((0 + (c1 * w2 + c2 * w1)) * 1)
              = 1 + (c1 * (c1 * 1) + c2 * (c2 * 1)) * (w1 * (w1 * 1) + w2 * (w2 * 1)) + 2 * (c1 * w1 - c2 * w2))
    by ring.
  rewrite E, Hw. ring.
Qed.

Theorem poisson_kernel_sum : poisson_kernel_sum_spec.
Proof.
  intros a e w Hw Hd c.
  assert (Hmod : nrm2 (1 + c * w)%C = 1 + nrm2 c + 2 * Re (c * w)%C).
  { rewrite (surjective_pairing c), (surjective_pairing w).
    apply mod_identity. rewrite (surjective_pairing w) in Hw. exact Hw. }
  split; [exact Hmod|].
  destruct (unit_inverse w Hw) as [Hw0 Hwb].
  assert (Hcw : (1 + c * w)%C <> RtoC 0) by (unfold c; exact Hd).
  pose proof (Cconj_neq_0 _ Hcw) as Hx.
  rewrite <- Hmod, nrm2_complex, RtoC_minus, nrm2_complex.
  rewrite Cconj_plus_C, Cconj_one, Cconj_mult_C, Hwb in *.
  unfold c in *. rewrite Cconj_mult_C, Cconj_conj_C in *.
  assert (Hy : (w + a * Cconj e)%C <> RtoC 0).
  { intro H0. apply Hx.
    replace (1 + a * Cconj e * / w)%C with ((w + a * Cconj e) / w)%C by (field; exact Hw0).
    rewrite H0. field. exact Hw0. }
  unfold mobius.
  field. repeat split; first [exact Hw0 | exact Hx | exact Hd | exact Hcw | exact Hy].
Qed.

Print Assumptions mobius_circle.
Print Assumptions mobius_disk.
Print Assumptions riccati_form.
Print Assumptions reduced_flow.
Print Assumptions alpha_stays_in_disk.
Print Assumptions poisson_kernel_sum.
