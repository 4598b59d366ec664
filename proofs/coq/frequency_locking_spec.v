(** * Specification of statement 15: frequency locking on the sphere

    [z' = Omega z + (I - z z^T) h] on [S^{d-1}], [Omega] skew-symmetric.  Mirrors
    [syncattn.lohe.adler_locking] and [syncattn.lohe.locked_state] (file
    [lohe/_locking.py]); proved in [frequency_locking.v]; sympy proof
    [proofs/proof_frequency_locking.py].  Vectors are functions [nat -> R] read on
    [0 .. d-1], matrices functions [nat -> nat -> R]. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** [Omega z] and skew-symmetry ([locked_state] checks [Omega^T = -Omega]). *)
Definition matvec (d : nat) (O : nat -> nat -> R) (z : nat -> R) : nat -> R :=
  fun i => sumN (fun j => O i j * z j) d.
Definition skew (d : nat) (O : nat -> nat -> R) : Prop :=
  forall i j, (i < d)%nat -> (j < d)%nat -> O i j = - O j i.

(** The field [Omega z + h - <z, h> z]. *)
Definition lock_field (d : nat) (O : nat -> nat -> R) (z h : nat -> R) : nat -> R :=
  fun i => matvec d O z i + h i - dot d z h * z i.

(** Its Jacobian applied to [v]: [Omega v - <z, h> v - z <h, v>]. *)
Definition jac (d : nat) (O : nat -> nat -> R) (z h v : nat -> R) : nat -> R :=
  fun i => matvec d O v i - dot d z h * v i - z i * dot d h v.

(** d = 2: [(x, y)], and [omega [[0, -1], [1, 0]]]. *)
Definition vec2 (x y : R) : nat -> R := fun i => match i with O => x | _ => y end.
Definition rot_gen (w : R) : nat -> nat -> R :=
  fun i j => match i, j with O, S O => - w | S O, O => w | _, _ => 0 end.

(** Adler's right-hand side [omega - |h| sin phi] and [adler_locking]'s angle
    [arcsin (omega / |h|)]. *)
Definition adler (omega a phi : R) : R := omega - a * sin phi.
Definition locked_angle (omega a : R) : R := asin (omega / a).

(** (a) on the circle, with [z = (cos theta, sin theta)], [h = a (cos psi, sin psi)],
    the field is [(omega - a sin (theta - psi)) (-sin theta, cos theta)]: the angle
    [phi = theta - psi] obeys Adler's equation. *)
Definition adler_equation_spec : Prop :=
  forall omega a theta psi i, (i < 2)%nat ->
  lock_field 2 (rot_gen omega) (vec2 (cos theta) (sin theta)) (vec2 (a * cos psi) (a * sin psi)) i
  = adler omega a (theta - psi) * vec2 (- sin theta) (cos theta) i.

(** (a) it locks (has an equilibrium angle) iff [|omega| <= |h|]. *)
Definition locks_iff_spec : Prop :=
  forall omega a, 0 < a -> ((exists phi, adler omega a phi = 0) <-> Rabs omega <= a).

(** (a) the locked angle and its linear rate [-sqrt (a^2 - omega^2)]; the other
    equilibrium [pi - phi*] has rate [+sqrt (a^2 - omega^2)]. *)
Definition locked_rate_spec : Prop :=
  forall omega a, 0 < a -> Rabs omega <= a ->
  adler omega a (locked_angle omega a) = 0 /\
  is_derive (adler omega a) (locked_angle omega a) (- sqrt (a ^ 2 - omega ^ 2)) /\
  adler omega a (PI - locked_angle omega a) = 0 /\
  is_derive (adler omega a) (PI - locked_angle omega a) (sqrt (a ^ 2 - omega ^ 2)) /\
  (Rabs omega < a -> 0 < sqrt (a ^ 2 - omega ^ 2)).

(** (b) for [h = lambda z - Omega z] (i.e. [z = (lambda I - Omega)^{-1} h]): the field
    is [lambda (1 - |z|^2) z], [<z, h> = lambda |z|^2] and
    [|h|^2 = lambda^2 |z|^2 + |Omega z|^2]. *)
Definition resolvent_field_spec : Prop :=
  forall d O z h lam, skew d O ->
  (forall i, (i < d)%nat -> h i = lam * z i - matvec d O z i) ->
  (forall i, (i < d)%nat -> lock_field d O z h i = lam * (1 - dot d z z) * z i) /\
  dot d z h = lam * dot d z z /\
  dot d h h = lam ^ 2 * dot d z z + dot d (matvec d O z) (matvec d O z).

(** (b) on the sphere, [z] is a fixed point iff [h = lambda z - Omega z] with
    [lambda = <z, h>]. *)
Definition fixed_points_spec : Prop :=
  forall d O z h, dot d z z = 1 ->
  ((forall i, (i < d)%nat -> lock_field d O z h i = 0) <->
   (forall i, (i < d)%nat -> h i = dot d z h * z i - matvec d O z i)).

(** (b) at a fixed point, [cos (angle (z, h)) = lambda / |h|] and
    [sin^2 = |Omega z|^2 / |h|^2 <= M^2 / |h|^2] when [|Omega z| <= M]. *)
Definition angle_bound_spec : Prop :=
  forall d O z h lam M, skew d O -> dot d z z = 1 -> 0 < dot d h h -> 0 <= M ->
  (forall i, (i < d)%nat -> h i = lam * z i - matvec d O z i) ->
  CoreSpec.norm d (matvec d O z) <= M ->
  dot d z h / CoreSpec.norm d h = lam / CoreSpec.norm d h /\
  1 - (lam / CoreSpec.norm d h) ^ 2 = (CoreSpec.norm d (matvec d O z) / CoreSpec.norm d h) ^ 2 /\
  1 - (lam / CoreSpec.norm d h) ^ 2 <= (M / CoreSpec.norm d h) ^ 2.

(** (c) [|(lambda I - Omega) v|^2 = lambda^2 |v|^2 + |Omega v|^2]: the normal form
    [(lambda I - Omega)^T (lambda I - Omega) = lambda^2 I + Omega^T Omega]. *)
Definition normal_form_spec : Prop :=
  forall d O v lam, skew d O ->
  dot d (fun i => lam * v i - matvec d O v i) (fun i => lam * v i - matvec d O v i)
  = lam ^ 2 * dot d v v + dot d (matvec d O v) (matvec d O v).

(** (c) [|(lambda I - Omega)^{-1} h|] strictly decreases in [lambda > 0] ([h <> 0]). *)
Definition decreasing_spec : Prop :=
  forall d O h z1 z2 l1 l2, skew d O ->
  (exists i, (i < d)%nat /\ h i <> 0) -> 0 < l1 < l2 ->
  (forall i, (i < d)%nat -> h i = l1 * z1 i - matvec d O z1 i) ->
  (forall i, (i < d)%nat -> h i = l2 * z2 i - matvec d O z2 i) ->
  dot d z2 z2 < dot d z1 z1.

(** (c) hence the root [lambda > 0] of [|z| = 1] is unique. *)
Definition root_unique_spec : Prop :=
  forall d O h z1 z2 l1 l2, skew d O ->
  (exists i, (i < d)%nat /\ h i <> 0) -> 0 < l1 -> 0 < l2 ->
  (forall i, (i < d)%nat -> h i = l1 * z1 i - matvec d O z1 i) ->
  (forall i, (i < d)%nat -> h i = l2 * z2 i - matvec d O z2 i) ->
  dot d z1 z1 = 1 -> dot d z2 z2 = 1 -> l1 = l2.

(** (c) at the root ([|z| = 1], [lambda > 0]), [lambda >= sqrt (|h|^2 - M^2)]
    when [|Omega z| <= M]. *)
Definition root_bound_spec : Prop :=
  forall d O z h lam M, skew d O -> dot d z z = 1 -> 0 < lam -> 0 <= M ->
  (forall i, (i < d)%nat -> h i = lam * z i - matvec d O z i) ->
  CoreSpec.norm d (matvec d O z) <= M ->
  sqrt (dot d h h - M ^ 2) <= lam.

(** (d) at a fixed point on the sphere the Jacobian maps [T_z] into [T_z]. *)
Definition tangent_invariant_spec : Prop :=
  forall d O z h v, skew d O -> dot d z z = 1 ->
  (forall i, (i < d)%nat -> h i = dot d z h * z i - matvec d O z i) ->
  dot d z v = 0 -> dot d z (jac d O z h v) = 0.

(** (d) [v . J v = -<z, h> |v|^2] for tangent [v]. *)
Definition contraction_spec : Prop :=
  forall d O z h v, skew d O -> dot d z v = 0 ->
  dot d v (jac d O z h v) = - dot d z h * dot d v v.

(** (d) every eigenvalue [a + i b] of [J] on [T_z] (eigenvector [x + i y], [x, y]
    tangent, not both 0) has real part [a = -<z, h>]. *)
Definition eigenvalues_spec : Prop :=
  forall d O z h x y a b, skew d O -> dot d z x = 0 -> dot d z y = 0 ->
  0 < dot d x x + dot d y y ->
  (forall i, (i < d)%nat -> jac d O z h x i = a * x i - b * y i) ->
  (forall i, (i < d)%nat -> jac d O z h y i = b * x i + a * y i) ->
  a = - dot d z h.
