(** * Statement 7: the readout weights are a probability vector, monotone in the alignment

    Informal statement.  For a query [z], anchors [r_j], a mask [mu_j] in
    {0, 1} and an exponent [p >= 1], the unnormalised readout weights are
    [u_j = mu_j max(0, 1 + z.r_j)^p] and the readout is [a_j = u_j / S] with
    [S = sum_j u_j] when [S > 0], else the uniform average over the allowed
    keys, [mu_j / max(1, sum_k mu_k)].  Then
    (i)   every [a_j >= 0], [sum_j a_j = 1], and [a_j = 0] on masked keys (in
          the fallback too, as soon as one key is allowed);
    (ii)  on the allowed keys the weight is monotone in the alignment: if
          [z.r_i <= z.r_j] then [a_i <= a_j];
    (iii) sharpening: for bases [0 < b < b_1] the ratio [(b / b_1)^p] to the
          best anchor strictly decreases as [p] grows.

    Symbol map.
    - library: [syncattn.lohe.readout_kernel] ([u_j = num p k] for the key
      [k = (mu_j, z.r_j)]), [syncattn.lohe.normalize_readout] and
      [syncattn.lohe.readout] ([weight p ks k]: division by [S], uniform
      fallback);
    - sympy proof: [proofs/proof_readout.py] (statement 7), parts (i) and (iii);
      there (i) is checked for n = 5 keys, here for every list of keys.
    - [x^p] for real [p] is [rpow x p]: [Rpower x p = exp(p ln x)] for [x > 0]
      and [0] for [x <= 0] (the library's [0^p = 0], [p >= 1]).

    Assumes: only the standard library's axioms of the real numbers. *)

From Coq Require Import Reals List Lra.
Import ListNotations.
Open Scope R_scope.

Definition sumR (l : list R) : R := fold_right Rplus 0 l.

Definition rpow (x p : R) : R := if Rle_dec x 0 then 0 else Rpower x p.

(** A key: its mask bit and its alignment [z . r_j]. *)
Definition key : Type := (bool * R)%type.

Definition num (p : R) (k : key) : R :=
  if fst k then rpow (Rmax 0 (1 + snd k)) p else 0.

Definition total (p : R) (ks : list key) : R := sumR (map (num p) ks).

Definition allowed (ks : list key) : R :=
  sumR (map (fun k : key => if fst k then 1 else 0) ks).

Definition weight (p : R) (ks : list key) (k : key) : R :=
  if Rlt_dec 0 (total p ks) then num p k / total p ks
  else (if fst k then 1 else 0) / Rmax 1 (allowed ks).

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

(** Main theorem: (i) the readout row is a probability vector, zero on masked
    keys; (ii) it is monotone in the alignment for [p >= 1]; (iii) the ratio to
    the best anchor sharpens as [p] grows. *)
Theorem readout : forall (p : R) (ks : list key),
  1 <= p ->
  (forall k, 0 <= weight p ks k)
  /\ ((exists k, In k ks /\ fst k = true) -> sumR (map (weight p ks) ks) = 1)
  /\ (forall c, weight p ks (false, c) = 0)
  /\ (forall ci cj, ci <= cj -> weight p ks (true, ci) <= weight p ks (true, cj))
  /\ (forall b b1 q, 0 < b -> b < b1 -> p < q -> Rpower (b / b1) q < Rpower (b / b1) p).
Proof.
  intros p ks Hp. split; [|split; [|split; [|split]]].
  - apply weight_nonneg.
  - apply weight_sum.
  - intro c. apply weight_masked. reflexivity.
  - intros ci cj. apply weight_monotone. exact Hp.
  - intros b b1 q. apply ratio_sharpens.
Qed.

Print Assumptions readout.
