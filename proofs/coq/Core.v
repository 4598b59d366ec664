(** * Lemmas about the shared definitions (proved, not pinned)

    Finite sums, inner products and derivatives of sums, used by the proof files.
    Only [CoreSpec.v] is trusted; everything here is checked by Coq. *)

From Syncattn Require Export CoreSpec.
Set Warnings "-ambiguous-paths".
From Coquelicot Require Export Coquelicot.
Open Scope R_scope.

Lemma sumN_ext : forall f g n, (forall k, (k < n)%nat -> f k = g k) -> sumN f n = sumN g n.
Proof.
  intros f g n. induction n as [| n IH]; simpl; intros H; [reflexivity|].
  rewrite IH, H; [reflexivity | lia | intros k Hk; apply H; lia].
Qed.

Lemma sumN_plus : forall f g n, sumN (fun k => f k + g k) n = sumN f n + sumN g n.
Proof. intros f g n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sumN_scal : forall c f n, sumN (fun k => c * f k) n = c * sumN f n.
Proof. intros c f n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sumN_opp : forall f n, sumN (fun k => - f k) n = - sumN f n.
Proof. intros f n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sumN_zero : forall n, sumN (fun _ => 0) n = 0.
Proof. intros n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sumN_lin : forall a b c (f g w : nat -> R) n,
  sumN (fun k => a * f k + b * g k + c * w k) n
  = a * sumN f n + b * sumN g n + c * sumN w n.
Proof. intros a b c f g w n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sumN_nonneg : forall f n, (forall k, (k < n)%nat -> 0 <= f k) -> 0 <= sumN f n.
Proof.
  intros f n. induction n as [| n IH]; simpl; intros H; [lra|].
  pose proof (H n ltac:(lia)). pose proof (IH (fun k Hk => H k ltac:(lia))). lra.
Qed.

Lemma sumN_le : forall f g n, (forall k, (k < n)%nat -> f k <= g k) -> sumN f n <= sumN g n.
Proof.
  intros f g n. induction n as [| n IH]; simpl; intros H; [lra|].
  pose proof (H n ltac:(lia)). pose proof (IH (fun k Hk => H k ltac:(lia))). lra.
Qed.

Lemma sumN_pos : forall f n, (forall k, (k < n)%nat -> 0 <= f k) ->
  (exists i, (i < n)%nat /\ 0 < f i) -> 0 < sumN f n.
Proof.
  intros f n. induction n as [| n IH]; simpl; intros H [i [Hi Hpos]]; [lia|].
  pose proof (H n ltac:(lia)).
  pose proof (sumN_nonneg f n (fun k Hk => H k ltac:(lia))).
  destruct (Nat.eq_dec i n) as [-> | Hne]; [lra|].
  assert (0 < sumN f n) by (apply IH; [intros k Hk; apply H; lia | exists i; split; [lia | exact Hpos]]).
  lra.
Qed.

(** Selecting one index: [sum_k [k = m] a_k = a_m] for [m < n]. *)
Lemma sumN_select : forall (a : nat -> R) m n, (m < n)%nat ->
  sumN (fun k => if Nat.eq_dec k m then a k else 0) n = a m.
Proof.
  intros a m n. induction n as [| n IH]; simpl; intros Hm; [lia|].
  destruct (Nat.eq_dec n m) as [-> | Hne].
  - rewrite (sumN_ext _ (fun _ => 0)); [rewrite sumN_zero; ring|].
    intros k Hk. destruct (Nat.eq_dec k m); [lia | reflexivity].
  - rewrite IH by lia. ring.
Qed.

(** Exchanging a double sum. *)
Lemma sumN_swap : forall (f : nat -> nat -> R) n m,
  sumN (fun i => sumN (fun j => f i j) m) n = sumN (fun j => sumN (fun i => f i j) n) m.
Proof.
  intros f n. induction n as [| n IH]; simpl; intros m.
  - symmetry. apply sumN_zero.
  - rewrite IH, <- sumN_plus. reflexivity.
Qed.

Lemma is_derive_sumN : forall (f : nat -> R -> R) (d : nat -> R) n x,
  (forall k, (k < n)%nat -> is_derive (f k) x (d k)) ->
  is_derive (fun y => sumN (fun k => f k y) n) x (sumN d n).
Proof.
  intros f d n x. induction n as [| n IH]; simpl; intros H.
  - auto_derive; [exact I | reflexivity].
  - apply (is_derive_plus (fun y => sumN (fun k => f k y) n) (f n)).
    + apply IH. intros k Hk. apply H. lia.
    + apply H. lia.
Qed.

Lemma dot_sym : forall n x y, dot n x y = dot n y x.
Proof. intros n x y. unfold dot. apply sumN_ext. intros k _. ring. Qed.

Lemma dot_nonneg : forall n x, 0 <= dot n x x.
Proof. intros n x. unfold dot. apply sumN_nonneg. intros k _. nra. Qed.

(** The Kuramoto identity on one list: the tangent update of [G] is the coupling. *)
Lemma update_is_coupling : forall th w,
  - sin th * re_G w + cos th * im_G w = coupling th w.
Proof.
  intros th w. induction w as [| [a u] w IH]; simpl; [ring|].
  rewrite <- IH, sin_minus. ring.
Qed.
