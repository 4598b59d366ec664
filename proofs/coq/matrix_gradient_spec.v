(** * Statement 18 (specification): identical Lohe matrix oscillators are a gradient flow

    Definitions only; the theorems are in [matrix_gradient.v].  The complex
    matrices and the Lohe field [lohe_field] are statement 17's
    ([matrix_lohe_spec.v]). *)

From Syncattn Require Import CoreSpec.
From Syncattn Require Export matrix_lohe_spec.

(** Scalar coupling [K]: all-to-all [K_jk = K / N] ([syncattn.lohe._check_coupling],
    [_pull] with a scalar). *)
Definition all_to_all (K : R) (N : nat) : nat -> nat -> R := fun _ _ => K / INR N.
Definition zero : cmat := fun _ _ => (0, 0).
Definition no_drift : nat -> cmat := fun _ => zero.

(** [M = (1/N) sum_k U_k] and [||X||_F^2 = sum_ab |X_ab|^2]. *)
Definition mean (N : nat) (U : nat -> cmat) : cmat := mscal (1 / INR N) (msum U N).
Definition frob2 (n : nat) (X : cmat) : R :=
  sumN (fun a => sumN (fun b => fst (X a b) ^ 2 + snd (X a b) ^ 2) n) n.
(** [R^2 = ||M||_F^2 / n] ([syncattn.group.order_parameter], squared). *)
Definition order2 (n N : nat) (U : nat -> cmat) : R := frob2 n (mean N U) / INR n.
(** [dR^2/dt = 2K/(nN) sum_j ||skew(U_j^H M)||_F^2] ([syncattn.lohe.matrix_order_rate]). *)
Definition order_rate (n N : nat) (K : R) (U : nat -> cmat) : R :=
  2 * K / (INR n * INR N) * sumN (fun j => frob2 n (skew (mmul n (adj (U j)) (mean N U)))) N.
Definition unitary (n : nat) (X : cmat) : Prop :=
  meq n (mmul n (adj X) X) mid /\ meq n (mmul n X (adj X)) mid.

(** [P_V(Z) = V skew(V^H Z)]: the projection onto the tangent space at [V]. *)
Definition proj (n : nat) (V Z : cmat) : cmat := mmul n V (skew (mmul n (adj V) Z)).

(** (a) [R] is the same in both frames: [F^H F = I] gives [R(F U) = R(U)]. *)
Definition order_invariant_spec : Prop :=
  forall n N F U, meq n (mmul n (adj F) F) mid ->
    order2 n N (fun k => mmul n F (U k)) = order2 n N U.

(** (b) without drift, on the group ([V_j V_j^H = I]), [N > 0]:
    [f_j = K/2 (M - V_j M^H V_j) = K V_j skew(V_j^H M) = K/(2N) P_{V_j}(2 sum_k V_k)]. *)
Definition gradient_form_spec : Prop :=
  forall n N K V j, (0 < N)%nat -> meq n (mmul n (V j) (adj (V j))) mid ->
    meq n (lohe_field n N (all_to_all K N) no_drift V j)
          (mscal (K / 2) (msub (mean N V) (mmul n (mmul n (V j) (adj (mean N V))) (V j)))) /\
    meq n (lohe_field n N (all_to_all K N) no_drift V j)
          (mscal K (mmul n (V j) (skew (mmul n (adj (V j)) (mean N V))))) /\
    meq n (lohe_field n N (all_to_all K N) no_drift V j)
          (mscal (K / (2 * INR N)) (proj n (V j) (mscal 2 (msum V N)))).

(** (b) [P_V] is the orthogonal projection onto the tangent space at [V] ([V^H V = I]):
    [P_V Z] is tangent ([V^H P_V Z] skew-Hermitian), [P_V] fixes tangent vectors
    [V X] ([X] skew-Hermitian), and [Z - P_V Z] is orthogonal to them
    ([Re tr((V X)^H (Z - P_V Z)) = 0]). *)
Definition trace (n : nat) (X : cmat) : R * R := csum (fun a => X a a) n.
Definition projection_spec : Prop :=
  forall n V Z X, meq n (mmul n (adj V) V) mid -> skew_hermitian n X ->
    skew_hermitian n (mmul n (adj V) (proj n V Z)) /\
    meq n (proj n V (mmul n V X)) (mmul n V X) /\
    fst (trace n (mmul n (adj (mmul n V X)) (msub Z (proj n V Z)))) = 0.

(** (c) for [K > 0] the rate is [>= 0], and [0] exactly at the equilibria of the
    co-rotating flow (every [f_j = K/2 (M - U_j M^H U_j)] vanishes). *)
Definition rate_sign_spec : Prop :=
  forall n N K U, (0 < n)%nat -> (0 < N)%nat -> 0 < K ->
    (forall j, (j < N)%nat -> unitary n (U j)) ->
    0 <= order_rate n N K U /\
    (order_rate n N K U = 0 <->
     forall j, (j < N)%nat -> meq n (lohe_field n N (all_to_all K N) no_drift U j) zero).

(** (b) [2 sum_k V_k] is the Frobenius gradient of [E = ||sum_k V_k||_F^2] in [V_j]: for
    every population [V], [j < N] and direction [Z], [s -> E(V with V_j + s Z)] has
    derivative [Re tr((2 sum_k V_k)^H Z)] (the Frobenius inner product) at [s = 0];
    and [2 sum_k V_k = 2 N M]. *)
Definition bump (V : nat -> cmat) (j : nat) (s : R) (Z : cmat) : nat -> cmat :=
  fun k => if Nat.eq_dec k j then madd (V k) (mscal s Z) else V k.
Definition energy (n N : nat) (V : nat -> cmat) : R := frob2 n (msum V N).
Definition frobenius_gradient_spec : Prop :=
  forall n N V Z j, (j < N)%nat ->
    derivable_pt_lim (fun s => energy n N (bump V j s Z)) 0
      (fst (trace n (mmul n (adj (mscal 2 (msum V N))) Z))) /\
    mscal 2 (msum V N) = mscal (2 * INR N) (mean N V).

(** (c) along every solution with one common skew-Hermitian drift [W] ([-iH]) and
    all-to-all coupling [K/N], [N >= 1], at every time [t] where every [U_j] is unitary:
    [d/dt R^2 = 2K/(nN) sum_j ||skew(U_j^H M)||_F^2] ([order_rate]). *)
Definition order_derivative_spec : Prop :=
  forall n N K W (U : R -> nat -> cmat) t, (0 < N)%nat -> skew_hermitian n W ->
    solves n N (all_to_all K N) (fun _ => W) U t ->
    (forall j, (j < N)%nat -> unitary n (U t j)) ->
    derivable_pt_lim (fun s => order2 n N (U s)) t (order_rate n N K (U t)).

(** (a) the co-rotating frame: for every curve [F] with [F^H F = I] and [F' = -F W] at
    [t] (as [F(s) = e^{iHs}] with [W = -iH]), if [U] solves the flow with the common
    drift [W] at [t], then [V_j = F U_j] solves the flow without drift at [t]; any real
    coupling [K]. *)
Definition corotating_spec : Prop :=
  forall n N K W (F : R -> cmat) (U : R -> nat -> cmat) t,
    meq n (mmul n (adj (F t)) (F t)) mid ->
    has_deriv n F t (mscal (-1) (mmul n (F t) W)) ->
    solves n N K (fun _ => W) U t ->
    solves n N K no_drift (fun s k => mmul n (F s) (U s k)) t.
