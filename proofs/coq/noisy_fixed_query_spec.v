(** * Specification of statement 13: the noisy fixed-query flow and its vMF law

    [dz = (I - z z^T) h dt + sigma (I - z z^T) o dW] on [S^{d-1}].  Mirrors
    [syncattn.lohe.ito_drift], [syncattn.lohe.vmf_concentration],
    [syncattn.lohe.vmf_moments] and [syncattn.lohe.vmf_scores] (file
    [lohe/_noise.py]); proved in [noisy_fixed_query.v]; sympy proof
    [proofs/proof_noisy_fixed_query.py].  Vectors are functions [nat -> R] read on
    [0 .. d-1]. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** The Kronecker delta, [e_j] and [g_k(z) = (I - z z^T) e_k] (coordinate [i]). *)
Definition delta (k i : nat) : R := if Nat.eq_dec k i then 1 else 0.
Definition gk (k : nat) (z : nat -> R) (i : nat) : R := delta k i - z k * z i.

(** [fixed_query_field]: [(I - z z^T) h]. *)
Definition proj (d : nat) (z h : nat -> R) : nat -> R := fun i => h i - dot d z h * z i.

(** [ito_drift(z, b, sigma) = b - (d - 1) sigma^2 / 2 z]. *)
Definition ito_drift (d : nat) (sigma : R) (z b : nat -> R) : nat -> R :=
  fun i => b i - (INR d - 1) * sigma ^ 2 / 2 * z i.

(** [vmf_concentration(h, sigma) = 2 |h| / sigma^2] and the unnormalised density
    [exp (kappa <h/|h|, z>)]. *)
Definition vmf_concentration (d : nat) (sigma : R) (h : nat -> R) : R :=
  2 * CoreSpec.norm d h / sigma ^ 2.
Definition vmf (d : nat) (kappa : R) (h z : nat -> R) : R :=
  exp (kappa * dot d h z / CoreSpec.norm d h).

(** [vmf_moments]' second moment [(A/kappa) I + (1 - d A/kappa) u u^T], [u = h/|h|]. *)
Definition vmf_second (d : nat) (A kappa : R) (u : nat -> R) (i j : nat) : R :=
  A / kappa * delta i j + (1 - INR d * A / kappa) * u i * u j.

(** (a) the Ito correction: [sum_k (D g_k) g_k = -((d + 1) - 2 |z|^2) z] (the
    derivative of [s -> g_k (z + s g_k(z))] at 0, summed over [k]); on the sphere
    [ito_drift] is [b + (sigma^2/2) sum_k (D g_k) g_k]. *)
Definition ito_correction_spec : Prop :=
  forall d z i, (i < d)%nat ->
  is_derive (fun s => sumN (fun k => gk k (fun j => z j + s * gk k z j) i) d) 0
    (- (INR d + 1 - 2 * dot d z z) * z i) /\
  forall sigma b, dot d z z = 1 ->
    ito_drift d sigma z b i = b i + sigma ^ 2 / 2 * (- (INR d + 1 - 2 * dot d z z) * z i).

(** (a) Ito's rule: [d|z|^2 = (2 <z, b> + sigma^2 tr (P P^T)) dt + martingale] is 0 on
    the sphere for the Ito drift of the flow ([P_ik = g_k(z)_i]). *)
Definition ito_norm_spec : Prop :=
  forall d sigma z h, dot d z z = 1 ->
  2 * dot d z (ito_drift d sigma z (proj d z h))
  + sigma ^ 2 * sumN (fun i => sumN (fun k => gk k z i * gk k z i) d) d = 0.

(** (b) the Fokker-Planck flux [J = p (I - z z^T) h - (sigma^2/2) (I - z z^T) grad p] of
    the vMF density with [kappa = 2 |h| / sigma^2] vanishes ([G] is [grad p]: the
    partial derivatives at [z]). *)
Definition zero_flux_spec : Prop :=
  forall d sigma (h z G : nat -> R), 0 < sigma -> 0 < dot d h h ->
  (forall j, (j < d)%nat ->
     is_derive (fun s => vmf d (vmf_concentration d sigma h) h (fun l => z l + s * delta l j)) 0 (G j)) ->
  forall i, (i < d)%nat ->
  vmf d (vmf_concentration d sigma h) h z * proj d z h i - sigma ^ 2 / 2 * proj d z G i = 0.

(** (b) it vanishes for no other [kappa] (at any [z] where [(I - z z^T) h <> 0]). *)
Definition kappa_unique_spec : Prop :=
  forall d sigma kappa (h z G : nat -> R) i, 0 < sigma -> 0 < dot d h h -> (i < d)%nat ->
  proj d z h i <> 0 ->
  (forall j, (j < d)%nat ->
     is_derive (fun s => vmf d kappa h (fun l => z l + s * delta l j)) 0 (G j)) ->
  vmf d kappa h z * proj d z h i - sigma ^ 2 / 2 * proj d z G i = 0 ->
  kappa = vmf_concentration d sigma h.

(** (b) zonal form (polar angle [theta] from [h/|h|], drift [-|h| sin theta]): the
    flux [-a sin theta p - (sigma^2/2) p'] of [p = exp (kappa cos theta)],
    [kappa = 2 a / sigma^2], vanishes. *)
Definition zonal_flux_spec : Prop :=
  forall a sigma theta dp, 0 < sigma ->
  is_derive (fun t => exp (2 * a / sigma ^ 2 * cos t)) theta dp ->
  - a * sin theta * exp (2 * a / sigma ^ 2 * cos theta) - sigma ^ 2 / 2 * dp = 0.

(** (b) and it is the only zonal density with zero flux: on any interval, a solution
    of [-a sin theta q - (sigma^2/2) q' = 0] is [C exp (kappa cos theta)]. *)
Definition zonal_unique_spec : Prop :=
  forall a sigma (q dq : R -> R) al be, 0 < sigma -> al < be ->
  (forall t, al <= t <= be -> is_derive q t (dq t)) ->
  (forall t, al <= t <= be -> - a * sin t * q t - sigma ^ 2 / 2 * dq t = 0) ->
  forall t, al <= t <= be ->
  q t = q al * exp (2 * a / sigma ^ 2 * (cos t - cos al)).

(** (d) the moment matrix: with [alpha = E[t^2] = 1 - (d - 1) A / kappa] along [u] and
    the trace condition [alpha + (d - 1) beta = 1] across, the matrix
    [alpha u u^T + beta (I - u u^T)] is [vmf_moments]' [(A/kappa) I + (1 - d A/kappa) u u^T]. *)
Definition moment_matrix_spec : Prop :=
  forall d A kappa alpha beta (u : nat -> R) i j, (1 < d)%nat -> kappa <> 0 ->
  alpha = 1 - (INR d - 1) * A / kappa -> alpha + (INR d - 1) * beta = 1 ->
  alpha * u i * u j + beta * (delta i j - u i * u j) = vmf_second d A kappa u i j.

(** (e) the expected scores, for any linear expectation [E] with [E 1 = 1], first
    moments [m] and second moments [M]: [E[1 + z.r] = 1 + m.r] and
    [E[(1 + z.r)^2] = 1 + 2 m.r + r^T M r]. *)
Definition scores_spec : Prop :=
  forall d (E : ((nat -> R) -> R) -> R) (m : nat -> R) (M : nat -> nat -> R) r,
  (forall f g, E (fun z => f z + g z) = E f + E g) ->
  (forall c f, E (fun z => c * f z) = c * E f) ->
  E (fun _ => 1) = 1 ->
  (forall i, E (fun z => z i) = m i) ->
  (forall i j, E (fun z => z i * z j) = M i j) ->
  E (fun z => 1 + dot d z r) = 1 + dot d m r /\
  E (fun z => (1 + dot d z r) ^ 2)
  = 1 + 2 * dot d m r + sumN (fun i => sumN (fun j => r i * M i j * r j) d) d.
