(** * Statement 1: the Kuramoto identity

    Informal statement.  For a query phase [theta_t], any finite family of key
    phases [theta_u] with any real weights [A_u] (u = 1..n, every n, softmax
    or not) and [G = sum_u A_u exp(i theta_u)],

        -sin(theta_t) Re G + cos(theta_t) Im G = sum_u A_u sin(theta_u - theta_t).

    Symbol map.
    - library: [syncattn.kuramoto.tangent_update] (left-hand side, with
      [Re G = re_G w], [Im G = im_G w]) and [syncattn.kuramoto.coupling_term]
      (right-hand side, [coupling th w]);
    - sympy proof: [proofs/proof_kuramoto_identity.py] (statement 1 of
      [syncattn verify]); there the induction over n is argued on paper, here
      it is checked.
    - A family is a list [w] of pairs [(A_u, theta_u)]; [re_G] and [im_G] are
      the real and imaginary parts of [G], written as sums over the list.

    Assumes: only the standard library's axioms of the real numbers. *)

From Coq Require Import Reals List Lra.
Import ListNotations.
Open Scope R_scope.

(** Re G and Im G of [G = sum_u A_u e^{i theta_u}]. *)
Definition re_G (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * cos (snd p) + acc) 0 w.
Definition im_G (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * sin (snd p) + acc) 0 w.

(** The Kuramoto coupling [sum_u A_u sin(theta_u - theta_t)]. *)
Definition coupling (th : R) (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * sin (snd p - th) + acc) 0 w.

(** The value update [L(G) = -sin(theta_t) Re G + cos(theta_t) Im G]. *)
Definition update (th : R) (w : list (R * R)) : R :=
  - sin th * re_G w + cos th * im_G w.

(** (i) L is additive over the family: the update of [p :: w] is the update of
    the single term [p] plus the update of [w]. *)
Lemma update_cons : forall th p w,
  update th (p :: w) = update th [p] + update th w.
Proof. intros th [a u] w. unfold update; simpl. ring. Qed.

(** (ii) One term: [L(A e^{i u}) = A sin(u - theta_t)]. *)
Lemma update_single : forall th a u,
  update th [(a, u)] = a * sin (u - th).
Proof. intros th a u. unfold update; simpl. rewrite sin_minus. ring. Qed.

(** Main theorem (iii): the identity for every finite family. *)
Theorem kuramoto_identity : forall (th : R) (w : list (R * R)),
  - sin th * re_G w + cos th * im_G w = coupling th w.
Proof.
  intros th w. fold (update th w).
  induction w as [| [a u] w IH].
  - unfold update; simpl. ring.
  - rewrite update_cons, update_single, IH. reflexivity.
Qed.

Print Assumptions kuramoto_identity.
