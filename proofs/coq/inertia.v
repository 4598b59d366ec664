(** * Statement 23: Kuramoto with inertia (proofs)

    See [inertia_spec.v] for the definitions and claims, and [proofs/proof_inertia.py]
    for the sympy proof and the numerical checks. *)

From Syncattn Require Import Core inertia_spec.
Open Scope R_scope.

(** The derivative of [E] along a curve, before using the equations of motion. *)
Lemma energy_derive : forall n m K (th v : nat -> R -> R) (a : nat -> R) t,
  (forall i, (i < n)%nat -> is_derive (th i) t (v i t)) ->
  (forall i, (i < n)%nat -> is_derive (v i) t (a i)) ->
  is_derive (fun s => inertial_energy n m K (fun i => th i s) (fun i => v i s)) t
    (m / 2 * sumN (fun i => 2 * (v i t * a i)) n
     + 1 / 2 * sumN (fun i => sumN (fun j =>
         K i j * (sin (th j t - th i t) * (v j t - v i t))) n) n).
Proof.
  intros n m K th v a t Hth Hv. unfold inertial_energy, dot.
  apply (is_derive_plus
    (fun s => m / 2 * sumN (fun k => v k s * v k s) n)
    (fun s => 1 / 2 * sumN (fun i => sumN (fun j => K i j * (1 - cos (th j s - th i s))) n) n)).
  - apply is_derive_scal.
    apply (is_derive_sumN (fun k s => v k s * v k s)). intros k Hk.
    pose proof (Hv k Hk) as H.
    apply (is_derive_ext (fun s => v k s * v k s)); [reflexivity|].
    replace (2 * (v k t * a k)) with (a k * v k t + v k t * a k) by ring.
    apply (is_derive_mult (v k) (v k)); [exact H | exact H | intros; apply Rmult_comm].
  - apply is_derive_scal.
    apply (is_derive_sumN (fun i s => sumN (fun j => K i j * (1 - cos (th j s - th i s))) n)).
    intros i Hi.
    apply (is_derive_sumN (fun j s => K i j * (1 - cos (th j s - th i s)))).
    intros j Hj.
    pose proof (Hth i Hi) as Hi'. pose proof (Hth j Hj) as Hj'.
    auto_derive.
    + repeat split; eexists; eassumption.
    + replace (Derive (fun x => th i x) t) with (v i t)
        by (symmetry; apply is_derive_unique; exact Hi').
      replace (Derive (fun x => th j x) t) with (v j t)
        by (symmetry; apply is_derive_unique; exact Hj').
      unfold Rminus. ring.
Qed.

(** The symmetric double sum: [sum_ij K_ij sin(th_j - th_i)(v_j - v_i) = -2 sum_i v_i F_i]. *)
Lemma double_sum : forall n K (th w : nat -> R), (forall i j, K i j = K j i) ->
  sumN (fun i => sumN (fun j => K i j * (sin (th j - th i) * (w j - w i))) n) n
  = -2 * sumN (fun i => w i * sumN (fun j => K i j * sin (th j - th i)) n) n.
Proof.
  intros n K th w Hs.
  rewrite (sumN_ext _ (fun i => sumN (fun j => K i j * sin (th j - th i) * w j) n
                                + - (w i * sumN (fun j => K i j * sin (th j - th i)) n))).
  2:{ intros i _. rewrite <- sumN_scal, <- sumN_opp, <- sumN_plus. apply sumN_ext. intros j _. ring. }
  rewrite sumN_plus, sumN_opp, sumN_swap.
  rewrite (sumN_ext (fun j => sumN (fun i => K i j * sin (th j - th i) * w j) n)
                    (fun j => - (w j * sumN (fun i => K j i * sin (th i - th j)) n))).
  2:{ intros j _. rewrite <- sumN_scal, <- sumN_opp. apply sumN_ext. intros i _.
      rewrite (Hs i j). replace (th j - th i) with (- (th i - th j)) by ring. rewrite sin_neg. ring. }
  rewrite sumN_opp. ring.
Qed.

Theorem energy_identity : energy_identity_spec.
Proof.
  intros n m K th v a t Hs Hsol. apply is_derive_Reals.
  assert (Hth : forall i, (i < n)%nat -> is_derive (th i) t (v i t))
    by (intros i Hi; apply is_derive_Reals; apply (Hsol i Hi)).
  assert (Hv : forall i, (i < n)%nat -> is_derive (v i) t (a i))
    by (intros i Hi; apply is_derive_Reals; apply (Hsol i Hi)).
  eapply is_derive_ext; [intros s; reflexivity|].
  replace (- dot n (fun i => v i t) (fun i => v i t))
    with (m / 2 * sumN (fun i => 2 * (v i t * a i)) n
          + 1 / 2 * sumN (fun i => sumN (fun j =>
              K i j * (sin (th j t - th i t) * (v j t - v i t))) n) n).
  { apply energy_derive; assumption. }
  rewrite (double_sum n K (fun j => th j t) (fun j => v j t) Hs).
  (* m/2 sum 2 v_i a_i = sum v_i (m a_i) = sum v_i (F_i - v_i) *)
  replace (m / 2 * sumN (fun i => 2 * (v i t * a i)) n)
    with (sumN (fun i => v i t * (m * a i)) n)
    by (rewrite <- sumN_scal; apply sumN_ext; intros i _; field).
  rewrite (sumN_ext (fun i => v i t * (m * a i))
             (fun i => v i t * sumN (fun j => K i j * sin (th j t - th i t)) n + - (v i t * v i t))).
  2:{ intros i Hi. destruct (Hsol i Hi) as [_ [_ He]]. rewrite He. unfold field. ring. }
  rewrite sumN_plus, sumN_opp. unfold dot. lra.
Qed.

Theorem energy_nonincreasing : energy_nonincreasing_spec.
Proof.
  intros n m K th v a t1 t2 Hs Hle Hsol.
  destruct (Req_dec t1 t2) as [-> | Hne]; [lra|].
  destruct (MVT_cor2 (fun s => inertial_energy n m K (fun i => th i s) (fun i => v i s))
              (fun s => - dot n (fun i => v i s) (fun i => v i s)) t1 t2) as [c [Hc _]].
  - lra.
  - intros c Hc. apply (energy_identity n m K th v (fun i => a i c) c Hs). apply Hsol. exact Hc.
  - pose proof (dot_nonneg n (fun i => v i c)). nra.
Qed.

Theorem zero_mass : zero_mass_spec.
Proof.
  intros n omega K th v a t Hsol i Hi. destruct (Hsol i Hi) as [Hth [_ He]].
  replace (field n omega K (fun j => th j t) i) with (v i t) by lra. exact Hth.
Qed.

Theorem equilibria : equilibria_spec.
Proof.
  intros n m omega K th v Hm. split; intros H i Hi; destruct (H i Hi) as [Hv Hf]; split; auto.
  - apply (Rmult_eq_reg_r (/ m)); [|apply Rinv_neq_0_compat; lra].
    rewrite Rmult_0_l. rewrite Hv, Rminus_0_r in Hf. exact Hf.
  - rewrite Hf, Hv. unfold Rdiv. ring.
Qed.

Theorem mode_stable : mode_stable_spec.
Proof.
  intros m mu x y Hm Hmu Hre Him.
  assert (Hy : y * (2 * m * x + 1) = 0) by lra.
  apply Rmult_integral in Hy as [Hy | Hx].
  - subst y. nra.
  - (* 2 m x = -1 with m > 0 *)
    destruct (Rlt_or_le x 0) as [Hneg | Hpos]; [exact Hneg|]. nra.
Qed.

Theorem mode_unstable : mode_unstable_spec.
Proof.
  intros m mu Hm Hmu.
  set (D := 1 - 4 * m * mu).
  assert (HD : 1 < D) by (unfold D; nra).
  assert (Hs : 1 < sqrt D).
  { rewrite <- sqrt_1. apply sqrt_lt_1_alt. lra. }
  assert (Hss : sqrt D * sqrt D = D) by (apply sqrt_sqrt; lra).
  exists ((sqrt D - 1) / (2 * m)). split.
  - apply Rdiv_lt_0_compat; lra.
  - field_simplify; [|lra]. rewrite <- (Rmult_1_r (sqrt D ^ 2)), pow2_sqrt by lra. unfold D.
    field_simplify; [|lra]. lra.
Qed.

(** (e) the spectrum of the inertial Jacobian, every [N]: block elimination on an
    eigenvector [(x, y)]: [y = lam x] and [J x = -(m lam^2 + lam) x]. *)
Lemma C_ext : forall a b : C, fst a = fst b -> snd a = snd b -> a = b.
Proof. intros [a1 a2] [b1 b2]; simpl; intros -> ->; reflexivity. Qed.

Lemma m_inv : forall m, 0 < m -> (RtoC m * RtoC (/ m))%C = 1%C.
Proof. intros m Hm. rewrite <- RtoC_mult, Rinv_r by lra. reflexivity. Qed.

Theorem inertial_spectrum : inertial_spectrum_spec.
Proof.
  intros n m J lam Hm. split.
  - intros [x [y [[i0 [Hi0 Hnz]] H]]].
    exists (- (RtoC m * lam * lam + lam))%C, x. split; [split|].
    + exists i0. split; [exact Hi0|]. destruct Hnz as [Hx|Hy]; [exact Hx|].
      intros Hx0. apply Hy. destruct (H i0 Hi0) as [Hy0 _]. rewrite Hy0, Hx0. ring.
    + intros i Hi. destruct (H i Hi) as [Hy Heq]. rewrite Hy in Heq.
      set (a := mat_apply n J x i) in *.
      transitivity (- (RtoC m * (RtoC (/ m) * (- a - lam * x i))) - lam * x i)%C.
      * rewrite Cmult_assoc, m_inv by exact Hm. ring.
      * rewrite Heq. ring.
    + ring.
  - intros [mu [x [[[i0 [Hi0 Hx0]] Hx] Hchar]]].
    exists x, (fun i => lam * x i)%C. split.
    + exists i0. split; [exact Hi0 | left; exact Hx0].
    + intros i Hi. split; [reflexivity|]. rewrite Hx by exact Hi.
      assert (Hmu : mu = (- (RtoC m * lam * lam + lam))%C).
      { transitivity ((RtoC m * lam * lam + lam + mu) - (RtoC m * lam * lam + lam))%C; [ring|].
        rewrite Hchar. ring. }
      rewrite Hmu.
      transitivity (RtoC (/ m) * RtoC m * (lam * (lam * x i)))%C; [ring|].
      rewrite (Cmult_comm (RtoC (/ m))), m_inv by exact Hm. ring.
Qed.
Print Assumptions energy_identity.
Print Assumptions energy_nonincreasing.
Print Assumptions zero_mass.
Print Assumptions equilibria.
Print Assumptions mode_stable.
Print Assumptions mode_unstable.
Print Assumptions inertial_spectrum.
