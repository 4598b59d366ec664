(** * Statement 4 (specification): synchronisation as coherence ascent

    Informal statement.
    (a) For a fixed phasor [G = sum_u A_u e^{i theta_u}],
        [d/d theta_t Re(e^{-i theta_t} G) = sum_u A_u sin(theta_u - theta_t)]:
        each token climbs its local coherence.
    (b) For a symmetric coupling matrix [K] on [n] oscillators (any n) and
        [E(theta) = -(1/2) sum_ij K_ij cos(theta_j - theta_i)],
        [-dE/d theta_m = sum_j K_mj sin(theta_j - theta_m)]: with [omega = 0] the
        Kuramoto flow is the gradient flow [theta' = -grad E].
    (c) Along every solution [theta(t)] of [theta' = -grad E],
        [d/dt E(theta(t)) = -|grad E(theta(t))|^2 <= 0].
    (d) For scalar coupling [K_ij = K/n], [E = -(K n / 2) R^2] with [R] the
        modulus of the order parameter [R e^{i psi} = (1/n) sum_j e^{i theta_j}].

    Symbol map.
    - [coherence w th]: [syncattn.entropic.local_coherence]
      ([Re(e^{-i th} G) = cos th Re G + sin th Im G]); [coupling]: [CoreSpec.v],
      [syncattn.kuramoto.coupling_term];
    - [energy n K th]: [syncattn.kuramoto.coherence_energy];
    - [vector_field n K th m]: [syncattn.kuramoto.vector_field] with [omega = 0];
    - [order2 n th]: [R^2] for [syncattn.torus.order_parameter] (unit weights);
    - phases and couplings are functions on indices, [th : nat -> R],
      [K : nat -> nat -> R]; a partial derivative [dE/d theta_m] is the
      derivative of [x |-> E(upd th m x)] ([theta] with [theta_m := x]);
      a trajectory is [theta : R -> nat -> R]; derivatives are Coquelicot's
      [is_derive].
    Proofs: [coherence_gradient.v]; sympy: [proofs/proof_coherence_gradient.py]. *)

Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
(* After Coquelicot, so that [norm] is [CoreSpec.norm], not Coquelicot's. *)
From Syncattn Require Import CoreSpec.

(** [syncattn.entropic.local_coherence]: [Re(e^{-i th} G)]. *)
Definition coherence (w : list (R * R)) (th : R) : R :=
  cos th * re_G w + sin th * im_G w.

(** [syncattn.kuramoto.coherence_energy]: [-(1/2) sum_ij K_ij cos(theta_j - theta_i)]. *)
Definition energy (n : nat) (K : nat -> nat -> R) (th : nat -> R) : R :=
  - (1 / 2) * sumN (fun i => sumN (fun j => K i j * cos (th j - th i)) n) n.

(** [syncattn.kuramoto.vector_field] with [omega = 0]: [sum_j K_mj sin(theta_j - theta_m)]. *)
Definition vector_field (n : nat) (K : nat -> nat -> R) (th : nat -> R) (m : nat) : R :=
  sumN (fun j => K m j * sin (th j - th m)) n.

(** [theta] with its [m]-th phase replaced by [x]. *)
Definition upd (th : nat -> R) (m : nat) (x : R) : nat -> R :=
  fun k => if Nat.eq_dec k m then x else th k.

(** [R^2 = |(1/n) sum_j e^{i theta_j}|^2] ([syncattn.torus.order_parameter]). *)
Definition order2 (n : nat) (th : nat -> R) : R :=
  (sumN (fun j => cos (th j)) n / INR n) ^ 2 + (sumN (fun j => sin (th j)) n / INR n) ^ 2.

(** (a) The derivative of the local coherence is the Kuramoto coupling. *)
Definition local_coherence_ascent_spec : Prop :=
  forall w th, is_derive (coherence w) th (coupling th w).

(** (b) For symmetric [K], [-dE/d theta_m] is the Kuramoto vector field. *)
Definition coherence_gradient_spec : Prop :=
  forall n K th m, (m < n)%nat -> (forall i j, K i j = K j i) ->
    is_derive (fun x => energy n K (upd th m x)) (th m) (- vector_field n K th m).

(** (c) Along every solution of [theta' = -grad E] ([g t m] the partial
    derivatives of [E] at [theta t]), [dE/dt = -|grad E|^2 <= 0]. *)
Definition energy_descent_spec : Prop :=
  forall n K (theta g : R -> nat -> R),
    (forall t m, (m < n)%nat ->
       is_derive (fun x => energy n K (upd (theta t) m x)) (theta t m) (g t m)) ->
    (forall t m, (m < n)%nat -> is_derive (fun s => theta s m) t (- g t m)) ->
    forall t, is_derive (fun s => energy n K (theta s)) t (- sumN (fun m => g t m ^ 2) n)
         /\ - sumN (fun m => g t m ^ 2) n <= 0.

(** (d) Scalar coupling [K/n]: [E = -(K n / 2) R^2]. *)
Definition energy_order_parameter_spec : Prop :=
  forall n Kc th, (0 < n)%nat ->
    energy n (fun _ _ => Kc / INR n) th = - (Kc * INR n / 2) * order2 n th.
