(** * Statement 5: the fixed-query Lohe flow [z' = (I - z z^T) h] (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [lohe_fixed_query_spec.v] for every dimension [n]:
    (a) the rate of [|z|^2] along solutions and the invariance of the sphere;
    (b) the equilibria [+-h/|h|]; (c) the Jacobian and its eigenvalue [-s |h|]
    on the tangent space at [s h/|h|]; (d) the Lyapunov function, in the
    direction of the field and along solutions; (e) the angle of every solution
    on the sphere obeys [phi' = -|h| sin phi] and equals the closed form
    [syncattn.lohe.exact_angle], which tends to 0 and reaches [delta] at
    [syncattn.lohe.time_to_converge]; (f) the couplings are positive.

    Symbol map.  The definitions are those of [lohe_fixed_query_spec.v] (read it
    against the library); library: [syncattn.lohe.fixed_query_field],
    [syncattn.lohe.equilibrium], [syncattn.lohe.jacobian_spectrum],
    [syncattn.lohe.lyapunov], [syncattn.lohe.exact_angle],
    [syncattn.lohe.time_to_converge], [syncattn.lohe.coupling_weights];
    sympy proof: [proofs/proof_lohe_fixed_query.py].

    Proof idea.  (a), (b), (d) use only bilinearity of [dot] ((b) needs no
    Cauchy-Schwarz: [f = 0] means [h = <z,h> z], so [<z,h>^2 = |h|^2]).  (c) at
    an equilibrium [<h, v> = s |h| <z, v> = 0].  (e) [cos phi = <z,h>/|h|] has
    derivative [<f,h>/|h| = |h| sin^2 phi], and [phi = acos(<z,h>/|h|)];
    then [ln tan(phi/2) + |h| t] has derivative 0, so it is constant (the mean
    value theorem), which gives the closed form without an ODE uniqueness
    theorem.  (a)'s invariance: [(|z|^2 - 1) exp(2 int_0^t <z,h>)] has
    derivative 0.  The sympy proof [proofs/proof_lohe_fixed_query.py] checks
    (a), (b), (d) in d = 2, 3; here every n.

    Not formalised: existence of solutions (every claim is about a given
    differentiable solution); in (c) the dimension [n - 1] of the tangent space
    (linear algebra: the claim proved is that every tangent vector is an
    eigenvector).

    Assumes: the standard library's axioms of the real numbers (Coquelicot adds
    none of its own). *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core lohe_fixed_query_spec.
(* Core re-exports Coquelicot, whose [norm] would shadow [CoreSpec.norm]. *)
Import CoreSpec.

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

Lemma lyapunov_rate_line : forall n z h,
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

(** (e) the closed form *)
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

(** ** Derivatives along a trajectory *)

Lemma is_derive_value_eq : forall (f : R -> R) x l l', is_derive f x l -> l = l' -> is_derive f x l'.
Proof. intros f x l l' H E. rewrite <- E. exact H. Qed.

Lemma is_derive_const_R : forall (a x : R), is_derive (fun _ => a) x 0.
Proof. intros a x. auto_derive; [exact I | reflexivity]. Qed.

Lemma is_derive_dot : forall n (x y : R -> nat -> R) (dx dy : nat -> R) t,
  (forall i, (i < n)%nat -> is_derive (fun s => x s i) t (dx i)) ->
  (forall i, (i < n)%nat -> is_derive (fun s => y s i) t (dy i)) ->
  is_derive (fun s => dot n (x s) (y s)) t (dot n dx (y t) + dot n (x t) dy).
Proof.
  intros n x y dx dy t Hx Hy. unfold dot. rewrite <- sumN_plus.
  apply (is_derive_sumN (fun i s => x s i * y s i)). intros k Hk.
  apply (Derive.is_derive_mult (fun s => x s k) (fun s => y s k)); auto.
Qed.

(** The derivative of [<z(t), h>] along a solution is [<f(z(t)), h>]. *)
Lemma is_derive_zh : forall n h z t, solution n h z ->
  is_derive (fun s => dot n (z s) h) t (dot n (field n (z t) h) h).
Proof.
  intros n h z t Hz.
  replace (dot n (field n (z t) h) h) with (dot n (field n (z t) h) h + dot n (z t) (fun _ => 0)).
  - apply (is_derive_dot n z (fun _ => h)); [intros i Hi; apply Hz; exact Hi|].
    intros i _. apply is_derive_const_R.
  - unfold dot. rewrite (sumN_ext (fun i => z t i * 0) (fun _ => 0)) by (intros; ring).
    rewrite sumN_zero. ring.
Qed.

(** ** (a) the sphere *)

Theorem lohe_sphere_rate : lohe_sphere_rate_spec.
Proof.
  intros n h z Hz t.
  replace (2 * dot n (z t) h * (1 - dot n (z t) (z t)))
    with (dot n (field n (z t) h) (z t) + dot n (z t) (field n (z t) h))
    by (rewrite dot_sym, field_tangent; ring).
  apply is_derive_dot; intros i Hi; apply Hz; exact Hi.
Qed.

Theorem lohe_sphere_invariant : lohe_sphere_invariant_spec.
Proof.
  intros n h z Hz H0 t.
  set (c := fun s => dot n (z s) h).
  assert (Dc : forall s, is_derive c s (dot n (field n (z s) h) h)) by (intro s; apply is_derive_zh; exact Hz).
  assert (Cc : forall s, continuous c s) by (intro s; apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule));
      exists (dot n (field n (z s) h) h); apply Dc).
  assert (DC : forall s, is_derive (RInt c 0) s (c s)).
  { intro s. apply (is_derive_RInt c (RInt c 0) 0 s); [|apply Cc].
    apply filter_forall. intro b. apply (RInt_correct (V := R_CompleteNormedModule)).
    apply (ex_RInt_continuous (V := R_CompleteNormedModule)).
    intros x _. apply Cc. }
  set (w := fun s => (dot n (z s) (z s) - 1) * exp (2 * RInt c 0 s)).
  assert (Dw : forall s, is_derive w s 0).
  { intro s. unfold w.
    apply (is_derive_value_eq _ _ ((2 * dot n (z s) h * (1 - dot n (z s) (z s)) - 0)
                                    * exp (2 * RInt c 0 s)
                    + (dot n (z s) (z s) - 1) * scal (scal 2 (c s)) (exp (2 * RInt c 0 s)))).
    - apply (Derive.is_derive_mult (fun s => dot n (z s) (z s) - 1) (fun s => exp (2 * RInt c 0 s))).
      + apply (is_derive_minus (fun s => dot n (z s) (z s)) (fun _ => 1)).
        * apply lohe_sphere_rate. exact Hz.
        * apply is_derive_const_R.
      + apply (is_derive_comp exp (fun s => 2 * RInt c 0 s)).
        * apply is_derive_exp.
        * apply (is_derive_scal (RInt c 0)). apply DC.
    - unfold scal; simpl; unfold mult; simpl. unfold c. ring. }
  destruct (MVT_cor4 w (fun _ => 0) 0 (Rabs (t - 0)) (fun x _ => Dw x) t (Rle_refl _))
    as [x [Hx _]].
  unfold w in Hx. rewrite H0 in Hx.
  pose proof (exp_pos (2 * RInt c 0 t)).
  assert ((dot n (z t) (z t) - 1) * exp (2 * RInt c 0 t) = 0) by lra.
  apply Rmult_integral in H1. destruct H1; lra.
Qed.

(** ** (b) the equilibria *)

Theorem lohe_equilibria : lohe_equilibria_spec.
Proof. exact equilibria. Qed.

(** ** (c) the Jacobian and its spectrum on the tangent space *)

Theorem lohe_jacobian : lohe_jacobian_spec.
Proof.
  intros n z h v i. unfold field, jac.
  assert (D : is_derive (fun e => dot n (fun k => z k + e * v k) h) 0 (dot n v h)).
  { unfold dot. apply (is_derive_line z v h n 0). }
  replace (- dot n z h * v i - z i * dot n h v)
    with (0 - (dot n v h * (z i + 0 * v i) + dot n (fun k => z k + 0 * v k) h * v i)).
  2:{ replace (dot n (fun k => z k + 0 * v k) h) with (dot n z h)
        by (unfold dot; apply sumN_ext; intros; ring).
      rewrite (dot_sym n v h). ring. }
  apply (is_derive_minus (fun _ => h i)). { apply is_derive_const_R. }
  apply (Derive.is_derive_mult (fun e => dot n (fun k => z k + e * v k) h) (fun e => z i + e * v i)).
  - exact D.
  - auto_derive; [exact I | ring].
Qed.

Theorem lohe_spectrum : lohe_spectrum_spec.
Proof.
  intros n z h v s Hh Hs Hz Hzv i Hi.
  assert (HN : norm n h * norm n h = dot n h h) by (apply sqrt_sqrt; lra).
  assert (HNpos : 0 < norm n h) by (apply sqrt_lt_R0; lra).
  assert (Hzh : dot n z h = s * norm n h).
  { unfold dot. rewrite (sumN_ext _ (fun k => (s / norm n h) * (h k * h k) + 0 * 0 + 0 * 0))
      by (intros k Hk; rewrite Hz by exact Hk; field; lra).
    rewrite sumN_lin. fold (dot n h h). rewrite <- HN. field. lra. }
  assert (Hhv : dot n h v = 0).
  { assert (E : dot n z v = (s / norm n h) * dot n h v).
    { unfold dot. rewrite <- sumN_scal. apply sumN_ext. intros k Hk.
      rewrite Hz by exact Hk. field. lra. }
    rewrite Hzv in E. destruct Hs; subst s;
      apply (Rmult_eq_reg_l (1 / norm n h)); try (unfold Rdiv; apply Rgt_not_eq, Rmult_gt_0_compat; [lra | apply Rinv_0_lt_compat; lra]);
      [ring_simplify; unfold Rdiv in *; lra | ].
    assert (0 = - (1 / norm n h) * dot n h v) by (unfold Rdiv in *; lra). lra. }
  unfold jac. rewrite Hzh, Hhv. ring.
Qed.

(** ** (d) the Lyapunov function *)

Theorem lohe_lyapunov_field : lohe_lyapunov_field_spec.
Proof.
  intros n z h. split; [apply lyapunov_rate_line | apply lyapunov_decreases].
Qed.

Theorem lohe_lyapunov_descent : lohe_lyapunov_descent_spec.
Proof.
  intros n h z Hz Hs t.
  destruct (lyapunov_decreases n (z t) h (Hs t)) as [E Hlt].
  split; [|split].
  - rewrite <- E. apply (is_derive_opp (fun s => dot n (z s) h)). apply is_derive_zh. exact Hz.
  - pose proof (dot_nonneg n (field n (z t) h)). lra.
  - intros Hne. rewrite <- E. apply Hlt. exact Hne.
Qed.

(** ** (e) the angle *)

Theorem lohe_exact_angle : lohe_exact_angle_spec.
Proof.
  intros a phi0 t Hphi. split; [apply angle_solves; exact Hphi | split].
  - apply angle_start; exact Hphi.
  - apply angle_range; exact Hphi.
Qed.

Lemma is_derive_acos : forall x, -1 < x < 1 -> is_derive acos x (-1 / sqrt (1 - x²)).
Proof.
  intros x Hx. apply is_derive_Reals.
  rewrite <- (derive_pt_acos x Hx). apply (derive_pt_eq_1 acos x _ (derivable_pt_acos x Hx)).
  reflexivity.
Qed.

Theorem lohe_angle_ode : lohe_angle_ode_spec.
Proof.
  intros n h z phi HN Hz Hs Hphi t.
  set (N := norm n h). set (c := fun s => dot n (z s) h / N).
  assert (HNN : N * N = dot n h h) by (apply sqrt_sqrt; apply dot_nonneg).
  assert (Hacos : forall s, phi s = acos (c s)).
  { intro s. destruct (Hphi s) as [Hr Hc]. unfold c. fold N in Hc. rewrite <- Hc.
    symmetry. apply acos_cos. lra. }
  destruct (Hphi t) as [Hr Hc]. fold N in Hc.
  assert (Hc1 : -1 < c t < 1).
  { unfold c. rewrite <- Hc. split.
    - rewrite <- cos_PI. apply cos_decreasing_1; lra.
    - rewrite <- cos_0. apply cos_decreasing_1; lra. }
  assert (Hsin : sin (phi t) = sqrt (1 - (c t)²)).
  { rewrite (Hacos t). apply sin_acos. lra. }
  assert (Hspos : 0 < sin (phi t)) by (apply sin_gt_0; lra).
  assert (Dc : is_derive c t (N * (sin (phi t))²)).
  { unfold c.
    replace (N * (sin (phi t))²) with (/ N * dot n (field n (z t) h) h).
    - apply (is_derive_ext (fun s => / N * dot n (z s) h)). { intro s. unfold Rdiv. apply Rmult_comm. }
      apply is_derive_scal. apply is_derive_zh. exact Hz.
    - rewrite dot_field_h, <- HNN. rewrite sin2. unfold Rsqr. rewrite Hc. field. exact (Rgt_not_eq _ _ HN). }
  apply (is_derive_ext (fun s => acos (c s))); [intro s; symmetry; apply Hacos|].
  replace (- N * sin (phi t)) with (scal (N * (sin (phi t))²) (-1 / sqrt (1 - (c t)²))).
  - apply (is_derive_comp acos c). { apply is_derive_acos. exact Hc1. } exact Dc.
  - rewrite <- Hsin. unfold scal; simpl; unfold mult; simpl. unfold Rsqr. field. lra.
Qed.

(** [ln tan(phi/2) + N t] has derivative 0 along a solution of [phi' = -N sin phi]. *)
Lemma log_tan_constant : forall (phi : R -> R) N t,
  is_derive phi t (- N * sin (phi t)) -> 0 < phi t < PI ->
  is_derive (fun s => ln (tan (phi s / 2)) + N * s) t 0.
Proof.
  intros phi N t Hd Hr.
  assert (Hs : 0 < sin (phi t / 2)) by (apply sin_gt_0; lra).
  assert (Hc : 0 < cos (phi t / 2)) by (apply cos_gt_0; lra).
  assert (Hsin : sin (phi t) = 2 * sin (phi t / 2) * cos (phi t / 2))
    by (rewrite <- sin_2a; f_equal; field).
  assert (HD : Derive (fun x => phi x) t = - N * sin (phi t)) by (apply is_derive_unique; exact Hd).
  unfold tan. unfold Rdiv in Hs, Hc, Hsin.
  assert (Ex : ex_derive (fun x => phi x) t) by (exists (- N * sin (phi t)); exact Hd).
  auto_derive.
  - split; [exact Ex | split; [exact Ex | split; [lra | split; [|exact I]]]].
    apply Rmult_lt_0_compat; [lra | apply Rinv_0_lt_compat; lra].
  - rewrite HD, Hsin. pose proof (sin2_cos2 (phi t * / 2)) as E. unfold Rsqr in E.
    set (u := sin (phi t * / 2)) in *. set (v := cos (phi t * / 2)) in *.
    assert (Hu : u <> 0) by lra. assert (Hv : v <> 0) by lra.
    field_simplify; try lra.
    replace (- N * u ^ 3 * v - N * u * v ^ 3 + N * u * v) with (N * u * v * (1 - (u * u + v * v)))
      by ring.
    rewrite E. unfold Rdiv. ring.
Qed.

Theorem lohe_fixed_query : lohe_fixed_query_spec.
Proof.
  intros n h z phi HN Hz Hs Hphi t.
  set (N := norm n h).
  pose proof (lohe_angle_ode n h z phi HN Hz Hs Hphi) as Hode. fold N in Hode.
  set (g := fun s => ln (tan (phi s / 2)) + N * s).
  assert (Dg : forall s, is_derive g s 0).
  { intro s. apply log_tan_constant; [apply Hode | apply Hphi]. }
  destruct (MVT_cor4 g (fun _ => 0) 0 (Rabs (t - 0)) (fun x _ => Dg x) t (Rle_refl _))
    as [x [Hx _]].
  unfold g in Hx. rewrite Rmult_0_r, Rplus_0_r in Hx.
  destruct (Hphi t) as [Ht _]. destruct (Hphi 0) as [H0 _].
  pose proof (tan_half_pos _ Ht) as Tt. pose proof (tan_half_pos _ H0) as T0.
  assert (E : tan (phi t / 2) = tan (phi 0 / 2) * exp (- N * t)).
  { assert (L : ln (tan (phi t / 2)) = ln (tan (phi 0 / 2)) + - N * t) by lra.
    rewrite <- (exp_ln (tan (phi t / 2))) by exact Tt.
    rewrite L, exp_plus, exp_ln by exact T0. reflexivity. }
  unfold angle. rewrite <- E. rewrite atan_tan; [field | lra].
Qed.

Theorem lohe_angle_limit : lohe_angle_limit_spec.
Proof.
  intros a phi0 eps Ha H0 Heps.
  set (e := Rmin eps 1).
  assert (He : 0 < e <= eps) by (unfold e; split; [apply Rmin_glb_lt; lra | apply Rmin_l]).
  assert (He1 : e <= 1) by apply Rmin_r.
  pose proof PI_RGT_0. pose proof PI_4 as HPI4.
  assert (Hte : 0 < tan (e / 2)) by (apply tan_half_pos; split; [lra|]; pose proof (PI2_1); lra).
  pose proof (tan_half_pos phi0 H0) as Tp.
  exists (- ln (tan (e / 2) / tan (phi0 / 2)) / a). intros t Ht.
  assert (Hx : tan (phi0 / 2) * exp (- a * t) < tan (e / 2)).
  { apply (Rmult_lt_reg_l (/ tan (phi0 / 2))); [apply Rinv_0_lt_compat; lra|].
    rewrite <- Rmult_assoc, Rinv_l, Rmult_1_l by lra.
    rewrite <- (exp_ln (/ tan (phi0 / 2) * tan (e / 2)))
      by (apply Rmult_lt_0_compat; [apply Rinv_0_lt_compat|]; lra).
    apply exp_increasing.
    apply (Rmult_lt_compat_l a) in Ht; [|lra].
    replace (a * (- ln (tan (e / 2) / tan (phi0 / 2)) / a)) with (- ln (tan (e / 2) / tan (phi0 / 2)))
      in Ht by (field; lra).
    unfold Rdiv in Ht. rewrite Rmult_comm in Ht. lra. }
  unfold angle. apply atan_increasing in Hx. rewrite atan_tan in Hx.
  - lra.
  - pose proof PI2_1. lra.
Qed.

Theorem lohe_hit_time : lohe_hit_time_spec.
Proof.
  intros a phi0 delta Ha H0 Hd. unfold angle, time_to_converge.
  pose proof (tan_half_pos phi0 H0). pose proof (tan_half_pos delta Hd).
  rewrite ln_div by assumption.
  replace (- a * ((ln (tan (phi0 / 2)) - ln (tan (delta / 2))) / a))
    with (ln (tan (delta / 2)) - ln (tan (phi0 / 2))) by (field; lra).
  unfold Rminus. rewrite exp_plus, exp_Ropp, !exp_ln by assumption.
  replace (tan (phi0 / 2) * (tan (delta / 2) * / tan (phi0 / 2))) with (tan (delta / 2))
    by (field; lra).
  rewrite atan_tan; [field | lra].
Qed.

(** ** (f) the couplings *)

Lemma elu1_pos : forall s, 0 < elu s + 1.
Proof.
  intros s. unfold elu. destruct (Rlt_dec 0 s); [lra|]. pose proof (exp_pos s). lra.
Qed.

Theorem lohe_couplings_positive : lohe_couplings_positive_spec.
Proof.
  split.
  - intros s. split; [|split].
    + unfold softplus. rewrite <- ln_1. apply ln_increasing; [lra|]. pose proof (exp_pos s). lra.
    + unfold relu_coupling. pose proof (Rmax_l 0 s). lra.
    + apply elu1_pos.
  - intros dh q k Hdh. unfold kernel, elu1_feature. unfold Rdiv.
    apply Rmult_lt_0_compat; [|apply Rinv_0_lt_compat, lt_0_INR; exact Hdh].
    unfold dot. apply sumN_pos.
    + intros i _. left. apply Rmult_lt_0_compat; apply elu1_pos.
    + exists 0%nat. split; [exact Hdh|]. apply Rmult_lt_0_compat; apply elu1_pos.
Qed.

Theorem lohe_elu1_not_kernel : lohe_elu1_not_kernel_spec.
Proof.
  exists 1%nat, (fun _ => 1), (fun _ => 1).
  unfold elu1, kernel, score, elu1_feature, elu, dot; simpl.
  rewrite sqrt_1. replace ((0 + 1 * 1) / 1) with 1 by field.
  destruct (Rlt_dec 0 1); [|lra]. intro E. field_simplify in E. lra.
Qed.

Print Assumptions lohe_sphere_rate.
Print Assumptions lohe_sphere_invariant.
Print Assumptions lohe_equilibria.
Print Assumptions lohe_jacobian.
Print Assumptions lohe_spectrum.
Print Assumptions lohe_lyapunov_field.
Print Assumptions lohe_lyapunov_descent.
Print Assumptions lohe_exact_angle.
Print Assumptions lohe_angle_ode.
Print Assumptions lohe_angle_limit.
Print Assumptions lohe_hit_time.
Print Assumptions lohe_couplings_positive.
Print Assumptions lohe_elu1_not_kernel.
Print Assumptions lohe_fixed_query.
