(** * Statement 19: complete synchronisation of identical Lohe matrix oscillators below D = N/(N-1)

    Informal statement.  For [V_j' = K/2 (M - V_j M^H V_j)] (the co-rotating frame
    of statement 18), [D = max_ij ||V_i - V_j||_F], [c = (N-1)/N]: if
    [D(0) < N/(N-1)] then [D(t) <= D0 e^{-Kt} / (1 - c D0 + c D0 e^{-Kt})
    <= D0/(1 - c D0) e^{-Kt}]; the rate [K] is that of the linearisation; at
    [N = 2] the hypothesis is sharp.

    Proved here, for every [n] (complex matrices as pairs of reals):
    (1) the pair identity [V_i M^H V_i - V_j M^H V_j = Delta M^H V_i + V_j M^H Delta];
    (2) [M^H V_i = I + E_i^H V_i], [V_j M^H = I + V_j E_j^H] on the group, and
        along every solution of the co-rotating flow
        [d||Delta||^2/dt = -2K ||Delta||^2 - K Re[tr(Delta^H Delta E_i^H V_i)
        + tr(Delta Delta^H V_j E_j^H)]];
    (4) the bound solves the logistic equation [y' = -K y (1 - c y)], starts at
        [D0], and is below [D0/(1 - c D0) e^{-Kt}]; the linearisation
        [xi_j' = K (mean xi - xi_j)] has eigenvalue [-K] on zero-mean deviations
        and [0] on common shifts;
    (5) at [N = 2], [I] and [diag(-1, 1, ..., 1)] are unitary, at distance
        [2 = N/(N-1)], and an equilibrium: the constant curve solves the flow.

    Symbol map.
    - library: [syncattn.lohe.matrix_sync_bound] ([sync_bound]),
      [syncattn.lohe.matrix_sync_threshold] ([1 / sync_c]),
      [syncattn.lohe.matrix_vector_field] ([lohe_field]);
    - sympy proof: [proofs/proof_matrix_sync.py] (statement 19).

    Not formalised: the trace inequality (3), hence the differential inequality
    for [||Delta||^2], and the comparison (Dini derivative) argument that gives
    [D(t) <= y(t)]; they are written out in the proof module and checked
    numerically.

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core matrix_sync_spec matrix_lohe matrix_gradient.
From Coq Require Import Setoid Morphisms FunctionalExtensionality.
Open Scope R_scope.

Theorem pair_identity : pair_identity_spec.
Proof.
  intros n Vi Vj Mh.
  rewrite !mmul_msub_l, !mmul_msub_r. lin.
Qed.

Theorem deviation : deviation_spec.
Proof.
  intros n M Vi Vj. split; intros H.
  - rewrite adj_msub, mmul_msub_l, H. lin.
  - rewrite adj_msub, mmul_msub_r, H. lin.
Qed.

Theorem linearisation : linearisation_spec.
Proof.
  intros N K xi HN. assert (0 < INR N) by (apply lt_0_INR; lia). split.
  - intros S j. unfold linearised. rewrite S. field. lra.
  - intros c. apply functional_extensionality. intros j. unfold linearised.
    rewrite (sumN_ext _ (fun _ => c * 1)) by (intros; ring). rewrite sumN_scal.
    replace (sumN (fun _ => 1) N) with (INR N).
    + field. lra.
    + clear. induction N as [| N IH]; [reflexivity|]. rewrite S_INR. simpl. rewrite IH. ring.
Qed.

Theorem logistic : logistic_spec.
Proof.
  intros D0 K N t HN HK HD Hc Ht.
  assert (HN' : 0 < INR N) by (apply lt_0_INR; lia).
  assert (Hc0 : 0 <= sync_c N).
  { unfold sync_c. apply Rmult_le_pos; [|left; apply Rinv_0_lt_compat; lra].
    assert (1 <= INR N) by (apply (le_INR 1); lia). lra. }
  assert (He : 0 < exp (- K * t)) by apply exp_pos.
  assert (He1 : exp (- K * t) <= 1).
  { rewrite <- exp_0. destruct (Req_dec t 0) as [-> | Hne]; [rewrite Rmult_0_r; lra|].
    left. apply exp_increasing. nra. }
  set (c := sync_c N). fold c in Hc, Hc0.
  assert (Hden : 0 < 1 - c * D0 + c * D0 * exp (- K * t)).
  { pose proof (Rmult_le_pos _ _ Hc0 HD). nra. }
  split; [|split].
  - unfold sync_bound. fold c. apply is_derive_Reals. auto_derive.
    + repeat split. lra.
    + field. lra.
  - unfold sync_bound. fold c. rewrite Rmult_0_r, exp_0. field; lra.
  - unfold sync_bound. fold c.
    replace (D0 / (1 - c * D0) * exp (- K * t)) with (D0 * exp (- K * t) / (1 - c * D0))
      by (field; lra).
    unfold Rdiv. apply Rmult_le_compat_l; [nra|]. apply Rinv_le_contravar; [lra|].
    pose proof (Rmult_le_pos _ _ Hc0 HD). nra.
Qed.

(** ** (2) the derivative of ||Delta||^2 along the flow *)

Lemma dpl_val : forall f x l l', derivable_pt_lim f x l -> l = l' -> derivable_pt_lim f x l'.
Proof. intros f x l l' H <-. exact H. Qed.

Theorem pair_derivative : pair_derivative_spec.
Proof.
  intros n N K V t i j Hi Hj Hs HVi HVj.
  set (D := delta (V t) i j). set (M := mean N (V t)).
  set (Ei := dev N (V t) i). set (Ej := dev N (V t) j).
  assert (F : meq n (msub (lohe_field n N (all_to_all K N) no_drift (V t) i)
                          (lohe_field n N (all_to_all K N) no_drift (V t) j))
     (mscal (- (K / 2)) (madd (mscal 2 D) (madd (mmul n D (mmul n (adj Ei) (V t i)))
                                                 (mmul n (mmul n (V t j) (adj Ej)) D))))).
  { rewrite !field_no_drift. fold M.
    assert (P := pair_identity n (V t i) (V t j) (adj M)).
    destruct (deviation n M (V t i) (V t j)) as [Di Dj].
    assert (Q : meq n (msub (mmul n (mmul n (V t i) (adj M)) (V t i))
                            (mmul n (mmul n (V t j) (adj M)) (V t j)))
                  (madd (mscal 2 D) (madd (mmul n D (mmul n (adj Ei) (V t i)))
                                           (mmul n (mmul n (V t j) (adj Ej)) D)))).
    { rewrite P. fold D. rewrite mmul_assoc, (Di HVi), (Dj HVj), mmul_madd_r, mmul_madd_l,
        mid_mmul, mmul_mid. unfold Ei, Ej, dev, D, delta, M. lin. }
    transitivity (mscal (K / 2) (mscal (-1) (msub (mmul n (mmul n (V t i) (adj M)) (V t i))
                            (mmul n (mmul n (V t j) (adj M)) (V t j))))); [lin|].
    rewrite Q. lin. }
  assert (Dd : mderiv n (fun s => delta (V s) i j) t
     (mscal (- (K / 2)) (madd (mscal 2 D) (madd (mmul n D (mmul n (adj Ei) (V t i)))
                                                 (mmul n (mmul n (V t j) (adj Ej)) D))))).
  { eapply mderiv_meq; [|exact F]. unfold delta.
    apply mderiv_msub; apply solves_mderiv; assumption. }
  eapply dpl_val; [exact (mderiv_frob2 n _ t _ Dd)|]. cbv beta. fold D.
  rewrite mmul_mscal_r, re_tr_mscal, !mmul_madd_r, !re_tr_madd, mmul_mscal_r, re_tr_mscal,
    <- frob2_trace, <- !mmul_assoc.
  rewrite (trace_cyclic n (mmul n (mmul n (adj D) (V t j)) (adj Ej)) D).
  rewrite <- !mmul_assoc. field.
Qed.

(** ** (5) the antipodal pair at N = 2 *)

Definition diagm (d : nat -> R) : cmat := fun a b => if Nat.eq_dec a b then (d a, 0) else (0, 0).

Lemma diagm_mmul : forall n d e, meq n (mmul n (diagm d) (diagm e)) (diagm (fun a => d a * e a)).
Proof.
  intros n d e a b Ha Hb. unfold mmul, diagm, csum. apply pair_eq; cbn [fst snd].
  - destruct (Nat.eq_dec a b) as [<- | Hne]; cbn [fst].
    + rewrite <- (sumN_select (fun _ => d a * e a) a n Ha). apply sumN_ext; intros c _.
      destruct (Nat.eq_dec a c), (Nat.eq_dec c a); subst; cbn [fst snd cmul]; try ring; congruence.
    + rewrite (sumN_ext _ (fun _ => 0)); [apply sumN_zero|]. intros c _.
      destruct (Nat.eq_dec a c), (Nat.eq_dec c b); subst; cbn [fst snd cmul]; try ring; congruence.
  - destruct (Nat.eq_dec a b); cbn [snd];
      (rewrite (sumN_ext _ (fun _ => 0)); [apply sumN_zero|]); intros c _;
      destruct (Nat.eq_dec a c), (Nat.eq_dec c b); cbn [fst snd cmul]; ring.
Qed.

Lemma diagm_adj : forall d, adj (diagm d) = diagm d.
Proof.
  intros d. ext. unfold adj, diagm, cconj.
  destruct (Nat.eq_dec b a), (Nat.eq_dec a b); subst; try congruence; apply pair_eq; simpl; ring.
Qed.

Lemma diagm_ext : forall n d e, (forall a, d a = e a) -> meq n (diagm d) (diagm e).
Proof. intros n d e H a b _ _. unfold diagm. rewrite H. reflexivity. Qed.

Definition sgn0 (a : nat) : R := if Nat.eq_dec a 0 then -1 else 1.

Lemma mid_diagm : mid = diagm (fun _ => 1).
Proof. ext. unfold mid, diagm. destruct (Nat.eq_dec a b); reflexivity. Qed.

Lemma antipode_diagm : antipode = diagm sgn0.
Proof.
  ext. unfold antipode, diagm, sgn0. destruct (Nat.eq_dec a b); [|reflexivity].
  destruct (Nat.eq_dec a 0); reflexivity.
Qed.

Lemma sgn0_sq : forall a, sgn0 a * sgn0 a = 1.
Proof. intros a. unfold sgn0. destruct (Nat.eq_dec a 0); ring. Qed.

Lemma pair_diagm : forall k, (k < 2)%nat -> exists e, antipodal_pair k = diagm e /\ forall a, e a * e a = 1.
Proof.
  intros k Hk. unfold antipodal_pair. destruct (Nat.eq_dec k 0).
  - exists (fun _ => 1). split; [apply mid_diagm | intros; ring].
  - exists sgn0. split; [apply antipode_diagm | apply sgn0_sq].
Qed.

Lemma mean_pair : mean 2 antipodal_pair = diagm (fun a => (1 + sgn0 a) / 2).
Proof.
  ext. unfold mean, msum, antipodal_pair, mscal, csum. rewrite mid_diagm, antipode_diagm.
  cbn [sumN]. destruct (Nat.eq_dec 0 0); [|congruence]. destruct (Nat.eq_dec 1 0); [discriminate|].
  unfold diagm. destruct (Nat.eq_dec a b); apply pair_eq; cbn [fst snd]; simpl; field.
Qed.

Theorem antipodal : antipodal_spec.
Proof.
  intros n K Hn. split; [|split].
  - intros k Hk. destruct (pair_diagm k Hk) as [e [-> He]]. unfold unitary. rewrite diagm_adj.
    split; rewrite diagm_mmul, mid_diagm; apply diagm_ext; exact He.
  - replace (frob2 n (delta antipodal_pair 0 1)) with 4.
    + unfold sync_c. replace 4 with (2 * 2) by ring. rewrite sqrt_square by lra. simpl. field.
    + unfold frob2, delta, antipodal_pair. cbn. rewrite mid_diagm, antipode_diagm.
      rewrite <- (sumN_select (fun _ => 4) 0 n Hn). apply sumN_ext; intros a Ha.
      rewrite <- (sumN_select (fun _ => if Nat.eq_dec a 0 then 4 else 0) a n Ha).
      apply sumN_ext; intros b _. unfold msub, madd, mscal, diagm, cadd, sgn0.
      destruct (Nat.eq_dec b a), (Nat.eq_dec a b), (Nat.eq_dec a 0); subst; try congruence;
        cbn [fst snd]; ring.
  - intros t j Hj. apply has_deriv_mderiv.
    eapply mderiv_meq; [apply mderiv_const|].
    rewrite field_no_drift, mean_pair. destruct (pair_diagm j Hj) as [e [-> He]].
    rewrite diagm_adj, !diagm_mmul.
    assert (E : meq n (diagm (fun a => e a * ((1 + sgn0 a) / 2) * e a))
                      (diagm (fun a => (1 + sgn0 a) / 2))).
    { apply diagm_ext. intros a. transitivity (e a * e a * ((1 + sgn0 a) / 2)); [ring | rewrite He; ring]. }
    rewrite E. intros a b _ _. unfold mscal, msub, madd, cadd. apply pair_eq; simpl; ring.
Qed.

(** ** (3) the bound on E_i: the triangle inequality for the Frobenius norm *)

Lemma frob2_madd : forall n X Y,
  frob2 n (madd X Y) = frob2 n X + 2 * fst (trace n (mmul n (adj X) Y)) + frob2 n Y.
Proof.
  intros. unfold frob2, trace, mmul, csum, adj, madd, cadd, cmul, cconj; cbn [fst snd].
  rewrite (sumN_swap (fun a c => fst (X c a) * fst (Y c a) - - snd (X c a) * snd (Y c a))).
  rewrite <- sumN_scal, <- !sumN_plus.
  apply sumN_ext; intros a _. rewrite <- sumN_scal, <- !sumN_plus.
  apply sumN_ext; intros b _. simpl. ring.
Qed.

Lemma frob2_mscal : forall n r X, frob2 n (mscal r X) = r ^ 2 * frob2 n X.
Proof.
  intros. unfold frob2, mscal; cbn [fst snd]. rewrite <- sumN_scal. apply sumN_ext; intros.
  rewrite <- sumN_scal. apply sumN_ext; intros. ring.
Qed.

Lemma re_inner_zero : forall n X Y, frob2 n X = 0 -> fst (trace n (mmul n (adj X) Y)) = 0.
Proof.
  intros n X Y H. pose proof (frob2_zero n X H) as Z.
  rewrite Z. replace (adj zero) with zero by (ext; unfold adj, zero, cconj; apply pair_eq; simpl; ring).
  rewrite mmul_zero_l. unfold trace, csum. simpl. apply sumN_zero.
Qed.

Lemma cauchy_schwarz : forall n X Y,
  fst (trace n (mmul n (adj X) Y)) <= frob n X * frob n Y.
Proof.
  intros n X Y. unfold frob.
  set (a := sqrt (frob2 n X)). set (b := sqrt (frob2 n Y)).
  assert (Ha : 0 <= a) by apply sqrt_pos. assert (Hb : 0 <= b) by apply sqrt_pos.
  assert (Ea : a * a = frob2 n X) by (apply sqrt_sqrt, frob2_nonneg).
  assert (Eb : b * b = frob2 n Y) by (apply sqrt_sqrt, frob2_nonneg).
  destruct (Req_dec a 0) as [Za | Za].
  { rewrite re_inner_zero; [rewrite Za; lra | rewrite <- Ea, Za; ring]. }
  destruct (Req_dec b 0) as [Zb | Zb].
  { rewrite <- re_tr_adj, adj_mmul, adj_adj.
    rewrite re_inner_zero; [rewrite Zb; lra | rewrite <- Eb, Zb; ring]. }
  pose proof (neg_re_tr_le n (mscal (- b) X) (mscal a Y)) as L.
  rewrite adj_mscal, mmul_mscal_l, mmul_mscal_r, !re_tr_mscal, !frob2_mscal in L.
  rewrite <- Ea, <- Eb in L.
  assert (P : 0 < a * b) by (apply Rmult_lt_0_compat; lra).
  apply (Rmult_le_reg_l (a * b)); [exact P|]. nra.
Qed.

Lemma frob_triangle : forall n X Y, frob n (madd X Y) <= frob n X + frob n Y.
Proof.
  intros n X Y. unfold frob at 1. rewrite <- (sqrt_square (frob n X + frob n Y)).
  2: { unfold frob. pose proof (sqrt_pos (frob2 n X)). pose proof (sqrt_pos (frob2 n Y)). lra. }
  apply sqrt_le_1; [apply frob2_nonneg | apply Rle_0_sqr |].
  rewrite frob2_madd. pose proof (cauchy_schwarz n X Y) as C. unfold frob in *.
  rewrite <- (sqrt_sqrt (frob2 n X)) at 1 by apply frob2_nonneg.
  rewrite <- (sqrt_sqrt (frob2 n Y)) at 1 by apply frob2_nonneg.
  unfold Rsqr. nra.
Qed.

Lemma frob_msum : forall n F N, frob n (msum F N) <= sumN (fun k => frob n (F k)) N.
Proof.
  intros n F N. induction N as [| N IH].
  - unfold frob, msum, csum. simpl. rewrite frob2_zero_meq; [rewrite sqrt_0; lra|].
    intros a b _ _. reflexivity.
  - replace (msum F (S N)) with (madd (msum F N) (F N)) by (ext; reflexivity).
    simpl sumN. eapply Rle_trans; [apply frob_triangle|]. lra.
Qed.

Lemma frob_mscal : forall n r X, 0 <= r -> frob n (mscal r X) = r * frob n X.
Proof.
  intros. unfold frob. rewrite frob2_mscal, sqrt_mult_alt by (apply pow2_ge_0).
  rewrite <- (Rsqr_pow2), sqrt_Rsqr by assumption. reflexivity.
Qed.

Lemma dev_sum : forall N V i, (0 < N)%nat ->
  dev N V i = mscal (1 / INR N) (msum (fun k => delta V k i) N).
Proof.
  intros N V i HN. assert (INR N <> 0) by (apply not_0_INR; lia).
  unfold dev, delta, mean. rewrite msum_msub. ext.
  unfold msub, madd, mscal, msum, csum, cadd; cbn [fst snd].
  rewrite !sumN_const. apply pair_eq; simpl; field; assumption.
Qed.

Theorem deviation_bound : deviation_bound_spec.
Proof.
  intros n N V D i HN Hi HD. assert (HN' : 0 < INR N) by (apply lt_0_INR; lia).
  rewrite dev_sum by exact HN. rewrite frob_mscal by (unfold Rdiv; rewrite Rmult_1_l;
    left; apply Rinv_0_lt_compat; exact HN').
  eapply Rle_trans; [apply Rmult_le_compat_l; [unfold Rdiv; rewrite Rmult_1_l;
    left; apply Rinv_0_lt_compat; exact HN' | apply frob_msum]|].
  assert (S : sumN (fun k => frob n (delta V k i)) N <= sumN (fun k => D - (if Nat.eq_dec k i then D else 0)) N).
  { apply sumN_le; intros k Hk. destruct (Nat.eq_dec k i) as [-> | _].
    - unfold frob. rewrite frob2_zero_meq; [rewrite sqrt_0; lra|].
      intros a b _ _. unfold delta, msub, madd, mscal, cadd. apply pair_eq; simpl; ring.
    - rewrite Rminus_0_r. apply HD; assumption. }
  rewrite (sumN_ext (fun k => D - _) (fun k => 1 * D + (-1) * (if Nat.eq_dec k i then D else 0)))
    in S by (intros; ring).
  rewrite sumN_plus, sumN_scal, sumN_scal, sumN_select, sumN_const in S by exact Hi.
  unfold sync_c. apply (Rmult_le_reg_l (INR N)); [exact HN'|].
  replace (INR N * (1 / INR N * sumN (fun k => frob n (delta V k i)) N))
    with (sumN (fun k => frob n (delta V k i)) N) by (field; lra).
  replace (INR N * ((INR N - 1) / INR N * D)) with ((INR N - 1) * D) by (field; lra).
  lra.
Qed.

Print Assumptions pair_identity.
Print Assumptions deviation.
Print Assumptions linearisation.
Print Assumptions logistic.
Print Assumptions pair_derivative.
Print Assumptions antipodal.
Print Assumptions deviation_bound.
