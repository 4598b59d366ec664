(** * Specification of statement 8: the general Lohe model

    [x_i' = Omega_i x_i + sum_j K_ij (x_j - <x_i, x_j> x_i)], [i < n], [x_i] in [R^d].
    Mirrors [syncattn.lohe.vector_field] (file [lohe/_flow.py]; a scalar coupling
    [K] there is the matrix [K_ij = K / n]) and [syncattn.kuramoto.vector_field];
    proved in [lohe_general.v]; sympy proof [proofs/proof_lohe_general.py].
    A configuration is [x : nat -> nat -> R], [x i k] the coordinate [k] of
    oscillator [i]; [Om i k l] the entry [(k, l)] of [Omega_i]. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** [lohe.vector_field(x, Omega, K)], coordinate [k] of oscillator [i]. *)
Definition lohe_field (n d : nat) (Om : nat -> nat -> nat -> R) (K : nat -> nat -> R)
    (x : nat -> nat -> R) (i k : nat) : R :=
  sumN (fun l => Om i k l * x i l) d
  + sumN (fun j => K i j * (x j k - dot d (x i) (x j) * x i k)) n.

(** Every [Omega_i] is skew-symmetric. *)
Definition skew_all (n d : nat) (Om : nat -> nat -> nat -> R) : Prop :=
  forall i k l, (i < n)%nat -> (k < d)%nat -> (l < d)%nat -> Om i k l = - Om i l k.

(** [kuramoto.vector_field(theta, omega, K)] with a matrix [K]. *)
Definition kuramoto_field (n : nat) (om : nat -> R) (K : nat -> nat -> R)
    (th : nat -> R) (i : nat) : R :=
  om i + sumN (fun j => K i j * sin (th j - th i)) n.

(** d = 2: [torus.lift] ([x_i = (cos theta_i, sin theta_i)]), the tangent
    [(-sin theta, cos theta)] and [Omega_i = omega_i [[0, -1], [1, 0]]]. *)
Definition lift (th : nat -> R) : nat -> nat -> R :=
  fun i k => match k with O => cos (th i) | _ => sin (th i) end.
Definition tangent (th : R) : nat -> R :=
  fun k => match k with O => - sin th | _ => cos th end.
Definition rot2 (om : nat -> R) : nat -> nat -> nat -> R :=
  fun i k l => match k, l with O, S O => - om i | S O, O => om i | _, _ => 0 end.

(** (a) [<x_i, x_i'> = (1 - |x_i|^2) sum_j K_ij <x_i, x_j>] for skew [Omega_i]. *)
Definition radial_rate_spec : Prop :=
  forall n d Om K x i, skew_all n d Om -> (i < n)%nat ->
  dot d (x i) (fun k => lohe_field n d Om K x i k)
  = (1 - dot d (x i) (x i)) * sumN (fun j => K i j * dot d (x i) (x j)) n.

(** (a) along any solution, [d/dt |x_i|^2 = 2 (1 - |x_i|^2) sum_j K_ij <x_i, x_j>]
    (0 on the sphere). *)
Definition norm_rate_spec : Prop :=
  forall n d Om K (X : R -> nat -> nat -> R) t i, skew_all n d Om -> (i < n)%nat ->
  (forall k, (k < d)%nat -> is_derive (fun s => X s i k) t (lohe_field n d Om K (X t) i k)) ->
  is_derive (fun s => dot d (X s i) (X s i)) t
    (2 * (1 - dot d (X t i) (X t i)) * sumN (fun j => K i j * dot d (X t i) (X t j)) n).

(** (a) invariance: a solution (defined for all times) that starts on the sphere stays
    on it for [t >= 0]. *)
Definition sphere_invariant_spec : Prop :=
  forall n d Om K (X : R -> nat -> nat -> R), skew_all n d Om ->
  (forall t i k, (i < n)%nat -> (k < d)%nat ->
     is_derive (fun s => X s i k) t (lohe_field n d Om K (X t) i k)) ->
  (forall i, (i < n)%nat -> dot d (X 0 i) (X 0 i) = 1) ->
  forall t i, 0 <= t -> (i < n)%nat -> dot d (X t i) (X t i) = 1.

(** (b) d = 2: the Lohe field at [lift theta] is [theta_i' (-sin theta_i, cos theta_i)]
    with [theta_i'] the Kuramoto field, and the angular velocity
    [x_1 x_2' - x_2 x_1'] is [theta_i']. *)
Definition kuramoto_d2_spec : Prop :=
  forall n om K th i, (i < n)%nat ->
  (forall k, (k < 2)%nat ->
     lohe_field n 2 (rot2 om) K (lift th) i k = kuramoto_field n om K th i * tangent (th i) k) /\
  lift th i 0 * lohe_field n 2 (rot2 om) K (lift th) i 1
  - lift th i 1 * lohe_field n 2 (rot2 om) K (lift th) i 0 = kuramoto_field n om K th i.

(** (b) the lift of a Kuramoto solution solves the d = 2 Lohe equation. *)
Definition kuramoto_lift_spec : Prop :=
  forall n om K (Th : R -> nat -> R) t,
  (forall i, (i < n)%nat -> is_derive (fun s => Th s i) t (kuramoto_field n om K (Th t) i)) ->
  forall i k, (i < n)%nat -> (k < 2)%nat ->
  is_derive (fun s => lift (Th s) i k) t (lohe_field n 2 (rot2 om) K (lift (Th t)) i k).
