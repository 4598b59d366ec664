(** * Statement 5: the fixed-query Lohe flow [z' = (I - z z^T) h]

    Informal statement.  Let [h <> 0] in [R^n] (any n) and [z] on the unit
    sphere, [f(z) = h - <z, h> z] the field of [z' = (I - z z^T) h].
    (a) [<z, f(z)> = <z, h> (1 - |z|^2)]: the flow stays on the sphere.
    (b) The equilibria on the sphere are exactly [z = +h/|h|] and [z = -h/|h|].
    (d) The Lyapunov function [V(z) = -<z, h>] has derivative [-<h, f(z)>]
        along the field, equal to [-|f(z)|^2] on the sphere: it decreases
        strictly off the equilibria.
    (e) For [0 < phi0 < pi] the angle [phi(t) = 2 atan(tan(phi0/2) e^{-|h| t})]
        starts at [phi0], stays in [(0, pi)] and solves [phi' = -|h| sin phi].

    Symbol map.
    - library: [syncattn.lohe.fixed_query_field] ([field n z h], the
      coordinates [f_i]), [syncattn.lohe.equilibrium] ([h / norm h]),
      [syncattn.lohe.lyapunov] ([- dot n z h]) and [syncattn.lohe.exact_angle]
      ([angle a phi0 t] with [a = |h|]);
    - sympy proof: [proofs/proof_lohe_fixed_query.py] (statement 5), parts (a),
      (b), (d), (e); there (a), (b), (d) are checked in d = 2, 3, here for every n.
    - Vectors are functions [nat -> R] read on the coordinates [0 .. n-1];
      [dot n x y = sum_{i<n} x_i y_i], [norm n h = sqrt (dot n h h)].  The
      equilibrium case (b) needs no Cauchy-Schwarz: [f = 0] means [h = <z,h> z],
      so [<z,h>^2 = |h|^2].

    Assumes: the standard library's axioms of the real numbers (through
    Coquelicot for the derivatives). *)

From Coq Require Import Reals List Lra Lia.
Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

Fixpoint sumN (f : nat -> R) (n : nat) : R :=
  match n with O => 0 | S k => sumN f k + f k end.

Lemma sumN_ext : forall f g n, (forall k, (k < n)%nat -> f k = g k) -> sumN f n = sumN g n.
Proof.
  intros f g n. induction n as [| n IH]; simpl; intros H; [reflexivity|].
  rewrite IH, H; [reflexivity | lia | intros k Hk; apply H; lia].
Qed.

(** Linearity of the sum, in the form used below. *)
Lemma sumN_lin : forall a b c (f g w : nat -> R) n,
  sumN (fun k => a * f k + b * g k + c * w k) n
  = a * sumN f n + b * sumN g n + c * sumN w n.
Proof. intros a b c f g w n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sumN_nonneg : forall f n, (forall k, (k < n)%nat -> 0 <= f k) -> 0 <= sumN f n.
Proof.
  intros f n. induction n as [| n IH]; simpl; intros H; [lra|].
  pose proof (H n ltac:(lia)). pose proof (IH (fun k Hk => H k ltac:(lia))). lra.
Qed.

Lemma sumN_pos : forall f n, (forall k, (k < n)%nat -> 0 <= f k) ->
  (exists i, (i < n)%nat /\ 0 < f i) -> 0 < sumN f n.
Proof.
  intros f n. induction n as [| n IH]; simpl; intros H [i [Hi Hpos]]; [lia|].
  pose proof (H n ltac:(lia)).
  pose proof (sumN_nonneg f n (fun k Hk => H k ltac:(lia))).
  destruct (Nat.eq_dec i n) as [-> | Hne]; [lra|].
  assert (0 < sumN f n) by (apply IH; [intros k Hk; apply H; lia | exists i; split; [lia | exact Hpos]]).
  lra.
Qed.

Definition dot (n : nat) (x y : nat -> R) : R := sumN (fun i => x i * y i) n.
Definition norm (n : nat) (h : nat -> R) : R := sqrt (dot n h h).

(** The field [f(z) = (I - z z^T) h = h - <z, h> z]. *)
Definition field (n : nat) (z h : nat -> R) : nat -> R :=
  fun i => h i - dot n z h * z i.

(** (a) *)
Lemma field_tangent : forall n z h,
  dot n z (field n z h) = dot n z h * (1 - dot n z z).
Proof.
  intros n z h. unfold dot at 1, field.
  rewrite (sumN_ext _ (fun k => 1 * (z k * h k) + (- dot n z h) * (z k * z k) + 0 * 0))
    by (intros; ring).
  rewrite sumN_lin. unfold dot. ring.
Qed.

Lemma dot_field_h : forall n z h,
  dot n (field n z h) h = dot n h h - dot n z h * dot n z h.
Proof.
  intros n z h. unfold dot at 1, field.
  rewrite (sumN_ext _ (fun k => 1 * (h k * h k) + (- dot n z h) * (z k * h k) + 0 * 0))
    by (intros; ring).
  rewrite sumN_lin. unfold dot. ring.
Qed.

Lemma dot_field_field : forall n z h,
  dot n (field n z h) (field n z h)
  = dot n h h - 2 * dot n z h * dot n z h + dot n z h * dot n z h * dot n z z.
Proof.
  intros n z h. unfold dot at 1, field.
  rewrite (sumN_ext _ (fun k => 1 * (h k * h k) + (- 2 * dot n z h) * (z k * h k)
                               + (dot n z h * dot n z h) * (z k * z k)))
    by (intros; ring).
  rewrite sumN_lin. unfold dot. ring.
Qed.

(** (b) the equilibria on the sphere *)
Lemma equilibria : forall n z h, dot n z z = 1 -> 0 < dot n h h ->
  ((forall i, (i < n)%nat -> field n z h i = 0)
   <-> exists s, (s = 1 \/ s = -1) /\ forall i, (i < n)%nat -> z i = s * h i / norm n h).
Proof.
  intros n z h Hz Hh.
  assert (HN : norm n h * norm n h = dot n h h) by (apply sqrt_sqrt; lra).
  assert (HNpos : 0 < norm n h) by (apply sqrt_lt_R0; lra).
  split.
  - intros H0. set (c := dot n z h).
    assert (Hhz : forall i, (i < n)%nat -> h i = c * z i).
    { intros i Hi. specialize (H0 i Hi). unfold field in H0. fold c in H0. lra. }
    assert (Hc2 : c * c = dot n h h).
    { unfold dot. rewrite (sumN_ext _ (fun k => (c * c) * (z k * z k) + 0 * 0 + 0 * 0))
        by (intros k Hk; rewrite Hhz by exact Hk; ring).
      rewrite sumN_lin. fold (dot n z z). rewrite Hz. ring. }
    assert (Hcases : c = norm n h \/ c = - norm n h).
    { assert ((c - norm n h) * (c + norm n h) = 0) by nra.
      apply Rmult_integral in H. lra. }
    assert (Hc0 : c <> 0) by (intro E; rewrite E in Hc2; lra).
    destruct Hcases as [Hc | Hc]; [exists 1 | exists (-1)]; (split; [lra|]);
      intros i Hi; rewrite Hhz by exact Hi; rewrite Hc; field; lra.
  - intros [s [Hs Hzs]] i Hi. unfold field.
    assert (Hzh : dot n z h = s * norm n h).
    { unfold dot. rewrite (sumN_ext _ (fun k => (s / norm n h) * (h k * h k) + 0 * 0 + 0 * 0))
        by (intros k Hk; rewrite Hzs by exact Hk; field; lra).
      rewrite sumN_lin. fold (dot n h h). rewrite <- HN. field. lra. }
    rewrite Hzh, Hzs by exact Hi.
    replace (h i - s * norm n h * (s * h i / norm n h)) with (h i * (1 - s * s)) by (field; lra).
    replace (s * s) with 1 by (destruct Hs; subst; ring). ring.
Qed.

(** (d) the Lyapunov function: its derivative along the field *)
Lemma is_derive_line : forall (u v w : nat -> R) n x,
  is_derive (fun t => sumN (fun i => (u i + t * v i) * w i) n) x (sumN (fun i => v i * w i) n).
Proof.
  intros u v w n x. induction n as [| n IH]; simpl.
  - auto_derive; [exact I | reflexivity].
  - apply (is_derive_plus (fun t => sumN (fun i => (u i + t * v i) * w i) n)
                          (fun t => (u n + t * v n) * w n)); [exact IH|].
    auto_derive; [exact I | ring].
Qed.

Lemma lyapunov_rate : forall n z h,
  is_derive (fun t => - dot n (fun i => z i + t * field n z h i) h) 0
            (- dot n (field n z h) h).
Proof.
  intros n z h. unfold dot.
  apply (is_derive_ext (fun t => -1 * sumN (fun i => (z i + t * field n z h i) * h i) n));
    [intro t; change (-1 * sumN (fun i : nat => (z i + t * field n z h i) * h i) n =
      - sumN (fun i : nat => (z i + t * field n z h i) * h i) n); ring|].
  replace (- sumN (fun i => field n z h i * h i) n)
    with (-1 * sumN (fun i => field n z h i * h i) n) by ring.
  apply is_derive_scal. apply is_derive_line.
Qed.

(** On the sphere the rate is [-|f|^2], negative off the equilibria. *)
Lemma lyapunov_decreases : forall n z h, dot n z z = 1 ->
  - dot n (field n z h) h = - dot n (field n z h) (field n z h)
  /\ ((exists i, (i < n)%nat /\ field n z h i <> 0) -> - dot n (field n z h) h < 0).
Proof.
  intros n z h Hz.
  assert (E : - dot n (field n z h) h = - dot n (field n z h) (field n z h))
    by (rewrite dot_field_h, dot_field_field, Hz; ring).
  split; [exact E|]. intros [i [Hi Hne]]. rewrite E.
  assert (0 < dot n (field n z h) (field n z h)); [|lra].
  apply sumN_pos; [intros k _; apply Rle_0_sqr|].
  exists i. split; [exact Hi|]. pose proof (Rsqr_pos_lt _ Hne). unfold Rsqr in H. exact H.
Qed.

(** (e) the angle solution *)
Definition angle (a phi0 t : R) : R := 2 * atan (tan (phi0 / 2) * exp (- a * t)).

Lemma sin_2atan : forall X, sin (2 * atan X) = 2 * X / (1 + X * X).
Proof.
  intros X. rewrite sin_2a, sin_atan, cos_atan.
  assert (H1 : 0 < 1 + X²) by (pose proof (Rle_0_sqr X); lra).
  assert (Hs : sqrt (1 + X²) * sqrt (1 + X²) = 1 + X²) by (apply sqrt_sqrt; lra).
  assert (0 < sqrt (1 + X²)) by (apply sqrt_lt_R0; lra).
  unfold Rsqr in *.
  replace (2 * (X / sqrt (1 + X * X)) * (1 / sqrt (1 + X * X)))
    with (2 * X / (sqrt (1 + X * X) * sqrt (1 + X * X))) by (field; lra).
  rewrite Hs. reflexivity.
Qed.

Lemma tan_half_pos : forall phi0, 0 < phi0 < PI -> 0 < tan (phi0 / 2).
Proof.
  intros phi0 H. unfold tan. pose proof PI_RGT_0.
  apply Rdiv_lt_0_compat; [apply sin_gt_0 | apply cos_gt_0]; lra.
Qed.

Lemma angle_solves : forall a phi0 t, 0 < phi0 < PI ->
  is_derive (angle a phi0) t (- a * sin (angle a phi0 t)).
Proof.
  intros a phi0 t Hphi. unfold angle. rewrite sin_2atan.
  pose proof (tan_half_pos phi0 Hphi). pose proof (exp_pos (- a * t)).
  auto_derive; [exact I|]. field.
  pose proof (Rle_0_sqr (tan (phi0 / 2) * exp (- a * t))). unfold Rsqr in H1. nra.
Qed.

Lemma angle_start : forall a phi0, 0 < phi0 < PI -> angle a phi0 0 = phi0.
Proof.
  intros a phi0 H. unfold angle. rewrite Rmult_0_r, exp_0, Rmult_1_r, atan_tan; [field|].
  lra.
Qed.

Lemma angle_range : forall a phi0 t, 0 < phi0 < PI -> 0 < angle a phi0 t < PI.
Proof.
  intros a phi0 t H. unfold angle.
  pose proof (tan_half_pos phi0 H). pose proof (exp_pos (- a * t)).
  pose proof (atan_bound (tan (phi0 / 2) * exp (- a * t))).
  pose proof (atan_increasing 0 (tan (phi0 / 2) * exp (- a * t))). rewrite atan_0 in H3.
  assert (0 < tan (phi0 / 2) * exp (- a * t)) by (apply Rmult_lt_0_compat; lra).
  specialize (H3 H4). lra.
Qed.

(** Main theorem. *)
Theorem lohe_fixed_query : forall n (z h : nat -> R),
  (dot n z (field n z h) = dot n z h * (1 - dot n z z))
  /\ (dot n z z = 1 -> 0 < dot n h h ->
        ((forall i, (i < n)%nat -> field n z h i = 0)
         <-> exists s, (s = 1 \/ s = -1) /\ forall i, (i < n)%nat -> z i = s * h i / norm n h))
  /\ is_derive (fun t => - dot n (fun i => z i + t * field n z h i) h) 0 (- dot n (field n z h) h)
  /\ (dot n z z = 1 ->
        - dot n (field n z h) h = - dot n (field n z h) (field n z h)
        /\ ((exists i, (i < n)%nat /\ field n z h i <> 0) -> - dot n (field n z h) h < 0))
  /\ (forall phi0 t, 0 < phi0 < PI ->
        is_derive (angle (norm n h) phi0) t (- norm n h * sin (angle (norm n h) phi0 t))
        /\ angle (norm n h) phi0 0 = phi0
        /\ 0 < angle (norm n h) phi0 t < PI).
Proof.
  intros n z h. split; [apply field_tangent|split; [apply equilibria|split; [apply lyapunov_rate|split]]].
  - apply lyapunov_decreases.
  - intros phi0 t Hphi. split; [apply angle_solves; exact Hphi|split].
    + apply angle_start; exact Hphi.
    + apply angle_range; exact Hphi.
Qed.

Print Assumptions lohe_fixed_query.
