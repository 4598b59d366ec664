(** * Statement 27 (specification): the Kuramoto flow on St(p, n) is tangent; p = 1

    Informal statement.
    On the Stiefel manifold St(p, n) the Markdahl-Thunberg-Goncalves field is
    [M = G - X G^T X] and the projection field [P = G - X sym(X^T G)], with
    [G = sum_k K_jk X_k].  At p = 1 a frame is one vector [x] (n x 1), [G^T x]
    and [x^T G] are the number [<G, x>], and [sym] of a 1 x 1 matrix is itself:
    (a) for every n, unit [x] and any [G], [M] is orthogonal to [x] (tangent to
        the sphere);
    (b) for every n, [x] and [G], [M = P = G - <x, G> x], the Lohe sphere field.
    For every n and p (matrices as [nat -> nat -> R], entry [X i a] in row [i < n],
    column [a < p]):
    (c) wherever [X^T X = I_p], [X^T M + M^T X = 0] and [X^T P + P^T X = 0] for
        any [G]: both fields are tangent to St(p, n).
    Not formalised: the relations between the two forms for p > 1 and the order
    parameter's rate (sympy, in [proofs/proof_stiefel.py]).

    Symbol map.
    - vectors are [nat -> R] on [0 .. n-1] ([dot]: [CoreSpec.v]);
    - [markdahl1 n x G]: [syncattn.lohe.markdahl_field] at p = 1;
      [projection1 n x G]: [syncattn.lohe.geometric_field] on
      [syncattn.geometry.Stiefel(1, n)]; [lohe_field n x G]:
      [syncattn.lohe.vector_field] (no drift);
    - [gram n X Y a b = (X^T Y)_{ab}]; [markdahl n p X G], [projection n p X G]:
      [syncattn.lohe.markdahl_field] and [syncattn.lohe.geometric_field] on
      [syncattn.geometry.Stiefel(p, n)] for one oscillator with [G = sum_k K_jk X_k];
      [orthonormal n p X]: [X^T X = I_p] ([syncattn.geometry.Stiefel.residual] = 0).
    Proofs: [stiefel.v]; sympy: [proofs/proof_stiefel.py]. *)

From Syncattn Require Import CoreSpec.

(** [G - x (G^T x)]: the Markdahl field with one column. *)
Definition markdahl1 (n : nat) (x G : nat -> R) : nat -> R :=
  fun i => G i - x i * dot n G x.

(** [G - x sym(x^T G)], [sym c = (c + c^T) / 2] of the 1 x 1 matrix [x^T G]. *)
Definition projection1 (n : nat) (x G : nat -> R) : nat -> R :=
  fun i => G i - x i * ((dot n x G + dot n x G) / 2).

(** The Lohe sphere field [G - <x, G> x]. *)
Definition lohe_field (n : nat) (x G : nat -> R) : nat -> R :=
  fun i => G i - dot n x G * x i.

(** (a) Tangency at p = 1. *)
Definition p1_tangent_spec : Prop :=
  forall n x G, dot n x x = 1 -> dot n x (markdahl1 n x G) = 0.

(** (b) At p = 1 the two forms agree and are the Lohe sphere field. *)
Definition p1_lohe_spec : Prop :=
  forall n x G i,
    markdahl1 n x G i = projection1 n x G i /\ projection1 n x G i = lohe_field n x G i.

(** [(X^T Y)_{ab} = sum_{i < n} X_{ia} Y_{ib}]. *)
Definition gram (n : nat) (X Y : nat -> nat -> R) (a b : nat) : R :=
  sumN (fun i => X i a * Y i b) n.

(** [M = G - X G^T X]: [M_{ia} = G_{ia} - sum_{b < p} X_{ib} (G^T X)_{ba}]. *)
Definition markdahl (n p : nat) (X G : nat -> nat -> R) : nat -> nat -> R :=
  fun i a => G i a - sumN (fun b => X i b * gram n G X b a) p.

(** [P = G - X sym(X^T G)]: [sym(B)_{ba} = (B_{ba} + B_{ab}) / 2]. *)
Definition projection (n p : nat) (X G : nat -> nat -> R) : nat -> nat -> R :=
  fun i a => G i a - sumN (fun b => X i b * ((gram n X G b a + gram n X G a b) / 2)) p.

(** [X^T X = I_p]. *)
Definition orthonormal (n p : nat) (X : nat -> nat -> R) : Prop :=
  forall a b, (a < p)%nat -> (b < p)%nat ->
    gram n X X a b = if Nat.eq_dec a b then 1 else 0.

(** (c) The Markdahl field is tangent: [X^T M + M^T X = 0]. *)
Definition markdahl_tangent_spec : Prop :=
  forall n p X G, orthonormal n p X ->
    forall a b, (a < p)%nat -> (b < p)%nat ->
      gram n X (markdahl n p X G) a b + gram n (markdahl n p X G) X a b = 0.

(** (c) The projection field is tangent: [X^T P + P^T X = 0]. *)
Definition projection_tangent_spec : Prop :=
  forall n p X G, orthonormal n p X ->
    forall a b, (a < p)%nat -> (b < p)%nat ->
      gram n X (projection n p X G) a b + gram n (projection n p X G) X a b = 0.
