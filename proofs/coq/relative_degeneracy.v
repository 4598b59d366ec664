(** * Statement 11: the relative degenerate event [|h| < eps |w|_2]

    Informal statement ([h = sum_j w_j r_j], [r_j] i.i.d. uniform on [S^{d-1}]):
    (a) [E |h|^2 = |w|^2], [Var (|h|^2/|w|^2) = 2 (1 - sum a^4) / d] (Chebyshev);
    (b) a coordinate of a uniform point is sub-Gaussian with variance proxy [1/d];
    (c) [P(|h| < eps |w|) <= exp (-d (1 - eps^2)^2 |w|^4 / (8 sum_k w_k^2 W_{k-1}^2))];
    (d) two anchors: the event is a cap, with rate [-1/2 ln (eps^2 (2 - eps^2))] for
        equal weights.

    Here: the deterministic algebra of each step, for every [m] and [d]: the
    expansion of [|h|^2], the variance algebra, Chebyshev's event, the
    double-factorial identity, the martingale step, the Chernoff optimum, the
    adjacent swap, the two-anchor event and the equal-weight rate.

    Symbol map: see [relative_degeneracy_spec.v] ([rel_variance] and
    [chernoff_exponent] are the two terms of
    [syncattn.lohe.relative_degenerate_bound]).  Sympy proof:
    [proofs/proof_relative_degeneracy.py].

    Not formalised: every probabilistic step (the moments of uniform points on the
    sphere, [E r r^T = I/d], the uncorrelated pairs, Chebyshev's and Markov's
    inequalities, the sub-Gaussian series, the conditioning that chains the
    increments, the cap law): Coq's libraries have no measure on the sphere.

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core relative_degeneracy_spec.
From Coq Require Import Factorial.
Open Scope R_scope.

Lemma sumN_mul : forall f g n, sumN f n * sumN g n = sumN (fun i => sumN (fun j => f i * g j) n) n.
Proof.
  intros f g n. rewrite Rmult_comm, <- sumN_scal. apply sumN_ext. intros i _.
  rewrite Rmult_comm, <- sumN_scal. apply sumN_ext. intros; ring.
Qed.

Lemma select_first : forall (f : nat -> R) j m, (j < m)%nat ->
  sumN (fun k => if Nat.eq_dec j k then f k else 0) m = f j.
Proof.
  intros f j m Hj. rewrite <- (sumN_select f j m Hj). apply sumN_ext. intros k _.
  destruct (Nat.eq_dec j k), (Nat.eq_dec k j); subst; try reflexivity; congruence.
Qed.

(** A double sum is its diagonal plus its off-diagonal part. *)
Lemma diag_split : forall (f : nat -> nat -> R) m,
  sumN (fun j => sumN (fun k => f j k) m) m = sumN (fun j => f j j) m + offdiag m f.
Proof.
  intros f m. unfold offdiag. rewrite <- sumN_plus. apply sumN_ext. intros j Hj.
  rewrite (sumN_ext (fun k => f j k)
    (fun k => (if Nat.eq_dec j k then f j k else 0) + (if Nat.eq_dec j k then 0 else f j k)))
    by (intros k _; destruct (Nat.eq_dec j k); ring).
  rewrite sumN_plus, (select_first (fun k => f j k) j m Hj). reflexivity.
Qed.

Theorem expansion : expansion_spec.
Proof.
  intros m d w r Hr.
  assert (E : dot d (drive m w r) (drive m w r)
              = sumN (fun j => sumN (fun k => w j * w k * dot d (r j) (r k)) m) m).
  { unfold dot at 1, drive.
    rewrite (sumN_ext _ (fun l => sumN (fun j => sumN (fun k => w j * r j l * (w k * r k l)) m) m))
      by (intros; apply sumN_mul).
    rewrite sumN_swap. apply sumN_ext. intros j _. rewrite sumN_swap. apply sumN_ext. intros k _.
    unfold dot. rewrite <- sumN_scal. apply sumN_ext. intros; ring. }
  rewrite E, diag_split. f_equal. apply sumN_ext. intros j Hj. rewrite Hr by exact Hj. ring.
Qed.

Theorem variance_algebra : variance_algebra_spec.
Proof.
  intros m d a Hd Ha.
  assert (E : offdiag m (fun j k => a j ^ 2 * a k ^ 2)
              = sumN (fun j => a j ^ 2) m * sumN (fun j => a j ^ 2) m - sumN (fun j => a j ^ 4) m).
  { rewrite sumN_mul, diag_split.
    rewrite (sumN_ext (fun j => a j ^ 2 * a j ^ 2) (fun j => a j ^ 4)) by (intros; ring). ring. }
  rewrite E, Ha. unfold rel_variance. field. exact Hd.
Qed.

Theorem chebyshev_event : chebyshev_event_spec.
Proof.
  intros hn wn eps Hw Hh He Hlt.
  assert (Hw2 : 0 < wn ^ 2) by (apply pow_lt; exact Hw).
  assert (Hsq : hn ^ 2 < eps ^ 2 * wn ^ 2) by (simpl; nra).
  assert (Hq : hn ^ 2 / wn ^ 2 < eps ^ 2).
  { apply (Rmult_lt_reg_r (wn ^ 2)); [exact Hw2|].
    replace (hn ^ 2 / wn ^ 2 * wn ^ 2) with (hn ^ 2) by (field; lra). lra. }
  pose proof (Rle_abs (- (hn ^ 2 / wn ^ 2 - 1))) as Ha. rewrite Rabs_Ropp in Ha. lra.
Qed.

Theorem double_factorial : double_factorial_spec.
Proof.
  intros k. induction k as [| k IH]; [reflexivity|].
  replace (2 * S k)%nat with (S (S (2 * k))) by lia.
  rewrite !fact_simpl, IH. simpl odd_prod. rewrite Nat.pow_succ_r'. ring.
Qed.

Theorem martingale_step : martingale_step_spec.
Proof.
  intros d h r w Hr. unfold dot at 1.
  rewrite (sumN_ext _ (fun l => 1 * (h l * h l) + (2 * w) * (h l * r l) + w ^ 2 * (r l * r l)))
    by (intros; ring).
  rewrite sumN_lin. fold (dot d h h) (dot d h r) (dot d r r). rewrite Hr. ring.
Qed.

Theorem chernoff : chernoff_spec.
Proof.
  intros t V d HV Hd. unfold chernoff_exponent. split; [| split].
  - intros l.
    assert (E : - l * t + l ^ 2 * V / (2 * d) - (- t ^ 2 * d / (2 * V))
                = V / (2 * d) * (l - t * d / V) ^ 2) by (field; lra).
    assert (0 <= V / (2 * d) * (l - t * d / V) ^ 2).
    { apply Rmult_le_pos; [left; apply Rdiv_lt_0_compat; lra | apply pow2_ge_0]. }
    lra.
  - field. lra.
  - intros eps w2 S HS. field. lra.
Qed.

Theorem adjacent_swap : adjacent_swap_spec.
Proof.
  intros a b W.
  assert (E : (a ^ 2 * W ^ 2 + b ^ 2 * (W + a) ^ 2) - (b ^ 2 * W ^ 2 + a ^ 2 * (W + b) ^ 2)
              = 2 * W * a * b * (b - a)) by ring.
  split; [exact E|]. intros HW [Ha Hab].
  assert (0 <= 2 * W * a * b * (b - a)).
  { repeat apply Rmult_le_pos; lra. }
  lra.
Qed.

Theorem two_anchors : two_anchors_spec.
Proof.
  intros w1 w2 eps x Hw.
  assert (HP : 0 < 2 * w1 * w2) by lra.
  assert (E : - ((1 - eps ^ 2) * (w1 ^ 2 + w2 ^ 2) / (2 * w1 * w2)) * (2 * w1 * w2)
              = - ((1 - eps ^ 2) * (w1 ^ 2 + w2 ^ 2))) by (field; split; intro; subst; lra).
  split; intros H.
  - apply (Rmult_lt_reg_r (2 * w1 * w2)); [exact HP|]. rewrite E. lra.
  - apply (Rmult_lt_compat_r (2 * w1 * w2)) in H; [| exact HP]. rewrite E in H. lra.
Qed.

Theorem equal_weights : equal_weights_spec.
Proof.
  intros w eps Hw [He0 He1]. split; [| split].
  - field. exact Hw.
  - ring.
  - assert (Hlt : eps ^ 2 * (2 - eps ^ 2) < 1).
    { assert (0 < (1 - eps ^ 2) ^ 2).
      { apply pow_lt. assert (eps ^ 2 < 1) by (simpl; nra). lra. }
      replace (eps ^ 2 * (2 - eps ^ 2)) with (1 - (1 - eps ^ 2) ^ 2) by ring. lra. }
    assert (Hpos : 0 < eps ^ 2 * (2 - eps ^ 2)).
    { apply Rmult_lt_0_compat; [apply pow_lt; lra | simpl; nra]. }
    pose proof (ln_increasing _ _ Hpos Hlt) as L. rewrite ln_1 in L. lra.
Qed.

Print Assumptions expansion.
Print Assumptions variance_algebra.
Print Assumptions chebyshev_event.
Print Assumptions double_factorial.
Print Assumptions martingale_step.
Print Assumptions chernoff.
Print Assumptions adjacent_swap.
Print Assumptions two_anchors.
Print Assumptions equal_weights.
