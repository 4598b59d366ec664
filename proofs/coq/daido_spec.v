(** * Statement 21 (specification): Kuramoto-Daido harmonics

    Definitions mirroring [syncattn/kuramoto/_daido.py] and the claims of
    [proofs/proof_daido.py] that [daido.v] proves.  Harmonic [m = k + 1] has index
    [k] (k = 0 .. M-1); phases, couplings and perturbations are functions
    [nat -> R] read on [0 .. n-1]. *)

From Syncattn Require Import CoreSpec.
Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** [HarmonicCoupling.__call__]: H(phi) = sum_m Re c_m sin(m phi) + Im c_m cos(m phi). *)
Definition harm (M : nat) (cr ci : nat -> R) (phi : R) : R :=
  sumN (fun k => cr k * sin (INR (S k) * phi) + ci k * cos (INR (S k) * phi)) M.

(** [HarmonicCoupling.derivative]: H'(phi) = sum_m m (Re c_m cos(m phi) - Im c_m sin(m phi)). *)
Definition harm_d (M : nat) (cr ci : nat -> R) (phi : R) : R :=
  sumN (fun k => INR (S k) * (cr k * cos (INR (S k) * phi) - ci k * sin (INR (S k) * phi))) M.

(** The amplitude-angle form sum_m a_m sin(m phi - alpha_m). *)
Definition harm_amp (M : nat) (a al : nat -> R) (phi : R) : R :=
  sumN (fun k => a k * sin (INR (S k) * phi - al k)) M.

(** [HarmonicCoupling.from_amplitudes]: Re c_m = a_m cos alpha_m, Im c_m = -(a_m sin alpha_m). *)
Definition re_c (a al : nat -> R) (k : nat) : R := a k * cos (al k).
Definition im_c (a al : nat -> R) (k : nat) : R := - (a k * sin (al k)).

(** [_harmonic_drift] (with [_rotate], [_listen] for a matrix K): per harmonic,
    ca = cos(m th_i) cal - sin(m th_i) sal, sa = sin(m th_i) cal + cos(m th_i) sal,
    term = ca (K sin m th)_i - sa (K cos m th)_i, where [_lag_parts] hands
    cal = Re c, sal = - Im c. *)
Definition daido_drift (K : nat -> nat -> R) (n M : nat) (cal sal : nat -> R)
    (th : nat -> R) (i : nat) : R :=
  sumN (fun k =>
    (cos (INR (S k) * th i) * cal k - sin (INR (S k) * th i) * sal k)
      * sumN (fun j => K i j * sin (INR (S k) * th j)) n
    - (sin (INR (S k) * th i) * cal k + cos (INR (S k) * th i) * sal k)
      * sumN (fun j => K i j * cos (INR (S k) * th j)) n) M.

(** [daido_order_parameters]: Re Z_m and Im Z_m, Z_m = (1/n) sum_j e^{i m th_j}. *)
Definition re_Z (n : nat) (m : R) (th : nat -> R) : R := / INR n * sumN (fun j => cos (m * th j)) n.
Definition im_Z (n : nat) (m : R) (th : nat -> R) : R := / INR n * sumN (fun j => sin (m * th j)) n.

(** The coupling sum_j K_ij H(th_j - th_i) ([daido_coupling]'s statement). *)
Definition coupling_H (K : nat -> nat -> R) (n : nat) (H : R -> R) (th : nat -> R) (i : nat) : R :=
  sumN (fun j => K i j * H (th j - th i)) n.

(** Two clusters: A (inA j = true) at x, B at x + D; [countA] = N_A. *)
Definition cluster (inA : nat -> bool) (x D : R) (j : nat) : R := if inA j then x else x + D.
Definition countA (inA : nat -> bool) (n : nat) : R := sumN (fun j => if inA j then 1 else 0) n.

(** The phases th + e v. *)
Definition perturb (th v : nat -> R) (e : R) (j : nat) : R := th j + e * v j.

(** The biharmonic coefficients (k = 0: m = 1, k >= 1: m = 2). *)
Definition two (u1 u2 : R) (k : nat) : R := match k with O => u1 | _ => u2 end.

(** (a) The complex form with c_m = a_m e^{-i alpha_m} is the amplitude-angle form. *)
Definition fourier_identity_spec : Prop :=
  forall M a al phi, harm M (re_c a al) (im_c a al) phi = harm_amp M a al phi.

(** (b) The library's formula is sum_j K_ij H(th_j - th_i), for every matrix K. *)
Definition graph_identity_spec : Prop :=
  forall K n M cr ci th i,
    daido_drift K n M cr (fun k => - ci k) th i = coupling_H K n (harm M cr ci) th i.

(** (c) Im(e^{-i m th_i} c_m Z_m) = (a_m / N) sum_j sin(m (th_j - th_i) - alpha_m), where
    Im(u Z) = Re u Im Z + Im u Re Z for u = c e^{-i m th_i}. *)
Definition mean_field_identity_spec : Prop :=
  forall n (m a al : R) th i,
    let cr := a * cos al in let ci := - (a * sin al) in
    (cr * cos (m * th i) + ci * sin (m * th i)) * im_Z n m th
      + (ci * cos (m * th i) - cr * sin (m * th i)) * re_Z n m th
    = a / INR n * sumN (fun j => sin (m * (th j - th i) - al)) n.

(** (d) M = 1, a = 1, alpha: the Kuramoto-Sakaguchi coupling. *)
Definition kuramoto_reduction_spec : Prop :=
  forall K n th i al,
    daido_drift K n 1 (fun _ => cos al) (fun _ => sin al) th i
    = sumN (fun j => K i j * sin (th j - th i - al)) n.

(** (e) In-phase state: value H(0) sum_j K_ij; harm_d is the derivative of harm, with
    H'(0) = sum_m m Re c_m; derivative along v: - H'(0) (L v)_i. *)
Definition in_phase_linearisation_spec : Prop :=
  forall K n M cr ci psi v i,
    coupling_H K n (harm M cr ci) (fun _ => psi) i = harm M cr ci 0 * sumN (K i) n
    /\ harm M cr ci 0 = sumN ci M
    /\ (forall phi, is_derive (harm M cr ci) phi (harm_d M cr ci phi))
    /\ harm_d M cr ci 0 = sumN (fun k => INR (S k) * cr k) M
    /\ is_derive (fun e => coupling_H K n (harm M cr ci) (perturb (fun _ => psi) v e) i) 0
         (- harm_d M cr ci 0 * (sumN (K i) n * v i - sumN (fun j => K i j * v j) n)).

(** (f) Mean field: a zero-sum perturbation has exponent - K H'(0). *)
Definition mean_field_in_phase_spec : Prop :=
  forall Kc n M cr ci psi v i,
    (0 < n)%nat -> sumN v n = 0 ->
    is_derive (fun e => coupling_H (fun _ _ => Kc / INR n) n (harm M cr ci) (perturb (fun _ => psi) v e) i) 0
      (- Kc * harm_d M cr ci 0 * v i).

(** (h) Two clusters under the mean-field coupling of any differentiable H: the cluster
    frequencies; the derivatives along zero-sum perturbations inside A and inside B
    (lambda_A v and lambda_B v); along cluster-constant perturbations (y_A on A, y_B on
    B) the rows of A and B, whose difference is d(y_B - y_A) = lambda_C (y_B - y_A).
    p = N_A / N is written through N_A = [countA] and N_B = N - N_A, so
    lambda_A = -(K/N)(N_A H'(0) + N_B H'(D)) = -K(p H'(0) + (1-p) H'(D)). *)
Definition two_cluster_modes_spec : Prop :=
  forall (Kc x D : R) (n : nat) (inA : nat -> bool) (H Hd : R -> R),
    (forall y, is_derive H y (Hd y)) ->
    let nA := countA inA n in
    let nB := INR n - countA inA n in
    let th := cluster inA x D in
    let F := fun th' i => Kc / INR n * sumN (fun j => H (th' j - th' i)) n in
    (forall i, inA i = true -> F th i = Kc / INR n * (nA * H 0 + nB * H D))
    /\ (forall i, inA i = false -> F th i = Kc / INR n * (nA * H (- D) + nB * H 0))
    /\ (forall v, (forall j, inA j = false -> v j = 0) -> sumN v n = 0 ->
          forall i, is_derive (fun e => F (perturb th v e) i) 0
                      (- (Kc / INR n) * (nA * Hd 0 + nB * Hd D) * v i))
    /\ (forall v, (forall j, inA j = true -> v j = 0) -> sumN v n = 0 ->
          forall i, is_derive (fun e => F (perturb th v e) i) 0
                      (- (Kc / INR n) * (nB * Hd 0 + nA * Hd (- D)) * v i))
    /\ (forall yA yB i,
          let v := fun j => if inA j then yA else yB in
          is_derive (fun e => F (perturb th v e) i) 0
            (if inA i then Kc / INR n * nB * Hd D * (yB - yA)
             else Kc / INR n * nA * Hd (- D) * (yA - yB)))
    /\ (forall yA yB,
          Kc / INR n * nA * Hd (- D) * (yA - yB) - Kc / INR n * nB * Hd D * (yB - yA)
          = - (Kc / INR n) * (nA * Hd (- D) + nB * Hd D) * (yB - yA)).

(** (i) Biharmonic, balanced anti-phase (p = 1/2, D = pi): existence, the exponents, and
    for K > 0 stability iff a_2 cos alpha_2 > 0 and 2 a_2 cos alpha_2 > a_1 cos alpha_1. *)
Definition biharmonic_antiphase_spec : Prop :=
  forall Kc a1 al1 a2 al2,
    let cr := re_c (two a1 a2) (two al1 al2) in
    let ci := im_c (two a1 a2) (two al1 al2) in
    let H := harm 2 cr ci in let Hd := harm_d 2 cr ci in
    let lamA := - Kc * (/ 2 * Hd 0 + / 2 * Hd PI) in
    let lamB := - Kc * (/ 2 * Hd 0 + / 2 * Hd (- PI)) in
    let lamC := - Kc * (/ 2 * Hd (- PI) + / 2 * Hd PI) in
    (1 - 2 * / 2) * H 0 + / 2 * H (- PI) - (1 - / 2) * H PI = 0
    /\ lamA = - 2 * Kc * a2 * cos al2
    /\ lamB = - 2 * Kc * a2 * cos al2
    /\ lamC = - Kc * (2 * a2 * cos al2 - a1 * cos al1)
    /\ (0 < Kc -> (lamA < 0 /\ lamB < 0 /\ lamC < 0 <->
                   0 < a2 * cos al2 /\ a1 * cos al1 < 2 * a2 * cos al2)).

(** (j) Biharmonic without lags: factorisation, oddness, the gap drift - K H(D) for
    every p, and the exponents on D = pi. *)
Definition biharmonic_odd_family_spec : Prop :=
  forall Kc a1 a2 D p,
    let H := harm 2 (two a1 a2) (fun _ => 0) in
    let Hd := harm_d 2 (two a1 a2) (fun _ => 0) in
    H D = sin D * (a1 + 2 * a2 * cos D)
    /\ H (- D) = - H D
    /\ Kc * ((1 - 2 * p) * H 0 + p * H (- D) - (1 - p) * H D) = - Kc * H D
    /\ - Kc * (p * Hd 0 + (1 - p) * Hd PI) = - Kc * (2 * a2 + (2 * p - 1) * a1)
    /\ - Kc * ((1 - p) * Hd 0 + p * Hd (- PI)) = - Kc * (2 * a2 - (2 * p - 1) * a1)
    /\ - Kc * (p * Hd (- PI) + (1 - p) * Hd PI) = - Kc * (2 * a2 - a1).
