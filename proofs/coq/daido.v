(** * Statement 21: Kuramoto-Daido harmonics

    Informal statement.  For theta_i' = omega_i + sum_j K_ij H(theta_j - theta_i) with
    H(phi) = sum_{m=1..M} a_m sin(m phi - alpha_m) = sum_m Im(c_m e^{i m phi}),
    c_m = a_m e^{-i alpha_m}: (a) the two forms of H agree; (b) the library's
    per-harmonic formula is sum_j K_ij H(theta_j - theta_i) for every matrix K;
    (c) Im(e^{-i m theta_i} c_m Z_m) = (a_m/N) sum_j sin(m(theta_j - theta_i) - alpha_m);
    (d) M = 1 is Kuramoto-Sakaguchi; (e) the in-phase state's value H(0) sum_j K_ij and
    derivative -H'(0)(L v)_i, H'(0) = sum_m m Re c_m; (f) mean field: exponent -K H'(0);
    (h) two clusters: frequencies, intra-cluster and gap exponents for any
    differentiable H; (i) biharmonic balanced anti-phase exponents and stability
    condition; (j) the lag-free biharmonic family.

    Symbol map.
    - library: [syncattn.kuramoto.HarmonicCoupling] ([harm], [harm_d], [re_c], [im_c]),
      [syncattn.kuramoto.daido_coupling] ([daido_drift] = [_harmonic_drift]),
      [syncattn.kuramoto.daido_order_parameters] ([re_Z], [im_Z]),
      [syncattn.kuramoto.in_phase_exponents], [syncattn.kuramoto.two_cluster_drift],
      [syncattn.kuramoto.two_cluster_exponents];
    - sympy proof: [proofs/proof_daido.py] (statement 21); specification:
      [daido_spec.v].
    - Harmonic m = k + 1 has index k; finite families are functions on [0 .. n-1].

    Assumes: only the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core daido_spec.
Open Scope R_scope.

(** ** Finite-sum helpers *)

Lemma sumN_minus : forall f g n, sumN f n - sumN g n = sumN (fun k => f k - g k) n.
Proof. intros f g n. induction n as [| n IH]; simpl; [ring|]. rewrite <- IH. ring. Qed.

Lemma sum_if_const : forall (inA : nat -> bool) n c d,
  sumN (fun j => if inA j then c else d) n = countA inA n * c + (INR n - countA inA n) * d.
Proof.
  intros inA n c d. unfold countA. induction n as [| n IH].
  - simpl. ring.
  - rewrite S_INR. simpl. rewrite IH. destruct (inA n); ring.
Qed.

(** ** Derivatives *)

Lemma derive_pair : forall (H Hd : R -> R), (forall y, is_derive H y (Hd y)) ->
  forall u w a b, is_derive (fun e => H ((u + e * a) - (w + e * b))) 0 (Hd (u - w) * (a - b)).
Proof.
  intros H Hd HD u w a b.
  assert (G : is_derive (fun e => (u + e * a) - (w + e * b)) 0 (a - b)).
  { auto_derive; [exact I | ring]. }
  pose proof (is_derive_comp H (fun e => (u + e * a) - (w + e * b)) 0 (Hd (u - w)) (a - b)) as C.
  cbv beta in C.
  replace ((u + 0 * a) - (w + 0 * b)) with (u - w) in C by ring.
  specialize (C (HD _) G).
  replace (Hd (u - w) * (a - b)) with (scal (a - b) (Hd (u - w))); [exact C|].
  change (scal (a - b) (Hd (u - w))) with ((a - b) * Hd (u - w)). apply Rmult_comm.
Qed.

Lemma derive_term : forall m c d y,
  is_derive (fun x => c * sin (m * x) + d * cos (m * x)) y (m * (c * cos (m * y) - d * sin (m * y))).
Proof. intros m c d y. auto_derive; [exact I | ring]. Qed.

Lemma harm_derive : forall M cr ci phi, is_derive (harm M cr ci) phi (harm_d M cr ci phi).
Proof.
  intros M cr ci phi. unfold harm, harm_d.
  apply (is_derive_sumN (fun k y => cr k * sin (INR (S k) * y) + ci k * cos (INR (S k) * y))).
  intros k _. apply derive_term.
Qed.

(** The derivative along v of sum_j K_ij H((th + e v)_j - (th + e v)_i), at e = 0. *)
Lemma derive_coupling : forall K n H Hd th v i, (forall y, is_derive H y (Hd y)) ->
  is_derive (fun e => coupling_H K n H (perturb th v e) i) 0
    (sumN (fun j => K i j * (Hd (th j - th i) * (v j - v i))) n).
Proof.
  intros K n H Hd th v i HD. unfold coupling_H, perturb.
  apply (is_derive_sumN (fun j e => K i j * H ((th j + e * v j) - (th i + e * v i)))).
  intros j _. apply is_derive_scal. apply derive_pair. exact HD.
Qed.

(** ** (a) *)
Theorem fourier_identity : fourier_identity_spec.
Proof.
  intros M a al phi. unfold harm, harm_amp, re_c, im_c.
  apply sumN_ext. intros k _. rewrite sin_minus. ring.
Qed.

(** ** (b) with any sal, then with sal = - Im c *)
Lemma graph_general : forall K n M cal sal th i,
  daido_drift K n M cal sal th i = coupling_H K n (harm M cal (fun k => - sal k)) th i.
Proof.
  intros K n M cal sal th i. unfold daido_drift, coupling_H, harm.
  rewrite (sumN_ext (fun j => K i j * sumN (fun k => cal k * sin (INR (S k) * (th j - th i))
            + - sal k * cos (INR (S k) * (th j - th i))) M)
          (fun j => sumN (fun k => K i j * (cal k * sin (INR (S k) * (th j - th i))
            + - sal k * cos (INR (S k) * (th j - th i)))) M))
    by (intros j _; rewrite sumN_scal; reflexivity).
  rewrite sumN_swap. apply sumN_ext. intros k _.
  rewrite <- !sumN_scal, sumN_minus. apply sumN_ext. intros j _.
  replace (INR (S k) * (th j - th i)) with (INR (S k) * th j - INR (S k) * th i) by ring.
  rewrite sin_minus, cos_minus. ring.
Qed.

Lemma harm_ext : forall M cr ci ci', (forall k, ci k = ci' k) -> forall phi,
  harm M cr ci phi = harm M cr ci' phi.
Proof. intros M cr ci ci' E phi. unfold harm. apply sumN_ext. intros k _. rewrite E. ring. Qed.

Theorem graph_identity : graph_identity_spec.
Proof.
  intros K n M cr ci th i. rewrite graph_general. unfold coupling_H.
  apply sumN_ext. intros j _. f_equal. apply harm_ext. intros k. ring.
Qed.

(** ** (c) *)
Theorem mean_field_identity : mean_field_identity_spec.
Proof.
  intros n m a al th i. cbv zeta. unfold re_Z, im_Z.
  set (P := cos (m * th i) * cos al - sin (m * th i) * sin al).
  set (Q := sin (m * th i) * cos al + cos (m * th i) * sin al).
  rewrite (sumN_ext (fun j => sin (m * (th j - th i) - al))
             (fun j => P * sin (m * th j) + - Q * cos (m * th j)))
    by (intros j _; unfold P, Q;
        replace (m * (th j - th i) - al) with (m * th j - (m * th i + al)) by ring;
        rewrite sin_minus, sin_plus, cos_plus; ring).
  rewrite sumN_plus, !sumN_scal. unfold P, Q, Rdiv. ring.
Qed.

(** ** (d) *)
Theorem kuramoto_reduction : kuramoto_reduction_spec.
Proof.
  intros K n th i al. rewrite graph_general. unfold coupling_H.
  apply sumN_ext. intros j _. f_equal. unfold harm. simpl.
  rewrite !Rmult_1_l, (sin_minus (th j - th i) al). ring.
Qed.

(** ** (e) *)
Lemma harm_at_0 : forall M cr ci, harm M cr ci 0 = sumN ci M.
Proof.
  intros M cr ci. unfold harm. apply sumN_ext. intros k _.
  rewrite Rmult_0_r, sin_0, cos_0. ring.
Qed.

Lemma harm_d_at_0 : forall M cr ci, harm_d M cr ci 0 = sumN (fun k => INR (S k) * cr k) M.
Proof.
  intros M cr ci. unfold harm_d. apply sumN_ext. intros k _.
  rewrite Rmult_0_r, sin_0, cos_0. ring.
Qed.

Theorem in_phase_linearisation : in_phase_linearisation_spec.
Proof.
  intros K n M cr ci psi v i. split; [|split; [|split; [|split]]].
  - unfold coupling_H. rewrite <- sumN_scal. apply sumN_ext. intros j _.
    replace (psi - psi) with 0 by ring. ring.
  - apply harm_at_0.
  - intros phi. apply harm_derive.
  - apply harm_d_at_0.
  - replace (- harm_d M cr ci 0 * (sumN (K i) n * v i - sumN (fun j => K i j * v j) n))
      with (sumN (fun j => K i j * (harm_d M cr ci (psi - psi) * (v j - v i))) n).
    + apply (derive_coupling K n (harm M cr ci) (harm_d M cr ci) (fun _ => psi) v i).
      intros y. apply harm_derive.
    + replace (psi - psi) with 0 by ring.
      rewrite (sumN_ext (fun j => K i j * (harm_d M cr ci 0 * (v j - v i)))
                 (fun j => harm_d M cr ci 0 * (K i j * v j) + (- harm_d M cr ci 0 * v i) * K i j))
        by (intros j _; ring).
      rewrite sumN_plus, !sumN_scal. ring.
Qed.

(** ** (f) *)
Theorem mean_field_in_phase : mean_field_in_phase_spec.
Proof.
  intros Kc n M cr ci psi v i Hn Hv.
  assert (Hn' : INR n <> 0) by (apply not_0_INR; lia).
  replace (- Kc * harm_d M cr ci 0 * v i)
    with (sumN (fun j => Kc / INR n * (harm_d M cr ci (psi - psi) * (v j - v i))) n).
  - apply (derive_coupling (fun _ _ => Kc / INR n) n (harm M cr ci) (harm_d M cr ci) (fun _ => psi) v i).
    intros y. apply harm_derive.
  - replace (psi - psi) with 0 by ring.
    rewrite (sumN_ext (fun j => Kc / INR n * (harm_d M cr ci 0 * (v j - v i)))
               (fun j => (Kc / INR n * harm_d M cr ci 0) * v j + (- (Kc / INR n * harm_d M cr ci 0 * v i)) * 1))
      by (intros j _; ring).
    rewrite sumN_plus, !sumN_scal, Hv.
    assert (S1 : sumN (fun _ => 1) n = INR n).
    { clear. induction n as [| n IH]; [reflexivity|]. rewrite S_INR. simpl. rewrite IH. ring. }
    rewrite S1. field. exact Hn'.
Qed.

(** ** (h) *)
Lemma derive_F_eq : forall Kc n H Hd th v i d, (forall y, is_derive H y (Hd y)) ->
  Kc / INR n * sumN (fun j => Hd (th j - th i) * (v j - v i)) n = d ->
  is_derive (fun e => Kc / INR n * sumN (fun j => H (perturb th v e j - perturb th v e i)) n) 0 d.
Proof.
  intros Kc n H Hd th v i d HD E. rewrite <- E. apply is_derive_scal. unfold perturb.
  apply (is_derive_sumN (fun j e => H ((th j + e * v j) - (th i + e * v i)))).
  intros j _. apply derive_pair. exact HD.
Qed.

Theorem two_cluster_modes : two_cluster_modes_spec.
Proof.
  intros Kc x D n inA H Hd HD. cbv zeta.
  split; [|split; [|split; [|split; [|split]]]].
  - intros i Hi. f_equal.
    rewrite (sumN_ext _ (fun j => if inA j then H 0 else H D)).
    + rewrite sum_if_const. ring.
    + intros j _. unfold cluster. rewrite Hi. destruct (inA j); f_equal; ring.
  - intros i Hi. f_equal.
    rewrite (sumN_ext _ (fun j => if inA j then H (- D) else H 0)).
    + rewrite sum_if_const. ring.
    + intros j _. unfold cluster. rewrite Hi. destruct (inA j); f_equal; ring.
  - intros v Hv Hs i. cbv beta. apply (derive_F_eq _ _ _ Hd); [exact HD|].
    destruct (inA i) eqn:Hi.
    + rewrite (sumN_ext _ (fun j => Hd 0 * v j + (if inA j then - Hd 0 * v i else - Hd D * v i))).
      * rewrite sumN_plus, sumN_scal, Hs, sum_if_const. ring.
      * intros j _. unfold cluster. rewrite Hi. destruct (inA j) eqn:Hj.
        -- replace (x - x) with 0 by ring. ring.
        -- rewrite (Hv j Hj). replace (x + D - x) with D by ring. ring.
    + rewrite (Hv i Hi).
      rewrite (sumN_ext _ (fun j => Hd (- D) * v j)).
      * rewrite sumN_scal, Hs. ring.
      * intros j _. unfold cluster. rewrite Hi. destruct (inA j) eqn:Hj.
        -- replace (x - (x + D)) with (- D) by ring. ring.
        -- rewrite (Hv j Hj). ring.
  - intros v Hv Hs i. cbv beta. apply (derive_F_eq _ _ _ Hd); [exact HD|].
    destruct (inA i) eqn:Hi.
    + rewrite (Hv i Hi).
      rewrite (sumN_ext _ (fun j => Hd D * v j)).
      * rewrite sumN_scal, Hs. ring.
      * intros j _. unfold cluster. rewrite Hi. destruct (inA j) eqn:Hj.
        -- rewrite (Hv j Hj). ring.
        -- replace (x + D - x) with D by ring. ring.
    + rewrite (sumN_ext _ (fun j => Hd 0 * v j + (if inA j then - Hd (- D) * v i else - Hd 0 * v i))).
      * rewrite sumN_plus, sumN_scal, Hs, sum_if_const. ring.
      * intros j _. unfold cluster. rewrite Hi. destruct (inA j) eqn:Hj.
        -- rewrite (Hv j Hj). replace (x - (x + D)) with (- D) by ring. ring.
        -- replace (x + D - (x + D)) with 0 by ring. ring.
  - intros yA yB i. cbv beta. apply (derive_F_eq _ _ _ Hd); [exact HD|].
    destruct (inA i) eqn:Hi.
    + rewrite (sumN_ext _ (fun j => if inA j then 0 else Hd D * (yB - yA))).
      * rewrite sum_if_const. ring.
      * intros j _. unfold cluster. rewrite Hi.
        destruct (inA j); [ring | replace (x + D - x) with D by ring; ring].
    + rewrite (sumN_ext _ (fun j => if inA j then Hd (- D) * (yA - yB) else 0)).
      * rewrite sum_if_const. ring.
      * intros j _. unfold cluster. rewrite Hi.
        destruct (inA j); [replace (x - (x + D)) with (- D) by ring; ring | ring].
  - intros yA yB. ring.
Qed.

(** ** (i), (j): the biharmonic H *)
Lemma harm2 : forall cr ci phi, harm 2 cr ci phi
  = cr 0%nat * sin phi + ci 0%nat * cos phi + (cr 1%nat * sin (2 * phi) + ci 1%nat * cos (2 * phi)).
Proof.
  intros cr ci phi. unfold harm. simpl. replace (1 + 1) with 2 by ring. rewrite !Rmult_1_l. ring.
Qed.

Lemma harm_d2 : forall cr ci phi, harm_d 2 cr ci phi
  = (cr 0%nat * cos phi - ci 0%nat * sin phi) + 2 * (cr 1%nat * cos (2 * phi) - ci 1%nat * sin (2 * phi)).
Proof.
  intros cr ci phi. unfold harm_d. simpl. replace (1 + 1) with 2 by ring. rewrite !Rmult_1_l. ring.
Qed.

Theorem biharmonic_antiphase : biharmonic_antiphase_spec.
Proof.
  intros Kc a1 al1 a2 al2 cr ci H Hd lamA lamB lamC.
  assert (V : forall y, y = 0 \/ y = PI \/ y = - PI ->
            H y = cr 0%nat * sin y + ci 0%nat * cos y + (cr 1%nat * sin (2 * y) + ci 1%nat * cos (2 * y))
            /\ Hd y = (cr 0%nat * cos y - ci 0%nat * sin y) + 2 * (cr 1%nat * cos (2 * y) - ci 1%nat * sin (2 * y)))
    by (intros y _; split; [apply harm2 | apply harm_d2]).
  assert (T : sin (- PI) = 0 /\ cos (- PI) = -1 /\ sin (2 * PI) = 0 /\ cos (2 * PI) = 1
              /\ sin (2 * - PI) = 0 /\ cos (2 * - PI) = 1 /\ sin PI = 0 /\ cos PI = -1).
  { replace (2 * - PI) with (- (2 * PI)) by ring.
    rewrite !sin_neg, !cos_neg, sin_PI, cos_PI, sin_2PI, cos_2PI. repeat split; ring. }
  destruct T as [T1 [T2 [T3 [T4 [T5 [T6 [T7 T8]]]]]]].
  assert (Z : sin (2 * 0) = 0 /\ cos (2 * 0) = 1) by (rewrite Rmult_0_r, sin_0, cos_0; split; reflexivity).
  destruct Z as [Z1 Z2].
  assert (E0 : Hd 0 = a1 * cos al1 + 2 * (a2 * cos al2)).
  { unfold Hd, cr, ci. rewrite harm_d2, Z1, Z2, sin_0, cos_0. unfold re_c, im_c, two. ring. }
  assert (EP : Hd PI = - (a1 * cos al1) + 2 * (a2 * cos al2)).
  { unfold Hd, cr, ci. rewrite harm_d2, T3, T4, T7, T8. unfold re_c, im_c, two. ring. }
  assert (EM : Hd (- PI) = - (a1 * cos al1) + 2 * (a2 * cos al2)).
  { unfold Hd, cr, ci. rewrite harm_d2, T1, T2, T5, T6. unfold re_c, im_c, two. ring. }
  assert (HPM : H (- PI) = H PI).
  { unfold H. rewrite !harm2, T1, T2, T5, T6, T7, T8, T3, T4. ring. }
  assert (EA : lamA = - 2 * Kc * a2 * cos al2) by (unfold lamA; rewrite E0, EP; field).
  assert (EB : lamB = - 2 * Kc * a2 * cos al2) by (unfold lamB; rewrite E0, EM; field).
  assert (EC : lamC = - Kc * (2 * a2 * cos al2 - a1 * cos al1)) by (unfold lamC; rewrite EM, EP; field).
  split; [rewrite HPM; field|].
  split; [exact EA|]. split; [exact EB|]. split; [exact EC|].
  intros HK. rewrite EA, EB, EC.
  split.
  - intros [HA [_ HC]]. split; nra.
  - intros [Hu Hw]. split; [nra | split; nra].
Qed.

Theorem biharmonic_odd_family : biharmonic_odd_family_spec.
Proof.
  intros Kc a1 a2 D p H Hd. unfold H, Hd. rewrite !harm2, !harm_d2. cbn [two]. cbv beta.
  replace (2 * - D) with (- (2 * D)) by ring. replace (2 * - PI) with (- (2 * PI)) by ring.
  rewrite !sin_neg, !cos_neg, sin_PI, cos_PI, sin_2PI, cos_2PI, !Rmult_0_r, sin_0, cos_0, sin_2a.
  repeat split; ring.
Qed.

Print Assumptions fourier_identity.
Print Assumptions graph_identity.
Print Assumptions mean_field_identity.
Print Assumptions kuramoto_reduction.
Print Assumptions in_phase_linearisation.
Print Assumptions mean_field_in_phase.
Print Assumptions two_cluster_modes.
Print Assumptions biharmonic_antiphase.
Print Assumptions biharmonic_odd_family.
