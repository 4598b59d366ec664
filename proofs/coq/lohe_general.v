(** * Statement 8: the general Lohe model preserves norms and is Kuramoto for d = 2

    Informal statement.  For [x_i' = Omega_i x_i + sum_j K_ij (x_j - <x_i, x_j> x_i)]
    ([i < n], [x_i] in [R^d], every [Omega_i] skew-symmetric, any real [K_ij]):
    (a) [d/dt |x_i|^2 = 2 (1 - |x_i|^2) sum_j K_ij <x_i, x_j>], which vanishes on the
        sphere;
    (b) for [d = 2], [x_i = (cos theta_i, sin theta_i)], [Omega_i = omega_i J], the
        field is [theta_i' (-sin theta_i, cos theta_i)] with the Kuramoto field
        [theta_i' = omega_i + sum_j K_ij sin (theta_j - theta_i)]; the lift of a
        Kuramoto solution solves the Lohe equation.

    Symbol map: [lohe_field] is [syncattn.lohe.vector_field], [kuramoto_field] is
    [syncattn.kuramoto.vector_field], [lift] is [syncattn.torus.lift] (see
    [lohe_general_spec.v]).  Sympy proof: [proofs/proof_lohe_general.py] (there
    n = 3, d = 3; here every n and d).

    The invariance of the sphere: [u = |x_i|^2 - 1] solves [u' = -2 c(t) u] with [c]
    continuous; on [[0, T]], [c >= -M] (extreme value theorem) and
    [u^2 e^{-4 M t}] does not increase (mean value theorem), so [u(0) = 0] forces
    [u(T) = 0].

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core lohe_general_spec.
Open Scope R_scope.

Lemma mul_sumN_r : forall f c n, sumN f n * c = sumN (fun k => f k * c) n.
Proof. intros f c n. induction n as [| n IH]; simpl; [ring|]. rewrite <- IH. ring. Qed.

(** The quadratic form of a skew matrix vanishes. *)
Lemma skew_quadratic : forall d (O : nat -> nat -> R) x,
  (forall k l, (k < d)%nat -> (l < d)%nat -> O k l = - O l k) ->
  sumN (fun k => x k * sumN (fun l => O k l * x l) d) d = 0.
Proof.
  intros d O x HO.
  set (S := sumN (fun k => x k * sumN (fun l => O k l * x l) d) d).
  assert (E1 : S = sumN (fun k => sumN (fun l => x k * O k l * x l) d) d).
  { unfold S. apply sumN_ext. intros k _. rewrite <- sumN_scal. apply sumN_ext. intros; ring. }
  assert (E2 : S = - sumN (fun l => sumN (fun k => x k * O k l * x l) d) d).
  { rewrite E1, <- sumN_opp. apply sumN_ext. intros a Ha.
    rewrite <- sumN_opp. apply sumN_ext. intros b Hb. rewrite (HO b a Hb Ha). ring. }
  rewrite sumN_swap, <- E1 in E2. lra.
Qed.

Lemma coupling_rate : forall n d K (x : nat -> nat -> R) i,
  sumN (fun k => x i k * sumN (fun j => K i j * (x j k - dot d (x i) (x j) * x i k)) n) d
  = (1 - dot d (x i) (x i)) * sumN (fun j => K i j * dot d (x i) (x j)) n.
Proof.
  intros n d K x i.
  rewrite (sumN_ext _ (fun k => sumN (fun j => x i k * (K i j * (x j k - dot d (x i) (x j) * x i k))) n))
    by (intros; symmetry; apply sumN_scal).
  rewrite sumN_swap, <- sumN_scal. apply sumN_ext. intros j _.
  rewrite (sumN_ext _ (fun k => K i j * (x i k * x j k) + (- K i j * dot d (x i) (x j)) * (x i k * x i k) + 0 * 0))
    by (intros; ring).
  rewrite sumN_lin. fold (dot d (x i) (x j)) (dot d (x i) (x i)). ring.
Qed.

Theorem radial_rate : radial_rate_spec.
Proof.
  intros n d Om K x i HO Hi. unfold lohe_field, dot at 1.
  rewrite (sumN_ext _ (fun k => 1 * (x i k * sumN (fun l => Om i k l * x i l) d)
      + 1 * (x i k * sumN (fun j => K i j * (x j k - dot d (x i) (x j) * x i k)) n) + 0 * 0))
    by (intros; ring).
  rewrite sumN_lin, skew_quadratic by (intros; apply HO; assumption).
  rewrite coupling_rate. ring.
Qed.

Theorem norm_rate : norm_rate_spec.
Proof.
  intros n d Om K X t i HO Hi HX.
  pose proof (radial_rate n d Om K (X t) i HO Hi) as HR.
  eapply is_derive_ext; [intros s; reflexivity|].
  replace (2 * (1 - dot d (X t i) (X t i)) * sumN (fun j => K i j * dot d (X t i) (X t j)) n)
    with (sumN (fun k => 2 * (X t i k * lohe_field n d Om K (X t) i k)) d)
    by (rewrite sumN_scal; fold (dot d (X t i) (fun k => lohe_field n d Om K (X t) i k));
        rewrite HR; ring).
  unfold dot. apply (is_derive_sumN (fun k s => X s i k * X s i k)).
  intros k Hk. pose proof (HX k Hk) as Hk'.
  replace (2 * (X t i k * lohe_field n d Om K (X t) i k))
    with (plus (mult (lohe_field n d Om K (X t) i k) (X t i k)) (mult (X t i k) (lohe_field n d Om K (X t) i k)))
    by (unfold plus, mult; simpl; ring).
  apply (is_derive_mult (fun s => X s i k) (fun s => X s i k)); [exact Hk' | exact Hk' |].
  intros; apply Rmult_comm.
Qed.

(** ** Invariance of the sphere *)

Lemma ex_derive_sumN : forall (f : nat -> R -> R) n t,
  (forall k, (k < n)%nat -> ex_derive (f k) t) -> ex_derive (fun s => sumN (fun k => f k s) n) t.
Proof.
  intros f n t. induction n as [| n IH]; simpl; intros H.
  - apply ex_derive_const.
  - apply (ex_derive_plus (fun s => sumN (fun k => f k s) n) (f n)).
    + apply IH. intros k Hk. apply H. lia.
    + apply H. lia.
Qed.

Lemma mvt : forall f df a b, a < b -> (forall c, is_derive f c (df c)) ->
  exists c, a < c < b /\ f b - f a = df c * (b - a).
Proof.
  intros f df a b Hab Hd.
  destruct (MVT_cor2 f df a b Hab) as [c [Hc Hi]].
  - intros c _. apply is_derive_Reals. apply Hd.
  - exists c. split; [exact Hi | exact Hc].
Qed.

Theorem sphere_invariant : sphere_invariant_spec.
Proof.
  intros n d Om K X HO HX H0 T i HT Hi.
  destruct (Req_dec T 0) as [-> | HT0]; [apply H0; exact Hi|].
  assert (HTp : 0 < T) by lra.
  set (c := fun s => sumN (fun j => K i j * dot d (X s i) (X s j)) n).
  set (u := fun s => dot d (X s i) (X s i) - 1).
  assert (Hu : forall s, is_derive u s (-2 * c s * u s)).
  { intros s. unfold u, c.
    pose proof (norm_rate n d Om K X s i HO Hi (fun k Hk => HX s i k Hi Hk)) as H.
    pose proof (is_derive_minus (fun s => dot d (X s i) (X s i)) (fun _ => 1) s _ _ H
                  (is_derive_const 1 s)) as Hm.
    apply (is_derive_ext (fun x => minus (dot d (X x i) (X x i)) 1)).
    { intros t. unfold minus, plus, opp; simpl. ring. }
    replace (-2 * sumN (fun j => K i j * dot d (X s i) (X s j)) n * (dot d (X s i) (X s i) - 1))
      with (minus (2 * (1 - dot d (X s i) (X s i)) * sumN (fun j => K i j * dot d (X s i) (X s j)) n) zero)
      by (unfold minus, plus, opp, zero; simpl; ring).
    exact Hm. }
  assert (Hc : forall s, continuity_pt c s).
  { intros s.
    assert (Hex : ex_derive c s).
    { unfold c. apply (ex_derive_sumN (fun j s => K i j * dot d (X s i) (X s j))). intros j Hj.
      apply ex_derive_scal. unfold dot.
      apply (ex_derive_sumN (fun k s => X s i k * X s j k)). intros k Hk.
      apply ex_derive_mult; eexists; apply HX; assumption. }
    apply continuity_pt_filterlim. exact (ex_derive_continuous c s Hex). }
  destruct (continuity_ab_min c 0 T (Rlt_le _ _ HTp) (fun s _ => Hc s)) as [mx [Hmin _]].
  set (M := - c mx).
  set (w := fun s => u s * u s * exp (-4 * M * s)).
  assert (Hw : forall s, is_derive w s (-4 * (c s + M) * (u s * u s) * exp (-4 * M * s))).
  { intros s. unfold w.
    assert (He : is_derive (fun s => exp (-4 * M * s)) s (-4 * M * exp (-4 * M * s)))
      by (auto_derive; [exact I | ring]).
    pose proof (is_derive_mult u u s _ _ (Hu s) (Hu s) (fun a b => Rmult_comm a b)) as Huu.
    pose proof (is_derive_mult (fun s => u s * u s) (fun s => exp (-4 * M * s)) s _ _ Huu He
                  (fun a b => Rmult_comm a b)) as Hm.
    simpl in Hm. unfold plus, mult in Hm; simpl in Hm.
    eapply is_derive_ext; [intros t; reflexivity|].
    replace (-4 * (c s + M) * (u s * u s) * exp (-4 * M * s))
      with ((-2 * c s * u s * u s + u s * (-2 * c s * u s)) * exp (-4 * M * s)
            + u s * u s * (-4 * M * exp (-4 * M * s))) by ring.
    exact Hm. }
  destruct (mvt w _ 0 T HTp Hw) as [xi [Hxi Hmvt]].
  assert (Hw0 : w 0 = 0) by (unfold w, u; rewrite H0 by exact Hi; ring).
  assert (Hxi_c : 0 <= c xi + M) by (unfold M; pose proof (Hmin xi ltac:(lra)); lra).
  assert (Hneg : -4 * (c xi + M) * (u xi * u xi) * exp (-4 * M * xi) * (T - 0) <= 0).
  { pose proof (exp_pos (-4 * M * xi)). assert (0 <= u xi * u xi) by nra.
    assert (0 <= (c xi + M) * (u xi * u xi) * exp (-4 * M * xi) * T).
    { apply Rmult_le_pos; [| lra]. apply Rmult_le_pos; [| lra]. apply Rmult_le_pos; lra. }
    lra. }
  assert (HwT : w T <= 0) by lra.
  unfold w in HwT. pose proof (exp_pos (-4 * M * T)).
  assert (HuT : u T * u T = 0).
  { assert (0 <= u T * u T) by nra.
    destruct (Req_dec (u T * u T) 0) as [E | E]; [exact E|].
    assert (0 < u T * u T * exp (-4 * M * T)) by (apply Rmult_lt_0_compat; lra). lra. }
  assert (u T = 0) by nra. unfold u in H1. lra.
Qed.

(** One coupling term on the circle. *)
Lemma pair_term : forall th i j k, (k < 2)%nat ->
  lift th j k - dot 2 (lift th i) (lift th j) * lift th i k
  = sin (th j - th i) * tangent (th i) k.
Proof.
  intros th i j k Hk.
  set (dl := th j - th i).
  assert (Hc : cos (th j) = cos dl * cos (th i) - sin dl * sin (th i))
    by (rewrite <- cos_plus; f_equal; unfold dl; ring).
  assert (Hs : sin (th j) = sin dl * cos (th i) + cos dl * sin (th i))
    by (rewrite <- sin_plus; f_equal; unfold dl; ring).
  pose proof (sin2_cos2 (th i)) as H1. unfold Rsqr in H1.
  unfold dot, lift, tangent. destruct k as [| [| k]]; [| | lia]; simpl; rewrite Hc, Hs.
  - match goal with |- ?L = ?R =>
      assert (E : L - R = cos dl * cos (th i) * (1 - (sin (th i) * sin (th i) + cos (th i) * cos (th i))))
        by ring end.
    rewrite H1 in E. lra.
  - match goal with |- ?L = ?R =>
      assert (E : L - R = cos dl * sin (th i) * (1 - (sin (th i) * sin (th i) + cos (th i) * cos (th i))))
        by ring end.
    rewrite H1 in E. lra.
Qed.

Lemma field_d2 : forall n om K th i k, (k < 2)%nat ->
  lohe_field n 2 (rot2 om) K (lift th) i k = kuramoto_field n om K th i * tangent (th i) k.
Proof.
  intros n om K th i k Hk. unfold lohe_field, kuramoto_field.
  rewrite (sumN_ext (fun j => K i j * (lift th j k - dot 2 (lift th i) (lift th j) * lift th i k))
                    (fun j => tangent (th i) k * (K i j * sin (th j - th i))))
    by (intros j _; rewrite pair_term by exact Hk; ring).
  rewrite sumN_scal.
  destruct k as [| [| k]]; [| | lia]; unfold lift, tangent, rot2; simpl; ring.
Qed.

Theorem kuramoto_d2 : kuramoto_d2_spec.
Proof.
  intros n om K th i Hi. split; [intros k Hk; apply field_d2; exact Hk|].
  rewrite !field_d2 by lia. unfold lift, tangent.
  pose proof (sin2_cos2 (th i)) as H1. unfold Rsqr in H1.
  match goal with |- ?L = ?R =>
    assert (E : L - R = kuramoto_field n om K th i * (sin (th i) * sin (th i) + cos (th i) * cos (th i) - 1))
      by ring end.
  rewrite H1 in E. lra.
Qed.

Theorem kuramoto_lift : kuramoto_lift_spec.
Proof.
  intros n om K Th t HTh i k Hi Hk. rewrite field_d2 by exact Hk.
  pose proof (HTh i Hi) as H.
  destruct k as [| [| k]]; [| | lia]; unfold lift, tangent.
  - assert (Hc : is_derive cos (Th t i) (- sin (Th t i))) by (auto_derive; [exact I | ring]).
    pose proof (is_derive_comp cos (fun s => Th s i) t _ _ Hc H) as Hcomp.
    simpl in Hcomp. unfold scal in Hcomp; simpl in Hcomp; unfold mult in Hcomp; simpl in Hcomp.
    eapply is_derive_ext; [intros s; reflexivity|].
    replace (kuramoto_field n om K (Th t) i * - sin (Th t i))
      with (kuramoto_field n om K (Th t) i * - sin (Th t i)) by ring. exact Hcomp.
  - assert (Hs : is_derive sin (Th t i) (cos (Th t i))) by (auto_derive; [exact I | ring]).
    pose proof (is_derive_comp sin (fun s => Th s i) t _ _ Hs H) as Hcomp.
    simpl in Hcomp. unfold scal in Hcomp; simpl in Hcomp; unfold mult in Hcomp; simpl in Hcomp.
    exact Hcomp.
Qed.

Print Assumptions radial_rate.
Print Assumptions norm_rate.
Print Assumptions sphere_invariant.
Print Assumptions kuramoto_d2.
Print Assumptions kuramoto_lift.
