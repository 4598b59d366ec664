(** * Statement 18: identical Lohe matrix oscillators are a gradient flow, and R never decreases

    Informal statement.  For [U_j' = W U_j + K/(2N) sum_k (U_k - U_j U_k^H U_j)]
    with one common skew-Hermitian [W] ([-iH] on U(n), a real skew generator on
    SO(n)), [M = (1/N) sum_k U_k], [R^2 = ||M||_F^2 / n], any [n], [N]:
    (a) for every curve [F] with [F^H F = I] and [F' = -F W] ([F = e^{iHt}]),
        [V_j = F U_j] solves the flow without drift, and [R(F U) = R(U)];
    (b) without drift, on the group,
        [V_j' = K/2 (M - V_j M^H V_j) = K V_j skew(V_j^H M) = K/(2N) P_{V_j}(dE/dV_j)]
        with [dE/dV_j = 2 sum_k V_k = 2 N M] the Frobenius gradient of
        [E = ||sum_k V_k||_F^2] (the directional derivative in [V_j] along every [Z]
        is [Re tr((2 sum_k V_k)^H Z)]) and [P_V Z = V skew(V^H Z)] the orthogonal
        projection onto the tangent space;
    (c) [dR^2/dt = 2K/(nN) sum_j ||skew(U_j^H M)||_F^2] along every solution, at
        every time where every [U_j] is unitary; it is [>= 0], [0] exactly at
        equilibria.

    Symbol map.
    - library: [syncattn.lohe.matrix_vector_field] with a scalar coupling
      ([lohe_field] with [all_to_all K N]), [syncattn.lohe.matrix_order_rate]
      ([order_rate]), [syncattn.group.order_parameter] squared ([order2]);
    - sympy proof: [proofs/proof_matrix_gradient.py] (statement 18): (a), (b) with
      noncommutative symbols, the trace identity of (c) for 3 x 3 and (c) on SO(2)
      with N = 3; here every [n] and [N] (complex matrices as pairs of reals, the
      real case being SO(n)).

    Not formalised: that [e^{iHt}] is a unitary curve with [F' = -F W] (the matrix
    exponential); R(t) along RKMK4 (measured).

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core matrix_gradient_spec matrix_lohe.
From Coq Require Import Setoid Morphisms FunctionalExtensionality.
Open Scope R_scope.

(** ** Scalars and the all-to-all pull *)

Lemma mscal_mscal : forall r s A, mscal r (mscal s A) = mscal (r * s) A.
Proof. intros. ext. unfold mscal. apply pair_eq; simpl; ring. Qed.

Lemma mmul_zero_l : forall n A, mmul n zero A = zero.
Proof.
  intros. ext. unfold mmul, zero. transitivity (csum (fun _ => (0, 0)) n); [|apply csum_zero].
  apply csum_ext; intros; apply pair_eq; cbn [fst snd cmul]; ring.
Qed.

Lemma skew_mscal : forall r X, skew (mscal r X) = mscal r (skew X).
Proof.
  intros r X. unfold skew. rewrite adj_mscal. ext. unfold msub, madd, mscal, cadd.
  apply pair_eq; simpl; ring.
Qed.

Lemma pull_all : forall N K V j, pull N (all_to_all K N) V j = mscal K (mean N V).
Proof.
  intros. unfold pull, all_to_all, mean. rewrite msum_mscal, mscal_mscal.
  f_equal. unfold Rdiv. ring.
Qed.

Lemma mean_mmul : forall n N F U, mean N (fun k => mmul n F (U k)) = mmul n F (mean N U).
Proof. intros. unfold mean. rewrite mmul_mscal_r, mmul_msum_r. reflexivity. Qed.

Lemma msum_mean : forall N V, (0 < N)%nat -> msum V N = mscal (INR N) (mean N V).
Proof.
  intros N V HN. unfold mean. rewrite mscal_mscal.
  replace (INR N * (1 / INR N)) with 1 by (field; apply not_0_INR; lia).
  ext. unfold mscal. apply pair_eq; simpl; ring.
Qed.

Lemma field_no_drift : forall n N K V j,
  lohe_field n N (all_to_all K N) no_drift V j
  = mscal (K / 2) (msub (mean N V) (mmul n (mmul n (V j) (adj (mean N V))) (V j))).
Proof.
  intros. unfold lohe_field, no_drift. rewrite mmul_zero_l, pull_all, adj_mscal,
    mmul_mscal_r, mmul_mscal_l. ext. unfold madd, msub, mscal, zero, cadd, madd, cadd.
  apply pair_eq; simpl; unfold Rdiv; ring.
Qed.

(** ** (a) R in the co-rotating frame *)

Theorem order_invariant : order_invariant_spec.
Proof.
  intros n N F U HF. unfold order2. rewrite mean_mmul. f_equal.
  rewrite !frob2_trace, adj_mmul, mmul_assoc, <- (mmul_assoc n (adj F) F), HF, mid_mmul.
  reflexivity.
Qed.

(** ** (b) the gradient form *)

Lemma skew_form : forall n V M, meq n (mmul n V (adj V)) mid ->
  meq n (mmul n V (skew (mmul n (adj V) M)))
        (mscal (1 / 2) (msub M (mmul n (mmul n V (adj M)) V))).
Proof.
  intros n V M HV. unfold skew.
  rewrite mmul_mscal_r, mmul_msub_r, <- mmul_assoc, HV, mid_mmul, adj_mmul, adj_adj,
    <- mmul_assoc. reflexivity.
Qed.

Theorem gradient_form : gradient_form_spec.
Proof.
  intros n N K V j HN HV. rewrite field_no_drift.
  assert (H2 : meq n (mscal K (mmul n (V j) (skew (mmul n (adj (V j)) (mean N V)))))
      (mscal (K / 2) (msub (mean N V) (mmul n (mmul n (V j) (adj (mean N V))) (V j))))).
  { rewrite skew_form by exact HV. rewrite mscal_mscal. f_equal. unfold Rdiv.
    replace (K * (1 * / 2)) with (K * / 2) by ring. reflexivity. }
  split; [reflexivity|]. split; [symmetry; exact H2|].
  rewrite <- H2. unfold proj. rewrite (msum_mean N V HN), mscal_mscal, mmul_mscal_r,
    skew_mscal, mmul_mscal_r, mscal_mscal.
  replace (K / (2 * INR N) * (2 * INR N)) with K by (field; apply not_0_INR; lia).
  reflexivity.
Qed.

Theorem projection : projection_spec.
Proof.
  intros n V Z X HV HX. unfold skew_hermitian in HX. unfold proj.
  assert (S : meq n (skew X) X).
  { unfold skew. rewrite HX. lin. }
  split; [|split].
  - unfold skew_hermitian. rewrite <- mmul_assoc, HV, mid_mmul. apply skew_is_skew.
  - rewrite <- mmul_assoc, HV, mid_mmul, S. reflexivity.
  - rewrite adj_mmul, mmul_assoc, mmul_msub_r, <- (mmul_assoc n (adj V) V), HV, mid_mmul.
    apply re_trace_skew_herm.
    + unfold skew_hermitian. rewrite adj_adj, HX. lin.
    + set (Y := mmul n (adj V) Z). unfold skew.
      rewrite adj_msub, adj_mscal, adj_msub, adj_adj. lin.
Qed.

(** ** (c) the sign of the rate and its zeros *)

Lemma mmul_zero_r : forall n A, mmul n A zero = zero.
Proof.
  intros. ext. unfold mmul, zero. transitivity (csum (fun _ => (0, 0)) n); [|apply csum_zero].
  apply csum_ext; intros; apply pair_eq; cbn [fst snd cmul]; ring.
Qed.

Lemma frob2_zero_mat : forall n, frob2 n zero = 0.
Proof.
  intros n. unfold frob2, zero. cbn [fst snd].
  rewrite (sumN_ext _ (fun _ => 0)); [apply sumN_zero|]. intros a _.
  rewrite (sumN_ext _ (fun _ => 0)); [apply sumN_zero|]. intros b _. ring.
Qed.

Theorem rate_sign : rate_sign_spec.
Proof.
  intros n N K U Hn HN HK HU.
  assert (Hn' : 0 < INR n) by (apply lt_0_INR; lia).
  assert (HN' : 0 < INR N) by (apply lt_0_INR; lia).
  assert (C : 0 < 2 * K / (INR n * INR N)).
  { unfold Rdiv. apply Rmult_lt_0_compat; [lra|]. apply Rinv_0_lt_compat.
    apply Rmult_lt_0_compat; assumption. }
  set (S := fun j => skew (mmul n (adj (U j)) (mean N U))).
  assert (Fj : forall j, (j < N)%nat ->
    meq n (lohe_field n N (all_to_all K N) no_drift U j) (mscal K (mmul n (U j) (S j)))).
  { intros j Hj. destruct (HU j Hj) as [_ H2].
    destruct (gradient_form n N K U j HN H2) as [_ [G _]]. exact G. }
  unfold order_rate. fold S.
  assert (P : forall j, (j < N)%nat -> 0 <= frob2 n (S j)) by (intros; apply frob2_nonneg).
  split; [apply Rmult_le_pos; [lra | apply sumN_nonneg; exact P]|]. split.
  - intros E j Hj. assert (E' : sumN (fun j => frob2 n (S j)) N = 0).
    { apply (Rmult_eq_reg_l (2 * K / (INR n * INR N))); [|lra].
      unfold S. rewrite E. ring. }
    pose proof (frob2_zero n (S j) (sumN_nonneg_zero _ N P E' j Hj)) as Z.
    rewrite (Fj j Hj), Z, mmul_zero_r. intros a b _ _. unfold mscal, zero. simpl.
    f_equal; ring.
  - intros H. rewrite (sumN_ext _ (fun _ => 0)); [rewrite sumN_zero; ring|].
    intros j Hj. destruct (HU j Hj) as [H1 _].
    assert (Z : meq n (S j) zero).
    { assert (Z1 : meq n (mscal (1 / K) (mscal K (mmul n (U j) (S j)))) zero).
      { rewrite <- (Fj j Hj), (H j Hj). intros a b _ _. unfold mscal, zero. simpl.
        f_equal; ring. }
      rewrite mscal_mscal in Z1.
      replace (1 / K * K) with 1 in Z1 by (field; lra).
      assert (Z2 : meq n (mmul n (adj (U j)) (mmul n (U j) (S j))) zero).
      { assert (E1 : meq n (mmul n (U j) (S j)) (mscal 1 (mmul n (U j) (S j))))
          by (intros a b _ _; unfold mscal; apply pair_eq; simpl; ring).
        rewrite E1, Z1, mmul_zero_r. reflexivity. }
      rewrite <- mmul_assoc, H1, mid_mmul in Z2. exact Z2. }
    cbv beta. fold (S j). rewrite (frob2_meq n _ _ Z). apply frob2_zero_mat.
Qed.

(** ** (b) the Frobenius gradient of E *)

Lemma msum_bump : forall n N V j s Z, (j < N)%nat ->
  meq n (msum (bump V j s Z) N) (madd (msum V N) (mscal s Z)).
Proof.
  intros n N V j s Z Hj a b _ _. unfold msum, bump, madd, mscal, csum, cadd; cbn [fst snd].
  apply pair_eq; cbn [fst snd].
  - rewrite <- (sumN_select (fun _ => s * fst (Z a b)) j N Hj), <- sumN_plus.
    apply sumN_ext; intros k _. destruct (Nat.eq_dec k j); simpl; ring.
  - rewrite <- (sumN_select (fun _ => s * snd (Z a b)) j N Hj), <- sumN_plus.
    apply sumN_ext; intros k _. destruct (Nat.eq_dec k j); simpl; ring.
Qed.

Theorem frobenius_gradient : frobenius_gradient_spec.
Proof.
  intros n N V Z j Hj. split.
  2: { rewrite (msum_mean N V) by lia. rewrite mscal_mscal. reflexivity. }
  unfold energy.
  assert (D : mderiv n (fun s => msum (bump V j s Z) N) 0 Z).
  { apply (mderiv_ext n (fun s => madd (msum V N) (mscal s Z))).
    - intros s. symmetry. apply msum_bump, Hj.
    - intros a b _ _. unfold madd, mscal, cadd; cbn [fst snd].
      split; auto_derive; auto; ring. }
  pose proof (mderiv_frob2 n _ 0 Z D) as R. cbv beta in R.
  rewrite (msum_bump n N V j 0 Z Hj) in R.
  replace (madd (msum V N) (mscal 0 Z)) with (msum V N) in R.
  - rewrite adj_mscal, mmul_mscal_l, trace_mscal. exact R.
  - ext. unfold madd, mscal, cadd. apply pair_eq; simpl; ring.
Qed.

(** ** (c) the derivative of R^2 along the flow *)

(** [||skew(U^H M)||_F^2 = (Re tr(M^H M) - Re tr((U^H M)^2)) / 2] when [U U^H = I]. *)
Lemma frob2_skew : forall n U M, meq n (mmul n U (adj U)) mid ->
  frob2 n (skew (mmul n (adj U) M))
  = (fst (trace n (mmul n (adj M) M))
     - fst (trace n (mmul n (mmul n (adj U) M) (mmul n (adj U) M)))) / 2.
Proof.
  intros n U M HU. set (B := mmul n (adj U) M).
  assert (BB : meq n (mmul n (adj B) B) (mmul n (adj M) M)).
  { unfold B. rewrite adj_mmul, adj_adj, mmul_assoc, <- (mmul_assoc n U (adj U)), HU, mid_mmul.
    reflexivity. }
  rewrite frob2_trace. unfold skew.
  rewrite adj_mscal, adj_msub, adj_adj, mmul_mscal_l, mmul_mscal_r, re_tr_mscal, re_tr_mscal,
    mmul_msub_l, !mmul_msub_r, !re_tr_msub.
  rewrite (trace_cyclic n B (adj B)), <- adj_mmul, re_tr_adj, BB. field.
Qed.

(** The drift-carrying field with all-to-all coupling. *)
Lemma field_all : forall n N K W V j,
  lohe_field n N (all_to_all K N) W V j
  = madd (mscal (K / 2) (msub (mean N V) (mmul n (mmul n (V j) (adj (mean N V))) (V j))))
         (mmul n (W j) (V j)).
Proof.
  intros. unfold lohe_field. rewrite pull_all, adj_mscal, mmul_mscal_r, mmul_mscal_l.
  f_equal. ext. unfold msub, madd, mscal, cadd. apply pair_eq; simpl; unfold Rdiv; ring.
Qed.

Lemma mderiv_mean : forall n N K W U t, solves n N K W U t ->
  mderiv n (fun s => mean N (U s)) t (mean N (fun j => lohe_field n N K W (U t) j)).
Proof.
  intros n N K W U t H. unfold mean. apply mderiv_mscal.
  apply (mderiv_msum n N (fun s k => U s k)). intros k Hk. apply solves_mderiv; assumption.
Qed.

Theorem order_derivative : order_derivative_spec.
Proof.
  intros n N K W U t HN HW Hs HU.
  set (M := mean N (U t)).
  pose proof (frob2_deriv n _ t _ (mderiv_mean n N _ _ U t Hs)) as D. fold M in D.
  apply is_derive_Reals. unfold order2.
  apply (is_derive_ext (fun s => / INR n * frob2 n (mean N (U s)))); [intros s; unfold Rdiv; apply Rmult_comm|].
  eapply is_derive_val; [apply (is_derive_scal (fun s => frob2 n (mean N (U s)))); exact D|].
  change (scal (/ INR n) ?x) with (/ INR n * x). cbv beta. fold M.
  assert (HN' : INR N <> 0) by (apply not_0_INR; lia).
  (* the sum of the fields *)
  assert (S : msum (fun j => lohe_field n N (all_to_all K N) (fun _ => W) (U t) j) N
    = madd (msum (fun j => mscal (K / 2) (msub M (mmul n (mmul n (U t j) (adj M)) (U t j)))) N)
           (mscal (INR N) (mmul n W M))).
  { rewrite <- (mmul_mscal_r n (INR N) W M). unfold M. rewrite <- msum_mean by exact HN.
    rewrite mmul_msum_r, <- msum_madd. apply msum_ext. intros j _. apply field_all. }
  unfold mean at 1. rewrite S, mmul_mscal_r, mmul_madd_r, mmul_mscal_r, mmul_msum_r,
    re_tr_mscal, re_tr_madd, re_tr_mscal, re_tr_msum.
  assert (Z : fst (trace n (mmul n (adj M) (mmul n W M))) = 0).
  { apply re_trace_skew. unfold skew_hermitian in *.
    rewrite !adj_mmul, adj_adj, HW, mmul_mscal_r, mmul_mscal_l, mmul_assoc. reflexivity. }
  rewrite Z. unfold order_rate. fold M.
  rewrite (sumN_ext _ (fun j => K / 2 * (fst (trace n (mmul n (adj M) M))
     - fst (trace n (mmul n (mmul n (adj (U t j)) M) (mmul n (adj (U t j)) M)))))).
  2: { intros j Hj. rewrite mmul_mscal_r, mmul_msub_r, re_tr_mscal, re_tr_msub. f_equal. f_equal.
       rewrite <- re_tr_adj, !adj_mmul, adj_adj, !mmul_assoc. reflexivity. }
  rewrite (sumN_ext (fun j => frob2 n (skew (mmul n (adj (U t j)) M)))
    (fun j => / 2 * (fst (trace n (mmul n (adj M) M))
     - fst (trace n (mmul n (mmul n (adj (U t j)) M) (mmul n (adj (U t j)) M)))))).
  2: { intros j Hj. destruct (HU j Hj) as [_ H2]. rewrite frob2_skew by exact H2.
       unfold Rdiv. ring. }
  rewrite !sumN_scal. unfold Rdiv. rewrite Rinv_mult.
  destruct (Req_dec (INR n) 0) as [E | E]; [rewrite E, Rinv_0; ring | field; split; assumption].
Qed.

(** ** (a) the co-rotating frame *)

Lemma pull_mmul : forall n N K F U j,
  pull N K (fun k => mmul n F (U k)) j = mmul n F (pull N K U j).
Proof.
  intros. unfold pull. rewrite mmul_msum_r. apply msum_ext. intros k _.
  rewrite mmul_mscal_r. reflexivity.
Qed.

Theorem corotating : corotating_spec.
Proof.
  intros n N K W F U t HF HF' Hs j Hj. apply has_deriv_mderiv.
  eapply mderiv_meq.
  - apply (mderiv_mmul n F (fun s => U s j)); [apply has_deriv_mderiv; exact HF'|].
    apply (solves_mderiv n N K (fun _ => W)); assumption.
  - unfold lohe_field, no_drift. rewrite pull_mmul, mmul_zero_l.
    set (P := pull N K (U t) j).
    rewrite !adj_mmul, !mmul_madd_r, !mmul_mscal_r, !mmul_msub_r, !mmul_mscal_l, !mmul_assoc.
    rewrite <- (mmul_assoc n (adj (F t)) (F t) (U t j)), HF, mid_mmul.
    unfold zero. lin.
Qed.

Print Assumptions order_invariant.
Print Assumptions gradient_form.
Print Assumptions projection.
Print Assumptions rate_sign.
Print Assumptions frobenius_gradient.
Print Assumptions order_derivative.
Print Assumptions corotating.
