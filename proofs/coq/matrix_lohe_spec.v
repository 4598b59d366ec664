(** * Statement 17 (specification): the Lohe matrix flow keeps U(n), and is Kuramoto on U(1)

    Definitions only, each mirroring the library; the theorems are in
    [matrix_lohe.v].  Complex numbers are pairs [(re, im)]; an [n x n] complex
    matrix is a function [cmat := nat -> nat -> R * R] read on indices [< n]; a
    population of [N] oscillators is [nat -> cmat] read on [j < N].  SO(n) is the
    case of real matrices (every imaginary part 0) and real skew generators. The
    matrix definitions are shared by statements 18 and 19, whose specifications
    import this file. *)

From Syncattn Require Import CoreSpec.

(** Complex arithmetic on pairs. *)
Definition cadd (x y : R * R) : R * R := (fst x + fst y, snd x + snd y).
Definition cmul (x y : R * R) : R * R :=
  (fst x * fst y - snd x * snd y, fst x * snd y + snd x * fst y).
Definition cconj (x : R * R) : R * R := (fst x, - snd x).
Definition csum (f : nat -> R * R) (n : nat) : R * R :=
  (sumN (fun k => fst (f k)) n, sumN (fun k => snd (f k)) n).

(** Complex matrices. *)
Definition cmat := nat -> nat -> R * R.
Definition madd (A B : cmat) : cmat := fun a b => cadd (A a b) (B a b).
Definition mscal (r : R) (A : cmat) : cmat := fun a b => (r * fst (A a b), r * snd (A a b)).
Definition msub (A B : cmat) : cmat := madd A (mscal (-1) B).
(** [A @ B] for [n x n] matrices. *)
Definition mmul (n : nat) (A B : cmat) : cmat := fun a b => csum (fun c => cmul (A a c) (B c b)) n.
(** [A^H], the conjugate transpose ([syncattn.group._h]). *)
Definition adj (A : cmat) : cmat := fun a b => cconj (A b a).
Definition mid : cmat := fun a b => if Nat.eq_dec a b then (1, 0) else (0, 0).
(** [sum_{k < N} F_k]. *)
Definition msum (F : nat -> cmat) (N : nat) : cmat := fun a b => csum (fun k => F k a b) N.
(** Equality of the [n x n] blocks. *)
Definition meq (n : nat) (A B : cmat) : Prop :=
  forall a b, (a < n)%nat -> (b < n)%nat -> A a b = B a b.
(** [skew(X) = (X - X^H) / 2] ([syncattn.group.skew]); [X] skew-Hermitian: [X^H = -X]. *)
Definition skew (X : cmat) : cmat := mscal (1 / 2) (msub X (adj X)).
Definition skew_hermitian (n : nat) (X : cmat) : Prop := meq n (adj X) (mscal (-1) X).

(** The Lohe field ([syncattn.lohe._field], [_pull]): [M_j = sum_k K_jk U_k],
    [f_j = 1/2 (M_j - U_j M_j^H U_j) + W_j U_j]. *)
Definition pull (N : nat) (K : nat -> nat -> R) (U : nat -> cmat) (j : nat) : cmat :=
  msum (fun k => mscal (K j k) (U k)) N.
Definition lohe_field (n N : nat) (K : nat -> nat -> R) (W U : nat -> cmat) (j : nat) : cmat :=
  madd (mscal (1 / 2) (msub (pull N K U j) (mmul n (mmul n (U j) (adj (pull N K U j))) (U j))))
       (mmul n (W j) (U j)).
(** The left-trivialised field of RKMK4 ([syncattn.lohe._xi]): [skew(U_j^H (W_j U_j + M_j))]. *)
Definition lohe_xi (n N : nat) (K : nat -> nat -> R) (W U : nat -> cmat) (j : nat) : cmat :=
  skew (mmul n (adj (U j)) (madd (mmul n (W j) (U j)) (pull N K U j))).

(** A matrix curve [X] has derivative [X'] at [t]: the real and imaginary parts of
    every entry of the [n x n] block do. *)
Definition has_deriv (n : nat) (X : R -> cmat) (t : R) (X' : cmat) : Prop :=
  forall a b, (a < n)%nat -> (b < n)%nat ->
    derivable_pt_lim (fun s => fst (X s a b)) t (fst (X' a b)) /\
    derivable_pt_lim (fun s => snd (X s a b)) t (snd (X' a b)).

(** The curve of populations [U] solves the flow at time [t]. *)
Definition solves (n N : nat) (K : nat -> nat -> R) (W : nat -> cmat) (U : R -> nat -> cmat) (t : R) : Prop :=
  forall j, (j < N)%nat -> has_deriv n (fun s => U s j) t (lohe_field n N K W (U t) j).

(** (a) tangency: where [U_j^H U_j = I] and [W_j] is skew-Hermitian, [U_j^H f_j] is the
    library's [xi_j] and is skew-Hermitian (in the Lie algebra), for every [n], [N],
    real [K]. *)
Definition tangent_spec : Prop :=
  forall n N K W U j,
    meq n (mmul n (adj (U j)) (U j)) mid -> skew_hermitian n (W j) ->
    meq n (mmul n (adj (U j)) (lohe_field n N K W U j)) (lohe_xi n N K W U j) /\
    skew_hermitian n (mmul n (adj (U j)) (lohe_field n N K W U j)).

(** (a) along any solution, [d/dt (U_j^H U_j) = 0] at every time where
    [U_j^H U_j = I] and [W_j] is skew-Hermitian. *)
Definition gram_stationary_spec : Prop :=
  forall n N K W (U : R -> nat -> cmat) t j,
    solves n N K W U t -> (j < N)%nat ->
    meq n (mmul n (adj (U t j)) (U t j)) mid -> skew_hermitian n (W j) ->
    forall a b, (a < n)%nat -> (b < n)%nat ->
      derivable_pt_lim (fun s => fst (mmul n (adj (U s j)) (U s j) a b)) t 0 /\
      derivable_pt_lim (fun s => snd (mmul n (adj (U s j)) (U s j) a b)) t 0.

(** (b) U(1): [U_j = e^{i theta_j}], [W_j = -i H_j] (1 x 1). *)
Definition phasor (th : nat -> R) : nat -> cmat := fun j _ _ => (cos (th j), sin (th j)).
Definition drift (H : nat -> R) : nat -> cmat := fun j _ _ => (0, - H j).
(** The Kuramoto field with [omega = -H] ([syncattn.kuramoto.vector_field]). *)
Definition kuramoto (N : nat) (K : nat -> nat -> R) (omega th : nat -> R) (j : nat) : R :=
  omega j + sumN (fun k => K j k * sin (th k - th j)) N.

(** (b) on U(1) the field is [i theta_j' e^{i theta_j}] with [theta'] the Kuramoto
    field ([omega = -H]), and a Kuramoto solution [theta(t)] gives a solution
    [e^{i theta(t)}] of the matrix flow; any [N], [K], [H]. *)
Definition u1_kuramoto_spec : Prop :=
  forall N K H th j,
    lohe_field 1 N K (drift H) (phasor th) j 0%nat 0%nat
    = cmul (0, kuramoto N K (fun k => - H k) th j) (cos (th j), sin (th j)).
Definition u1_solution_spec : Prop :=
  forall N K H (th : R -> nat -> R) t,
    (forall j, (j < N)%nat ->
       derivable_pt_lim (fun s => th s j) t (kuramoto N K (fun k => - H k) (th t) j)) ->
    solves 1 N K (drift H) (fun s => phasor (th s)) t.

(** (a) the group is invariant: with every [W_j] skew-Hermitian, a solution on
    [[0, T]] that starts in U(n) (every [U_j(0)^H U_j(0) = I]; SO(n) for real data)
    stays in it at every [t] in [[0, T]]. *)
Definition group_invariant_spec : Prop :=
  forall n N K W (U : R -> nat -> cmat) T,
    (forall j, (j < N)%nat -> skew_hermitian n (W j)) ->
    (forall t, 0 <= t <= T -> solves n N K W U t) ->
    (forall j, (j < N)%nat -> meq n (mmul n (adj (U 0 j)) (U 0 j)) mid) ->
    forall t j, 0 <= t <= T -> (j < N)%nat -> meq n (mmul n (adj (U t j)) (U t j)) mid.
