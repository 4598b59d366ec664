(** * Statement 1 (specification): the Kuramoto identity

    Informal statement.  For a query phase [theta_t], any finite family of key
    phases [theta_u] with any real weights [A_u] (u = 1..n, every n, softmax or
    not) and [G = sum_u A_u e^{i theta_u}],

        -sin(theta_t) Re G + cos(theta_t) Im G = sum_u A_u sin(theta_u - theta_t).

    Symbol map (definitions of [CoreSpec.v] and below).
    - a family is a list [w] of pairs [(A_u, theta_u)]; [re_G w], [im_G w] are
      [Re G], [Im G];
    - [tangent_update th w]: [syncattn.kuramoto.tangent_update], the left-hand side;
    - [coupling th w]: [syncattn.kuramoto.coupling_term], the right-hand side.
    Proofs: [kuramoto_identity.v]; sympy: [proofs/proof_kuramoto_identity.py]. *)

From Syncattn Require Import CoreSpec.

(** [syncattn.kuramoto.tangent_update]: [-sin(theta_t) Re G + cos(theta_t) Im G]. *)
Definition tangent_update (th : R) (w : list (R * R)) : R :=
  - sin th * re_G w + cos th * im_G w.

(** The identity, for every phase and every finite family of real weights. *)
Definition kuramoto_identity_spec : Prop :=
  forall (th : R) (w : list (R * R)), tangent_update th w = coupling th w.
