(** * Statement 3: entropic selection (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [entropic_selection_spec.v]: on the simplex (any n),
    (a) [<a, s> + tau H(a) <= tau ln Z], (b) with equality iff
    [a = softmax(s / tau)], (c) the softmax lies in the open simplex and (d) its
    objective is [tau ln Z] ([syncattn.entropic.gibbs],
    [syncattn.entropic.objective]).

    Symbol map.  The definitions are those of [entropic_selection_spec.v] (read it
    against the library); library: [syncattn.entropic.gibbs],
    [syncattn.entropic.objective];
    sympy proof: [proofs/proof_entropic_selection.py].

    Proof idea: Gibbs' inequality from [ln x <= x - 1], with equality only at
    [x = 1], term by term, summed over the list (the sympy proof
    [proofs/proof_entropic_selection.py] checks the Gibbs identity for the
    generic term and the sign of [x - 1 - ln x]; here the inequality and its
    equality case are derived for every n).

    Not formalised: the KKT stationarity and the Hessian of the sympy proof
    (another route to the same maximiser, not claims of the statement).

    Assumes: only the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core entropic_selection_spec.

(** [ln x <= x - 1], with equality only at [x = 1]. *)
Lemma ln_le_x_minus_1 : forall x, 0 < x -> ln x <= x - 1.
Proof.
  intros x Hx. pose proof (exp_ineq1_le (ln x)) as H. rewrite exp_ln in H; lra.
Qed.

Lemma ln_lt_x_minus_1 : forall x, 0 < x -> x <> 1 -> ln x < x - 1.
Proof.
  intros x Hx Hne. assert (ln x <> 0).
  { intro H0. apply Hne. rewrite <- (exp_ln x Hx), H0. apply exp_0. }
  pose proof (exp_ineq1 (ln x) H) as H1. rewrite exp_ln in H1; lra.
Qed.

Lemma ln_div : forall x y, 0 < x -> 0 < y -> ln (x / y) = ln x - ln y.
Proof.
  intros x y Hx Hy. unfold Rdiv. rewrite ln_mult, ln_Rinv; [ring | lra | lra |].
  apply Rinv_0_lt_compat; lra.
Qed.

Lemma partition_pos : forall tau l, l <> nil -> 0 < partition tau l.
Proof.
  intros tau l. unfold partition. induction l as [| p l IH]; intros Hne; [congruence|].
  simpl. destruct l as [| q l].
  - simpl. pose proof (exp_pos (snd p / tau)). lra.
  - pose proof (exp_pos (snd p / tau)). assert (0 < sumR (map (fun p => exp (snd p / tau)) (q :: l))).
    { apply IH. discriminate. }
    lra.
Qed.

(** The gap of one term: [tau ln Z a_i - (a_i s_i - tau a_i ln a_i)]. *)
Definition gap (tau Z : R) (p : R * R) : R :=
  tau * (fst p * ln Z) - (fst p * snd p - tau * (fst p * ln (fst p))).

(** Each gap is at least [tau (a_i - a*_i)]... with the sign that sums to 0. *)
Lemma gap_bound : forall tau Z p, 0 < tau -> 0 < Z -> 0 <= fst p ->
  tau * (fst p - softmax_i tau Z (snd p)) <= gap tau Z p.
Proof.
  intros tau Z [a s] Ht HZ Ha. unfold gap, softmax_i; simpl.
  assert (Hs : 0 < exp (s / tau) / Z) by (unfold Rdiv; apply Rmult_lt_0_compat;
    [apply exp_pos | apply Rinv_0_lt_compat; lra]).
  destruct (Rle_lt_or_eq_dec 0 a Ha) as [Hpos | <-].
  - (* a ln(a* / a) <= a* - a *)
    pose proof (ln_le_x_minus_1 (exp (s / tau) / Z / a)) as H.
    assert (Hq : 0 < exp (s / tau) / Z / a) by (unfold Rdiv at 1; apply Rmult_lt_0_compat;
      [exact Hs | apply Rinv_0_lt_compat; lra]).
    specialize (H Hq).
    rewrite ln_div, ln_div, ln_exp in H by (try apply exp_pos; lra).
    assert (a * (s / tau - ln Z - ln a) <= exp (s / tau) / Z - a).
    { apply (Rmult_le_compat_l a) in H; [|lra].
      replace (a * (exp (s / tau) / Z / a - 1)) with (exp (s / tau) / Z - a) in H
        by (field; lra). exact H. }
    apply (Rmult_le_compat_l tau) in H0; [|lra].
    replace (tau * (a * (s / tau - ln Z - ln a))) with (a * s - tau * (a * ln Z) - tau * (a * ln a))
      in H0 by (field; lra).
    lra.
  - replace (tau * (0 * ln Z) - (0 * s - tau * (0 * ln 0))) with 0 by ring. nra.
Qed.

(** Equality in [gap_bound] forces [a_i = a*_i]. *)
Lemma gap_tight : forall tau Z p, 0 < tau -> 0 < Z -> 0 <= fst p ->
  gap tau Z p = tau * (fst p - softmax_i tau Z (snd p)) -> fst p = softmax_i tau Z (snd p).
Proof.
  intros tau Z [a s] Ht HZ Ha Heq. unfold gap, softmax_i in *; simpl in *.
  assert (Hs : 0 < exp (s / tau) / Z) by (unfold Rdiv; apply Rmult_lt_0_compat;
    [apply exp_pos | apply Rinv_0_lt_compat; lra]).
  destruct (Rle_lt_or_eq_dec 0 a Ha) as [Hpos | <-].
  - destruct (Req_dec (exp (s / tau) / Z / a) 1) as [H1 | H1].
    + apply (f_equal (fun x => x * a)) in H1. unfold Rdiv in H1 at 1.
      rewrite Rmult_assoc, Rinv_l, Rmult_1_r, Rmult_1_l in H1 by lra. lra.
    + exfalso.
      assert (Hq : 0 < exp (s / tau) / Z / a) by (unfold Rdiv at 1; apply Rmult_lt_0_compat;
        [exact Hs | apply Rinv_0_lt_compat; lra]).
      pose proof (ln_lt_x_minus_1 _ Hq H1) as H.
      rewrite ln_div, ln_div, ln_exp in H by (try apply exp_pos; lra).
      apply (Rmult_lt_compat_l a) in H; [|lra].
      replace (a * (exp (s / tau) / Z / a - 1)) with (exp (s / tau) / Z - a) in H
        by (field; lra).
      apply (Rmult_lt_compat_l tau) in H; [|lra].
      replace (tau * (a * (s / tau - ln Z - ln a))) with (a * s - tau * (a * ln Z) - tau * (a * ln a))
        in H by (field; lra).
      lra.
  - exfalso. replace (tau * (0 * ln Z) - (0 * s - tau * (0 * ln 0))) with 0 in Heq by ring.
    nra.
Qed.

Lemma sumR_map_le : forall (f g : R * R -> R) l,
  (forall p, In p l -> f p <= g p) -> sumR (map f l) <= sumR (map g l).
Proof.
  intros f g l. induction l as [| p l IH]; simpl; intros H; [lra|].
  pose proof (H p (or_introl eq_refl)). pose proof (IH (fun q Hq => H q (or_intror Hq))). lra.
Qed.

Lemma sumR_map_eq : forall (f g : R * R -> R) l,
  (forall p, In p l -> f p <= g p) -> sumR (map f l) = sumR (map g l) ->
  forall p, In p l -> f p = g p.
Proof.
  intros f g l. induction l as [| q l IH]; simpl; intros H Hs p Hp; [contradiction|].
  pose proof (H q (or_introl eq_refl)).
  pose proof (sumR_map_le f g l (fun r Hr => H r (or_intror Hr))).
  destruct Hp as [<- | Hp]; [lra|].
  apply IH; [intros r Hr; apply H; right; exact Hr | lra | exact Hp].
Qed.

Lemma sumR_lin : forall (f : R * R -> R) (c : R) (g : R * R -> R) l,
  sumR (map (fun p => c * (f p - g p)) l) = c * (sumR (map f l) - sumR (map g l)).
Proof. intros f c g l. induction l as [| p l IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sumR_gap : forall tau Z l,
  sumR (map (gap tau Z) l) = tau * (ln Z * sumR (map fst l)) - objective tau l.
Proof.
  intros tau Z l. unfold objective, gap. induction l as [| p l IH]; simpl; [ring|].
  rewrite IH. ring.
Qed.

Lemma softmax_sum : forall tau l, l <> nil ->
  sumR (map (fun p => softmax_i tau (partition tau l) (snd p)) l) = 1.
Proof.
  intros tau l Hne. pose proof (partition_pos tau l Hne) as HZ.
  unfold softmax_i.
  assert (forall Z, sumR (map (fun p => exp (snd p / tau) / Z) l) = partition tau l / Z) as H.
  { intro Z. unfold partition. clear Hne HZ. induction l as [| p l IH]; simpl;
      [unfold Rdiv; ring|].
    rewrite IH. unfold Rdiv. ring. }
  rewrite H. field. lra.
Qed.

Lemma objective_softmax : forall tau (l : list (R * R)) (Z : R), 0 < tau -> 0 < Z ->
  sumR (map (fun p : R * R => fst p * snd p - tau * (fst p * ln (fst p)))
     (map (fun p : R * R => (softmax_i tau Z (snd p), snd p)) l))
  = tau * (ln Z * sumR (map (fun p : R * R => softmax_i tau Z (snd p)) l)).
Proof.
  intros tau l Z Ht HZ. rewrite map_map.
  induction l as [| [a s] l IH]; simpl; [ring|]. simpl in IH. rewrite IH.
  unfold softmax_i. rewrite ln_div, ln_exp by (try apply exp_pos; lra).
  field. lra.
Qed.

Theorem entropic_bound : entropic_bound_spec.
Proof.
  intros tau l Ht [Hnn Hsum]. set (Z := partition tau l).
  assert (Hne : l <> nil) by (intro E; subst; simpl in Hsum; lra).
  assert (HZ : 0 < Z) by (apply partition_pos; exact Hne).
  assert (Hsoft : sumR (map (fun p => softmax_i tau Z (snd p)) l) = 1)
    by (apply softmax_sum; exact Hne).
  assert (Hlow : forall p, In p l -> tau * (fst p - softmax_i tau Z (snd p)) <= gap tau Z p)
    by (intros p Hp; apply gap_bound; auto).
  assert (Hzero : sumR (map (fun p => tau * (fst p - softmax_i tau Z (snd p))) l) = 0).
  { rewrite (sumR_lin fst tau (fun p => softmax_i tau Z (snd p))). rewrite Hsum, Hsoft. ring. }
  pose proof (sumR_map_le _ _ l Hlow) as Hle.
  rewrite Hzero, sumR_gap, Hsum in Hle. lra.
Qed.

Theorem entropic_selection : entropic_selection_spec.
Proof.
  intros tau l Ht [Hnn Hsum]. set (Z := partition tau l).
  assert (Hne : l <> nil) by (intro E; subst; simpl in Hsum; lra).
  assert (HZ : 0 < Z) by (apply partition_pos; exact Hne).
  assert (Hsoft : sumR (map (fun p => softmax_i tau Z (snd p)) l) = 1)
    by (apply softmax_sum; exact Hne).
  assert (Hlow : forall p, In p l -> tau * (fst p - softmax_i tau Z (snd p)) <= gap tau Z p)
    by (intros p Hp; apply gap_bound; auto).
  assert (Hzero : sumR (map (fun p => tau * (fst p - softmax_i tau Z (snd p))) l) = 0).
  { rewrite (sumR_lin fst tau (fun p => softmax_i tau Z (snd p))). rewrite Hsum, Hsoft. ring. }
  split.
  - intros Heq p Hp. apply gap_tight; auto. symmetry.
    apply (sumR_map_eq (fun p => tau * (fst p - softmax_i tau Z (snd p))) (gap tau Z) l Hlow);
      [|exact Hp].
    rewrite Hzero, sumR_gap, Hsum. lra.
  - intros Hall.
    assert (sumR (map (gap tau Z) l) = 0).
    { rewrite <- Hzero. f_equal. apply map_ext_in. intros [a s] Hp.
      pose proof (Hall _ Hp) as E. simpl in E. unfold gap; simpl. subst a.
      unfold softmax_i. rewrite ln_div, ln_exp by (try apply exp_pos; lra).
      field. lra. }
    rewrite sumR_gap, Hsum in H. lra.
Qed.

Theorem softmax_in_simplex : softmax_in_simplex_spec.
Proof.
  intros tau l Hne. pose proof (partition_pos tau l Hne) as HZ. split.
  - intros p Hp. unfold softmax_i, Rdiv. apply Rmult_lt_0_compat;
      [apply exp_pos | apply Rinv_0_lt_compat; lra].
  - apply softmax_sum. exact Hne.
Qed.

Theorem entropic_value : entropic_value_spec.
Proof.
  intros tau l Ht Hne. unfold objective, softmax_list.
  rewrite objective_softmax by (try apply partition_pos; assumption).
  rewrite softmax_sum by exact Hne. ring.
Qed.

Print Assumptions entropic_bound.
Print Assumptions softmax_in_simplex.
Print Assumptions entropic_value.
Print Assumptions entropic_selection.
