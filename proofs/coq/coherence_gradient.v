(** * Statement 4: synchronisation as coherence ascent (the Kuramoto flow is a gradient flow)

    Informal statement.
    (a) For a fixed phasor [G = sum_u A_u e^{i theta_u}],
        [d/d theta_t Re(e^{-i theta_t} G) = -sin(theta_t) Re G + cos(theta_t) Im G
         = sum_u A_u sin(theta_u - theta_t)]: each token climbs its local coherence.
    (b) For a symmetric coupling matrix [K] ([K_ij = K_ji]) on [n] oscillators
        (any n) and [E(theta) = -(1/2) sum_ij K_ij cos(theta_j - theta_i)],
        [-dE/d theta_m = sum_j K_mj sin(theta_j - theta_m)]: with [omega = 0]
        the Kuramoto flow is the gradient flow [theta' = -grad E].
    (c) Along that flow [dE/dt = sum_m (dE/d theta_m) theta_m' = -|grad E|^2 <= 0].

    Symbol map.
    - library: [syncattn.entropic.local_coherence] ([coherence w]),
      [syncattn.kuramoto.coherence_energy] ([energy n K]) and
      [syncattn.kuramoto.vector_field] with [omega = 0] ([- grad E]);
    - sympy proof: [proofs/proof_coherence_gradient.py] (statement 4), which
      checks (b) for the generic pair and for N = 4; here (b) is proved for every
      n with Coquelicot's [is_derive] (a partial derivative is the derivative of
      [x |-> E(theta with theta_m := x)]).
    - Phases and couplings are functions on indices: [th : nat -> R],
      [K : nat -> nat -> R]; [sumN f n = sum_{k < n} f k].

    Assumes: the standard library's axioms of the real numbers (Coquelicot adds
    none of its own to these statements; see the Print Assumptions below). *)

From Coq Require Import Reals List Lra Lia.
Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
Import ListNotations.
Open Scope R_scope.

(** ** (a) the local coherence *)

Definition re_G (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * cos (snd p) + acc) 0 w.
Definition im_G (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * sin (snd p) + acc) 0 w.
Definition coupling (th : R) (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * sin (snd p - th) + acc) 0 w.

(** [Re(e^{-i th} G) = cos th Re G + sin th Im G]. *)
Definition coherence (w : list (R * R)) (th : R) : R :=
  cos th * re_G w + sin th * im_G w.

Lemma update_is_coupling : forall th w,
  - sin th * re_G w + cos th * im_G w = coupling th w.
Proof.
  intros th w. induction w as [| [a u] w IH]; simpl; [ring|].
  rewrite <- IH, sin_minus. ring.
Qed.

Lemma coherence_derivative : forall w th,
  is_derive (coherence w) th (coupling th w).
Proof.
  intros w th. rewrite <- update_is_coupling. unfold coherence.
  auto_derive; [exact I | ring].
Qed.

(** ** (b) the coherence energy *)

Fixpoint sumN (f : nat -> R) (n : nat) : R :=
  match n with O => 0 | S k => sumN f k + f k end.

Lemma sumN_ext : forall f g n, (forall k, (k < n)%nat -> f k = g k) -> sumN f n = sumN g n.
Proof.
  intros f g n. induction n as [| n IH]; simpl; intros H; [reflexivity|].
  rewrite IH, H; [reflexivity | lia | intros k Hk; apply H; lia].
Qed.

Lemma sumN_plus : forall f g n, sumN (fun k => f k + g k) n = sumN f n + sumN g n.
Proof. intros f g n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sumN_zero : forall n, sumN (fun _ => 0) n = 0.
Proof. intros n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

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

Definition energy (n : nat) (K : nat -> nat -> R) (th : nat -> R) : R :=
  - (1 / 2) * sumN (fun i => sumN (fun j => K i j * cos (th j - th i)) n) n.

(** [theta] with its [m]-th phase replaced by [x]. *)
Definition upd (th : nat -> R) (m : nat) (x : R) : nat -> R :=
  fun k => if Nat.eq_dec k m then x else th k.

(** The derivative in [theta_m] of one pair term [K_ij cos(theta_j - theta_i)]. *)
Definition dterm (K : nat -> nat -> R) (th : nat -> R) (m i j : nat) : R :=
  (if Nat.eq_dec i m then K i j * sin (th j - th m) else 0)
  + (if Nat.eq_dec j m then K i j * sin (th i - th m) else 0).

Lemma term_derivative : forall K th m i j,
  is_derive (fun x => K i j * cos (upd th m x j - upd th m x i)) (th m) (dterm K th m i j).
Proof.
  intros K th m i j. unfold dterm, upd.
  destruct (Nat.eq_dec i m) as [Hi | Hi]; destruct (Nat.eq_dec j m) as [Hj | Hj].
  - apply (is_derive_ext (fun _ => K i j * cos 0)).
    { intro x. f_equal. f_equal. ring. }
    replace (K i j * sin (th j - th m) + K i j * sin (th i - th m)) with 0
      by (subst; rewrite Rminus_diag_eq, sin_0 by reflexivity; ring).
    auto_derive; [exact I | ring].
  - apply (is_derive_ext (fun x => K i j * cos (th j - x))); [reflexivity|].
    auto_derive; [exact I | unfold Rminus; ring].
  - apply (is_derive_ext (fun x => K i j * cos (x - th i))); [reflexivity|].
    auto_derive; [exact I|]. unfold Rminus.
    replace (th i + - th m) with (- (th m + - th i)) by ring. rewrite sin_neg. ring.
  - apply (is_derive_ext (fun _ => K i j * cos (th j - th i))); [reflexivity|].
    auto_derive; [exact I | ring].
Qed.

Lemma energy_partial : forall n K th m, (m < n)%nat ->
  (forall i j, K i j = K j i) ->
  is_derive (fun x => energy n K (upd th m x)) (th m)
    (- sumN (fun j => K m j * sin (th j - th m)) n).
Proof.
  intros n K th m Hm Hsym. unfold energy.
  replace (- sumN (fun j => K m j * sin (th j - th m)) n)
    with (- (1 / 2) * sumN (fun i => sumN (fun j => dterm K th m i j) n) n).
  { apply is_derive_scal. apply is_derive_sumN. intros i _.
    apply is_derive_sumN. intros j _. apply term_derivative. }
  unfold dterm.
  rewrite (sumN_ext _ (fun i =>
     (if Nat.eq_dec i m then sumN (fun j => K m j * sin (th j - th m)) n else 0)
     + K i m * sin (th i - th m))).
  2:{ intros i Hi. rewrite sumN_plus. f_equal.
      - destruct (Nat.eq_dec i m) as [-> | Hne]; [reflexivity|apply sumN_zero].
      - apply (sumN_select (fun j => K i j * sin (th i - th m))). exact Hm. }
  rewrite sumN_plus.
  rewrite (sumN_select (fun _ => sumN (fun j => K m j * sin (th j - th m)) n) m n Hm).
  rewrite (sumN_ext (fun i => K i m * sin (th i - th m)) (fun j => K m j * sin (th j - th m)))
    by (intros k _; rewrite Hsym; reflexivity).
  field.
Qed.

(** ** (c) the energy never increases along the gradient flow *)

Lemma energy_decreases : forall (g : nat -> R) n,
  sumN (fun m => g m * (- g m)) n = - sumN (fun m => g m * g m) n
  /\ sumN (fun m => g m * (- g m)) n <= 0.
Proof.
  intros g n. induction n as [| n [IHe IHl]]; simpl; [split; lra|].
  split; [rewrite IHe; ring|]. nra.
Qed.

(** Main theorem: (a) the derivative of the local coherence is the Kuramoto
    coupling; (b) for symmetric [K] the negative partial derivatives of the
    coherence energy are the couplings of the Kuramoto vector field; (c) the
    energy's rate along [theta' = -grad E] is [-|grad E|^2 <= 0]. *)
Theorem coherence_gradient :
  (forall w th, is_derive (coherence w) th (coupling th w))
  /\ (forall n K th m, (m < n)%nat -> (forall i j, K i j = K j i) ->
        is_derive (fun x => energy n K (upd th m x)) (th m)
          (- sumN (fun j => K m j * sin (th j - th m)) n))
  /\ (forall (dE : nat -> R) n,
        sumN (fun m => dE m * (- dE m)) n = - sumN (fun m => dE m * dE m) n
        /\ sumN (fun m => dE m * (- dE m)) n <= 0).
Proof.
  split; [exact coherence_derivative | split; [exact energy_partial | exact energy_decreases]].
Qed.

Print Assumptions coherence_gradient.
