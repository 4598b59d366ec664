(** * Statement 15: frequency locking, [z' = Omega z + (I - z z^T) h] on [S^{d-1}]

    Informal statement ([Omega] skew-symmetric, [h <> 0], any [d]):
    (a) [d = 2]: the angle [phi] from [h / |h|] obeys Adler's equation
        [phi' = omega - |h| sin phi]; it has an equilibrium iff [|omega| <= |h|], the
        locked angle [arcsin (omega / |h|)] with rate [-sqrt (|h|^2 - omega^2)];
    (b) [z = (lambda I - Omega)^{-1} h] gives the field [lambda (1 - |z|^2) z] and
        [|h|^2 = lambda^2 |z|^2 + |Omega z|^2]; the fixed points on the sphere are these
        [z] with [lambda = <z, h>]; the angle to [h] has [sin^2 <= |Omega|^2 / |h|^2];
    (c) [|(lambda I - Omega)^{-1} h|] strictly decreases in [lambda > 0] (a unique
        root), and the root is [>= sqrt (|h|^2 - |Omega|^2)];
    (d) at a fixed point the Jacobian maps [T_z] into itself, [v . J v = -lambda |v|^2]
        on [T_z] and every eigenvalue there has real part [-lambda].

    Symbol map: see [frequency_locking_spec.v] ([lock_field], [jac], [adler],
    [locked_angle] for [syncattn.lohe.adler_locking], and [(lambda I - Omega)^{-1} h]
    written as [h = lambda z - Omega z] for [syncattn.lohe.locked_state]).  Sympy proof:
    [proofs/proof_frequency_locking.py] ((b)-(d) there for d = 3; here for every d).
    [|Omega|_2] enters as any bound [M] on [|Omega z|] for the unit [z] at hand.

    Not formalised: the drift period off locking (an integral), the existence of the
    root when [|Omega|_2 < |h|] (intermediate value theorem on the resolvent), and
    the step from the linearisation to nonlinear stability.

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core frequency_locking_spec.
Open Scope R_scope.

(** ** Finite-dimensional linear algebra *)

Lemma mul_sumN_r : forall f c n, sumN f n * c = sumN (fun k => f k * c) n.
Proof. intros f c n. induction n as [| n IH]; simpl; [ring|]. rewrite <- IH. ring. Qed.

Lemma dot_matvec_skew : forall d O x y, skew d O ->
  dot d x (matvec d O y) = - dot d (matvec d O x) y.
Proof.
  intros d O x y HO. unfold dot, matvec.
  rewrite (sumN_ext _ (fun i => sumN (fun j => x i * O i j * y j) d)).
  2: { intros i _. rewrite <- sumN_scal. apply sumN_ext. intros; ring. }
  rewrite (sumN_ext (fun i => sumN (fun j => O i j * x j) d * y i)
                    (fun i => sumN (fun j => O i j * x j * y i) d)).
  2: { intros i _. apply mul_sumN_r. }
  rewrite (sumN_swap (fun i j => O i j * x j * y i)), <- sumN_opp.
  apply sumN_ext. intros a Ha. rewrite <- sumN_opp. apply sumN_ext. intros b Hb.
  rewrite (HO b a Hb Ha). ring.
Qed.

Lemma dot_matvec_self : forall d O v, skew d O -> dot d v (matvec d O v) = 0.
Proof.
  intros d O v HO. pose proof (dot_matvec_skew d O v v HO) as H.
  rewrite (dot_sym d (matvec d O v) v) in H. lra.
Qed.

Lemma sumN_nonneg_zero : forall f n, (forall k, (k < n)%nat -> 0 <= f k) ->
  sumN f n = 0 -> forall k, (k < n)%nat -> f k = 0.
Proof.
  intros f n. induction n as [| n IH]; simpl; intros Hpos H0 k Hk; [lia|].
  pose proof (sumN_nonneg f n (fun j Hj => Hpos j ltac:(lia))).
  pose proof (Hpos n ltac:(lia)).
  destruct (Nat.eq_dec k n) as [-> | Hne]; [lra|].
  apply IH; [intros j Hj; apply Hpos; lia | lra | lia].
Qed.

Lemma dot_zero : forall d w, dot d w w = 0 -> forall i, (i < d)%nat -> w i = 0.
Proof.
  intros d w H i Hi. pose proof (sumN_nonneg_zero (fun k => w k * w k) d
    (fun k _ => ltac:(nra)) H i Hi) as E. simpl in E. nra.
Qed.

(** [<z, h> = lambda |z|^2] and [|h|^2 = lambda^2 |z|^2 + |Omega z|^2] for [h = lambda z - Omega z]. *)
Lemma dot_z_res : forall d O z h lam, skew d O ->
  (forall i, (i < d)%nat -> h i = lam * z i - matvec d O z i) -> dot d z h = lam * dot d z z.
Proof.
  intros d O z h lam HO Hh. unfold dot at 1.
  rewrite (sumN_ext _ (fun k => lam * (z k * z k) + (-1) * (z k * matvec d O z k) + 0 * 0))
    by (intros k Hk; rewrite Hh by exact Hk; ring).
  rewrite sumN_lin. fold (dot d z z) (dot d z (matvec d O z)).
  rewrite dot_matvec_self by exact HO. ring.
Qed.

Lemma dot_res_res : forall d O z lam, skew d O ->
  dot d (fun i => lam * z i - matvec d O z i) (fun i => lam * z i - matvec d O z i)
  = lam ^ 2 * dot d z z + dot d (matvec d O z) (matvec d O z).
Proof.
  intros d O z lam HO. unfold dot at 1.
  rewrite (sumN_ext _ (fun k => lam ^ 2 * (z k * z k) + (-2 * lam) * (z k * matvec d O z k)
                               + 1 * (matvec d O z k * matvec d O z k)))
    by (intros; ring).
  rewrite sumN_lin. fold (dot d z z) (dot d z (matvec d O z)) (dot d (matvec d O z) (matvec d O z)).
  rewrite dot_matvec_self by exact HO. ring.
Qed.

Lemma dot_ext : forall d x y x' y', (forall i, (i < d)%nat -> x i = x' i) ->
  (forall i, (i < d)%nat -> y i = y' i) -> dot d x y = dot d x' y'.
Proof. intros d x y x' y' Hx Hy. unfold dot. apply sumN_ext. intros k Hk. rewrite Hx, Hy by exact Hk. ring. Qed.

Lemma dot_h_h : forall d O z h lam, skew d O ->
  (forall i, (i < d)%nat -> h i = lam * z i - matvec d O z i) ->
  dot d h h = lam ^ 2 * dot d z z + dot d (matvec d O z) (matvec d O z).
Proof.
  intros d O z h lam HO Hh. rewrite <- (dot_res_res d O z lam HO).
  apply dot_ext; exact Hh.
Qed.

Lemma norm_sq : forall d x, CoreSpec.norm d x * CoreSpec.norm d x = dot d x x.
Proof. intros d x. unfold CoreSpec.norm. apply sqrt_sqrt, dot_nonneg. Qed.

Lemma norm_nonneg : forall d x, 0 <= CoreSpec.norm d x.
Proof. intros. apply sqrt_pos. Qed.

(** ** (a) Adler's equation *)

Theorem adler_equation : adler_equation_spec.
Proof.
  intros omega a theta psi i Hi.
  pose proof (sin2_cos2 theta) as H1. unfold Rsqr in H1.
  unfold lock_field, matvec, dot, adler.
  destruct i as [| [| i]]; [| | lia]; simpl.
  - match goal with |- ?L = ?R =>
      assert (E : L - R = a * cos psi * (1 - (sin theta * sin theta + cos theta * cos theta)))
        by (rewrite sin_minus; ring) end.
    rewrite H1 in E. lra.
  - match goal with |- ?L = ?R =>
      assert (E : L - R = a * sin psi * (1 - (sin theta * sin theta + cos theta * cos theta)))
        by (rewrite sin_minus; ring) end.
    rewrite H1 in E. lra.
Qed.

Lemma ratio_bounds : forall omega a, 0 < a -> Rabs omega <= a -> -1 <= omega / a <= 1.
Proof.
  intros omega a Ha H. assert (-a <= omega <= a) by (unfold Rabs in H; destruct Rcase_abs; lra).
  assert (E : omega / a * a = omega) by (field; lra). split; nra.
Qed.

Theorem locks_iff : locks_iff_spec.
Proof.
  intros omega a Ha. split.
  - intros [phi Hphi]. unfold adler in Hphi. pose proof (SIN_bound phi).
    apply Rabs_le. nra.
  - intros H. exists (asin (omega / a)). unfold adler.
    rewrite sin_asin by (apply ratio_bounds; assumption). field. lra.
Qed.

Lemma scaled_sqrt : forall omega a, 0 < a -> Rabs omega <= a ->
  a * sqrt (1 - (omega / a)²) = sqrt (a ^ 2 - omega ^ 2).
Proof.
  intros omega a Ha H. pose proof (ratio_bounds omega a Ha H) as Hb.
  rewrite <- (sqrt_pow2 a) at 1 by lra. rewrite <- sqrt_mult_alt by (simpl; nra).
  f_equal. unfold Rsqr. field. lra.
Qed.

Theorem locked_rate : locked_rate_spec.
Proof.
  intros omega a Ha H. pose proof (ratio_bounds omega a Ha H) as Hb.
  assert (Hd : forall phi, is_derive (adler omega a) phi (- a * cos phi)).
  { intros phi. unfold adler. auto_derive; [exact I | ring]. }
  assert (Hs : sin (locked_angle omega a) = omega / a) by (apply sin_asin; exact Hb).
  assert (Hc : a * cos (locked_angle omega a) = sqrt (a ^ 2 - omega ^ 2))
    by (unfold locked_angle; rewrite cos_asin by exact Hb; apply scaled_sqrt; assumption).
  assert (HcPI : forall x, cos (PI - x) = - cos x)
    by (intros x; rewrite cos_minus, cos_PI, sin_PI; ring).
  split; [| split; [| split; [| split]]].
  - unfold adler. rewrite Hs. field. lra.
  - replace (- sqrt (a ^ 2 - omega ^ 2)) with (- a * cos (locked_angle omega a)) by (rewrite <- Hc; ring).
    apply Hd.
  - unfold adler. rewrite sin_PI_x, Hs. field. lra.
  - replace (sqrt (a ^ 2 - omega ^ 2)) with (- a * cos (PI - locked_angle omega a))
      by (rewrite HcPI, <- Hc; ring).
    apply Hd.
  - intros Hlt. apply sqrt_lt_R0.
    assert (-a < omega < a) by (unfold Rabs in Hlt; destruct Rcase_abs; lra). simpl. nra.
Qed.

(** ** (b) the resolvent states *)

Theorem resolvent_field : resolvent_field_spec.
Proof.
  intros d O z h lam HO Hh.
  pose proof (dot_z_res d O z h lam HO Hh) as Hzh.
  split; [| split; [exact Hzh | apply (dot_h_h d O z h lam HO Hh)]].
  intros i Hi. unfold lock_field. rewrite Hzh, (Hh i Hi). ring.
Qed.

Theorem fixed_points : fixed_points_spec.
Proof.
  intros d O z h _. unfold lock_field. split; intros H i Hi; specialize (H i Hi); lra.
Qed.

Theorem angle_bound : angle_bound_spec.
Proof.
  intros d O z h lam M HO Hz Hh HM Hres HOz.
  pose proof (dot_z_res d O z h lam HO Hres) as Hzh. rewrite Hz in Hzh.
  pose proof (dot_h_h d O z h lam HO Hres) as Hhh. rewrite Hz in Hhh.
  pose proof (norm_sq d h) as Nh. pose proof (norm_sq d (matvec d O z)) as NO.
  pose proof (norm_nonneg d (matvec d O z)).
  assert (HN : 0 < CoreSpec.norm d h) by (unfold CoreSpec.norm; apply sqrt_lt_R0; exact Hh).
  set (N := CoreSpec.norm d h) in *. set (P := CoreSpec.norm d (matvec d O z)) in *.
  assert (Key : N * N = lam ^ 2 + P * P) by (rewrite Nh, NO, Hhh; ring).
  assert (E : 1 - (lam / N) ^ 2 = (P / N) ^ 2).
  { assert (E0 : 1 - (lam / N) ^ 2 - (P / N) ^ 2 = (N * N - lam ^ 2 - P * P) / (N * N)) by (field; lra).
    rewrite Key in E0. replace (lam ^ 2 + P * P - lam ^ 2 - P * P) with 0 in E0 by ring.
    unfold Rdiv in E0. rewrite Rmult_0_l in E0. lra. }
  split; [| split; [exact E|]].
  - rewrite Hzh. field. lra.
  - rewrite E. unfold Rdiv. rewrite !Rpow_mult_distr.
    apply Rmult_le_compat_r; [apply pow_le; left; apply Rinv_0_lt_compat; lra|].
    simpl. nra.
Qed.

(** ** (c) the root *)

Theorem normal_form : normal_form_spec.
Proof. intros d O v lam HO. apply dot_res_res. exact HO. Qed.

Lemma matvec_lin : forall d O x y a b i,
  matvec d O (fun k => a * x k + b * y k) i = a * matvec d O x i + b * matvec d O y i.
Proof.
  intros d O x y a b i. unfold matvec.
  rewrite (sumN_ext _ (fun k => a * (O i k * x k) + b * (O i k * y k) + 0 * 0)) by (intros; ring).
  rewrite sumN_lin. ring.
Qed.

Lemma matvec_zero : forall d O w, (forall k, (k < d)%nat -> w k = 0) -> forall i, matvec d O w i = 0.
Proof.
  intros d O w Hw i. unfold matvec.
  rewrite (sumN_ext _ (fun _ => 0)) by (intros k Hk; rewrite Hw by exact Hk; ring).
  apply sumN_zero.
Qed.

Theorem decreasing : decreasing_spec.
Proof.
  intros d O h z1 z2 l1 l2 HO [i0 [Hi0 Hh0]] [Hl1 Hl12] H1 H2.
  set (w := fun k => 1 * z1 k + (-1) * z2 k).
  (* l1 z1 - l2 z2 = Omega w *)
  assert (Hw : forall k, (k < d)%nat -> l1 * z1 k - l2 * z2 k = matvec d O w k).
  { intros k Hk. unfold w. rewrite matvec_lin. pose proof (H1 k Hk). pose proof (H2 k Hk). lra. }
  assert (Hcross : dot d (fun k => l1 * z1 k - l2 * z2 k) w = 0).
  { rewrite (dot_ext d _ w (matvec d O w) w Hw (fun _ _ => eq_refl)).
    rewrite dot_sym. apply dot_matvec_self. exact HO. }
  set (A := dot d z1 z1). set (B := dot d z2 z2). set (C := dot d z1 z2).
  assert (Ecross : dot d (fun k => l1 * z1 k - l2 * z2 k) w = l1 * A - (l1 + l2) * C + l2 * B).
  { unfold w, dot at 1.
    rewrite (sumN_ext _ (fun k => l1 * (z1 k * z1 k) + (- (l1 + l2)) * (z1 k * z2 k) + l2 * (z2 k * z2 k)))
      by (intros; ring).
    rewrite sumN_lin. unfold A, B, C, dot. ring. }
  assert (Eww : dot d w w = A - 2 * C + B).
  { unfold w, dot at 1.
    rewrite (sumN_ext _ (fun k => 1 * (z1 k * z1 k) + (-2) * (z1 k * z2 k) + 1 * (z2 k * z2 k)))
      by (intros; ring).
    rewrite sumN_lin. unfold A, B, C, dot. ring. }
  pose proof (dot_nonneg d w) as Hww.
  assert (HBA : B <= A) by nra.
  destruct (Req_dec A B) as [HAB | HAB]; [exfalso | lra].
  assert (HC : C = A) by nra.
  assert (Hw0 : forall k, (k < d)%nat -> w k = 0) by (apply dot_zero; lra).
  assert (Hz1 : forall k, (k < d)%nat -> z1 k = 0).
  { intros k Hk. pose proof (Hw0 k Hk) as E. unfold w in E.
    pose proof (Hw k Hk) as E2. rewrite (matvec_zero d O w Hw0 k) in E2.
    assert (z2 k = z1 k) by lra. rewrite H in E2.
    assert (E3 : (l1 - l2) * z1 k = 0) by lra.
    apply Rmult_integral in E3. destruct E3; [lra | assumption]. }
  apply Hh0. rewrite (H1 i0 Hi0), Hz1 by exact Hi0.
  unfold matvec. rewrite (sumN_ext _ (fun _ => 0)) by (intros k Hk; rewrite Hz1 by exact Hk; ring).
  rewrite sumN_zero. ring.
Qed.

Theorem root_unique : root_unique_spec.
Proof.
  intros d O h z1 z2 l1 l2 HO Hh Hl1 Hl2 H1 H2 Hz1 Hz2.
  destruct (Rtotal_order l1 l2) as [Hlt | [Heq | Hgt]]; [| exact Heq |].
  - pose proof (decreasing d O h z1 z2 l1 l2 HO Hh (conj Hl1 Hlt) H1 H2). lra.
  - pose proof (decreasing d O h z2 z1 l2 l1 HO Hh (conj Hl2 Hgt) H2 H1). lra.
Qed.

Theorem root_bound : root_bound_spec.
Proof.
  intros d O z h lam M HO Hz Hl HM Hres HOz.
  pose proof (dot_h_h d O z h lam HO Hres) as Hhh. rewrite Hz in Hhh.
  pose proof (norm_sq d (matvec d O z)) as NO. pose proof (norm_nonneg d (matvec d O z)).
  rewrite <- (sqrt_pow2 lam) by lra. apply sqrt_le_1_alt.
  rewrite Hhh, <- NO. simpl. nra.
Qed.

(** ** (d) the linearisation *)

Lemma dot_jac : forall d O z h x v, dot d x (jac d O z h v)
  = dot d x (matvec d O v) - dot d z h * dot d x v - dot d x z * dot d h v.
Proof.
  intros d O z h x v. unfold dot at 1, jac.
  rewrite (sumN_ext _ (fun k => 1 * (x k * matvec d O v k) + (- dot d z h) * (x k * v k)
                               + (- dot d h v) * (x k * z k))) by (intros; ring).
  rewrite sumN_lin. unfold dot. ring.
Qed.

Theorem tangent_invariant : tangent_invariant_spec.
Proof.
  intros d O z h v HO Hz Hfix Hv. rewrite dot_jac, Hz, Hv.
  assert (Hhv : dot d h v = - dot d (matvec d O z) v).
  { unfold dot at 1.
    rewrite (sumN_ext _ (fun k => dot d z h * (z k * v k) + (-1) * (matvec d O z k * v k) + 0 * 0))
      by (intros k Hk; rewrite Hfix by exact Hk; ring).
    rewrite sumN_lin. fold (dot d z v) (dot d (matvec d O z) v). rewrite Hv. ring. }
  rewrite Hhv, dot_matvec_skew by exact HO. ring.
Qed.

Theorem contraction : contraction_spec.
Proof.
  intros d O z h v HO Hv. rewrite dot_jac, dot_matvec_self by exact HO.
  rewrite (dot_sym d v z), Hv. ring.
Qed.

Theorem eigenvalues : eigenvalues_spec.
Proof.
  intros d O z h x y a b HO Hx Hy Hpos Hjx Hjy.
  assert (Ex : dot d x (jac d O z h x) = a * dot d x x - b * dot d x y).
  { unfold dot at 1. rewrite (sumN_ext _ (fun k => a * (x k * x k) + (- b) * (x k * y k) + 0 * 0))
      by (intros k Hk; rewrite Hjx by exact Hk; ring).
    rewrite sumN_lin. unfold dot. ring. }
  assert (Ey : dot d y (jac d O z h y) = b * dot d y x + a * dot d y y).
  { unfold dot at 1. rewrite (sumN_ext _ (fun k => b * (y k * x k) + a * (y k * y k) + 0 * 0))
      by (intros k Hk; rewrite Hjy by exact Hk; ring).
    rewrite sumN_lin. unfold dot. ring. }
  rewrite (contraction d O z h x HO Hx) in Ex. rewrite (contraction d O z h y HO Hy) in Ey.
  rewrite (dot_sym d y x) in Ey.
  assert (E : (a + dot d z h) * (dot d x x + dot d y y) = 0) by lra.
  apply Rmult_integral in E. destruct E; lra.
Qed.

Print Assumptions adler_equation.
Print Assumptions locks_iff.
Print Assumptions locked_rate.
Print Assumptions resolvent_field.
Print Assumptions fixed_points.
Print Assumptions angle_bound.
Print Assumptions normal_form.
Print Assumptions decreasing.
Print Assumptions root_unique.
Print Assumptions root_bound.
Print Assumptions tangent_invariant.
Print Assumptions contraction.
Print Assumptions eigenvalues.
