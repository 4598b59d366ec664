(** * Specification of statement 14: the noisy Kuramoto model

    [d theta_i = (omega_i + K r sin (psi - theta_i)) dt + sigma dW_i] (mean field),
    [D = sigma^2 / 2].  Mirrors [syncattn.kuramoto.noisy_order_parameter] and
    [syncattn.kuramoto.noisy_critical_coupling] (file [kuramoto/_theory.py]); proved in
    [noisy_kuramoto.v]; sympy proof [proofs/proof_noisy_kuramoto.py]. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** The von Mises density [exp (kappa cos (theta - psi))] (unnormalised) and the
    concentration [kappa = 2 K r / sigma^2] of [noisy_order_parameter]. *)
Definition vonmises (kappa psi theta : R) : R := exp (kappa * cos (theta - psi)).
Definition noisy_kappa (K r sigma : R) : R := 2 * K * r / sigma ^ 2.

(** [noisy_critical_coupling(noise, gamma) = 2 gamma + sigma^2]. *)
Definition noisy_critical_coupling (sigma gamma : R) : R := 2 * gamma + sigma ^ 2.

(** The two-term truncation [A_2(x) = x/2 - x^3/16] of [I_1/I_0]. *)
Definition a2_trunc (x : R) : R := x / 2 - x ^ 3 / 16.

(** (a) the Fokker-Planck flux [J = -K r sin (theta - psi) p - D p'] of the von Mises
    density vanishes for every [theta] iff [kappa = 2 K r / sigma^2]. *)
Definition zero_flux_spec : Prop :=
  forall K r sigma psi kappa, 0 < sigma ->
  ((forall theta dp, is_derive (vonmises kappa psi) theta dp ->
      - K * r * sin (theta - psi) * vonmises kappa psi theta - sigma ^ 2 / 2 * dp = 0)
   <-> kappa = noisy_kappa K r sigma).

(** (b) with the truncation, [r > 0] solves [r = A_2(c r)] iff
    [r^2 = 16 (c/2 - 1) / c^3]; such a branch exists iff [c > 2], i.e. (with
    [c = 2 K / sigma^2]) iff [K > sigma^2 = noisy_critical_coupling sigma 0]. *)
Definition onset_spec : Prop :=
  forall K sigma, 0 < K -> 0 < sigma ->
  let c := 2 * K / sigma ^ 2 in
  (forall r, 0 < r -> (r = a2_trunc (c * r) <-> r ^ 2 = 16 * (c / 2 - 1) / c ^ 3)) /\
  ((exists r, 0 < r /\ r = a2_trunc (c * r)) <-> 2 < c) /\
  (2 < c <-> noisy_critical_coupling sigma 0 < K).

(** (c) the Lorentzian dispersion relation [1 = (K/2) / (lambda + D + gamma)] (with
    [lambda + D > 0]) has the root [lambda = K/2 - gamma - sigma^2/2], positive iff
    [K > 2 gamma + sigma^2 = noisy_critical_coupling sigma gamma]. *)
Definition lorentzian_onset_spec : Prop :=
  forall K sigma gamma lam, 0 <= gamma -> 0 < lam + sigma ^ 2 / 2 ->
  (1 = (K / 2) / (lam + sigma ^ 2 / 2 + gamma) <-> lam = K / 2 - gamma - sigma ^ 2 / 2) /\
  (lam = K / 2 - gamma - sigma ^ 2 / 2 -> (0 < lam <-> noisy_critical_coupling sigma gamma < K)).
