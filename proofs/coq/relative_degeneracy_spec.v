(** * Specification of statement 11: the relative degenerate event [|h| < eps |w|_2]

    [h = sum_j w_j r_j], [r_j] i.i.d. uniform on [S^{d-1}].  Mirrors
    [syncattn.lohe.relative_degenerate_bound] (file [lohe/_scale_free.py]); proved in
    [relative_degeneracy.v]; sympy proof [proofs/proof_relative_degeneracy.py].
    Anchors are [r : nat -> nat -> R] ([r j l] the coordinate [l] of anchor [j]). *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import CoreSpec.
From Coq Require Import Factorial.
Open Scope R_scope.

(** [h = sum_j w_j r_j], coordinate [l]. *)
Definition drive (m : nat) (w : nat -> R) (r : nat -> nat -> R) : nat -> R :=
  fun l => sumN (fun j => w j * r j l) m.

(** The off-diagonal sum [sum_{j <> k} f j k]. *)
Definition offdiag (m : nat) (f : nat -> nat -> R) : R :=
  sumN (fun j => sumN (fun k => if Nat.eq_dec j k then 0 else f j k) m) m.

(** The bound's variance term [2 (1 - sum_j a_j^4) / d], [a = w / |w|_2]. *)
Definition rel_variance (m : nat) (d : R) (a : nat -> R) : R :=
  2 * (1 - sumN (fun j => a j ^ 4) m) / d.

(** The bound's exponent [-t^2 d / (2 V)]. *)
Definition chernoff_exponent (t V d : R) : R := - t ^ 2 * d / (2 * V).

(** [(2k - 1)!! = 1 * 3 * ... * (2k - 1)]. *)
Fixpoint odd_prod (k : nat) : nat := match k with O => 1 | S k' => (2 * k' + 1) * odd_prod k' end.

(** (a) for unit anchors, [|h|^2 = |w|^2 + sum_{j <> k} w_j w_k <r_j, r_k>]. *)
Definition expansion_spec : Prop :=
  forall m d w r, (forall j, (j < m)%nat -> dot d (r j) (r j) = 1) ->
  dot d (drive m w r) (drive m w r)
  = sumN (fun j => w j ^ 2) m + offdiag m (fun j k => w j * w k * dot d (r j) (r k)).

(** (a) the variance algebra: with [E X_jk^2 = 1/d] and uncorrelated pairs,
    [Var = (2/d) sum_{j <> k} a_j^2 a_k^2], which is [2 (1 - sum a^4) / d] for unit [a]. *)
Definition variance_algebra_spec : Prop :=
  forall m (d : R) a, d <> 0 -> sumN (fun j => a j ^ 2) m = 1 ->
  2 / d * offdiag m (fun j k => a j ^ 2 * a k ^ 2) = rel_variance m d a.

(** (a) the event [|h| < eps |w|] lies in [|(|h|^2/|w|^2) - 1| > 1 - eps^2]
    (Chebyshev's event). *)
Definition chebyshev_event_spec : Prop :=
  forall hn wn eps, 0 < wn -> 0 <= hn -> 0 <= eps -> hn < eps * wn ->
  1 - eps ^ 2 < Rabs (hn ^ 2 / wn ^ 2 - 1).

(** (b) [(2k)! = 2^k k! (2k - 1)!!]. *)
Definition double_factorial_spec : Prop :=
  forall k, fact (2 * k) = (2 ^ k * fact k * odd_prod k)%nat.

(** (c) the martingale step: [|h + w r|^2 = |h|^2 + w^2 + 2 w <h, r>] for unit [r]. *)
Definition martingale_step_spec : Prop :=
  forall d h r w, dot d r r = 1 ->
  dot d (fun l => h l + w * r l) (fun l => h l + w * r l) = dot d h h + w ^ 2 + 2 * w * dot d h r.

(** (c) Chernoff: [-l t + l^2 V / (2d) >= -t^2 d / (2V)] with equality at [l = t d / V];
    with [t = (1 - eps^2) |w|^2], [V = 4 S] the exponent is
    [-d (1 - eps^2)^2 |w|^4 / (8 S)]. *)
Definition chernoff_spec : Prop :=
  forall t V d, 0 < V -> 0 < d ->
  (forall l, chernoff_exponent t V d <= - l * t + l ^ 2 * V / (2 * d)) /\
  - (t * d / V) * t + (t * d / V) ^ 2 * V / (2 * d) = chernoff_exponent t V d /\
  (forall eps w2 S, 0 < S ->
     chernoff_exponent ((1 - eps ^ 2) * w2) (4 * S) d = - d * (1 - eps ^ 2) ^ 2 * w2 ^ 2 / (8 * S)).

(** (c) an adjacent swap ([a] then [b] after a prefix sum [W], against [b] then [a])
    changes [sum_k w_k^2 W_{k-1}^2] by [2 W a b (b - a)]: larger weights first is smaller. *)
Definition adjacent_swap_spec : Prop :=
  forall a b W,
  (a ^ 2 * W ^ 2 + b ^ 2 * (W + a) ^ 2) - (b ^ 2 * W ^ 2 + a ^ 2 * (W + b) ^ 2) = 2 * W * a * b * (b - a) /\
  (0 <= W -> 0 <= a <= b ->
     b ^ 2 * W ^ 2 + a ^ 2 * (W + b) ^ 2 <= a ^ 2 * W ^ 2 + b ^ 2 * (W + a) ^ 2).

(** (d) two anchors ([w_1 w_2 > 0]): [|h|^2 < eps^2 |w|^2] iff [<r_1, r_2> < -c],
    [c = (1 - eps^2)(w_1^2 + w_2^2) / (2 w_1 w_2)]. *)
Definition two_anchors_spec : Prop :=
  forall w1 w2 eps x, 0 < w1 * w2 ->
  (w1 ^ 2 + w2 ^ 2 + 2 * w1 * w2 * x < eps ^ 2 * (w1 ^ 2 + w2 ^ 2) <->
   x < - ((1 - eps ^ 2) * (w1 ^ 2 + w2 ^ 2) / (2 * w1 * w2))).

(** (d) equal weights: [c = 1 - eps^2], [1 - c^2 = eps^2 (2 - eps^2)] and the rate
    [-1/2 ln (eps^2 (2 - eps^2))] is positive for [0 < eps < 1]. *)
Definition equal_weights_spec : Prop :=
  forall w eps, w <> 0 -> 0 < eps < 1 ->
  (1 - eps ^ 2) * (w ^ 2 + w ^ 2) / (2 * w * w) = 1 - eps ^ 2 /\
  1 - (1 - eps ^ 2) ^ 2 = eps ^ 2 * (2 - eps ^ 2) /\
  0 < - / 2 * ln (eps ^ 2 * (2 - eps ^ 2)).
