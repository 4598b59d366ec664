(** * Statement 16 (specification): the attention identities on the sphere and on U(1)

    Informal statement.
    (a) Sphere, any n: for a query [z] (unit or not), keys [z_u] and real
        weights [A_u], with [G = sum_u A_u z_u],
            [(I - z z^T) G = sum_u A_u (z_u - <z_u, z> z)]
        (the tangent update is the Lohe coupling).  At n = 2, with
        [z = (cos t, sin t)] and [z_u = (cos u, sin u)], both sides equal
        [(sum_u A_u sin(u - t)) (-sin t, cos t)]: the Kuramoto coupling
        (statement 1) times the unit tangent.
    (b) Group, on U(1) (complex numbers as pairs of reals): with [U_t = e^{i t}],
        [U_u = e^{i u}], [G = sum_u A_u U_u] and [skew(c) = (c - conj c)/2],
            [U_t skew(conj(U_t) G) = 1/2 sum_u A_u (U_u - U_t conj(U_u) U_t)
                                   = (sum_u A_u sin(u - t)) i U_t].
    Not formalised: (b) for U(n) / SO(n) with n > 1 (see [lohe_identities.v]).

    Symbol map.
    - vectors are [nat -> R] on [0 .. n-1] ([dot]: [CoreSpec.v]); a family is a
      list of pairs (weight, key);
    - [tangent_update n z (aggregate w)]: [syncattn.lohe.sphere_tangent_update];
      [lohe_coupling n z w]: [syncattn.lohe.sphere_coupling];
    - [matrix_update t w]: [syncattn.lohe.matrix_tangent_update] on 1x1 unitary
      matrices; [matrix_coupling t w]: [syncattn.lohe.matrix_coupling];
      [coupling] ([CoreSpec.v]): [syncattn.kuramoto.coupling_term].
    Proofs: [lohe_identities.v]; sympy: [proofs/proof_lohe_identities.py]. *)

From Syncattn Require Import CoreSpec.

(** [G = sum_u A_u z_u]. *)
Definition aggregate (w : list (R * (nat -> R))) : nat -> R :=
  fun i => fold_right (fun p acc => fst p * snd p i + acc) 0 w.

(** [syncattn.lohe.sphere_tangent_update]: [(I - z z^T) G]. *)
Definition tangent_update (n : nat) (z G : nat -> R) : nat -> R :=
  fun i => G i - dot n z G * z i.

(** [syncattn.lohe.sphere_coupling]: [sum_u A_u (z_u - <z_u, z> z)]. *)
Definition lohe_coupling (n : nat) (z : nat -> R) (w : list (R * (nat -> R))) : nat -> R :=
  fun i => fold_right (fun p acc => fst p * (snd p i - dot n (snd p) z * z i) + acc) 0 w.

(** The circle [(cos t, sin t)] and its unit tangent [(-sin t, cos t)] in R^2. *)
Definition circle (t : R) : nat -> R := fun i => match i with 0%nat => cos t | _ => sin t end.
Definition tangent (t : R) : nat -> R := fun i => match i with 0%nat => - sin t | _ => cos t end.

Definition on_circle (w : list (R * R)) : list (R * (nat -> R)) :=
  map (fun p => (fst p, circle (snd p))) w.

(** Complex numbers as pairs (re, im). *)
Definition cmul (x y : R * R) : R * R :=
  (fst x * fst y - snd x * snd y, fst x * snd y + snd x * fst y).
Definition cconj (x : R * R) : R * R := (fst x, - snd x).
Definition cadd (x y : R * R) : R * R := (fst x + fst y, snd x + snd y).
Definition cscale (a : R) (x : R * R) : R * R := (a * fst x, a * snd x).
Definition skew (c : R * R) : R * R := cscale (1 / 2) (cadd c (cscale (-1) (cconj c))).
Definition cis (t : R) : R * R := (cos t, sin t).

(** [G = sum_u A_u e^{i u}]. *)
Definition cG (w : list (R * R)) : R * R :=
  fold_right (fun p acc => cadd (cscale (fst p) (cis (snd p))) acc) (0, 0) w.

(** [syncattn.lohe.matrix_tangent_update] on U(1): [U_t skew(U_t^H G)]. *)
Definition matrix_update (t : R) (w : list (R * R)) : R * R :=
  cmul (cis t) (skew (cmul (cconj (cis t)) (cG w))).

(** [syncattn.lohe.matrix_coupling] on U(1): [1/2 sum_u A_u (U_u - U_t U_u^H U_t)]. *)
Definition matrix_coupling (t : R) (w : list (R * R)) : R * R :=
  cscale (1 / 2) (fold_right (fun p acc =>
    cadd (cscale (fst p) (cadd (cis (snd p))
                               (cscale (-1) (cmul (cis t) (cmul (cconj (cis (snd p))) (cis t))))))
         acc) (0, 0) w).

(** (a) The sphere identity, any [n]. *)
Definition lohe_identities_spec : Prop :=
  forall n z w i, tangent_update n z (aggregate w) i = lohe_coupling n z w i.

(** (a) At [n = 2] on the circle: the Kuramoto coupling times the unit tangent. *)
Definition sphere_circle_spec : Prop :=
  forall t w i, (i < 2)%nat ->
    tangent_update 2 (circle t) (aggregate (on_circle w)) i = coupling t w * tangent t i.

(** (b) On U(1): the matrix update is the matrix coupling ... *)
Definition u1_identity_spec : Prop :=
  forall t w, matrix_update t w = matrix_coupling t w.

(** (b) ... and equals the Kuramoto coupling times [i U_t]. *)
Definition u1_kuramoto_spec : Prop :=
  forall t w, matrix_update t w = cscale (coupling t w) (cmul (0, 1) (cis t)).
