(** * Statement 6 (specification): the cap probability bound and the failure event

    Informal statement.  The bound of [syncattn.sphere.cap_probability_bound] on
    the measure of a spherical cap of angle [alpha] in [S^{d-1}] is [rho(alpha)^d]
    with [rho(alpha) = 1 / (2 cos alpha)] on [[0, pi/4]], [sin alpha] on
    [(pi/4, pi/2]] and [1] beyond.  Formalised here:
    (b) [rho(alpha)^d <= exp(-d cos^2(alpha) / 2)] on [[0, pi/2]] for every [d];
        [0 <= rho(alpha) < 1] on [[0, pi/2)] (the bound decays exponentially in
        [d]); [rho] is continuous at [pi/4]; the values [rho(alpha)^d] at the
        points the failure study tabulates ([alpha] in {30, 45, 60} degrees,
        [d] in {2, 3, 4, 8, 16, 32, 64}) lie in enclosures of relative width
        [2e-9] around the library's float64 values;
    (c) under [z' = (I - z z^T) h] the angle at time [T] exceeds [delta] iff the
        start exceeds [phi_c = 2 atan(tan(delta/2) e^{|h| T})], i.e. iff the
        start lies in the cap of angle [pi - phi_c] around the antipode.
    Not formalised: the cap measure (a), [cap(alpha) <= rho(alpha)^d] and the
    probabilities of (c) (see [failure_odds.v]).

    Symbol map.
    - [rho alpha ^ d]: [syncattn.sphere.cap_probability_bound];
    - [angle a phi0 t] ([CoreSpec.v]): [syncattn.lohe.exact_angle];
      [critical_angle a T delta]: [phi_c] of
      [syncattn.lohe.finite_time_failure_probability].
    Proofs: [failure_odds.v]; sympy: [proofs/proof_failure_odds.py]. *)

From Syncattn Require Import CoreSpec.

(** [syncattn.sphere.cap_probability_bound]: [rho(alpha)], the bound is [rho^d]. *)
Definition rho (alpha : R) : R :=
  if Rle_dec alpha (PI / 4) then 1 / (2 * cos alpha)
  else if Rle_dec alpha (PI / 2) then sin alpha else 1.

(** [phi_c = 2 atan(tan(delta/2) e^{a T})], [a = |h|]. *)
Definition critical_angle (a T delta : R) : R := 2 * atan (tan (delta / 2) * exp (a * T)).

(** (b) The exponential form, for every [d]. *)
Definition failure_odds_spec : Prop :=
  forall alpha d, 0 <= alpha <= PI / 2 -> rho alpha ^ d <= exp (- INR d * cos alpha ^ 2 / 2).

(** (b) [0 <= rho < 1] before [pi/2]. *)
Definition rho_below_one_spec : Prop :=
  forall alpha, 0 <= alpha < PI / 2 -> 0 <= rho alpha < 1.

(** (b) [rho] is continuous at [pi/4]: both branches agree there. *)
Definition rho_continuous_spec : Prop :=
  1 / (2 * cos (PI / 4)) = sin (PI / 4).

(** (b) The 21 tabulated values. *)
Definition rho_table_spec : Prop :=
  (3.333333330000e-01 <= rho (PI / 6) ^ 2 <= 3.333333336667e-01)
  /\ (1.924500895374e-01 <= rho (PI / 6) ^ 3 <= 1.924500899223e-01)
  /\ (1.111111110000e-01 <= rho (PI / 6) ^ 4 <= 1.111111112222e-01)
  /\ (1.234567900000e-02 <= rho (PI / 6) ^ 8 <= 1.234567902469e-02)
  /\ (1.524157901235e-04 <= rho (PI / 6) ^ 16 <= 1.524157904283e-04)
  /\ (2.323057310219e-08 <= rho (PI / 6) ^ 32 <= 2.323057314865e-08)
  /\ (5.396595271958e-16 <= rho (PI / 6) ^ 64 <= 5.396595282751e-16)
  /\ (4.999999995000e-01 <= rho (PI / 4) ^ 2 <= 5.000000005000e-01)
  /\ (3.535533902397e-01 <= rho (PI / 4) ^ 3 <= 3.535533909468e-01)
  /\ (2.499999997500e-01 <= rho (PI / 4) ^ 4 <= 2.500000002500e-01)
  /\ (6.249999993750e-02 <= rho (PI / 4) ^ 8 <= 6.250000006250e-02)
  /\ (3.906249996094e-03 <= rho (PI / 4) ^ 16 <= 3.906250003906e-03)
  /\ (1.525878904724e-05 <= rho (PI / 4) ^ 32 <= 1.525878907776e-05)
  /\ (2.328306434210e-10 <= rho (PI / 4) ^ 64 <= 2.328306438867e-10)
  /\ (7.499999992500e-01 <= rho (PI / 3) ^ 2 <= 7.500000007500e-01)
  /\ (6.495190521888e-01 <= rho (PI / 3) ^ 3 <= 6.495190534878e-01)
  /\ (5.624999994375e-01 <= rho (PI / 3) ^ 4 <= 5.625000005625e-01)
  /\ (3.164062496836e-01 <= rho (PI / 3) ^ 8 <= 3.164062503164e-01)
  /\ (1.001129149389e-01 <= rho (PI / 3) ^ 16 <= 1.001129151392e-01)
  /\ (1.002259574760e-02 <= rho (PI / 3) ^ 32 <= 1.002259576764e-02)
  /\ (1.004524256202e-04 <= rho (PI / 3) ^ 64 <= 1.004524258211e-04).

(** (c) The failure event: [phi(T) > delta] iff [phi0 > phi_c]. *)
Definition failure_event_spec : Prop :=
  forall a T delta phi0, 0 < delta < PI -> 0 < phi0 < PI ->
    (delta < angle a phi0 T <-> critical_angle a T delta < phi0)
    /\ 0 < critical_angle a T delta < PI.
