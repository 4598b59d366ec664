(** * Statement 24 (proofs/proof_higher_order.py): the Coq proofs *)

From Syncattn Require Import Core higher_order_spec.
Open Scope R_scope.

Lemma sin_triadic : forall aj al x,
  sin (2 * aj - al - x)
  = cos x * (sin (2 * aj) * cos al - cos (2 * aj) * sin al)
    - sin x * (cos (2 * aj) * cos al + sin (2 * aj) * sin al).
Proof.
  intros aj al x. rewrite sin_minus, sin_minus, cos_minus. ring.
Qed.

Lemma inner4 : forall (a b c d : R) (B D : nat -> R) k1 k2 k3 k4 m,
  sumN (fun l => k1 * (a * B l) + k2 * (c * D l) + k3 * (c * B l) + k4 * (a * D l)) m
  = k1 * (a * sumN B m) + k2 * (c * sumN D m) + k3 * (c * sumN B m) + k4 * (a * sumN D m).
Proof.
  intros a b c d B D k1 k2 k3 k4 m. induction m as [| m IH]; simpl; [ring|].
  rewrite IH. ring.
Qed.

Lemma dsum_prod4 : forall (A B C D : nat -> R) k1 k2 k3 k4 n m,
  sumN (fun j => sumN (fun l => k1 * (A j * B l) + k2 * (C j * D l)
                                + k3 * (C j * B l) + k4 * (A j * D l)) m) n
  = k1 * (sumN A n * sumN B m) + k2 * (sumN C n * sumN D m)
    + k3 * (sumN C n * sumN B m) + k4 * (sumN A n * sumN D m).
Proof.
  intros A B C D k1 k2 k3 k4 n m. induction n as [| n IH]; simpl; [ring|].
  rewrite IH, (inner4 (A n) 0 (C n) 0). ring.
Qed.

Theorem triadic_mean_field : triadic_mean_field_spec.
Proof.
  intros a n x. unfold triadic_sum, C1, S1, C2, S2.
  rewrite (sumN_ext _ (fun j => sumN (fun l =>
      cos x * (sin (2 * a j) * cos (a l)) + (- cos x) * (cos (2 * a j) * sin (a l))
      + (- sin x) * (cos (2 * a j) * cos (a l)) + (- sin x) * (sin (2 * a j) * sin (a l))) n)).
  - rewrite (dsum_prod4 (fun j => sin (2 * a j)) (fun l => cos (a l))
                        (fun j => cos (2 * a j)) (fun l => sin (a l))). ring.
  - intros j _. apply sumN_ext. intros l _. rewrite sin_triadic. ring.
Qed.

Theorem oa_modulus : oa_modulus_spec.
Proof.
  intros K1 K2 g [zx zy]. unfold oa_zdot, m2.
  unfold Cconj, Cmult, Cplus, Cminus, Copp, RtoC, Re, Im; simpl. field.
Qed.

Lemma quintic_is_derive : forall K1 K2 g (r : R),
  is_derive (quintic K1 K2 g) r (- / 2 * p K1 K2 g (r ^ 2) - r ^ 2 * dp K1 K2 (r ^ 2)).
Proof.
  intros K1 K2 g r. unfold quintic, p, dp.
  auto_derive; [exact I | field].
Qed.

Theorem quintic_derivative : quintic_derivative_spec.
Proof.
  intros K1 K2 g r. split; [unfold quintic, p; field|]. split.
  - apply is_derive_Reals, quintic_is_derive.
  - apply is_derive_Reals.
    replace (K1 / 2 - g) with (- / 2 * p K1 K2 g (0 ^ 2) - 0 ^ 2 * dp K1 K2 (0 ^ 2))
      by (unfold p, dp; field).
    apply quintic_is_derive.
Qed.

Theorem root_linearisation : root_linearisation_spec.
Proof.
  intros K1 K2 g r Hp. split.
  - apply is_derive_Reals.
    replace (- r ^ 2 * dp K1 K2 (r ^ 2))
      with (- / 2 * p K1 K2 g (r ^ 2) - r ^ 2 * dp K1 K2 (r ^ 2)) by (rewrite Hp; ring).
    apply quintic_is_derive.
  - replace (dp K1 K2 (r ^ 2) ^ 2) with (Delta K1 K2 g + 4 * K2 * p K1 K2 g (r ^ 2))
      by (unfold Delta, p, dp; ring).
    rewrite Hp. ring.
Qed.

Lemma p_at_root_formula : forall K1 K2 g t, K2 <> 0 ->
  p K1 K2 g ((K2 - K1 + t) / (2 * K2)) = (t * t - Delta K1 K2 g) / (4 * K2).
Proof. intros K1 K2 g t HK. unfold p, Delta. field. exact HK. Qed.

Theorem bistable_region : bistable_region_spec.
Proof.
  intros K1 K2 g Hg HK2 Hb Hf um up.
  assert (H8 : 0 <= 8 * g * K2) by nra.
  pose proof (sqrt_pos (8 * g * K2)) as Hq0.
  pose proof (sqrt_sqrt _ H8) as Hq.
  assert (Hsum : 0 < K1 + K2) by lra.
  assert (HD : 0 < Delta K1 K2 g).
  { unfold Delta. nra. }
  set (s := sqrt (Delta K1 K2 g)) in *.
  assert (Hs : s * s = Delta K1 K2 g) by (apply sqrt_sqrt; lra).
  assert (Hs0 : 0 < s) by (apply sqrt_lt_R0; exact HD).
  assert (HK2p : 0 < K2) by lra.
  assert (Hlow : s < K2 - K1).
  { assert (0 < K2 * (2 * g - K1)) by (apply Rmult_lt_0_compat; lra).
    assert (s * s < (K2 - K1) * (K2 - K1)) by (rewrite Hs; unfold Delta; nra).
    destruct (Rlt_le_dec s (K2 - K1)) as [|Hge]; [assumption|].
    assert ((K2 - K1) * (K2 - K1) <= s * s) by (apply Rmult_le_compat; lra). lra. }
  assert (Hhigh : s < K1 + K2).
  { assert (0 < 8 * g * K2) by (apply Rmult_lt_0_compat; lra).
    assert (s * s < (K1 + K2) * (K1 + K2)) by (rewrite Hs; unfold Delta; nra).
    destruct (Rlt_le_dec s (K1 + K2)) as [|Hge]; [assumption|].
    assert ((K1 + K2) * (K1 + K2) <= s * s) by (apply Rmult_le_compat; lra). lra. }
  unfold um, up.
  repeat split.
  - exact HD.
  - apply Rdiv_lt_0_compat; lra.
  - apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat; lra | lra].
  - apply (Rmult_lt_reg_r (2 * K2)); [lra|]. field_simplify; [lra | lra].
  - replace (K2 - K1 - s) with (K2 - K1 + - s) by ring.
    rewrite p_at_root_formula by lra.
    replace (- s * - s) with (s * s) by ring. rewrite Hs. field. lra.
  - rewrite p_at_root_formula by lra. rewrite Hs. field. lra.
  - unfold dp. field_simplify; [lra | lra].
  - unfold dp. field_simplify; [lra | lra].
  - lra.
Qed.

Theorem no_bistability : no_bistability_spec.
Proof.
  intros K1 K2 g u Hg HK0 HK2 HK1 Hu0 Hu1. unfold p.
  replace (K2 * u ^ 2 + (K1 - K2) * u + 2 * g - K1)
    with ((u - 1) * (K2 * u + K1) + 2 * g) by ring.
  destruct (Rle_lt_dec (K2 * u + K1) 0) as [Hn | Hpos].
  - nra.
  - assert (K2 * u + K1 <= 2 * g * u + 2 * g) by nra.
    assert ((1 - u) * (K2 * u + K1) <= (1 - u) * (2 * g * u + 2 * g)) by nra.
    assert ((1 - u) * (2 * g * u + 2 * g) = 2 * g - 2 * (g * (u * u))) by ring.
    assert (0 < g * (u * u)) by (apply Rmult_lt_0_compat; nra).
    lra.
Qed.

Theorem abrupt_transition : abrupt_transition_spec.
Proof.
  intros K2 g Hg HK2.
  assert (HK : 0 < K2) by lra.
  split.
  - unfold p, dp. repeat split.
    + field. lra.
    + field. lra.
    + apply (Rmult_lt_reg_r K2); [exact HK|]. field_simplify; lra.
  - set (t := 2 * g / K2).
    assert (Ht0 : 0 <= t) by (unfold t; apply Rle_mult_inv_pos; lra).
    assert (Ht1 : t < 1) by (unfold t; apply (Rmult_lt_reg_r K2); [exact HK|]; field_simplify; lra).
    set (q := sqrt t).
    assert (Hq : q * q = t) by (apply sqrt_sqrt; exact Ht0).
    assert (Hq0 : 0 <= q) by apply sqrt_pos.
    assert (Hgq : g = K2 * (q * q) / 2) by (rewrite Hq; unfold t; field; lra).
    assert (H8 : sqrt (8 * g * K2) = 2 * K2 * q).
    { rewrite <- (sqrt_square (2 * K2 * q)) by nra. f_equal. rewrite Hgq. field. }
    rewrite H8. cbv zeta.
    assert (Hq1 : q < 1) by nra.
    unfold Delta, p, dp. rewrite Hgq. repeat split; try ring; lra.
Qed.

Print Assumptions triadic_mean_field.
Print Assumptions oa_modulus.
Print Assumptions quintic_derivative.
Print Assumptions root_linearisation.
Print Assumptions bistable_region.
Print Assumptions no_bistability.
Print Assumptions abrupt_transition.
