(** * Specification of statement 9: the Ott-Antonsen reduction

    [r' = f(r) = (K/2 - gamma) r - (K/2) r^3] (Lorentzian frequencies of half width
    [gamma]).  Mirrors [syncattn.kuramoto] (file [_theory.py]); proved in
    [ott_antonsen.v]; sympy proof [proofs/proof_ott_antonsen.py]. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import CoreSpec.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** [ott_antonsen_rhs(r, K, gamma)] *)
Definition oa_rhs (r K gamma : R) : R := (K / 2 - gamma) * r - K / 2 * r ^ 3.

(** the synchronised state, [lorentzian_order_parameter(K, gamma)] for [K > 2 gamma] *)
Definition r_star (K gamma : R) : R := sqrt (1 - 2 * gamma / K).

(** [ott_antonsen(r0, K, gamma, t)]: with [a = K/2 - gamma], [b = K/2],
    [r0 / sqrt (e^{-2at} + r0^2 b frac)], [frac = (1 - e^{-2at}) / a], and
    [frac = 2 t] at [a = 0] (the library's [small] branch, exact at [a = 0]). *)
Definition oa_frac (a t : R) : R :=
  if Req_EM_T a 0 then 2 * t else (1 - exp (-2 * a * t)) / a.
Definition oa_denom (r0 K gamma t : R) : R :=
  exp (-2 * (K / 2 - gamma) * t) + r0 ^ 2 * (K / 2) * oa_frac (K / 2 - gamma) t.
Definition oa_solution (r0 K gamma t : R) : R := r0 / sqrt (oa_denom r0 K gamma t).

(** [critical_coupling(g0) = 2 / (pi g0)] and the Lorentzian density *)
Definition critical_coupling (g0 : R) : R := 2 / (PI * g0).
Definition lorentzian (gamma w : R) : R := gamma / (PI * (w ^ 2 + gamma ^ 2)).

(** (a) the stationary states in [r >= 0] are [0] and, only for [K > 2 gamma], [r_star]. *)
Definition stationary_states_spec : Prop :=
  forall K gamma r, 0 < K -> 0 < gamma -> 0 <= r ->
  (oa_rhs r K gamma = 0 <-> r = 0 \/ (2 * gamma < K /\ r = r_star K gamma)).

(** (b) the linear rates: [f'(0) = K/2 - gamma], [f'(r_star) = 2 gamma - K]. *)
Definition linear_rates_spec : Prop :=
  forall K gamma, 0 < K -> 0 < gamma ->
  is_derive (fun r => oa_rhs r K gamma) 0 (K / 2 - gamma) /\
  (2 * gamma < K -> is_derive (fun r => oa_rhs r K gamma) (r_star K gamma) (2 * gamma - K)).

(** (b) the exchange of stability at [K = 2 gamma], as signs of the rates and of the
    phase line [r > 0]: below, [f'(0) < 0] and [f < 0] on [r > 0] (every state decays
    to 0); above, [f'(0) > 0], [f'(r_star) < 0], [f > 0] on [(0, r_star)] and [f < 0] beyond. *)
Definition exchange_spec : Prop :=
  forall K gamma, 0 < K -> 0 < gamma ->
  (K <= 2 * gamma -> K / 2 - gamma <= 0 /\ forall r, 0 < r -> oa_rhs r K gamma < 0) /\
  (K < 2 * gamma -> K / 2 - gamma < 0) /\
  (2 * gamma < K ->
     0 < K / 2 - gamma /\ 2 * gamma - K < 0 /\ 0 < r_star K gamma < 1 /\
     (forall r, 0 < r < r_star K gamma -> 0 < oa_rhs r K gamma) /\
     (forall r, r_star K gamma < r -> oa_rhs r K gamma < 0)).

(** (c) the closed form (every [K], [K = 2 gamma] included) is defined for [t >= 0],
    starts at [r0] and solves [r' = f(r)]. *)
Definition closed_form_spec : Prop :=
  forall r0 K gamma t, 0 < r0 -> 0 < K -> 0 < gamma -> 0 <= t ->
  0 < oa_denom r0 K gamma t /\
  oa_solution r0 K gamma 0 = r0 /\
  is_derive (oa_solution r0 K gamma) t (oa_rhs (oa_solution r0 K gamma t) K gamma).

(** (c) at [K = 2 gamma] the solution is [r0 / sqrt (1 + 2 gamma r0^2 t)]. *)
Definition at_threshold_spec : Prop :=
  forall r0 gamma t, oa_solution r0 (2 * gamma) gamma t = r0 / sqrt (1 + 2 * gamma * r0 ^ 2 * t).

(** (c) the limits: [r(t) -> r_star] for [K > 2 gamma], [r(t) -> 0] for [K < 2 gamma]. *)
Definition limits_spec : Prop :=
  forall r0 K gamma, 0 < r0 -> 0 < K -> 0 < gamma ->
  (2 * gamma < K -> is_lim (oa_solution r0 K gamma) p_infty (r_star K gamma)) /\
  (K < 2 * gamma -> is_lim (oa_solution r0 K gamma) p_infty 0).

(** (d) Kuramoto's [K_c = 2 / (pi g(0))] for the Lorentzian is [2 gamma]. *)
Definition lorentzian_threshold_spec : Prop :=
  forall gamma, 0 < gamma -> critical_coupling (lorentzian gamma 0) = 2 * gamma.

(** (c) the closed form is continuous in [K] at [K = 2 gamma] (for [t >= 0]): the
    library's [a = 0] branch [2 t] is the limit of [(1 - e^{-2at}) / a]. *)
Definition continuous_at_threshold_spec : Prop :=
  forall r0 gamma t, 0 < r0 -> 0 < gamma -> 0 <= t ->
  continuous (fun K => oa_solution r0 K gamma t) (2 * gamma).

(** (d) the Lorentzian density integrates to 1 over the real line. *)
Definition lorentzian_normalised_spec : Prop :=
  forall gamma, 0 < gamma ->
  is_RInt_gen (lorentzian gamma) (Rbar_locally m_infty) (Rbar_locally p_infty) 1.
