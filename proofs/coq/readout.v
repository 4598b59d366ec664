(** * Statement 7: the readout weights (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [readout_spec.v] for any list of keys and any [p]:
    the weights of [syncattn.lohe.readout] are a probability vector, zero on
    masked keys (uniform fallback included); on the sphere the clipping is
    inactive and [p = 1] is the affine readout; the weights are monotone in the
    alignment; the ratio [(b/b_1)^p] to the best anchor strictly decreases in
    [p] and tends to 0; at [z = 0] the numerators are the mask bits.

    The sympy proof [proofs/proof_readout.py] checks (i) for n = 5 keys; here
    it holds for every list of keys.

    Symbol map.  The definitions are those of [readout_spec.v] (read it
    against the library); library: [syncattn.lohe.readout_kernel],
    [syncattn.lohe.normalize_readout], [syncattn.lohe.readout];
    sympy proof: [proofs/proof_readout.py].

    Not formalised: (iii)'s weight of a unique best anchor increasing to 1 and
    the share [1/m] of m tied anchors (sympy, n = 3); (iv) the tensor-power
    features [psi_p(z).psi_p(r) = (1 + z.r)^p] of
    [syncattn.lohe.readout_features] (sympy, d = 2, p <= 3).

    Assumes: only the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core readout_spec.

Lemma rpow_nonneg : forall x p, 0 <= rpow x p.
Proof.
  intros x p. unfold rpow. destruct (Rle_dec x 0); [lra|].
  unfold Rpower. left. apply exp_pos.
Qed.

Lemma rpow_le : forall x y p, 0 < p -> x <= y -> rpow x p <= rpow y p.
Proof.
  intros x y p Hp Hxy. unfold rpow.
  destruct (Rle_dec x 0); destruct (Rle_dec y 0).
  - lra.
  - unfold Rpower. left. apply exp_pos.
  - lra.
  - unfold Rpower. destruct (Rle_lt_or_eq_dec x y Hxy) as [Hlt|Heq].
    + left. apply exp_increasing. apply Rmult_lt_compat_l; [lra|].
      apply ln_increasing; lra.
    + subst. lra.
Qed.

Lemma num_nonneg : forall p k, 0 <= num p k.
Proof. intros p [[|] c]; unfold num; simpl; [apply rpow_nonneg | lra]. Qed.

Lemma sumR_nonneg : forall l, (forall x, In x l -> 0 <= x) -> 0 <= sumR l.
Proof.
  induction l as [| x l IH]; simpl; intros H; [lra|].
  pose proof (H x (or_introl eq_refl)). pose proof (IH (fun y Hy => H y (or_intror Hy))).
  lra.
Qed.

Lemma sumR_div : forall (f : key -> R) S ks,
  sumR (map (fun k => f k / S) ks) = sumR (map f ks) / S.
Proof. intros f S ks. induction ks as [| k ks IH]; simpl; [unfold Rdiv; ring|].
  rewrite IH. unfold Rdiv. ring. Qed.

Lemma weight_nonneg : forall p ks k, 0 <= weight p ks k.
Proof.
  intros p ks k. unfold weight. destruct (Rlt_dec 0 (total p ks)) as [H|H].
  - unfold Rdiv. apply Rmult_le_pos; [apply num_nonneg|].
    left. apply Rinv_0_lt_compat. exact H.
  - unfold Rdiv. apply Rmult_le_pos; [destruct (fst k); lra|].
    left. apply Rinv_0_lt_compat. pose proof (Rmax_l 1 (allowed ks)). lra.
Qed.

Lemma weight_masked : forall p ks k, fst k = false -> weight p ks k = 0.
Proof.
  intros p ks [m c] Hm. simpl in Hm. subst. unfold weight, num; simpl.
  destruct (Rlt_dec _ _); unfold Rdiv; ring.
Qed.

Lemma allowed_ge_1 : forall ks k, In k ks -> fst k = true -> 1 <= allowed ks.
Proof.
  induction ks as [| [m' c'] ks IH]; simpl; intros k Hin Hk; [contradiction|].
  assert (0 <= allowed ks).
  { apply sumR_nonneg. intros x Hx. apply in_map_iff in Hx.
    destruct Hx as [y [<- _]]. destruct (fst y); lra. }
  destruct Hin as [<- | Hin].
  - simpl in Hk. subst m'. unfold allowed in *. simpl. lra.
  - pose proof (IH k Hin Hk). unfold allowed in *. simpl. destruct m'; lra.
Qed.

Lemma weight_sum : forall p ks,
  (exists k, In k ks /\ fst k = true) -> sumR (map (weight p ks) ks) = 1.
Proof.
  intros p ks [k [Hin Hk]]. unfold weight.
  destruct (Rlt_dec 0 (total p ks)) as [H|H].
  - rewrite (sumR_div (num p)). fold (total p ks). field. lra.
  - rewrite (sumR_div (fun k : key => if fst k then 1 else 0)).
    fold (allowed ks). pose proof (allowed_ge_1 ks k Hin Hk).
    rewrite Rmax_right by lra. field. lra.
Qed.

Lemma weight_monotone : forall p ks (ci cj : R),
  1 <= p -> ci <= cj -> weight p ks (true, ci) <= weight p ks (true, cj).
Proof.
  intros p ks ci cj Hp Hc. unfold weight, num; simpl.
  destruct (Rlt_dec 0 (total p ks)) as [H|H]; [|lra].
  unfold Rdiv. apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra|].
  apply rpow_le; [lra|]. apply Rle_max_compat_l. lra.
Qed.

Lemma ratio_sharpens : forall b b1 p q,
  0 < b -> b < b1 -> p < q -> Rpower (b / b1) q < Rpower (b / b1) p.
Proof.
  intros b b1 p q Hb Hbb1 Hpq. unfold Rpower. apply exp_increasing.
  assert (Hr : 0 < b / b1 < 1).
  { split; [unfold Rdiv; apply Rmult_lt_0_compat; [lra|apply Rinv_0_lt_compat; lra]|].
    apply (Rmult_lt_reg_r b1); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l; lra. }
  assert (ln (b / b1) < 0) by (rewrite <- ln_1; apply ln_increasing; lra).
  nra.
Qed.

Theorem readout_nonneg : readout_nonneg_spec.
Proof. exact weight_nonneg. Qed.

Theorem readout : readout_spec.
Proof. exact weight_sum. Qed.

Theorem readout_masked : readout_masked_spec.
Proof. intros p ks c. apply weight_masked. reflexivity. Qed.

Theorem readout_monotone : readout_monotone_spec.
Proof. intros p ks ci cj Hp. apply weight_monotone. exact Hp. Qed.

Theorem readout_sharpens : readout_sharpens_spec.
Proof. exact ratio_sharpens. Qed.

Theorem readout_sphere : readout_sphere_spec.
Proof.
  intros n z r Hz Hr.
  assert (E : 1 + dot n z r = dot n (fun i => z i + r i) (fun i => z i + r i) / 2).
  { unfold dot in *.
    rewrite (sumN_ext (fun i => (z i + r i) * (z i + r i))
                      (fun k => 1 * (z k * z k) + 2 * (z k * r k) + 1 * (r k * r k)))
      by (intros; ring).
    rewrite sumN_lin, Hz, Hr. field. }
  split; [exact E|]. apply Rmax_right. rewrite E.
  pose proof (dot_nonneg n (fun i => z i + r i)). lra.
Qed.

Lemma num_affine : forall k, -1 <= snd k -> num 1 k = affine k.
Proof.
  intros [[|] c] Hc; unfold num, affine; simpl in *; [|reflexivity].
  rewrite Rmax_right by lra. unfold rpow.
  destruct (Rle_dec (1 + c) 0); [lra|]. apply Rpower_1. lra.
Qed.

Theorem readout_affine : readout_affine_spec.
Proof.
  intros ks k Hks Hk Htot. unfold weight.
  destruct (Rlt_dec 0 (total 1 ks)) as [_ | H]; [|lra].
  rewrite num_affine by exact Hk. f_equal. unfold total. f_equal.
  apply map_ext_in. intros k' Hk'. apply num_affine. apply Hks. exact Hk'.
Qed.

Theorem readout_ratio_limit : readout_ratio_limit_spec.
Proof.
  intros b b1 eps Hb Hbb1 Heps.
  assert (Hr : 0 < b / b1 < 1).
  { split; [unfold Rdiv; apply Rmult_lt_0_compat; [lra|apply Rinv_0_lt_compat; lra]|].
    apply (Rmult_lt_reg_r b1); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l; lra. }
  assert (Hl : ln (b / b1) < 0) by (rewrite <- ln_1; apply ln_increasing; lra).
  exists (ln eps / ln (b / b1)). intros p Hp. unfold Rpower. split; [apply exp_pos|].
  rewrite <- (exp_ln eps Heps). apply exp_increasing.
  apply (Rmult_lt_compat_r (- ln (b / b1))) in Hp; [|lra].
  replace (ln eps / ln (b / b1) * - ln (b / b1)) with (- ln eps) in Hp by (field; lra).
  lra.
Qed.

Theorem readout_origin : readout_origin_spec.
Proof.
  intros p [|]; unfold num; simpl; [|reflexivity].
  rewrite Rplus_0_r, Rmax_right by lra. unfold rpow.
  destruct (Rle_dec 1 0); [lra|]. unfold Rpower. rewrite ln_1, Rmult_0_r. apply exp_0.
Qed.

Print Assumptions readout_nonneg.
Print Assumptions readout_masked.
Print Assumptions readout_sphere.
Print Assumptions readout_affine.
Print Assumptions readout_monotone.
Print Assumptions readout_sharpens.
Print Assumptions readout_ratio_limit.
Print Assumptions readout_origin.
Print Assumptions readout.
