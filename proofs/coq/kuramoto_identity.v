(** * Statement 1: the Kuramoto identity (proof)

    Informal statement (the parts of the specification, proved here).
    Proves [kuramoto_identity_spec] of [kuramoto_identity_spec.v]:
    [-sin(theta_t) Re G + cos(theta_t) Im G = sum_u A_u sin(theta_u - theta_t)]
    for every phase and every finite list of real weights and phases
    ([syncattn.kuramoto.tangent_update] = [syncattn.kuramoto.coupling_term]).

    Symbol map.  The definitions are those of [kuramoto_identity_spec.v] (read it
    against the library); library: [syncattn.kuramoto.tangent_update],
    [syncattn.kuramoto.coupling_term];
    sympy proof: [proofs/proof_kuramoto_identity.py].

    Proof idea (that of [proofs/proof_kuramoto_identity.py]): (i) the update is
    additive over the family; (ii) for one term it is [A sin(theta_u - theta_t)]
    (sine subtraction); (iii) induction over the list.  There the induction
    over n is argued on paper, here it is checked.

    Not formalised: nothing of the statement is left out.

    Assumes: only the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core kuramoto_identity_spec.

(** (i) The update is additive over the family. *)
Lemma update_cons : forall th p w,
  tangent_update th (p :: w) = tangent_update th (p :: nil) + tangent_update th w.
Proof. intros th [a u] w. unfold tangent_update; simpl. ring. Qed.

(** (ii) One term: [L(A e^{i u}) = A sin(u - theta_t)]. *)
Lemma update_single : forall th a u,
  tangent_update th ((a, u) :: nil) = a * sin (u - th).
Proof. intros th a u. unfold tangent_update; simpl. rewrite sin_minus. ring. Qed.

(** (iii) The identity for every finite family, by induction over the list. *)
Theorem kuramoto_identity : kuramoto_identity_spec.
Proof.
  intros th w. induction w as [| [a u] w IH].
  - unfold tangent_update; simpl. ring.
  - rewrite update_cons, update_single, IH. reflexivity.
Qed.

Print Assumptions kuramoto_identity.
