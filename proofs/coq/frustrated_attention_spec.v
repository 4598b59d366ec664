(** * Statement 26 (specification): frustrated synchronisation attention

    Definitions mirroring [syncattn/nn/_frustrated_attention.py] (syncattn's own
    formulation of the abstract of arXiv 2606.18694, not that paper's model) and
    [syncattn.kuramoto.daido_update], and the claims of
    [proofs/proof_frustrated_attention.py] that [frustrated_attention.v] proves.
    One query t of one head: the weights of its row are [A : nat -> R] (A u = A_tu),
    phases [th : nat -> R]; harmonic [m = k + 1] has index [k]; complex numbers are
    pairs of reals (real part, imaginary part). *)

From Syncattn Require Import CoreSpec.
Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** [daido_update] ([_update_core] per harmonic, with [_lag_parts]: cal = Re c,
    sal = - Im c): (cos(m x) cal - sin(m x) sal) Im G - (sin(m x) cal + cos(m x) sal) Re G. *)
Definition upd_term (m cr ci x Gr Gi : R) : R :=
  (cos (m * x) * cr - sin (m * x) * (- ci)) * Gi - (sin (m * x) * cr + cos (m * x) * (- ci)) * Gr.

Definition daido_upd (M : nat) (cr ci : nat -> R) (x : R) (Gr Gi : nat -> R) : R :=
  sumN (fun k => upd_term (INR (S k)) (cr k) (ci k) x (Gr k) (Gi k)) M.

(** The attention sums of one row: Z^m over u < n (n = t + 1: u <= t), and the
    delayed W^m = sum_{u < n} A_u e^{i m th_{u+1}} (n = t: u < t). *)
Definition Zr (n : nat) (A : nat -> R) (m : R) (th : nat -> R) : R := sumN (fun u => A u * cos (m * th u)) n.
Definition Zi (n : nat) (A : nat -> R) (m : R) (th : nat -> R) : R := sumN (fun u => A u * sin (m * th u)) n.
Definition Wr (n : nat) (A : nat -> R) (m : R) (th : nat -> R) : R := sumN (fun u => A u * cos (m * th (S u))) n.
Definition Wi (n : nat) (A : nat -> R) (m : R) (th : nat -> R) : R := sumN (fun u => A u * sin (m * th (S u))) n.

(** [FrustratedAttention]'s plain composition: F_t = daido_update(th_t, Z, c) +
    daido_update(th_t, W, b), Z over u <= t, W over u < t. *)
Definition frustrated_F (M : nat) (cr ci br bi A : nat -> R) (th : nat -> R) (t : nat) : R :=
  daido_upd M cr ci (th t) (fun k => Zr (S t) A (INR (S k)) th) (fun k => Zi (S t) A (INR (S k)) th)
  + daido_upd M br bi (th t) (fun k => Wr t A (INR (S k)) th) (fun k => Wi t A (INR (S k)) th).

(** The fused path ([_times], [attend_successor], [_fused_coupling]): per harmonic,
    c e^{i m th_u} = (cr cos - ci sin, cr sin + ci cos); P_u = c e^{i m th_u} + b e^{i m th_{u+1}},
    D_t = c e^{i m th_t}; G = sum_{u < t} A_u P_u + A_t D_t; F = daido_update(th_t, G, 1). *)
Definition rot_r (cr ci m x : R) : R := cr * cos (m * x) - ci * sin (m * x).
Definition rot_i (cr ci m x : R) : R := cr * sin (m * x) + ci * cos (m * x).
Definition fused_F (M : nat) (cr ci br bi A : nat -> R) (th : nat -> R) (t : nat) : R :=
  daido_upd M (fun _ => 1) (fun _ => 0) (th t)
    (fun k => sumN (fun u => A u * (rot_r (cr k) (ci k) (INR (S k)) (th u)
                                     + rot_r (br k) (bi k) (INR (S k)) (th (S u)))) t
              + A t * rot_r (cr k) (ci k) (INR (S k)) (th t))
    (fun k => sumN (fun u => A u * (rot_i (cr k) (ci k) (INR (S k)) (th u)
                                     + rot_i (br k) (bi k) (INR (S k)) (th (S u)))) t
              + A t * rot_i (cr k) (ci k) (INR (S k)) (th t)).

(** (a) Identity (i): with c_m = r_m e^{i g_m} (g_m = arg c_m),
    Im(e^{-i m th_t} c_m Z^m_t) summed over m is sum_u A_u r_m sin(m(th_u - th_t) + g_m);
    in daido's convention c_m = a_m e^{-i alpha_m} (g_m = - alpha_m) it is
    sum_u A_u a_m sin(m(th_u - th_t) - alpha_m). *)
Definition harmonic_identity_spec : Prop :=
  forall M (r g A th : nat -> R) t,
    daido_upd M (fun k => r k * cos (g k)) (fun k => r k * sin (g k)) (th t)
      (fun k => Zr (S t) A (INR (S k)) th) (fun k => Zi (S t) A (INR (S k)) th)
    = sumN (fun k => sumN (fun u => A u * (r k * sin (INR (S k) * (th u - th t) + g k))) (S t)) M
  /\ daido_upd M (fun k => r k * cos (g k)) (fun k => - (r k * sin (g k))) (th t)
      (fun k => Zr (S t) A (INR (S k)) th) (fun k => Zi (S t) A (INR (S k)) th)
    = sumN (fun k => sumN (fun u => A u * (r k * sin (INR (S k) * (th u - th t) - g k))) (S t)) M.

(** (b) Identity (ii): with b_m = r_m e^{i g_m} and delta_u = th_{u+1} - th_u, the delayed
    term is sum_{u < t} A_u r_m sin(m(th_u - th_t) + m delta_u + g_m). *)
Definition delay_identity_spec : Prop :=
  forall M (r g A th : nat -> R) t,
    daido_upd M (fun k => r k * cos (g k)) (fun k => r k * sin (g k)) (th t)
      (fun k => Wr t A (INR (S k)) th) (fun k => Wi t A (INR (S k)) th)
    = sumN (fun k => sumN (fun u =>
        A u * (r k * sin (INR (S k) * (th u - th t) + INR (S k) * (th (S u) - th u) + g k))) t) M.

(** (c) Locking: x |-> r sin(m (th_{u+1} - x) + g) vanishes at x = th_{u+1} + g/m with
    slope - m r there (attracting for m r > 0): for g = 0 the locking point is th_{u+1}. *)
Definition locking_spec : Prop :=
  forall m r g y, m <> 0 ->
    r * sin (m * (y - (y + g / m)) + g) = 0
    /\ is_derive (fun x => r * sin (m * (y - x) + g)) (y + g / m) (- (m * r)).

(** (d) M = 1, c_1 = 1, b = 0 is Kuramoto attention's increment: the formula of
    [tangent_update], - sin th_t Re G + cos th_t Im G, i.e. sum_{u <= t} A_u sin(th_u - th_t). *)
Definition kuramoto_reduction_spec : Prop :=
  forall (A th : nat -> R) t,
    frustrated_F 1 (fun _ => 1) (fun _ => 0) (fun _ => 0) (fun _ => 0) A th t
    = - sin (th t) * Zr (S t) A 1 th + cos (th t) * Zi (S t) A 1 th
    /\ - sin (th t) * Zr (S t) A 1 th + cos (th t) * Zi (S t) A 1 th
       = sumN (fun u => A u * sin (th u - th t)) (S t).

(** (e) The fused one-stream path equals the plain composition, for all coefficients. *)
Definition fused_path_spec : Prop :=
  forall M (cr ci br bi A th : nat -> R) t,
    fused_F M cr ci br bi A th t = frustrated_F M cr ci br bi A th t.

(** (f) The collective-mode block: weights A_j over J modes at phases psi_j, the
    increment is the Daido coupling sum_j A_j H(psi_j - x), H = sum_m r_m sin(m . + g_m). *)
Definition modes_identity_spec : Prop :=
  forall M J (r g A psi : nat -> R) x,
    daido_upd M (fun k => r k * cos (g k)) (fun k => r k * sin (g k)) x
      (fun k => sumN (fun j => A j * cos (INR (S k) * psi j)) J)
      (fun k => sumN (fun j => A j * sin (INR (S k) * psi j)) J)
    = sumN (fun j => A j * sumN (fun k => r k * sin (INR (S k) * (psi j - x) + g k)) M) J.

(** (g) Causality of the formula: F_t reads th_0 .. th_t only (the delayed sum stops at
    u < t, so its successor u + 1 <= t). *)
Definition causality_spec : Prop :=
  forall M (cr ci br bi A th th' : nat -> R) t,
    (forall j, (j <= t)%nat -> th j = th' j) ->
    frustrated_F M cr ci br bi A th t = frustrated_F M cr ci br bi A th' t.
