(** * Statement 19 (specification): complete synchronisation below D = N/(N-1)

    Definitions only; the theorems are in [matrix_sync.v].  Matrices, [lohe_field]
    ([matrix_lohe_spec.v]) and [mean], [frob2], [unitary], [no_drift],
    [all_to_all] ([matrix_gradient_spec.v]) are statements 17's and 18's. *)

From Syncattn Require Import CoreSpec.
From Syncattn Require Export matrix_gradient_spec.

(** (1) the pair identity, for any matrices:
    [V_i M^H V_i - V_j M^H V_j = Delta M^H V_i + V_j M^H Delta], [Delta = V_i - V_j]. *)
Definition pair_identity_spec : Prop :=
  forall n Vi Vj Mh,
    meq n (msub (mmul n (mmul n Vi Mh) Vi) (mmul n (mmul n Vj Mh) Vj))
          (madd (mmul n (mmul n (msub Vi Vj) Mh) Vi) (mmul n (mmul n Vj Mh) (msub Vi Vj))).

(** (2) with [E_i = M - V_i]: [M^H V_i = I + E_i^H V_i] when [V_i^H V_i = I], and
    [V_j M^H = I + V_j E_j^H] when [V_j V_j^H = I]. *)
Definition deviation_spec : Prop :=
  forall n M Vi Vj,
    (meq n (mmul n (adj Vi) Vi) mid ->
     meq n (mmul n (adj M) Vi) (madd mid (mmul n (adj (msub M Vi)) Vi))) /\
    (meq n (mmul n Vj (adj Vj)) mid ->
     meq n (mmul n Vj (adj M)) (madd mid (mmul n Vj (adj (msub M Vj))))).

(** The bound ([syncattn.lohe.matrix_sync_bound]), [c = (N - 1) / N]:
    [y(t) = D0 e^{-Kt} / (1 - c D0 + c D0 e^{-Kt})]. *)
Definition sync_c (N : nat) : R := (INR N - 1) / INR N.
Definition sync_bound (D0 K : R) (N : nat) (t : R) : R :=
  D0 * exp (- K * t) / (1 - sync_c N * D0 + sync_c N * D0 * exp (- K * t)).

(** (4) for [N >= 1], [K > 0], [0 <= D0 < N/(N-1)] (i.e. [c D0 < 1]): the bound
    solves the logistic comparison equation [y' = -K y (1 - c y)] for [t >= 0],
    starts at [D0], and is [<= D0 / (1 - c D0) e^{-Kt}]. *)
Definition logistic_spec : Prop :=
  forall D0 K N t, (0 < N)%nat -> 0 < K -> 0 <= D0 -> sync_c N * D0 < 1 -> 0 <= t ->
    derivable_pt_lim (sync_bound D0 K N) t
      (- K * sync_bound D0 K N t * (1 - sync_c N * sync_bound D0 K N t)) /\
    sync_bound D0 K N 0 = D0 /\
    sync_bound D0 K N t <= D0 / (1 - sync_c N * D0) * exp (- K * t).

(** (4) the linearisation at the synchronised state, [xi_j' = K (mean xi - xi_j)]:
    deviations with zero mean decay exactly at rate [K] (eigenvalue [-K]), common
    shifts do not move (eigenvalue [0]). *)
Definition linearised (N : nat) (K : R) (xi : nat -> R) (j : nat) : R :=
  K * (sumN xi N / INR N - xi j).
Definition linearisation_spec : Prop :=
  forall N K xi, (0 < N)%nat ->
    (sumN xi N = 0 -> forall j, linearised N K xi j = - K * xi j) /\
    (forall c, linearised N K (fun _ => c) = fun _ => 0).
