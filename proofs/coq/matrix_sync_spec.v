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

(** (2) the derivative of [||Delta||_F^2] along every solution of the co-rotating flow
    [V_k' = K/2 (M - V_k M^H V_k)] (no drift, all-to-all [K/N]), at every time where
    [V_i^H V_i = I] and [V_j V_j^H = I]; [Delta = V_i - V_j], [E_k = M - V_k]:
    [d||Delta||^2/dt = -2K ||Delta||^2 - K Re[tr(Delta^H Delta E_i^H V_i)
    + tr(Delta Delta^H V_j E_j^H)]]. *)
Definition delta (V : nat -> cmat) (i j : nat) : cmat := msub (V i) (V j).
Definition dev (N : nat) (V : nat -> cmat) (k : nat) : cmat := msub (mean N V) (V k).
Definition pair_derivative_spec : Prop :=
  forall n N K (V : R -> nat -> cmat) t i j, (i < N)%nat -> (j < N)%nat ->
    solves n N (all_to_all K N) no_drift V t ->
    meq n (mmul n (adj (V t i)) (V t i)) mid -> meq n (mmul n (V t j) (adj (V t j))) mid ->
    derivable_pt_lim (fun s => frob2 n (delta (V s) i j)) t
      (- 2 * K * frob2 n (delta (V t) i j)
       - K * (fst (trace n (mmul n (mmul n (adj (delta (V t) i j)) (delta (V t) i j))
                                   (mmul n (adj (dev N (V t) i)) (V t i))))
              + fst (trace n (mmul n (mmul n (delta (V t) i j) (adj (delta (V t) i j)))
                                   (mmul n (V t j) (adj (dev N (V t) j))))))).

(** (5) at [N = 2] the hypothesis [D(0) < N/(N-1)] is sharp: for every [n >= 1] and
    [K], the pair [V_0 = I], [V_1 = diag(-1, 1, ..., 1)] lies in U(n) (and SO(n) up to
    orientation: O(n)), is at distance [||V_0 - V_1||_F = 2 = N/(N-1)], and is an
    equilibrium: the constant curve solves the co-rotating flow at every time, so
    along it the distance stays [2] and the pair never synchronises. *)
Definition antipode : cmat :=
  fun a b => if Nat.eq_dec a b then (if Nat.eq_dec a 0 then (-1, 0) else (1, 0)) else (0, 0).
Definition antipodal_pair : nat -> cmat := fun k => if Nat.eq_dec k 0 then mid else antipode.
Definition antipodal_spec : Prop :=
  forall n K, (0 < n)%nat ->
    (forall k, (k < 2)%nat -> unitary n (antipodal_pair k)) /\
    sqrt (frob2 n (delta antipodal_pair 0 1)) = / sync_c 2 /\
    forall t, solves n 2 (all_to_all K 2) no_drift (fun _ => antipodal_pair) t.

(** (3), the bound on [E_i]: if every pair is within [D] ([||V_k - V_l||_F <= D] for
    [k, l < N]) then [||E_i||_F = ||M - V_i||_F <= c D], [c = (N-1)/N], [N >= 1]
    (the triangle inequality for the Frobenius norm). *)
Definition frob (n : nat) (X : cmat) : R := sqrt (frob2 n X).
Definition deviation_bound_spec : Prop :=
  forall n N V D i, (0 < N)%nat -> (i < N)%nat ->
    (forall k l, (k < N)%nat -> (l < N)%nat -> frob n (delta V k l) <= D) ->
    frob n (dev N V i) <= sync_c N * D.
