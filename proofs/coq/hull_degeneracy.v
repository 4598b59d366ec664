(** * Statement 10: the convex-hull law of positive degenerate drives (Wendel's theorem)

    Informal statement ([r_1 .. r_m] i.i.d. uniform on [S^{d-1}], [h = sum_j w_j r_j]):
    (a) with strictly positive weights, [h = 0] iff [0] is in the hull (interior
        case), a scale-free event;
    (b) Cover's count [C(m, d) = 2 sum_{k<d} binom(m-1, k)] of sign patterns with [0]
        outside the hull solves [C(m+1, d) = C(m, d) + C(m, d-1)], [C(1, d) = 2],
        [C(m, 0) = 0];
    (c) [P(0 in conv) = 1 - C(m, d)/2^m = P(Bin(m-1, 1/2) >= d)], 0 for [d >= m];
    (d) Hoeffding: [P(Bin(n, 1/2) >= d) <= exp (-2 (d - n/2)^2 / n)].

    Here, for every [m] and [d]: the simplex and interior constructions, Cover's
    recurrence with its boundary values, the counting identity of (c) (with
    [sum_k binom(n, k) = 2^n]), Hoeffding's lemma (by convexity, through the mean
    value theorem), the Chernoff optimum and the exponential decay.

    Symbol map: see [hull_degeneracy_spec.v] ([hull_exact] and [hoeffding_exponent]
    are [_hull_exact] and [_hull_bound] of [syncattn.lohe.hull_degenerate_probability]).
    Sympy proof: [proofs/proof_hull_degeneracy.py] (there the recurrence and the law
    for m, d <= 40; here for all).

    Not formalised: the geometric step of Cover's theorem (counting the dichotomies
    of points in general position), the topology of the interior case, the symmetry
    of the sign patterns that turns the count into a probability.  The Chernoff
    bound (d) is proved on the exact binomial law (Markov's inequality on
    [e^{lam k}] becomes a termwise comparison of finite sums).

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core hull_degeneracy_spec.
Open Scope R_scope.

(** ** (a) *)

Theorem positive_weights : positive_weights_spec.
Proof.
  intros m d w r Hm Hw.
  assert (Hs : 0 < sumN w m).
  { apply sumN_pos; [intros j Hj; left; apply Hw; exact Hj | exists 0%nat; split; [exact Hm | apply Hw; exact Hm]]. }
  split; [| split; [| split]].
  - intros j Hj. apply Rdiv_lt_0_compat; [apply Hw; exact Hj | exact Hs].
  - unfold Rdiv. rewrite (sumN_ext _ (fun j => / sumN w m * w j)) by (intros; ring).
    rewrite sumN_scal. field. lra.
  - intros H0 l Hl. rewrite (sumN_ext _ (fun j => / sumN w m * (w j * r j l))) by (intros; unfold Rdiv; ring).
    rewrite sumN_scal, H0 by exact Hl. ring.
  - intros c j Hc. rewrite sumN_scal. field. lra.
Qed.

Theorem interior : interior_spec.
Proof.
  intros m d mu r t Hm Ht Hmu Hsum Hrep.
  assert (HM : 0 < INR m) by (apply lt_0_INR; exact Hm).
  split; [| split].
  - intros j Hj. apply Rdiv_lt_0_compat; [| lra].
    pose proof (Hmu j Hj). assert (0 < t / INR m) by (apply Rdiv_lt_0_compat; lra). lra.
  - rewrite (sumN_ext _ (fun j => / (1 + t) * mu j + (t / INR m / (1 + t)) * 1 + 0 * 0)) by (intros; field; lra).
    rewrite sumN_lin, Hsum.
    assert (E : sumN (fun _ => 1) m = INR m).
    { clear. induction m as [| m IH]; simpl sumN; [simpl; ring|]. rewrite IH, S_INR. ring. }
    rewrite E, sumN_zero. field. lra.
  - intros l Hl.
    rewrite (sumN_ext _ (fun j => / (1 + t) * (mu j * r j l) + (t / INR m / (1 + t)) * r j l + 0 * 0))
      by (intros; field; lra).
    rewrite sumN_lin, Hrep by exact Hl. rewrite sumN_zero. field. lra.
Qed.

(** ** (b), (c): counting *)

Lemma binom_above : forall n k, (n < k)%nat -> binom n k = 0%nat.
Proof.
  induction n as [| n IH]; intros k Hk; destruct k as [| k]; try lia; simpl; [reflexivity|].
  rewrite !IH by lia. reflexivity.
Qed.

(** Pascal's rule summed: [sum_{k<d+1} binom(n+1, k) = sum_{k<d+1} binom(n, k) + sum_{k<d} binom(n, k)]. *)
Lemma pascal_sum : forall n d,
  sumN (fun k => INR (binom (S n) k)) (S d)
  = sumN (fun k => INR (binom n k)) (S d) + sumN (fun k => INR (binom n k)) d.
Proof.
  intros n d. induction d as [| d IH].
  - simpl. destruct n; simpl; ring.
  - change (sumN (fun k => INR (binom (S n) k)) (S (S d)))
      with (sumN (fun k => INR (binom (S n) k)) (S d) + INR (binom (S n) (S d))).
    rewrite IH. simpl binom. rewrite plus_INR. simpl sumN. ring.
Qed.

Lemma binom_total : forall n, sumN (fun k => INR (binom n k)) (S n) = 2 ^ n.
Proof.
  induction n as [| n IH]; [simpl; ring|].
  rewrite pascal_sum.
  replace (sumN (fun k => INR (binom n k)) (S (S n)))
    with (sumN (fun k => INR (binom n k)) (S n) + INR (binom n (S n))) by reflexivity.
  rewrite IH, binom_above by lia. simpl. ring.
Qed.

Theorem cover_recurrence : cover_recurrence_spec.
Proof.
  split; [| split].
  - intros m d Hm. unfold cover. replace (S m - 1)%nat with (S (m - 1)) by lia.
    rewrite pascal_sum. ring.
  - intros d. unfold cover. simpl (1 - 1)%nat.
    induction d as [| d IH]; [simpl; ring|].
    change (sumN (fun k => INR (binom 0 k)) (S (S d)))
      with (sumN (fun k => INR (binom 0 k)) (S d) + INR (binom 0 (S d))).
    simpl (binom 0 (S d)). rewrite Rmult_plus_distr_l, IH. simpl. ring.
  - intros m. unfold cover. simpl. ring.
Qed.

(** A truncated sum: [sum_{k<N} [k < d] f k = sum_{k < min N d} f k]. *)
Lemma sumN_below : forall f d N,
  sumN (fun k => if Nat.ltb k d then f k else 0) N = sumN f (Nat.min N d).
Proof.
  intros f d N. induction N as [| N IH]; [reflexivity|].
  simpl sumN at 1. rewrite IH. destruct (Nat.ltb N d) eqn:E.
  - apply Nat.ltb_lt in E. replace (Nat.min (S N) d) with (S (Nat.min N d)) by lia.
    replace (Nat.min N d) with N by lia. reflexivity.
  - apply Nat.ltb_ge in E. replace (Nat.min (S N) d) with (Nat.min N d) by lia. ring.
Qed.

Theorem law : law_spec.
Proof.
  intros m d Hm. destruct m as [| n]; [lia|]. clear Hm.
  replace (S n - 1)%nat with n by lia.
  assert (H2 : 0 < 2 ^ n) by (apply pow_lt; lra).
  (* the count below d *)
  assert (Below : sumN (fun k => INR (binom n k)) d = sumN (fun k => INR (binom n k)) (Nat.min (S n) d)).
  { transitivity (sumN (fun k => if Nat.ltb k (S n) then INR (binom n k) else 0) d).
    - apply sumN_ext. intros k _. destruct (Nat.ltb k (S n)) eqn:E1; [reflexivity|].
      apply Nat.ltb_ge in E1. rewrite binom_above by lia. reflexivity.
    - rewrite sumN_below, Nat.min_comm. reflexivity. }
  assert (Split : sumN (fun k => if Nat.leb d k then INR (binom n k) else 0) (S n)
                  = 2 ^ n - sumN (fun k => INR (binom n k)) (Nat.min (S n) d)).
  { rewrite <- binom_total, <- sumN_below. unfold Rminus.
    rewrite <- (sumN_opp (fun k => if Nat.ltb k d then INR (binom n k) else 0)), <- sumN_plus.
    apply sumN_ext. intros k _. destruct (Nat.leb d k) eqn:E1, (Nat.ltb k d) eqn:E2; try ring.
    - apply Nat.leb_le in E1. apply Nat.ltb_lt in E2. lia.
    - apply Nat.leb_gt in E1. apply Nat.ltb_ge in E2. lia. }
  split.
  - unfold hull_exact, cover. replace (S n - 1)%nat with n by lia.
    rewrite Split, Below. simpl pow. field. lra.
  - intros Hd. unfold hull_exact.
    rewrite (sumN_ext _ (fun _ => 0)); [rewrite sumN_zero; unfold Rdiv; ring|].
    intros k Hk. destruct (Nat.leb d k) eqn:E; [apply Nat.leb_le in E; lia | reflexivity].
Qed.

(** ** (d) Hoeffding and Chernoff *)

Definition hoef (l : R) : R := l / 2 + l ^ 2 / 8 - ln ((1 + exp l) / 2).
Definition hoef1 (l : R) : R := / 2 + l / 4 - exp l / (1 + exp l).
Definition hoef2 (l : R) : R := / 4 - exp l / ((1 + exp l) * (1 + exp l)).

Lemma hoef_derive : forall l, is_derive hoef l (hoef1 l).
Proof.
  intros l. pose proof (exp_pos l). unfold hoef, hoef1.
  auto_derive; [lra | field; lra].
Qed.

Lemma hoef1_derive : forall l, is_derive hoef1 l (hoef2 l).
Proof.
  intros l. pose proof (exp_pos l). unfold hoef1, hoef2.
  auto_derive; [lra | field; lra].
Qed.

Lemma hoef2_nonneg : forall l, 0 <= hoef2 l.
Proof.
  intros l. pose proof (exp_pos l) as He. unfold hoef2.
  assert (E : / 4 - exp l / ((1 + exp l) * (1 + exp l))
              = (exp l - 1) * (exp l - 1) / (4 * ((1 + exp l) * (1 + exp l)))) by (field; lra).
  rewrite E. apply Rdiv_le_0_compat.
  - pose proof (Rle_0_sqr (exp l - 1)) as Q. unfold Rsqr in Q. exact Q.
  - apply Rmult_lt_0_compat; [lra | apply Rmult_lt_0_compat; lra].
Qed.

(** The mean value theorem, in the form used twice below. *)
Lemma mvt : forall f df a b, a < b -> (forall c, is_derive f c (df c)) ->
  exists c, a < c < b /\ f b - f a = df c * (b - a).
Proof.
  intros f df a b Hab Hd.
  destruct (MVT_cor2 f df a b Hab) as [c [Hc Hi]].
  - intros c _. apply is_derive_Reals. apply Hd.
  - exists c. split; [exact Hi | exact Hc].
Qed.

Lemma hoef1_sign : forall l, 0 <= l * hoef1 l.
Proof.
  intros l. assert (H0 : hoef1 0 = 0) by (unfold hoef1; rewrite exp_0; field).
  destruct (Rtotal_order l 0) as [Hl | [-> | Hl]].
  - destruct (mvt hoef1 hoef2 l 0 Hl hoef1_derive) as [c [_ Hc]].
    pose proof (hoef2_nonneg c). rewrite H0 in Hc. nra.
  - lra.
  - destruct (mvt hoef1 hoef2 0 l Hl hoef1_derive) as [c [_ Hc]].
    pose proof (hoef2_nonneg c). rewrite H0 in Hc. nra.
Qed.

Theorem hoeffding_lemma : hoeffding_lemma_spec.
Proof.
  intros l. assert (H0 : hoef 0 = 0).
  { unfold hoef. rewrite exp_0. replace ((1 + 1) / 2) with 1 by field. rewrite ln_1. field. }
  assert (0 <= hoef l).
  { destruct (Rtotal_order l 0) as [Hl | [-> | Hl]].
    - destruct (mvt hoef hoef1 l 0 Hl hoef_derive) as [c [[Hc1 Hc2] Hc]].
      pose proof (hoef1_sign c). assert (hoef1 c <= 0) by nra. rewrite H0 in Hc. nra.
    - lra.
    - destruct (mvt hoef hoef1 0 l Hl hoef_derive) as [c [[Hc1 Hc2] Hc]].
      pose proof (hoef1_sign c). assert (0 <= hoef1 c) by nra. rewrite H0 in Hc. nra. }
  unfold hoef in H. lra.
Qed.

Theorem chernoff_optimum : chernoff_optimum_spec.
Proof.
  intros t n Hn. unfold hoeffding_exponent. split.
  - intros lam.
    assert (E : - lam * t + n * lam ^ 2 / 8 - (- 2 * t ^ 2 / n) = n / 8 * (lam - 4 * t / n) ^ 2)
      by (field; lra).
    assert (0 <= n / 8 * (lam - 4 * t / n) ^ 2).
    { apply Rmult_le_pos; [lra | apply pow2_ge_0]. }
    lra.
  - field. lra.
Qed.

Theorem decay : decay_spec.
Proof.
  intros n d c Hn Hd [Hc0 Hc1] Hlt. unfold hoeffding_exponent.
  assert (Ht : d * (1 - c) < d - n / 2) by lra.
  assert (Hpos : 0 < d * (1 - c)) by nra.
  assert (Hsq : (d * (1 - c)) ^ 2 < (d - n / 2) ^ 2) by (simpl; nra).
  (* -2 t^2 / n < -2 (d (1-c))^2 / n < -d (1-c)^2 / c *)
  assert (A : 2 * (d * (1 - c)) ^ 2 / n < 2 * (d - n / 2) ^ 2 / n).
  { apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat; lra | lra]. }
  assert (B : d * (1 - c) ^ 2 / c < 2 * (d * (1 - c)) ^ 2 / n).
  { apply (Rmult_lt_reg_r (c * n)); [nra|].
    replace (d * (1 - c) ^ 2 / c * (c * n)) with (d * (1 - c) ^ 2 * n) by (field; lra).
    replace (2 * (d * (1 - c)) ^ 2 / n * (c * n)) with (d * (1 - c) ^ 2 * (2 * c * d)) by (field; lra).
    assert (0 < d * (1 - c) ^ 2) by (apply Rmult_lt_0_compat; [lra | apply pow_lt; lra]).
    apply Rmult_lt_compat_l; lra. }
  replace (- 2 * (d - n / 2) ^ 2 / n) with (- (2 * (d - n / 2) ^ 2 / n)) by (field; lra).
  replace (- d * (1 - c) ^ 2 / c) with (- (d * (1 - c) ^ 2 / c)) by (field; lra).
  lra.
Qed.

(** (d) the binomial tail: Markov's inequality on [e^{lam k}], the binomial theorem,
    Hoeffding's lemma for each factor, and the Chernoff optimum. *)
Lemma pascal_weighted : forall n d x,
  sumN (fun k => INR (binom (S n) k) * x ^ k) (S d)
  = sumN (fun k => INR (binom n k) * x ^ k) (S d) + x * sumN (fun k => INR (binom n k) * x ^ k) d.
Proof.
  intros n d x. induction d as [| d IH].
  - simpl. destruct n; simpl; ring.
  - change (sumN (fun k => INR (binom (S n) k) * x ^ k) (S (S d)))
      with (sumN (fun k => INR (binom (S n) k) * x ^ k) (S d) + INR (binom (S n) (S d)) * x ^ (S d)).
    rewrite IH. simpl binom. rewrite plus_INR. simpl sumN. simpl pow. ring.
Qed.

Lemma binomial_theorem : forall n x, sumN (fun k => INR (binom n k) * x ^ k) (S n) = (1 + x) ^ n.
Proof.
  induction n as [| n IH]; intros x; [simpl; ring|].
  rewrite pascal_weighted.
  replace (sumN (fun k => INR (binom n k) * x ^ k) (S (S n)))
    with (sumN (fun k => INR (binom n k) * x ^ k) (S n) + INR (binom n (S n)) * x ^ (S n)) by reflexivity.
  rewrite IH, binom_above by lia. simpl. ring.
Qed.

Lemma exp_mult_INR : forall l k, exp (l * INR k) = exp l ^ k.
Proof.
  intros l k. induction k as [| k IH]; [simpl; rewrite Rmult_0_r; apply exp_0|].
  rewrite S_INR, Rmult_plus_distr_l, Rmult_1_r, exp_plus, IH. simpl. ring.
Qed.

Theorem binomial_tail : binomial_tail_spec.
Proof.
  intros n t Hn Ht.
  assert (HnR : 0 < INR n) by (apply lt_0_INR; lia).
  set (a := INR n / 2 + t). set (lam := 4 * t / INR n).
  assert (Hlam : 0 <= lam) by (unfold lam; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; exact HnR]).
  assert (H2n : 0 < 2 ^ n) by (apply pow_lt; lra).
  (* Markov / Chernoff: the indicator is below e^{lam (k - a)} *)
  assert (S1 : sumN (fun k => if Rle_dec a (INR k) then INR (binom n k) else 0) (S n)
               <= exp (- lam * a) * (1 + exp lam) ^ n).
  { rewrite <- binomial_theorem, <- sumN_scal.
    apply sumN_le. intros k Hk.
    pose proof (pos_INR (binom n k)) as Hb.
    replace (exp (- lam * a) * (INR (binom n k) * exp lam ^ k))
      with (INR (binom n k) * exp (lam * (INR k - a)))
      by (rewrite <- exp_mult_INR; replace (lam * (INR k - a)) with (- lam * a + lam * INR k) by ring;
          rewrite exp_plus; ring).
    destruct (Rle_dec a (INR k)) as [Hak|Hak].
    - assert (1 <= exp (lam * (INR k - a))).
      { rewrite <- exp_0. destruct (Req_dec (lam * (INR k - a)) 0) as [E|E]; [rewrite E; lra|].
        left. apply exp_increasing. assert (0 <= lam * (INR k - a)) by (apply Rmult_le_pos; lra). lra. }
      nra.
    - apply Rmult_le_pos; [exact Hb | left; apply exp_pos]. }
  (* Hoeffding's lemma for each factor *)
  assert (S2 : (1 + exp lam) / 2 <= exp (lam / 2 + lam ^ 2 / 8)).
  { pose proof (hoeffding_lemma lam) as Hh.
    assert (Hq : 0 < (1 + exp lam) / 2) by (pose proof (exp_pos lam); lra).
    rewrite <- (exp_ln _ Hq). destruct (Req_dec (ln ((1 + exp lam) / 2)) (lam / 2 + lam ^ 2 / 8)) as [E|E];
      [rewrite E; lra | left; apply exp_increasing; lra]. }
  assert (S3 : ((1 + exp lam) / 2) ^ n <= exp (INR n * (lam / 2 + lam ^ 2 / 8))).
  { rewrite Rmult_comm, exp_mult_INR. apply pow_incr. split; [|exact S2].
    pose proof (exp_pos lam); lra. }
  assert (E4 : - lam * a + INR n * (lam / 2 + lam ^ 2 / 8) = hoeffding_exponent t (INR n)).
  { destruct (chernoff_optimum t (INR n) HnR) as [_ E]. rewrite <- E. unfold lam, a. field. lra. }
  apply (Rle_trans _ (exp (- lam * a) * (1 + exp lam) ^ n / 2 ^ n)).
  - apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; exact H2n | exact S1].
  - rewrite <- E4, exp_plus. unfold Rdiv. rewrite Rmult_assoc.
    apply Rmult_le_compat_l; [left; apply exp_pos|].
    replace ((1 + exp lam) ^ n * / 2 ^ n) with (((1 + exp lam) / 2) ^ n)
      by (unfold Rdiv; rewrite Rpow_mult_distr, pow_inv; reflexivity).
    exact S3.
Qed.

Print Assumptions positive_weights.
Print Assumptions interior.
Print Assumptions cover_recurrence.
Print Assumptions law.
Print Assumptions hoeffding_lemma.
Print Assumptions chernoff_optimum.
Print Assumptions decay.
Print Assumptions binomial_tail.
