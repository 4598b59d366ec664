(** * Specification of statement 10: the convex-hull law (Wendel's theorem)

    [m] anchors [r_j] i.i.d. uniform on [S^{d-1}], [h = sum_j w_j r_j].  Mirrors
    [syncattn.lohe.hull_degenerate_probability] (file [lohe/_scale_free.py]: its
    [_hull_exact] and [_hull_bound]); proved in [hull_degeneracy.v]; sympy proof
    [proofs/proof_hull_degeneracy.py].  Anchors are [r : nat -> nat -> R]
    ([r j l] the coordinate [l] of anchor [j]). *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import CoreSpec.
Open Scope R_scope.

(** [math.comb(n, k)] (Pascal's rule; 0 for [k > n]). *)
Fixpoint binom (n k : nat) : nat :=
  match n, k with
  | _, O => 1
  | O, S _ => 0
  | S n', S k' => (binom n' k' + binom n' (S k'))%nat
  end.

(** Cover's count [C(m, d) = 2 sum_{k<d} binom(m-1, k)]. *)
Definition cover (m d : nat) : R := 2 * sumN (fun k => INR (binom (m - 1) k)) d.

(** [_hull_exact(m, d) = 2^{-(m-1)} sum_{k=d}^{m-1} binom(m-1, k)]. *)
Definition hull_exact (m d : nat) : R :=
  sumN (fun k => if Nat.leb d k then INR (binom (m - 1) k) else 0) m / 2 ^ (m - 1).

(** [_hull_bound]'s exponent [-2 t^2 / n], [n = m - 1], [t = d - n/2]. *)
Definition hoeffding_exponent (t n : R) : R := - 2 * t ^ 2 / n.

(** (a) strictly positive weights with [h = 0] put [0 = sum_j lambda_j r_j] with
    [lambda = w / sum w] in the open simplex; [lambda] does not depend on the scale of [w]. *)
Definition positive_weights_spec : Prop :=
  forall m d (w : nat -> R) r, (0 < m)%nat -> (forall j, (j < m)%nat -> 0 < w j) ->
  (forall j, (j < m)%nat -> 0 < w j / sumN w m) /\
  sumN (fun j => w j / sumN w m) m = 1 /\
  ((forall l, (l < d)%nat -> sumN (fun j => w j * r j l) m = 0) ->
     forall l, (l < d)%nat -> sumN (fun j => w j / sumN w m * r j l) m = 0) /\
  (forall c j, 0 < c -> c * w j / sumN (fun k => c * w k) m = w j / sumN w m).

(** (a) conversely, if [-t c] is in the hull for some [t > 0] ([c] the centroid), the
    coefficients [(mu_j + t/m) / (1 + t)] are strictly positive, sum to 1 and give 0. *)
Definition interior_spec : Prop :=
  forall m d (mu : nat -> R) r t, (0 < m)%nat -> 0 < t ->
  (forall j, (j < m)%nat -> 0 <= mu j) -> sumN mu m = 1 ->
  (forall l, (l < d)%nat -> sumN (fun j => mu j * r j l) m = - t * (sumN (fun j => r j l) m / INR m)) ->
  (forall j, (j < m)%nat -> 0 < (mu j + t / INR m) / (1 + t)) /\
  sumN (fun j => (mu j + t / INR m) / (1 + t)) m = 1 /\
  (forall l, (l < d)%nat -> sumN (fun j => (mu j + t / INR m) / (1 + t) * r j l) m = 0).

(** (b) Cover's recurrence [C(m+1, d) = C(m, d) + C(m, d-1)] ([m, d >= 1]),
    [C(1, d) = 2] ([d >= 1]) and [C(m, 0) = 0]. *)
Definition cover_recurrence_spec : Prop :=
  (forall m d, (1 <= m)%nat -> cover (S m) (S d) = cover m (S d) + cover m d) /\
  (forall d, cover 1 (S d) = 2) /\
  (forall m, cover m 0 = 0).

(** (c) [1 - C(m, d) / 2^m = 2^{-(m-1)} sum_{k=d}^{m-1} binom(m-1, k)], and it is 0 for
    [d >= m]. *)
Definition law_spec : Prop :=
  forall m d, (1 <= m)%nat ->
  hull_exact m d = 1 - cover m d / 2 ^ m /\ ((m <= d)%nat -> hull_exact m d = 0).

(** (d) Hoeffding's lemma [ln ((1 + e^l)/2) <= l/2 + l^2/8]. *)
Definition hoeffding_lemma_spec : Prop :=
  forall l, ln ((1 + exp l) / 2) <= l / 2 + l ^ 2 / 8.

(** (d) the Chernoff optimum: [min_lambda (-lambda t + n lambda^2 / 8) = -2 t^2 / n],
    attained at [lambda = 4 t / n]. *)
Definition chernoff_optimum_spec : Prop :=
  forall t n, 0 < n ->
  (forall lam, hoeffding_exponent t n <= - lam * t + n * lam ^ 2 / 8) /\
  - (4 * t / n) * t + n * (4 * t / n) ^ 2 / 8 = hoeffding_exponent t n.

(** (d) Chernoff's bound on the exact law: for [n >= 1] and [t >= 0],
    [P(Bin(n, 1/2) >= n/2 + t) = 2^{-n} sum_{k >= n/2 + t} binom(n, k) <= e^{-2 t^2 / n}]. *)
Definition binomial_tail_spec : Prop :=
  forall n t, (1 <= n)%nat -> 0 <= t ->
  sumN (fun k => if Rle_dec (INR n / 2 + t) (INR k) then INR (binom n k) else 0) (S n) / 2 ^ n
  <= exp (hoeffding_exponent t (INR n)).

(** (d) for [n = m - 1 < 2 c d] with [0 < c < 1] the bound decays exponentially in [d]:
    its exponent is below [-d (1 - c)^2 / c]. *)
Definition decay_spec : Prop :=
  forall n d c, 0 < n -> 0 < d -> 0 < c < 1 -> n < 2 * c * d ->
  hoeffding_exponent (d - n / 2) n < - d * (1 - c) ^ 2 / c.
