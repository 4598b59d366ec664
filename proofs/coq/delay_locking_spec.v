(** * Statement 22: delayed Kuramoto, in-phase locking (specification)

    Definitions mirroring [syncattn/kuramoto/_delay.py] and the claims proved in
    [delay_locking.v]. Phases are functions of time [th : nat -> R -> R]; couplings
    [K : nat -> nat -> R]; derivatives are the standard library's [derivable_pt_lim]
    (equivalent to Coquelicot's [is_derive], [is_derive_Reals]). *)

From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Complex.
Open Scope R_scope.

(** [syncattn.kuramoto.delay_vector_field] with one delay [tau], one natural frequency
    [omega] and no frustration: [omega + sum_j K_ij sin(theta_j(t - tau) - theta_i(t))]. *)
Definition delayed_field (n : nat) (K : nat -> nat -> R) (tau omega : R)
  (th : nat -> R -> R) (t : R) (i : nat) : R :=
  omega + sumN (fun j => K i j * sin (th j (t - tau) - th i t)) n.

(** [syncattn.kuramoto.delay_locked_frequencies]: its roots [Omega] are the zeros of
    [g(Omega) = Omega - omega + k sin(Omega tau)], [k] the row sum of [K]. *)
Definition locking_residual (omega k tau Omega : R) : R :=
  Omega - omega + k * sin (Omega * tau).

(** The linearisation about the locked state, applied to a perturbation [phi]. *)
Definition linearised_rhs (n : nat) (K : nat -> nat -> R) (tau Omega : R)
  (phi : nat -> R -> R) (t : R) (i : nat) : R :=
  cos (Omega * tau) * sumN (fun j => K i j * (phi j (t - tau) - phi i t)) n.

(** The cubic Hermite interpolant's midpoint ([_hermite_mid] in [_delay.py]). *)
Definition hermite_mid (y0 y1 f0 f1 h : R) : R := (y0 + y1) / 2 + h * (f0 - f1) / 8.

(** (a) With every row sum of [K] equal to [k], the in-phase state [theta_i = Omega t + c]
    solves the delayed flow iff [Omega = omega - k sin(Omega tau)]. *)
Definition locked_state_spec : Prop :=
  forall n K k tau omega Omega c, (0 < n)%nat ->
  (forall i, (i < n)%nat -> sumN (K i) n = k) ->
  ((forall t i, (i < n)%nat ->
      derivable_pt_lim (fun s => Omega * s + c) t
        (delayed_field n K tau omega (fun _ s => Omega * s + c) t i))
   <-> locking_residual omega k tau Omega = 0).

(** (b) The derivative of the field along [theta = Omega t + c + e phi] at [e = 0] is
    [cos(Omega tau) sum_j K_ij (phi_j(t - tau) - phi_i(t))]. *)
Definition linearisation_spec : Prop :=
  forall n K tau omega Omega c (phi : nat -> R -> R) t i,
  derivable_pt_lim
    (fun e => delayed_field n K tau omega (fun j s => Omega * s + c + e * phi j s) t i) 0
    (linearised_rhs n K tau Omega phi t i).

(** (c) Mean field [K_ij = k/n]: a zero-sum perturbation [phi_j(t) = v_j e^{-c t}],
    [c = k cos(Omega tau)], solves the linearised flow exactly (it decays iff [c > 0]). *)
Definition transverse_mode_spec : Prop :=
  forall n k tau Omega (v : nat -> R) t i, (0 < n)%nat -> sumN v n = 0 ->
  derivable_pt_lim (fun s => v i * exp (- (k * cos (Omega * tau)) * s)) t
    (linearised_rhs n (fun _ _ => k / INR n) tau Omega
       (fun j s => v j * exp (- (k * cos (Omega * tau)) * s)) t i).

(** complex sums and [e^{-lam tau}] for [lam = x + i y] *)
Definition csum (f : nat -> C) (n : nat) : C :=
  (sumN (fun j => fst (f j)) n, sumN (fun j => snd (f j)) n).
Definition cexp_delay (lam : C) (tau : R) : C :=
  (exp (- fst lam * tau) * cos (snd lam * tau), - (exp (- fst lam * tau) * sin (snd lam * tau))).

(** [phi_j(t) = v_j e^{lam t}] solves the linearisation with [K_ij = k/n]
    ([linearised_rhs], divided by [e^{lam t}]). *)
Definition mean_field_mode (n : nat) (k tau Omega : R) (lam : C) (v : nat -> C) : Prop :=
  forall i, (i < n)%nat ->
    (lam * v i)%C = (RtoC (cos (Omega * tau)) * csum (fun j => RtoC (k / INR n) * (v j * cexp_delay lam tau - v i)) n)%C.

(** (c) mean field, [c = k cos(Omega tau) <> 0]: an exponential mode [v e^{lam t}]
    ([v <> 0], complex) is either uniform with [lam + c = c e^{-lam tau}] or zero-sum
    with [lam + c = 0], and every such [v] is a mode. *)
Definition mode_classification_spec : Prop :=
  forall n k tau Omega (lam : C) (v : nat -> C),
  (0 < n)%nat -> k * cos (Omega * tau) <> 0 -> (exists i, (i < n)%nat /\ v i <> 0%C) ->
  let c := RtoC (k * cos (Omega * tau)) in
  (mean_field_mode n k tau Omega lam v <->
   ((forall i j, (i < n)%nat -> (j < n)%nat -> v i = v j) /\ (lam + c = c * cexp_delay lam tau)%C)
   \/ (csum v n = 0%C /\ (lam + c = 0)%C)).


(** (d) The uniform mode's characteristic equation [lambda + c = c e^{-lambda tau}]
    ([lambda = x + i y], real and imaginary parts) has no root with [x >= 0] but
    [lambda = 0] when [c > 0]. *)
Definition uniform_mode_stable_spec : Prop :=
  forall c tau x y, 0 < c -> 0 <= tau -> 0 <= x ->
  x + c = c * exp (- x * tau) * cos (y * tau) ->
  y = - c * exp (- x * tau) * sin (y * tau) ->
  x = 0 /\ y = 0.

(** (e) Every locked frequency lies in [[omega - |k|, omega + |k|]]. *)
Definition roots_bounded_spec : Prop :=
  forall omega k tau Omega, locking_residual omega k tau Omega = 0 ->
  Rabs (Omega - omega) <= Rabs k.

(** (f) [g'(Omega) = 1 + k tau cos(Omega tau)]: [g] is monotone between its turning points. *)
Definition residual_derivative_spec : Prop :=
  forall omega k tau Omega,
  derivable_pt_lim (locking_residual omega k tau) Omega (1 + k * tau * cos (Omega * tau)).

(** (g) The cubic with values [y0, y1] and slopes [f0, f1] at [0, h] has the value
    [hermite_mid] at [h/2]. *)
Definition hermite_midpoint_spec : Prop :=
  forall a b c d h y0 y1 f0 f1,
  a = y0 -> a + b * h + c * h ^ 2 + d * h ^ 3 = y1 ->
  b = f0 -> b + 2 * c * h + 3 * d * h ^ 2 = f1 ->
  a + b * (h / 2) + c * (h / 2) ^ 2 + d * (h / 2) ^ 3 = hermite_mid y0 y1 f0 f1 h.
