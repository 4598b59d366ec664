(** * Statement 25 (proofs/proof_watanabe_strogatz.py): specification

    Definitions mirroring syncattn/kuramoto/_watanabe_strogatz.py (complex numbers
    of Coquelicot), and the claims proved in [watanabe_strogatz.v]. *)

From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Complex.
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
