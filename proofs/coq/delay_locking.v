(** * Statement 22: delayed Kuramoto, in-phase locking (proofs)

    See [delay_locking_spec.v] for the definitions and claims, and
    [proofs/proof_delay_locking.py] for the sympy proof and the numerical checks. *)

From Syncattn Require Import Core delay_locking_spec.
Open Scope R_scope.

Lemma sumN_const : forall a n, sumN (fun _ => a) n = INR n * a.
Proof. intros a n. induction n as [| n IH]; simpl sumN; [simpl; ring|]. rewrite IH, S_INR. ring. Qed.

Lemma field_locked : forall n K k tau omega Omega c t i,
  sumN (K i) n = k ->
  delayed_field n K tau omega (fun _ s => Omega * s + c) t i = omega - k * sin (Omega * tau).
Proof.
  intros n K k tau omega Omega c t i Hk. unfold delayed_field.
  rewrite (sumN_ext _ (fun j => sin (- (Omega * tau)) * K i j)).
  2:{ intros j _. replace (Omega * (t - tau) + c - (Omega * t + c)) with (- (Omega * tau)) by ring. ring. }
  rewrite sumN_scal. change (sumN (fun j => K i j) n) with (sumN (K i) n).
  rewrite Hk, sin_neg. ring.
Qed.

Lemma line_derive : forall Omega c t, derivable_pt_lim (fun s => Omega * s + c) t Omega.
Proof. intros. apply is_derive_Reals. auto_derive; [exact I | ring]. Qed.

Theorem locked_state : locked_state_spec.
Proof.
  intros n K k tau omega Omega c Hn Hk. unfold locking_residual. split.
  - intros H. specialize (H 0 0%nat Hn). rewrite (field_locked n K k) in H by (apply Hk; exact Hn).
    pose proof (uniqueness_limite _ _ _ _ H (line_derive Omega c 0)). lra.
  - intros Hg t i Hi. rewrite (field_locked n K k) by (apply Hk; exact Hi).
    replace (omega - k * sin (Omega * tau)) with Omega by lra. apply line_derive.
Qed.

Theorem linearisation : linearisation_spec.
Proof.
  intros n K tau omega Omega c phi t i. apply is_derive_Reals.
  unfold delayed_field, linearised_rhs.
  rewrite <- sumN_scal.
  apply (is_derive_ext (fun e => omega + sumN (fun j =>
    K i j * sin (Omega * (t - tau) + c + e * phi j (t - tau) - (Omega * t + c + e * phi i t))) n)).
  { intros e. reflexivity. }
  replace (sumN (fun k => cos (Omega * tau) * (K i k * (phi k (t - tau) - phi i t))) n)
    with (0 + sumN (fun k => cos (Omega * tau) * (K i k * (phi k (t - tau) - phi i t))) n) by ring.
  apply (is_derive_plus (fun _ => omega)); [auto_derive; [exact I | ring]|].
  apply (is_derive_sumN (fun j e => K i j * sin (Omega * (t - tau) + c + e * phi j (t - tau)
                                                   - (Omega * t + c + e * phi i t)))).
  intros j _. auto_derive; [exact I|].
  replace (Omega * (t - tau) + c + 0 * phi j (t - tau) + - (Omega * t + c + 0 * phi i t))
    with (- (Omega * tau)) by ring.
  rewrite cos_neg. ring.
Qed.

Theorem transverse_mode : transverse_mode_spec.
Proof.
  intros n k tau Omega v t i Hn Hv. unfold linearised_rhs.
  set (c := k * cos (Omega * tau)).
  assert (HN : INR n <> 0) by (apply not_0_INR; lia).
  rewrite (sumN_ext _ (fun j => (k / INR n * exp (- c * (t - tau))) * v j
                                + (- (k / INR n) * (v i * exp (- c * t))))).
  2:{ intros j _. ring. }
  rewrite sumN_plus, sumN_scal, Hv, sumN_const.
  apply is_derive_Reals. auto_derive; [exact I|]. unfold c. field. exact HN.
Qed.

Lemma exp_nonpos_le_1 : forall z, z <= 0 -> exp z <= 1.
Proof.
  intros z Hz. rewrite <- exp_0. destruct (Req_dec z 0) as [-> | Hne]; [lra|].
  left. apply exp_increasing. lra.
Qed.

Theorem uniform_mode_stable : uniform_mode_stable_spec.
Proof.
  intros c tau x y Hc Htau Hx Hre Him.
  set (E := exp (- x * tau)) in *.
  assert (HE1 : E <= 1) by (apply exp_nonpos_le_1; nra).
  assert (HE0 : 0 < E) by apply exp_pos.
  pose proof (sin2_cos2 (y * tau)) as Hp. unfold Rsqr in Hp.
  assert (Hsq : (x + c) * (x + c) + y * y = c * c * (E * E)).
  { transitivity (c * E * cos (y * tau) * (c * E * cos (y * tau))
                  + (- c * E * sin (y * tau)) * (- c * E * sin (y * tau))).
    { rewrite <- Hre, <- Him. ring. }
    transitivity (c * c * (E * E) * (sin (y * tau) * sin (y * tau) + cos (y * tau) * cos (y * tau)));
      [ring | rewrite Hp; ring]. }
  assert (HEE : E * E <= 1) by nra.
  assert (Hle : x * x + 2 * c * x + y * y <= 0) by nra.
  split; nra.
Qed.

Theorem roots_bounded : roots_bounded_spec.
Proof.
  intros omega k tau Omega H. unfold locking_residual in H.
  replace (Omega - omega) with (- (k * sin (Omega * tau))) by lra.
  rewrite Rabs_Ropp, Rabs_mult.
  pose proof (Rabs_pos k). pose proof (SIN_bound (Omega * tau)).
  assert (Rabs (sin (Omega * tau)) <= 1) by (apply Rabs_le; lra). nra.
Qed.

Theorem residual_derivative : residual_derivative_spec.
Proof.
  intros omega k tau Omega. apply is_derive_Reals. unfold locking_residual.
  auto_derive; [exact I | ring].
Qed.

Theorem hermite_midpoint : hermite_midpoint_spec.
Proof.
  intros a b c d h y0 y1 f0 f1 Ha H1 Hb H2. unfold hermite_mid.
  subst y0 y1 f0 f1. field.
Qed.

(** (c) the exponential modes of the mean-field linearisation, every [N]. *)
Lemma C_ext : forall a b : C, fst a = fst b -> snd a = snd b -> a = b.
Proof. intros [a1 a2] [b1 b2]; simpl; intros -> ->; reflexivity. Qed.

Lemma csum_S : forall f n, csum f (S n) = (csum f n + f n)%C.
Proof. intros f n. apply C_ext; reflexivity. Qed.

Lemma csum_affine : forall (f : nat -> C) (a b : C) n,
  csum (fun j => a * f j + b)%C n = (a * csum f n + RtoC (INR n) * b)%C.
Proof.
  intros f a b n. induction n as [|n IH].
  - apply C_ext; simpl; ring.
  - rewrite !csum_S, IH, S_INR, RtoC_plus. ring.
Qed.

Lemma csum_const_eq : forall (f : nat -> C) u n,
  (forall j, (j < n)%nat -> f j = u) -> csum f n = (RtoC (INR n) * u)%C.
Proof.
  intros f u n Hf. induction n as [|n IH].
  - apply C_ext; simpl; ring.
  - rewrite csum_S, IH, (Hf n (Nat.lt_succ_diag_r n)), S_INR, RtoC_plus. ring.
    intros j Hj. apply Hf. lia.
Qed.

Lemma cexp_delay_neq : forall lam tau, cexp_delay lam tau <> 0%C.
Proof.
  intros lam tau E. unfold cexp_delay in E.
  pose proof (f_equal fst E) as E1. pose proof (f_equal snd E) as E2. simpl in E1, E2.
  pose proof (exp_pos (- fst lam * tau)) as He. pose proof (sin2_cos2 (snd lam * tau)) as Hs.
  unfold Rsqr in Hs.
  assert (cos (snd lam * tau) = 0) as Hc.
  { apply (Rmult_eq_reg_l (exp (- fst lam * tau))); lra. }
  assert (sin (snd lam * tau) = 0) as Hsn.
  { apply (Rmult_eq_reg_l (exp (- fst lam * tau))); lra. }
  rewrite Hc, Hsn in Hs. lra.
Qed.

Lemma RtoC_neq : forall r, r <> 0 -> RtoC r <> 0%C.
Proof. intros r Hr E. apply (f_equal fst) in E. simpl in E. lra. Qed.

Lemma csum_ext : forall f g n, (forall j, f j = g j) -> csum f n = csum g n.
Proof. intros f g n H. induction n as [|n IH]; [reflexivity|]. rewrite !csum_S, IH, H. reflexivity. Qed.

(** the mode equation in closed form: [(lam + c) v_i = (c/n) E m]. *)
Lemma mode_closed : forall n k tau Omega lam (v : nat -> C) i, (0 < n)%nat ->
  (RtoC (cos (Omega * tau)) * csum (fun j => RtoC (k / INR n) * (v j * cexp_delay lam tau - v i)) n)%C
  = (RtoC (k * cos (Omega * tau) / INR n) * cexp_delay lam tau * csum v n
     - RtoC (k * cos (Omega * tau)) * v i)%C.
Proof.
  intros n k tau Omega lam v i Hn.
  assert (HnR : INR n <> 0) by (apply not_0_INR; lia).
  rewrite (csum_ext _ (fun j => (RtoC (k / INR n) * cexp_delay lam tau) * v j + (- (RtoC (k / INR n) * v i)))%C)
    by (intros j; ring).
  rewrite csum_affine.
  apply C_ext; simpl; field; exact HnR.
Qed.

Theorem mode_classification : mode_classification_spec.
Proof.
  intros n k tau Omega lam v Hn Hc [i0 [Hi0 Hv0]] c.
  assert (HnR : INR n <> 0) by (apply not_0_INR; lia).
  assert (HcC : c <> 0%C) by (apply RtoC_neq; exact Hc).
  set (E := cexp_delay lam tau).
  assert (HE : E <> 0%C) by apply cexp_delay_neq.
  assert (HnC : RtoC (INR n) <> 0%C) by (apply RtoC_neq; exact HnR).
  assert (Hcn : RtoC (k * cos (Omega * tau) / INR n) = (c / RtoC (INR n))%C).
  { unfold c. apply C_ext; simpl; field; exact HnR. }
  unfold mean_field_mode. split.
  - intros Hm.
    assert (Hall : forall i, (i < n)%nat -> ((lam + c) * v i = c / RtoC (INR n) * E * csum v n)%C).
    { intros i Hi. pose proof (Hm i Hi) as H. rewrite mode_closed in H by exact Hn.
      fold E in H. rewrite Hcn in H. fold c in H.
      transitivity (lam * v i + c * v i)%C; [ring|].
      rewrite H. ring. }
    destruct (Classical_Prop.classic ((lam + c)%C = 0%C)) as [Hz|Hz].
    + right. split; [|exact Hz].
      pose proof (Hall i0 Hi0) as H. rewrite Hz, Cmult_0_l in H.
      transitivity ((RtoC (INR n) / (c * E)) * (c / RtoC (INR n) * E * csum v n))%C.
      * field. repeat split; assumption.
      * rewrite <- H. ring.
    + set (u := (c / RtoC (INR n) * E * csum v n / (lam + c))%C).
      assert (Hu : forall i, (i < n)%nat -> v i = u).
      { intros i Hi. unfold u. rewrite <- (Hall i Hi). field. exact Hz. }
      left. split.
      * intros i j Hi Hj. rewrite (Hu i Hi), (Hu j Hj). reflexivity.
      * assert (Hsum : csum v n = (RtoC (INR n) * u)%C) by (apply csum_const_eq; exact Hu).
        pose proof (Hall i0 Hi0) as H. rewrite Hsum, (Hu i0 Hi0) in H.
        assert (Hu0 : u <> 0%C) by (rewrite <- (Hu i0 Hi0); exact Hv0).
        transitivity ((lam + c) * u / u)%C; [field; exact Hu0|].
        rewrite H. field. split; assumption.
  - intros [[Hu Hchar] | [Hsum Hz]] i Hi; rewrite mode_closed by exact Hn; fold E; rewrite Hcn.
    + assert (Hsum : csum v n = (RtoC (INR n) * v i)%C)
        by (apply csum_const_eq; intros j Hj; apply Hu; assumption).
      rewrite Hsum. fold c.
      transitivity ((lam + c) * v i - c * v i)%C; [ring|]. rewrite Hchar. field. exact HnC.
    + rewrite Hsum. fold c.
      transitivity ((lam + c) * v i - c * v i)%C; [ring|]. rewrite Hz. ring.
Qed.

Print Assumptions locked_state.
Print Assumptions linearisation.
Print Assumptions transverse_mode.
Print Assumptions uniform_mode_stable.
Print Assumptions roots_bounded.
Print Assumptions residual_derivative.
Print Assumptions hermite_midpoint.
Print Assumptions mode_classification.
