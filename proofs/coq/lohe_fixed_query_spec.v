(** * Statement 5 (specification): the fixed-query Lohe flow [z' = (I - z z^T) h]

    Informal statement.  Let [h <> 0] in [R^n] (any n), [f(z) = h - <z, h> z]
    the field of [z' = (I - z z^T) h].
    (a) Along every solution [d/dt |z|^2 = 2 <z, h> (1 - |z|^2)], zero on the
        sphere; a solution that starts on the sphere stays on it.
    (b) The equilibria on the sphere are exactly [z = +h/|h|] and [z = -h/|h|].
    (c) The Jacobian is [J v = -<z, h> v - z <h, v>]; at an equilibrium
        [z = s h/|h|] ([s = +-1]) every tangent vector ([<z, v> = 0]) is an
        eigenvector with eigenvalue [-s |h|]: [-|h|] on the whole tangent space
        (dimension n - 1) at [h/|h|], [+|h|] at [-h/|h|].
    (d) [V(z) = -<z, h>] has derivative [-<h, f(z)>] in the direction of the
        field, and along every solution on the sphere
        [dV/dt = -|f(z)|^2 <= 0], [< 0] off the equilibria.
    (e) The angle [phi] of a solution on the sphere to [h]
        ([cos phi = <z, h>/|h|], [0 < phi < pi]) obeys [phi' = -|h| sin phi]
        and equals [2 atan(tan(phi(0)/2) e^{-|h| t})] (no ODE uniqueness theorem
        is assumed); that closed form solves the ODE, starts at [phi0], stays
        in [(0, pi)], tends to 0, and reaches [delta] at
        [T = ln(tan(phi0/2) / tan(delta/2)) / |h|].
    (f) Every coupling of [syncattn.lohe.coupling_weights] is positive, so the
        drive [h = sum_j sigma_j r_j] is a conic combination of the anchors; the
        published [elu1] and the kernel [elu1_features] are different functions.

    Symbol map.
    - vectors are [nat -> R] on [0 .. n-1]; [dot], [norm], [angle]: [CoreSpec.v];
    - [field n z h]: [syncattn.lohe.fixed_query_field]; [s * h i / norm n h]:
      [syncattn.lohe.equilibrium]; [jac n z h v]: the Jacobian of
      [syncattn.lohe.jacobian_spectrum] applied to [v]; [- dot n z h]:
      [syncattn.lohe.lyapunov]; [angle (norm n h) phi0 t]:
      [syncattn.lohe.exact_angle]; [time_to_converge]:
      [syncattn.lohe.time_to_converge];
    - [solution n h z]: [z : R -> (nat -> R)] solves [z' = f(z)], coordinate by
      coordinate (Coquelicot's [is_derive]);
    - [softplus], [relu_coupling], [elu1], [kernel]: the four kinds of
      [syncattn.lohe.coupling_weights] ([elu1_feature] is
      [syncattn.lohe.elu1_feature_map] on one coordinate).
    Proofs: [lohe_fixed_query.v]; sympy: [proofs/proof_lohe_fixed_query.py]. *)

Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
(* After Coquelicot, so that [norm] is [CoreSpec.norm], not Coquelicot's. *)
From Syncattn Require Import CoreSpec.

(** [syncattn.lohe.fixed_query_field]: [f(z) = h - <z, h> z]. *)
Definition field (n : nat) (z h : nat -> R) : nat -> R :=
  fun i => h i - dot n z h * z i.

(** The Jacobian [J = -(z h^T + <z, h> I)] applied to [v]. *)
Definition jac (n : nat) (z h v : nat -> R) : nat -> R :=
  fun i => - dot n z h * v i - z i * dot n h v.

(** [syncattn.lohe.time_to_converge]: [ln(tan(phi0/2) / tan(delta/2)) / a]. *)
Definition time_to_converge (a phi0 delta : R) : R :=
  ln (tan (phi0 / 2) / tan (delta / 2)) / a.

(** [z] solves [z' = f(z)]. *)
Definition solution (n : nat) (h : nat -> R) (z : R -> nat -> R) : Prop :=
  forall t i, (i < n)%nat -> is_derive (fun s => z s i) t (field n (z t) h i).

(** The couplings [sigma(q, k)] of [syncattn.lohe.coupling_weights], for the
    score [s = q.k / sqrt d_h]. *)
Definition softplus (s : R) : R := ln (1 + exp s).
Definition relu_coupling (s : R) : R := Rmax 0 s + 1 / 1000.
Definition elu (s : R) : R := if Rlt_dec 0 s then s else exp s - 1.
Definition elu1 (s : R) : R := elu s + 1.
Definition elu1_feature (x : R) : R := elu x + 1.
Definition kernel (dh : nat) (q k : nat -> R) : R :=
  dot dh (fun a => elu1_feature (q a)) (fun a => elu1_feature (k a)) / INR dh.
Definition score (dh : nat) (q k : nat -> R) : R := dot dh q k / sqrt (INR dh).

(** (a) The rate of [|z|^2] along every solution; zero on the sphere. *)
Definition lohe_sphere_rate_spec : Prop :=
  forall n h z, solution n h z -> forall t,
    is_derive (fun s => dot n (z s) (z s)) t
              (2 * dot n (z t) h * (1 - dot n (z t) (z t))).

(** (a) A solution that starts on the sphere stays on it. *)
Definition lohe_sphere_invariant_spec : Prop :=
  forall n h z, solution n h z -> dot n (z 0) (z 0) = 1 -> forall t, dot n (z t) (z t) = 1.

(** (b) The equilibria on the sphere are exactly [+-h/|h|]. *)
Definition lohe_equilibria_spec : Prop :=
  forall n (z h : nat -> R), dot n z z = 1 -> 0 < dot n h h ->
    ((forall i, (i < n)%nat -> field n z h i = 0)
     <-> exists s, (s = 1 \/ s = -1) /\ forall i, (i < n)%nat -> z i = s * h i / norm n h).

(** (c) [jac] is the Jacobian: the derivative of the field in every direction. *)
Definition lohe_jacobian_spec : Prop :=
  forall n (z h v : nat -> R) i,
    is_derive (fun e => field n (fun k => z k + e * v k) h i) 0 (jac n z h v i).

(** (c) At [s h/|h|] every tangent vector is an eigenvector, eigenvalue [-s |h|]. *)
Definition lohe_spectrum_spec : Prop :=
  forall n (z h v : nat -> R) s, 0 < dot n h h -> (s = 1 \/ s = -1) ->
    (forall i, (i < n)%nat -> z i = s * h i / norm n h) -> dot n z v = 0 ->
    forall i, (i < n)%nat -> jac n z h v i = - s * norm n h * v i.

(** (d) The derivative of [V] in the direction of the field is [-<f, h>]; on the
    sphere it is [-|f|^2], negative off the equilibria. *)
Definition lohe_lyapunov_field_spec : Prop :=
  forall n (z h : nat -> R),
    is_derive (fun e => - dot n (fun i => z i + e * field n z h i) h) 0 (- dot n (field n z h) h)
    /\ (dot n z z = 1 ->
        - dot n (field n z h) h = - dot n (field n z h) (field n z h)
        /\ ((exists i, (i < n)%nat /\ field n z h i <> 0) -> - dot n (field n z h) h < 0)).

(** (d) Along every solution on the sphere, [dV/dt = -|f|^2 <= 0], [< 0] off
    the equilibria. *)
Definition lohe_lyapunov_descent_spec : Prop :=
  forall n h z, solution n h z -> (forall t, dot n (z t) (z t) = 1) -> forall t,
    is_derive (fun s => - dot n (z s) h) t (- dot n (field n (z t) h) (field n (z t) h))
    /\ - dot n (field n (z t) h) (field n (z t) h) <= 0
    /\ ((exists i, (i < n)%nat /\ field n (z t) h i <> 0) ->
        - dot n (field n (z t) h) (field n (z t) h) < 0).

(** (e) The closed form solves [phi' = -a sin phi], starts at [phi0] and stays
    in [(0, pi)]. *)
Definition lohe_exact_angle_spec : Prop :=
  forall a phi0 t, 0 < phi0 < PI ->
    is_derive (angle a phi0) t (- a * sin (angle a phi0 t))
    /\ angle a phi0 0 = phi0
    /\ 0 < angle a phi0 t < PI.

(** (e) The angle of every solution on the sphere obeys [phi' = -|h| sin phi]. *)
Definition lohe_angle_ode_spec : Prop :=
  forall n h z (phi : R -> R), 0 < norm n h -> solution n h z ->
    (forall t, dot n (z t) (z t) = 1) ->
    (forall t, 0 < phi t < PI /\ cos (phi t) = dot n (z t) h / norm n h) ->
    forall t, is_derive phi t (- norm n h * sin (phi t)).

(** (e) ... and is the closed form. *)
Definition lohe_fixed_query_spec : Prop :=
  forall n h z (phi : R -> R), 0 < norm n h -> solution n h z ->
    (forall t, dot n (z t) (z t) = 1) ->
    (forall t, 0 < phi t < PI /\ cos (phi t) = dot n (z t) h / norm n h) ->
    forall t, phi t = angle (norm n h) (phi 0) t.

(** (e) The closed form tends to 0 from every start but the antipode. *)
Definition lohe_angle_limit_spec : Prop :=
  forall a phi0 eps, 0 < a -> 0 < phi0 < PI -> 0 < eps ->
    exists T, forall t, T < t -> angle a phi0 t < eps.

(** (e) It reaches [delta] at [T = ln(tan(phi0/2) / tan(delta/2)) / a]. *)
Definition lohe_hit_time_spec : Prop :=
  forall a phi0 delta, 0 < a -> 0 < phi0 < PI -> 0 < delta < PI ->
    angle a phi0 (time_to_converge a phi0 delta) = delta.

(** (f) Every coupling is positive. *)
Definition lohe_couplings_positive_spec : Prop :=
  (forall s, 0 < softplus s /\ 0 < relu_coupling s /\ 0 < elu1 s)
  /\ forall dh q k, (0 < dh)%nat -> 0 < kernel dh q k.

(** (f) The published [elu1] of the score is not the kernel. *)
Definition lohe_elu1_not_kernel_spec : Prop :=
  exists dh q k, elu1 (score dh q k) <> kernel dh q k.
