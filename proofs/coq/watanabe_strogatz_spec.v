(** * Statement 25 (proofs/proof_watanabe_strogatz.py): specification

    Definitions mirroring syncattn/kuramoto/_watanabe_strogatz.py (complex numbers
    of Coquelicot), and the claims proved in [watanabe_strogatz.v]. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** [|z|^2]. *)
Definition nrm2 (z : C) : R := Re z ^ 2 + Im z ^ 2.

(** [_mobius]: [M(u) = (u + alpha)/(1 + conj(alpha) u)], [u = e^{i psi} w]. *)
Definition mobius (a u : C) : C := ((u + a) / (1 + Cconj a * u))%C.

Definition mobius_circle_spec : Prop := forall a u : C,
  nrm2 (u + a)%C - nrm2 (1 + Cconj a * u)%C = (nrm2 u - 1) * (1 - nrm2 a)
  /\ (nrm2 a < 1 -> nrm2 u = 1 -> nrm2 (mobius a u) = 1).

Definition mobius_disk_spec : Prop := forall a u : C,
  nrm2 a < 1 -> nrm2 u < 1 -> nrm2 (mobius a u) < 1.

(** theta' = omega + Im(H e^{-i theta}) makes z = e^{i theta} move by
    [z' = i theta' z]; on the circle that is the Riccati field. *)
Definition riccati (w : R) (H z : C) : C := (Ci * RtoC w * z + RtoC (/ 2) * (H - Cconj H * z * z))%C.

Definition riccati_form_spec : Prop := forall (w : R) (H z : C),
  nrm2 z = 1 -> (Ci * RtoC (w + Im (H * Cconj z)%C) * z)%C = riccati w H z.

(** [_ws_velocity]: the group parameters' flow. *)
Definition alpha_dot (w : R) (H a : C) : C := (Ci * RtoC w * a + RtoC (/ 2) * (H - Cconj H * a * a))%C.
Definition psi_dot (w : R) (H a : C) : R := w + Im (H * Cconj a)%C.

(** The chain rule for [z(t) = M_{alpha(t), psi(t)}(w)] (w constant, [u = e^{i psi} w]). *)
Definition chain (a u adot : C) (pdot : R) : C :=
  ((1 - a * Cconj a) / ((1 + Cconj a * u) * (1 + Cconj a * u)) * (Ci * RtoC pdot * u)
   + adot / (1 + Cconj a * u)
   - u * (u + a) / ((1 + Cconj a * u) * (1 + Cconj a * u)) * Cconj adot)%C.

(** (d1) the chain rule: for [alpha(t)] and [psi(t)] differentiable (derivatives [adot],
    [pdot]; real and imaginary parts) and [w] constant, [z(t) = M_{alpha(t)}(e^{i psi(t)} w)]
    has derivative [chain alpha u adot pdot] wherever [1 + conj(alpha) u <> 0]. *)
Definition chain_rule_spec : Prop :=
  forall (alpha : R -> C) (psi : R -> R) (w adot : C) (pdot t : R),
  is_derive (fun s => Re (alpha s)) t (Re adot) -> is_derive (fun s => Im (alpha s)) t (Im adot) ->
  is_derive psi t pdot ->
  let u := fun s => ((cos (psi s), sin (psi s)) * w)%C in
  (1 + Cconj (alpha t) * u t)%C <> RtoC 0 ->
  is_derive (fun s => Re (mobius (alpha s) (u s))) t (Re (chain (alpha t) (u t) adot pdot))
  /\ is_derive (fun s => Im (mobius (alpha s) (u s))) t (Im (chain (alpha t) (u t) adot pdot)).

Definition reduced_flow_spec : Prop := forall (w : R) (H a u : C),
  (1 + Cconj a * u)%C <> RtoC 0 ->
  chain a u (alpha_dot w H a) (psi_dot w H a) = riccati w H (mobius a u).

Definition alpha_stays_in_disk_spec : Prop := forall (w : R) (H a : C),
  2 * Re (Cconj a * alpha_dot w H a)%C = (1 - nrm2 a) * Re (H * Cconj a)%C.

(** [_order_of]: the real Poisson-kernel form of [M(e^{i psi} w)] for [|w| = 1],
    [c = conj(alpha) e^{i psi}]. *)
Definition poisson_kernel_sum_spec : Prop := forall a e w : C,
  nrm2 w = 1 -> (1 + Cconj a * e * w)%C <> RtoC 0 ->
  let c := (Cconj a * e)%C in
  nrm2 (1 + c * w)%C = 1 + nrm2 c + 2 * Re (c * w)%C
  /\ mobius a (e * w)%C
     = (a + RtoC (1 - nrm2 a) * e * (w + Cconj c) / RtoC (1 + nrm2 c + 2 * Re (c * w)%C))%C.

(** (e2) along a solution of the reduced flow [alpha' = alpha_dot w H alpha] (components
    differentiable, [H] continuous in time), [y = 1 - |alpha|^2] solves
    [y' = -Re(H conj alpha) y], so [y(t) = y(0) exp(-int_0^t Re(H conj alpha))]:
    [alpha] stays in the open disk. *)
Definition disk_invariance_spec : Prop :=
  forall (w : R) (H alpha : R -> C),
  (forall t, continuous (fun s => Re (H s)) t /\ continuous (fun s => Im (H s)) t) ->
  (forall t, is_derive (fun s => Re (alpha s)) t (Re (alpha_dot w (H t) (alpha t)))
             /\ is_derive (fun s => Im (alpha s)) t (Im (alpha_dot w (H t) (alpha t)))) ->
  forall t,
  is_derive (fun s => 1 - nrm2 (alpha s)) t
    (- Re (H t * Cconj (alpha t))%C * (1 - nrm2 (alpha t)))
  /\ 1 - nrm2 (alpha t)
     = (1 - nrm2 (alpha 0)) * exp (- RInt (fun s => Re (H s * Cconj (alpha s))%C) 0 t)
  /\ (nrm2 (alpha 0) < 1 -> nrm2 (alpha t) < 1).

