(** * Statement 23: Kuramoto with inertia (specification)

    Definitions mirroring [syncattn/kuramoto/_inertia.py] and the claims proved in
    [inertia.v]. Phases and velocities along a solution are functions of time
    [th v : nat -> R -> R]; derivatives are the standard library's [derivable_pt_lim]
    (equivalent to Coquelicot's [is_derive], [is_derive_Reals]). *)

From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Complex.
Open Scope R_scope.

(** [syncattn.kuramoto.vector_field] without frustration:
    [omega_i + sum_j K_ij sin(theta_j - theta_i)]. *)
Definition field (n : nat) (omega : nat -> R) (K : nat -> nat -> R) (th : nat -> R) (i : nat) : R :=
  omega i + sumN (fun j => K i j * sin (th j - th i)) n.

(** [syncattn.kuramoto.inertial_energy]:
    [(m/2) sum_i v_i^2 + (1/2) sum_ij K_ij (1 - cos(theta_j - theta_i))]. *)
Definition inertial_energy (n : nat) (m : R) (K : nat -> nat -> R) (th v : nat -> R) : R :=
  m / 2 * dot n v v + 1 / 2 * sumN (fun i => sumN (fun j => K i j * (1 - cos (th j - th i))) n) n.

(** A solution at time [t] of [theta' = v], [m v' = omega + F(theta) - v]
    ([syncattn.kuramoto.inertial_vector_field]), [a_i] the accelerations [v_i'(t)]. *)
Definition inertial_solution_at (n : nat) (m : R) (omega : nat -> R) (K : nat -> nat -> R)
  (th v : nat -> R -> R) (a : nat -> R) (t : R) : Prop :=
  forall i, (i < n)%nat ->
    derivable_pt_lim (th i) t (v i t) /\ derivable_pt_lim (v i) t (a i)
    /\ m * a i = field n omega K (fun j => th j t) i - v i t.

(** (a) With [omega = 0] and [K] symmetric, [dE/dt = -sum_i v_i^2] along solutions. *)
Definition energy_identity_spec : Prop :=
  forall n m K (th v : nat -> R -> R) (a : nat -> R) t,
  (forall i j, K i j = K j i) ->
  inertial_solution_at n m (fun _ => 0) K th v a t ->
  derivable_pt_lim (fun s => inertial_energy n m K (fun i => th i s) (fun i => v i s)) t
    (- dot n (fun i => v i t) (fun i => v i t)).

(** (b) Hence [E] never increases on an interval where the solution lives. *)
Definition energy_nonincreasing_spec : Prop :=
  forall n m K (th v a : nat -> R -> R) t1 t2,
  (forall i j, K i j = K j i) -> t1 <= t2 ->
  (forall t, t1 <= t <= t2 -> inertial_solution_at n m (fun _ => 0) K th v (fun i => a i t) t) ->
  inertial_energy n m K (fun i => th i t2) (fun i => v i t2)
  <= inertial_energy n m K (fun i => th i t1) (fun i => v i t1).

(** (c) [m = 0]: the phases solve the first-order Kuramoto flow [theta' = omega + F]. *)
Definition zero_mass_spec : Prop :=
  forall n omega K th v a t, inertial_solution_at n 0 omega K th v a t ->
  forall i, (i < n)%nat -> derivable_pt_lim (th i) t (field n omega K (fun j => th j t) i).

(** (d) For [m > 0] the equilibria [(theta, v)] of the inertial flow are the
    equilibria [theta] of the first-order flow with [v = 0]. *)
Definition equilibria_spec : Prop :=
  forall n m omega K th (v : nat -> R), 0 < m ->
  ((forall i, (i < n)%nat -> v i = 0 /\ (field n omega K th i - v i) / m = 0)
   <-> (forall i, (i < n)%nat -> v i = 0 /\ field n omega K th i = 0)).

(** the first-order linearisation [J = -dF/dtheta] (any real [n x n] matrix) applied to a
    complex vector: [(J x)_i = sum_j J_ij x_j]. *)
Definition mat_apply (n : nat) (J : nat -> nat -> R) (x : nat -> C) (i : nat) : C :=
  (sumN (fun j => J i j * fst (x j)) n, sumN (fun j => J i j * snd (x j)) n).

(** the inertial Jacobian [A = [[0, I], [-J/m, -I/m]]] has the eigenpair [(lam, (x, y))]:
    [y = lam x] and [(- J x - y) / m = lam y], with [(x, y) <> 0]. *)
Definition inertial_eigenpair (n : nat) (m : R) (J : nat -> nat -> R) (lam : C) (x y : nat -> C) : Prop :=
  (exists i, (i < n)%nat /\ (x i <> 0%C \/ y i <> 0%C)) /\
  forall i, (i < n)%nat ->
    y i = (lam * x i)%C /\ (RtoC (/ m) * (- mat_apply n J x i - y i))%C = (lam * y i)%C.

(** [J] has the (complex) eigenvalue [mu] with eigenvector [x <> 0]. *)
Definition first_order_eigenpair (n : nat) (J : nat -> nat -> R) (mu : C) (x : nat -> C) : Prop :=
  (exists i, (i < n)%nat /\ x i <> 0%C) /\
  forall i, (i < n)%nat -> mat_apply n J x i = (mu * x i)%C.

(** (e) for every [N] and [m > 0]: [lam] is an eigenvalue of the inertial Jacobian iff
    [m lam^2 + lam + mu = 0] for an eigenvalue [mu] of [J] (eigenvectors [(x, lam x)]). *)
Definition inertial_spectrum_spec : Prop :=
  forall n m J lam, 0 < m ->
  ((exists x y, inertial_eigenpair n m J lam x y) <->
   (exists mu x, first_order_eigenpair n J mu x /\ (RtoC m * lam * lam + lam + mu)%C = 0%C)).

(** (e) A mode with first-order decay rate [mu > 0] ([m lambda^2 + lambda + mu = 0],
    [lambda = x + i y] in real and imaginary parts) decays: [x < 0], for every [m > 0]. *)
Definition mode_stable_spec : Prop :=
  forall m mu x y, 0 < m -> 0 < mu ->
  m * (x * x - y * y) + x + mu = 0 -> 2 * m * x * y + y = 0 -> x < 0.

(** (f) A mode with [mu < 0] has a real root [lambda > 0]: it grows, for every [m > 0]. *)
Definition mode_unstable_spec : Prop :=
  forall m mu, 0 < m -> mu < 0 -> exists x, 0 < x /\ m * (x * x) + x + mu = 0.
