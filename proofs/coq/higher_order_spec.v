(** * Statement 24 (proofs/proof_higher_order.py): specification

    Definitions mirroring syncattn/kuramoto/_higher_order.py, and the claims
    proved in [higher_order.v]. *)

From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Complex.
Open Scope R_scope.

(** The triadic double sum felt by an oscillator of phase [x] from the phases
    [a 0 .. a (n-1)] ([simplicial_field], scalar [triadic], times [N^2/K2]). *)
Definition triadic_sum (a : nat -> R) (n : nat) (x : R) : R :=
  sumN (fun j => sumN (fun l => sin (2 * a j - a l - x)) n) n.

(** The sums the O(N) mean field uses: [N Z_1 = C1 + i S1], [N Z_2 = C2 + i S2]. *)
Definition C1 (a : nat -> R) n := sumN (fun k => cos (a k)) n.
Definition S1 (a : nat -> R) n := sumN (fun k => sin (a k)) n.
Definition C2 (a : nat -> R) n := sumN (fun k => cos (2 * a k)) n.
Definition S2 (a : nat -> R) n := sumN (fun k => sin (2 * a k)) n.

(** [_triadic]: [Im(Z_2 conj(Z_1) e^{-ix}) = cos x Im G - sin x Re G], [G = Z_2 conj(Z_1)]. *)
Definition triadic_mean_field_spec : Prop := forall (a : nat -> R) (n : nat) (x : R),
  triadic_sum a n x
  = cos x * (S2 a n * C1 a n - C2 a n * S1 a n) - sin x * (C2 a n * C1 a n + S2 a n * S1 a n).

(** The Ott-Antonsen equation of the local order parameter at the Lorentzian pole,
    [z' = -gamma z + (H - conj(H) z^2)/2], with [H = (K1 + K2 |z|^2) z]. *)
Definition m2 (z : C) : R := Re z ^ 2 + Im z ^ 2.
Definition oa_zdot (K1 K2 g : R) (z : C) : C :=
  let H := (RtoC (K1 + K2 * m2 z) * z)%C in
  (RtoC (- g) * z + RtoC (/ 2) * (H - Cconj H * z * z))%C.

Definition oa_modulus_spec : Prop := forall K1 K2 g (z : C),
  Re (Cconj z * oa_zdot K1 K2 g z)%C = m2 z * (- g + (K1 + K2 * m2 z) * (1 - m2 z) / 2).

(** [simplicial_ott_antonsen_rhs] and the quadratic of its non-zero states. *)
Definition quintic (K1 K2 g r : R) : R :=
  - g * r + K1 / 2 * (r - r ^ 3) + K2 / 2 * (r ^ 3 - r ^ 5).
Definition p (K1 K2 g u : R) : R := K2 * u ^ 2 + (K1 - K2) * u + 2 * g - K1.
Definition dp (K1 K2 u : R) : R := 2 * K2 * u + (K1 - K2).
Definition Delta (K1 K2 g : R) : R := (K1 + K2) ^ 2 - 8 * g * K2.

Definition quintic_derivative_spec : Prop := forall K1 K2 g r,
  quintic K1 K2 g r = - / 2 * r * p K1 K2 g (r ^ 2)
  /\ derivable_pt_lim (quintic K1 K2 g) r (- / 2 * p K1 K2 g (r ^ 2) - r ^ 2 * dp K1 K2 (r ^ 2))
  /\ derivable_pt_lim (quintic K1 K2 g) 0 (K1 / 2 - g).

Definition root_linearisation_spec : Prop := forall K1 K2 g r,
  p K1 K2 g (r ^ 2) = 0 ->
  derivable_pt_lim (quintic K1 K2 g) r (- r ^ 2 * dp K1 K2 (r ^ 2))
  /\ dp K1 K2 (r ^ 2) ^ 2 = Delta K1 K2 g.

(** [simplicial_fixed_points]: the two roots [u_-], [u_+] in the bistable window. *)
Definition bistable_region_spec : Prop := forall K1 K2 g,
  0 < g -> 2 * g < K2 -> sqrt (8 * g * K2) - K2 < K1 -> K1 < 2 * g ->
  let um := (K2 - K1 - sqrt (Delta K1 K2 g)) / (2 * K2) in
  let up := (K2 - K1 + sqrt (Delta K1 K2 g)) / (2 * K2) in
  0 < Delta K1 K2 g /\ 0 < um /\ um < up /\ up < 1
  /\ p K1 K2 g um = 0 /\ p K1 K2 g up = 0
  /\ 0 < dp K1 K2 up /\ dp K1 K2 um < 0 /\ K1 / 2 - g < 0.

Definition no_bistability_spec : Prop := forall K1 K2 g u,
  0 < g -> 0 <= K2 -> K2 <= 2 * g -> K1 <= 2 * g -> 0 < u -> u <= 1 -> 0 < p K1 K2 g u.

(** [simplicial_transition]: the jump at [K_f = 2 gamma] and the saddle-node at
    [K_b = sqrt(8 gamma K2) - K2]. *)
Definition abrupt_transition_spec : Prop := forall K2 g,
  0 < g -> 2 * g < K2 ->
  (p (2 * g) K2 g (1 - 2 * g / K2) = 0 /\ dp (2 * g) K2 (1 - 2 * g / K2) = K2 - 2 * g
   /\ 0 < 1 - 2 * g / K2)
  /\ (let Kb := sqrt (8 * g * K2) - K2 in let u := 1 - sqrt (2 * g / K2) in
      Delta Kb K2 g = 0 /\ p Kb K2 g u = 0 /\ dp Kb K2 u = 0 /\ 0 < u).
