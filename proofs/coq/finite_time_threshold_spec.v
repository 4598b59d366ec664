(** * Statement 12 (specification): the finite-time threshold [|h| T = ln cot(delta/2)]

    Informal statement.  Along the angle [phi(t)] of a solution of
    [z' = (I - z z^T) h] on the sphere (statement 5: it is
    [2 atan(tan(phi0/2) e^{-|h| t})]), for [0 < delta, phi0 < pi], [|h| > 0]:
    (hit)     the angle reaches [delta] exactly at
              [T = (ln tan(phi0/2) - ln tan(delta/2)) / |h|], and at no other
              time, for the closed form and for every solution of the flow;
    (horizon) from [phi0 = pi/2], [|h| T = ln cot(delta/2) = L] (the critical
              horizon [T_c = L / |h|]);
    (a)       with [u = |h| T - L], the critical start
              [phi_c = 2 atan(tan(delta/2) e^{|h| T})] is [2 atan(e^u)],
              [phi_c < pi/2] iff [u < 0], and [cos phi_c = -tanh u];
    (b)       the cap that fails has angle [pi - phi_c] (u > 0) or [phi_c]
              (u < 0), whose cap bound [rho^d] (statement 6) is at most
              [exp(-d tanh^2(u) / 2)]; at [u = 0], [phi_c = pi/2];
    (c)       the band [|phi0 - pi/2| >= eta] is two caps of angle
              [pi/2 - eta], with bound [rho^d <= exp(-d sin^2(eta) / 2)].
    Not formalised: the probabilities of (b), (c) and the limit (d) (see
    [finite_time_threshold.v]).

    Symbol map.
    - [hit_time a phi0 delta]: [syncattn.lohe.time_to_converge] ([a = |h|]);
      [ln (cot (delta / 2)) / a]: [syncattn.lohe.finite_time_threshold];
      [angle] ([CoreSpec.v]): [syncattn.lohe.exact_angle];
    - [rho], [critical_angle]: [failure_odds_spec.v]
      ([syncattn.sphere.cap_probability_bound], [phi_c]);
    - [field], [solution]: [lohe_fixed_query_spec.v]
      ([syncattn.lohe.fixed_query_field]; [z : R -> (nat -> R)] solves the flow).
    Proofs: [finite_time_threshold.v]; sympy:
    [proofs/proof_finite_time_threshold.py]. *)

From Syncattn Require Import CoreSpec failure_odds_spec lohe_fixed_query_spec.

(** [T = (ln tan(phi0/2) - ln tan(delta/2)) / a]. *)
Definition hit_time (a phi0 delta : R) : R := (ln (tan (phi0 / 2)) - ln (tan (delta / 2))) / a.

Definition cot (x : R) : R := / tan x.

Definition tanh (u : R) : R := (exp u - exp (- u)) / (exp u + exp (- u)).

(** (hit) The closed form reaches [delta] exactly at [T], and only then. *)
Definition finite_time_threshold_spec : Prop :=
  forall a phi0 delta, 0 < a -> 0 < phi0 < PI -> 0 < delta < PI ->
    angle a phi0 (hit_time a phi0 delta) = delta
    /\ (forall t, angle a phi0 t = delta -> t = hit_time a phi0 delta).

(** (hit) The same for the angle of every solution of the flow on the sphere. *)
Definition threshold_along_solutions_spec : Prop :=
  forall n h z (phi : R -> R) delta, 0 < norm n h -> solution n h z ->
    (forall t, dot n (z t) (z t) = 1) ->
    (forall t, 0 < phi t < PI /\ cos (phi t) = dot n (z t) h / norm n h) ->
    0 < delta < PI ->
    forall t, phi t = delta <-> t = hit_time (norm n h) (phi 0) delta.

(** (horizon) From [pi/2]: [a T = ln cot(delta/2)]. *)
Definition threshold_horizon_spec : Prop :=
  forall a delta, 0 < a -> 0 < delta < PI ->
    a * hit_time a (PI / 2) delta = ln (cot (delta / 2)).

(** (a) [phi_c = 2 atan(e^u)], below [pi/2] iff [u < 0]. *)
Definition critical_start_spec : Prop :=
  forall a T delta, 0 < delta < PI ->
    critical_angle a T delta = 2 * atan (exp (a * T - ln (cot (delta / 2))))
    /\ (critical_angle a T delta < PI / 2 <-> a * T - ln (cot (delta / 2)) < 0).

(** (a) [cos phi_c = -tanh u]. *)
Definition threshold_critical_cos_spec : Prop :=
  forall u, cos (2 * atan (exp u)) = - tanh u.

(** (b) The bound of the failing cap is at most [exp(-d tanh^2(u) / 2)]. *)
Definition threshold_rate_spec : Prop :=
  forall u d,
    (0 < u -> rho (PI - 2 * atan (exp u)) ^ d <= exp (- INR d * tanh u ^ 2 / 2))
    /\ (u < 0 -> rho (2 * atan (exp u)) ^ d <= exp (- INR d * tanh u ^ 2 / 2))
    /\ 2 * atan (exp 0) = PI / 2.

(** (c) The bound of the band's caps: [rho(pi/2 - eta)^d <= exp(-d sin^2(eta) / 2)]. *)
Definition band_rate_spec : Prop :=
  forall eta d, 0 <= eta <= PI / 2 ->
    rho (PI / 2 - eta) ^ d <= exp (- INR d * sin eta ^ 2 / 2).
