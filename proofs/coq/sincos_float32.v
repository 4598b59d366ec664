(** * The float32 sin/cos kernel, eager and under jax.jit: its error (Gappa, Interval, Flocq)

    Informal statement ([proofs/proof_sincos_float32.py], statement 20).  For a
    float32 [x], [syncattn._numerics._sincos32] computes
    [k = round(x * float32(2/pi))], the Cody-Waite remainder
    [r = ((x - k p0) - k p1) - k p2] with the three float32 parts of pi/2, the
    degree-9/10 Taylor polynomials [s ~ sin r], [c ~ cos r] in float32, and
    rotates [(s, c)] by the quadrant [k mod 4].  Two operation sequences of
    this one Python source run (which one runs where is measured, not proved):
    eager, every multiply and add rounded on its own; under [jax.jit] on
    XLA:CPU, each multiply-add fused (one rounding), [r * r] and [r * r2]
    still plain multiplies ([sincos_float32_spec.v] writes both out).  Then:
    (a)-(d) on the reduced range [|r| <= 403/512] (just above pi/4), both
        sequences: [|s - sin r| <= 5e-8] and [|c - cos r| <= 7.5e-8];
    (e) for [|x| <= 10^4] the reduction is exact in its first two steps (the
        products [k p0], [k p1] are exact, [x - k p0] by Sterbenz's lemma,
        [(x - k p0) - k p1] a multiple of [2^-24] below 1), so
        [|r| <= 403/512] and [|r - (x - k pi/2)| <= 3e-8], both sequences;
    (f) the rotation is exact: it maps [(sin y, cos y)] to
        [(sin (y + k pi/2), cos (y + k pi/2))];
    (g) hence for every float32 [|x| <= 10^4] both outputs of both sequences
        are within [1.05e-7] of [sin x] and [cos x].
    The rounding errors of the polynomials and of the last reduction step are
    proved by Gappa (the [gappa] tactic: Gappa's certificate is checked by Coq
    against Flocq's rounding), the truncation errors and the constants by
    Interval, the exactness of the reduction by hand with Flocq.

    Not covered: which backend runs which sequence (measured by the proof
    module's bit-exact emulations: eager and [jit] at XLA's backend
    optimisation level 0 run the plain sequence, [jit] at the default level on
    an x86-64 CPU with FMA the fused one); XLA:CPU's flushing of subnormals to
    zero (the model rounds gradually; measured: only subnormal inputs change,
    to the result (0, 1), an error below 2^-126); that [np.float32(c)] of the
    float64 [c] equals [rnd32 c] for the Taylor coefficients and the exact
    dyadic values of the reduction's constants (checked exactly in the proof
    module); [jnp.mod(k, 4.0)] equals [k mod 4] (exact float arithmetic on
    integers below [2^24]).

    Symbol map.
    - library: [syncattn._numerics._sincos32] ([_sincos32_reduce],
      [_sincos32_poly], [_sincos32_rotate]): [reduce]/[reduce_fma] = [r],
      [quadrant] = [k], [sin_kernel]/[cos_kernel] and their [_fma] versions =
      [s], [c], [rotate] = the [jnp.where] chains, [sincos32]/[sincos32_fma]
      = [_sincos32]; [sin_poly], [cos_poly] are the exact polynomials with
      the unrounded coefficients [_SIN_C[:4]], [_COS_C[:5]];
    - statement: [proofs/proof_sincos_float32.py] (parts a-g here, h measured).

    Assumes: the standard library's axioms of the real numbers and the
    specification axioms of the kernel's primitive 63-bit integers
    ([Uint63], used by Interval's reflection); Gappa and Flocq add none. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core sincos_float32_spec.
From Flocq Require Import Core Relative Sterbenz.
From Gappa Require Import Gappa_tactic.
From Interval Require Import Tactic.
Open Scope R_scope.

Local Instance prec_gt_0_24 : Prec_gt_0 24.
Proof. reflexivity. Qed.

Lemma rnd32_id : forall x, is_float32 x -> rnd32 x = x.
Proof. intros x H. unfold rnd32. apply round_generic; [apply valid_rnd_N | exact H]. Qed.

Definition sin_poly (r : R) : R :=
  r + r * (r * r) * (-1/6 + (r * r) * (1/120 + (r * r) * (-1/5040 + (r * r) * (1/362880)))).
Definition cos_poly (r : R) : R :=
  1 + (r * r) * (-1/2 + (r * r) * (1/24 + (r * r) * (-1/720
    + (r * r) * (1/40320 + (r * r) * (-1/3628800))))).

Lemma sin_rounding : forall x, - (403 / 512) <= rnd32 x <= 403 / 512 ->
  Rabs (sin_kernel (rnd32 x) - sin_poly (rnd32 x)) <= 99 / 2147483648.
Proof. intros x H. cbv beta zeta delta [sin_kernel sin_poly rnd32] in *. gappa. Qed.
Lemma cos_rounding : forall x, - (403 / 512) <= rnd32 x <= 403 / 512 ->
  Rabs (cos_kernel (rnd32 x) - cos_poly (rnd32 x)) <= 155 / 2147483648.
Proof. intros x H. cbv beta zeta delta [cos_kernel cos_poly rnd32] in *. gappa. Qed.
Lemma sin_rounding_fma : forall x, - (403 / 512) <= rnd32 x <= 403 / 512 ->
  Rabs (sin_kernel_fma (rnd32 x) - sin_poly (rnd32 x)) <= 99 / 2147483648.
Proof. intros x H. cbv beta zeta delta [sin_kernel_fma sin_poly rnd32] in *. gappa. Qed.
Lemma cos_rounding_fma : forall x, - (403 / 512) <= rnd32 x <= 403 / 512 ->
  Rabs (cos_kernel_fma (rnd32 x) - cos_poly (rnd32 x)) <= 155 / 2147483648.
Proof. intros x H. cbv beta zeta delta [cos_kernel_fma cos_poly rnd32] in *. gappa. Qed.

Lemma sin_truncation : forall r, - (403 / 512) <= r <= 403 / 512 ->
  Rabs (sin_poly r - sin r) <= 2 / 1000000000.
Proof. intros r H. unfold sin_poly. interval with (i_taylor r, i_degree 14, i_prec 60). Qed.
Lemma cos_truncation : forall r, - (403 / 512) <= r <= 403 / 512 ->
  Rabs (cos_poly r - cos r) <= 2 / 10000000000.
Proof. intros r H. unfold cos_poly. interval with (i_taylor r, i_degree 14, i_prec 60). Qed.

Lemma triangle : forall a b c e1 e2, Rabs (a - b) <= e1 -> Rabs (b - c) <= e2 ->
  Rabs (a - c) <= e1 + e2.
Proof.
  intros a b c e1 e2 H1 H2. replace (a - c) with ((a - b) + (b - c)) by ring.
  eapply Rle_trans; [apply Rabs_triang | lra].
Qed.

(** A float32 [r] in the reduced range is [rnd32 r]: the form Gappa reads. *)
Ltac reduced_range r Hf Hr :=
  rewrite <- (rnd32_id r Hf); apply Rabs_le_inv in Hr; rewrite <- (rnd32_id r Hf) in Hr.

Theorem sin_kernel_bound : sin_kernel_bound_spec.
Proof.
  intros r Hf Hr. reduced_range r Hf Hr. eapply Rle_trans;
    [apply (triangle _ (sin_poly (rnd32 r)));
      [apply sin_rounding | apply sin_truncation]; lra | lra].
Qed.
Theorem cos_kernel_bound : cos_kernel_bound_spec.
Proof.
  intros r Hf Hr. reduced_range r Hf Hr. eapply Rle_trans;
    [apply (triangle _ (cos_poly (rnd32 r)));
      [apply cos_rounding | apply cos_truncation]; lra | lra].
Qed.
Theorem sin_kernel_fma_bound : sin_kernel_fma_bound_spec.
Proof.
  intros r Hf Hr. reduced_range r Hf Hr. eapply Rle_trans;
    [apply (triangle _ (sin_poly (rnd32 r)));
      [apply sin_rounding_fma | apply sin_truncation]; lra | lra].
Qed.
Theorem cos_kernel_fma_bound : cos_kernel_fma_bound_spec.
Proof.
  intros r Hf Hr. reduced_range r Hf Hr. eapply Rle_trans;
    [apply (triangle _ (cos_poly (rnd32 r)));
      [apply cos_rounding_fma | apply cos_truncation]; lra | lra].
Qed.

Lemma rnd32_err : forall y, Rabs (rnd32 y - y) <= Rabs y / 16777216 + / 2 ^ 150.
Proof.
  intros y. destruct (error_N_FLT radix2 (-149) 24 eq_refl (fun x => negb (Z.even x)) y)
    as (eps & eta & He & Ht & _ & Hr).
  unfold rnd32. rewrite Hr. simpl bpow in He, Ht.
  replace (y * (1 + eps) + eta - y) with (y * eps + eta) by ring.
  eapply Rle_trans; [apply Rabs_triang|]. rewrite Rabs_mult.
  assert (Rabs y * Rabs eps <= Rabs y / 16777216).
  { unfold Rdiv. apply Rmult_le_compat_l; [apply Rabs_pos | lra]. }
  assert (Rabs eta <= / 2 ^ 150) by (simpl in Ht |- *; lra). lra.
Qed.

(** A multiple [m 2^e] with [|m| < 2^24], [e >= -149] is a float32. *)
Lemma float32_mult : forall m e, (Z.abs m < 16777216)%Z -> (-149 <= e)%Z ->
  is_float32 (IZR m * bpow radix2 e).
Proof.
  intros m e Hm He. apply generic_format_FLT. exists (Float radix2 m e); [reflexivity | | exact He].
  exact Hm.
Qed.

(** A float32 [x] with [|x| >= 1/2] is a multiple of [2^-24]. *)
Lemma float32_grid : forall x, is_float32 x -> / 2 <= Rabs x ->
  exists m, x = IZR m * bpow radix2 (-24).
Proof.
  intros x Hx Hb. unfold is_float32, generic_format in Hx. rewrite Hx.
  assert (Hm : (0 <= mag radix2 x)%Z) by (apply mag_ge_bpow; simpl; lra).
  assert (He : (-24 <= cexp radix2 (FLT_exp (-149) 24) x)%Z)
    by (unfold cexp, FLT_exp; lia).
  rewrite (F2R_change_exp radix2 (-24) _ _ He).
  eexists. reflexivity.
Qed.

(** Sterbenz's lemma for either sign. *)
Lemma sterbenz_sym : forall x y, is_float32 x -> is_float32 y ->
  (0 < y /\ y / 2 <= x <= 2 * y) \/ (y < 0 /\ 2 * y <= x <= y / 2) -> is_float32 (x - y).
Proof.
  intros x y Hx Hy [[_ H] | [_ H]].
  - apply (sterbenz radix2 (FLT_exp (-149) 24)); assumption.
  - replace (x - y) with (- ((- x) - (- y))) by ring. apply generic_format_opp.
    apply (sterbenz radix2 (FLT_exp (-149) 24));
      try (apply generic_format_opp; assumption); lra.
Qed.

(** The constants of the reduction. *)
Lemma two_over_pi_bounds : 6366197 / 10000000 <= 2 / PI <= 6366198 / 10000000.
Proof. split; interval with (i_prec 60). Qed.
Lemma two_over_pi32_close : Rabs (2 / PI - two_over_pi32) <= 26 / 1000000000.
Proof. unfold two_over_pi32. interval with (i_prec 80). Qed.
Lemma pio2_hi_mid_close : Rabs (PI / 2 - (pio2_hi + pio2_mid)) <= 76 / 1000000000.
Proof. unfold pio2_hi, pio2_mid. interval with (i_prec 80). Qed.
Lemma pio2_tail : Rabs (PI / 2 - (pio2_hi + pio2_mid + pio2_lo)) <= 2 / 1000000000000000.
Proof. unfold pio2_hi, pio2_mid, pio2_lo. interval with (i_prec 100). Qed.

(** The quadrant [k] is within [1/2] of [x 2/pi], up to the rounding of [x * 2/pi]. *)
Lemma quadrant_close : forall x,
  Rabs (x * (2 / PI) - IZR (quadrant x)) <= / 2 + Rabs x * (64 / 1000000000) + / 2 ^ 150.
Proof.
  intros x. unfold quadrant. set (t := rnd32 (x * two_over_pi32)).
  pose proof (Znearest_half (fun n => negb (Z.even n)) t) as Hn.
  pose proof (rnd32_err (x * two_over_pi32)) as He. fold t in He.
  pose proof two_over_pi32_close as Hc.
  replace (x * (2 / PI) - IZR (ZnearestE t))
    with (x * (2 / PI - two_over_pi32) + (x * two_over_pi32 - t) + (t - IZR (ZnearestE t)))
    by ring.
  rewrite <- Rabs_Ropp, Ropp_minus_distr in He.
  rewrite Rabs_mult in He.
  assert (Hp : Rabs two_over_pi32 = two_over_pi32)
    by (apply Rabs_pos_eq; unfold two_over_pi32; lra).
  rewrite Hp in He.
  assert (Rabs x * Rabs (2 / PI - two_over_pi32) <= Rabs x * (26 / 1000000000))
    by (apply Rmult_le_compat_l; [apply Rabs_pos | exact Hc]).
  pose proof (Rabs_pos x).
  eapply Rle_trans; [apply Rabs_triang|].
  eapply Rle_trans; [apply Rplus_le_compat_r, Rabs_triang|].
  rewrite (Rabs_mult x). unfold two_over_pi32 in *. lra.
Qed.

(** For [k >= 1] the first step [x - k p0] is exact (Sterbenz). *)
Lemma first_step_range : forall x k, 1 <= k -> Rabs x <= 10000 ->
  Rabs (x * (2 / PI) - k) <= / 2 + Rabs x * (64 / 1000000000) + / 2 ^ 150 ->
  k * pio2_hi / 2 <= x <= 2 * (k * pio2_hi) /\ / 2 <= x.
Proof.
  intros x k Hk Hx H. pose proof two_over_pi_bounds as Hv.
  set (v := 2 / PI) in *. unfold pio2_hi.
  apply Rabs_le_inv in H. apply Rabs_le_inv in Hx.
  destruct (Rle_or_lt 0 x) as [Hs | Hs].
  - rewrite Rabs_pos_eq in H by exact Hs. simpl in H. nra.
  - rewrite Rabs_left in H by exact Hs. simpl in H. nra.
Qed.

Lemma abs_int_le : forall q : Z, Rabs (IZR q) <= 6367 -> (Z.abs q <= 6367)%Z.
Proof. intros q H. rewrite <- abs_IZR in H. apply le_IZR in H. exact H. Qed.

Lemma hi_float32 : forall q, (Z.abs q <= 6367)%Z -> is_float32 (IZR q * pio2_hi).
Proof.
  intros q Hq. replace (IZR q * pio2_hi) with (IZR (201 * q) * bpow radix2 (-7)).
  - apply float32_mult; lia.
  - rewrite mult_IZR. change (bpow radix2 (-7)) with (/ 128). unfold pio2_hi. field.
Qed.

Lemma mid_float32 : forall q, (Z.abs q <= 6367)%Z -> is_float32 (IZR q * pio2_mid).
Proof.
  intros q Hq. replace (IZR q * pio2_mid) with (IZR (2029 * q) * bpow radix2 (-22)).
  - apply float32_mult; lia.
  - rewrite mult_IZR. change (bpow radix2 (-22)) with (/ 4194304). unfold pio2_mid. field.
Qed.

Lemma pi2_bounds : 15707 / 10000 <= PI / 2 <= 15708 / 10000.
Proof. split; interval with (i_prec 60). Qed.

Lemma reduced_close : forall x, Rabs x <= 10000 ->
  Rabs (x - IZR (quadrant x) * (PI / 2)) <= 78642 / 100000.
Proof.
  intros x Hx. pose proof (quadrant_close x) as Hq. pose proof pi2_bounds as Hp.
  replace (x - IZR (quadrant x) * (PI / 2))
    with (PI / 2 * (x * (2 / PI) - IZR (quadrant x))) by (field; apply PI_neq0).
  rewrite Rabs_mult, (Rabs_pos_eq (PI / 2)) by lra.
  assert (Rabs (x * (2 / PI) - IZR (quadrant x)) <= 50065 / 100000) by (simpl in Hq; lra).
  pose proof (Rabs_pos (x * (2 / PI) - IZR (quadrant x))). nra.
Qed.

Lemma quadrant_small : forall x, Rabs x <= 10000 -> Rabs (IZR (quadrant x)) <= 6367.
Proof.
  intros x Hx. pose proof (quadrant_close x) as Hq. pose proof two_over_pi_bounds as Hv.
  apply Rabs_le_inv in Hq. apply Rabs_le_inv in Hx. simpl in Hq. apply Rabs_le.
  destruct (Rle_or_lt 0 x) as [Hs | Hs].
  - rewrite Rabs_pos_eq in Hq by exact Hs. nra.
  - rewrite Rabs_left in Hq by exact Hs. nra.
Qed.

(** The first two steps are exact, in both sequences. *)
Lemma reduce_steps : forall x, is_float32 x -> Rabs x <= 10000 ->
  let k := IZR (quadrant x) in
  reduce x = rnd32 ((x - k * pio2_hi - k * pio2_mid) - rnd32 (k * pio2_lo))
  /\ reduce_fma x = rnd32 ((x - k * pio2_hi - k * pio2_mid) - k * pio2_lo).
Proof.
  intros x Hf Hx. cbv zeta. unfold reduce, reduce_fma. cbv zeta.
  pose proof (quadrant_close x) as Hq.
  pose proof (abs_int_le _ (quadrant_small x Hx)) as Hkz.
  rewrite (rnd32_id _ (hi_float32 _ Hkz)), (rnd32_id _ (mid_float32 _ Hkz)).
  set (k := IZR (quadrant x)) in *.
  destruct (Z.eq_dec (quadrant x) 0) as [H0 | H0].
  { assert (H00 : rnd32 0 = 0) by (apply rnd32_id, generic_format_0).
    unfold k. rewrite H0, !Rmult_0_l, !H00, !Rminus_0_r, !(rnd32_id x Hf).
    split; reflexivity. }
  (* |k| >= 1: the first step is exact by Sterbenz, and |x| >= 1/2 *)
  assert (Ha : is_float32 (x - k * pio2_hi) /\ / 2 <= Rabs x).
  { destruct (Z_le_gt_dec 1 (quadrant x)) as [Hp | Hn].
    - apply IZR_le in Hp. change (IZR 1) with 1 in Hp.
      destruct (first_step_range x k Hp Hx Hq) as [H1 H2].
      split; [| rewrite Rabs_pos_eq; lra].
      apply sterbenz_sym; [exact Hf | exact (hi_float32 _ Hkz) |].
      left. unfold pio2_hi in *. lra.
    - assert (Hn' : (quadrant x <= -1)%Z) by lia. apply IZR_le in Hn'. change (IZR (-1)) with (-1) in Hn'. fold k in Hn'.
      assert (Hq' : Rabs (- x * (2 / PI) - - k) <= / 2 + Rabs (- x) * (64 / 1000000000) + / 2 ^ 150).
      { rewrite Rabs_Ropp. replace (- x * (2 / PI) - - k) with (- (x * (2 / PI) - k)) by ring.
        rewrite Rabs_Ropp. exact Hq. }
      assert (Hx' : Rabs (- x) <= 10000) by (rewrite Rabs_Ropp; exact Hx).
      destruct (first_step_range (- x) (- k) ltac:(lra) Hx' Hq') as [H1 H2].
      split; [| rewrite Rabs_left; lra].
      apply sterbenz_sym; [exact Hf | exact (hi_float32 _ Hkz) |].
      right. unfold pio2_hi in *. lra. }
  destruct Ha as [Ha Hx2]. rewrite (rnd32_id _ Ha).
  (* the second step is exact: a multiple of 2^-24 below 1 *)
  assert (Hb : is_float32 (x - k * pio2_hi - k * pio2_mid)).
  { destruct (float32_grid x Hf Hx2) as [m Hm].
    pose proof (reduced_close x Hx) as Hr. fold k in Hr.
    pose proof pio2_hi_mid_close as Hc.
    pose proof (quadrant_small x Hx) as Hk. fold k in Hk.
    assert (Hbb : Rabs (x - k * pio2_hi - k * pio2_mid) < 1).
    { replace (x - k * pio2_hi - k * pio2_mid)
        with ((x - k * (PI / 2)) + k * (PI / 2 - (pio2_hi + pio2_mid))) by ring.
      eapply Rle_lt_trans; [apply Rabs_triang|]. rewrite Rabs_mult.
      assert (Rabs k * Rabs (PI / 2 - (pio2_hi + pio2_mid)) <= 6367 * (76 / 1000000000)).
      { apply Rmult_le_compat; try apply Rabs_pos; assumption. }
      lra. }
    set (n := (m - quadrant x * (201 * 131072) - quadrant x * (2029 * 4))%Z).
    assert (Hn : x - k * pio2_hi - k * pio2_mid = IZR n * bpow radix2 (-24)).
    { unfold n, k. rewrite Hm, !minus_IZR, !mult_IZR. unfold pio2_hi, pio2_mid.
      change (bpow radix2 (-24)) with (/ 16777216). field. }
    rewrite Hn in Hbb |- *. apply float32_mult; [| lia].
    rewrite Rabs_mult, (Rabs_pos_eq (bpow _ _)) in Hbb by apply bpow_ge_0.
    change (bpow radix2 (-24)) with (/ 16777216) in Hbb.
    rewrite <- abs_IZR in Hbb. apply lt_IZR. change (IZR 16777216) with 16777216. lra. }
  rewrite (rnd32_id _ Hb). split; reflexivity.
Qed.

(** The third step: one rounding of [b - k p2] (and of [k p2], eager) (Gappa). *)
Lemma last_step : forall b k, - (405 / 512) <= b <= 405 / 512 -> - 6367 <= k <= 6367 ->
  Rabs (rnd32 (b - rnd32 (k * pio2_lo)) - (b - k * pio2_lo)) <= 2049 / 68719476736
  /\ Rabs (rnd32 (b - k * pio2_lo) - (b - k * pio2_lo)) <= 1 / 33554432.
Proof. intros b k Hb Hk. cbv beta delta [rnd32 pio2_lo]. split; gappa. Qed.

Theorem reduction : reduction_spec.
Proof.
  intros x Hf Hx. destruct (reduce_steps x Hf Hx) as [Hu Hm]. cbv zeta in Hu, Hm.
  set (k := IZR (quadrant x)) in *.
  set (b := x - k * pio2_hi - k * pio2_mid) in *.
  pose proof (reduced_close x Hx) as Hr. fold k in Hr.
  pose proof (quadrant_small x Hx) as Hk. fold k in Hk.
  pose proof pio2_hi_mid_close as Hc. pose proof pio2_tail as Ht.
  assert (Hbb : Rabs b <= 79 / 100).
  { unfold b. replace (x - k * pio2_hi - k * pio2_mid)
      with ((x - k * (PI / 2)) + k * (PI / 2 - (pio2_hi + pio2_mid))) by ring.
    eapply Rle_trans; [apply Rabs_triang|]. rewrite Rabs_mult.
    assert (Rabs k * Rabs (PI / 2 - (pio2_hi + pio2_mid)) <= 6367 * (76 / 1000000000)).
    { apply Rmult_le_compat; try apply Rabs_pos; assumption. }
    lra. }
  assert (Htail : Rabs (b - k * pio2_lo - (x - k * (PI / 2))) <= 6367 * (2 / 1000000000000000)).
  { unfold b. replace (x - k * pio2_hi - k * pio2_mid - k * pio2_lo - (x - k * (PI / 2)))
      with (k * (PI / 2 - (pio2_hi + pio2_mid + pio2_lo))) by ring.
    rewrite Rabs_mult. apply Rmult_le_compat; try apply Rabs_pos; assumption. }
  apply Rabs_le_inv in Hbb. apply Rabs_le_inv in Hk.
  destruct (last_step b k ltac:(lra) Hk) as [H1 H2].
  rewrite <- Hu in H1. rewrite <- Hm in H2.
  assert (E1 : Rabs (reduce x - (x - k * (PI / 2))) <= 3 / 100000000).
  { replace (reduce x - (x - k * (PI / 2)))
      with ((reduce x - (b - k * pio2_lo)) + (b - k * pio2_lo - (x - k * (PI / 2)))) by ring.
    eapply Rle_trans; [apply Rabs_triang | lra]. }
  assert (E2 : Rabs (reduce_fma x - (x - k * (PI / 2))) <= 3 / 100000000).
  { replace (reduce_fma x - (x - k * (PI / 2)))
      with ((reduce_fma x - (b - k * pio2_lo)) + (b - k * pio2_lo - (x - k * (PI / 2)))) by ring.
    eapply Rle_trans; [apply Rabs_triang | lra]. }
  assert (R1 : Rabs (reduce x) <= 403 / 512).
  { replace (reduce x) with ((reduce x - (x - k * (PI / 2))) + (x - k * (PI / 2))) by ring.
    eapply Rle_trans; [apply Rabs_triang | lra]. }
  assert (R2 : Rabs (reduce_fma x) <= 403 / 512).
  { replace (reduce_fma x) with ((reduce_fma x - (x - k * (PI / 2))) + (x - k * (PI / 2))) by ring.
    eapply Rle_trans; [apply Rabs_triang | lra]. }
  repeat split; assumption.
Qed.

(** sin and cos shift by whole turns, for an integer number of turns. *)
Lemma sincos_turns : forall y (m : Z),
  sin (y + 2 * IZR m * PI) = sin y /\ cos (y + 2 * IZR m * PI) = cos y.
Proof.
  intros y m. destruct (Z_le_gt_dec 0 m) as [Hm | Hm].
  - rewrite <- (Z2Nat.id m Hm), <- INR_IZR_INZ. split; [apply sin_period | apply cos_period].
  - assert (Hm' : (0 <= - m)%Z) by lia.
    pose proof (sin_period (y + 2 * IZR m * PI) (Z.to_nat (- m))) as Hs.
    pose proof (cos_period (y + 2 * IZR m * PI) (Z.to_nat (- m))) as Hc.
    rewrite INR_IZR_INZ, Z2Nat.id, opp_IZR in Hs, Hc by exact Hm'.
    replace (y + 2 * IZR m * PI + 2 * - IZR m * PI) with y in Hs, Hc by ring.
    split; symmetry; assumption.
Qed.

Theorem rotation : rotation_spec.
Proof.
  intros k y. unfold rotate.
  assert (Hk : IZR k * (PI / 2) = IZR (k mod 4) * (PI / 2) + 2 * IZR (k / 4) * PI).
  { rewrite (Z.div_mod k 4 ltac:(lia)) at 1. rewrite plus_IZR, mult_IZR. simpl. field. }
  rewrite Hk, <- Rplus_assoc.
  destruct (sincos_turns (y + IZR (k mod 4) * (PI / 2)) (k / 4)) as [-> ->].
  assert (Hr : (0 <= k mod 4 < 4)%Z) by (apply Z.mod_pos_bound; lia).
  destruct (k mod 4)%Z as [| p | p] eqn:E; [| | lia].
  - rewrite Rmult_0_l, Rplus_0_r. reflexivity.
  - assert (Hp : (p = 1 \/ p = 2 \/ p = 3)%positive) by lia.
    pose proof sin_PI2 as S1. pose proof cos_PI2 as C1.
    destruct Hp as [-> | [-> | ->]].
    + change (IZR 1) with 1. rewrite Rmult_1_l, sin_plus, cos_plus, S1, C1.
      f_equal; ring.
    + replace (IZR (Z.pos 2) * (PI / 2)) with PI by (simpl; field).
      rewrite neg_sin, neg_cos. reflexivity.
    + replace (y + IZR (Z.pos 3) * (PI / 2)) with ((y + PI / 2) + PI) by (simpl; field).
      rewrite neg_sin, neg_cos, sin_plus, cos_plus, S1, C1.
      f_equal; ring.
Qed.

(** sin and cos are 1-Lipschitz. *)
Lemma abs_sin_le : forall u, Rabs (sin u) <= Rabs u.
Proof.
  assert (P : forall v, 0 < v -> - v <= sin v <= v).
  { intros v Hv. pose proof (sin_lt_x v Hv). pose proof (SIN_bound v). split; [| lra].
    destruct (Rle_or_lt 1 v); [lra|].
    pose proof PI2_1. pose proof (sin_gt_0 v Hv ltac:(lra)). lra. }
  intros u. apply Rabs_le. destruct (Rtotal_order u 0) as [H | [H | H]].
  - pose proof (P (- u) ltac:(lra)). rewrite sin_neg in H0. rewrite Rabs_left by lra. lra.
  - rewrite H, sin_0, Rabs_R0. lra.
  - pose proof (P u H). rewrite Rabs_pos_eq by lra. lra.
Qed.

Lemma sin_lipschitz : forall a b, Rabs (sin a - sin b) <= Rabs (a - b).
Proof.
  intros a b. rewrite form4, !Rabs_mult. set (u := (a - b) / 2).
  assert (Hs : Rabs (sin u) <= Rabs u) by apply abs_sin_le.
  pose proof (COS_bound ((a + b) / 2)) as Hc.
  assert (Rabs (cos ((a + b) / 2)) <= 1) by (apply Rabs_le; lra).
  assert (Rabs (a - b) = 2 * Rabs u) by (unfold u; rewrite Rabs_div, (Rabs_pos_eq 2) by lra; field).
  rewrite (Rabs_pos_eq 2) by lra. pose proof (Rabs_pos u).
  pose proof (Rabs_pos (cos ((a + b) / 2))). pose proof (Rabs_pos (sin u)). nra.
Qed.

Lemma cos_lipschitz : forall a b, Rabs (cos a - cos b) <= Rabs (a - b).
Proof.
  intros a b. rewrite <- !sin_shift.
  replace (a - b) with ((PI / 2 - b) - (PI / 2 - a)) by ring.
  rewrite <- (Rabs_Ropp (sin _ - _)), Ropp_minus_distr. apply sin_lipschitz.
Qed.

(** The rotation moves both errors without changing them. *)
Lemma rotate_close : forall k s c s' c' e, Rabs (s - s') <= e -> Rabs (c - c') <= e ->
  Rabs (fst (rotate k s c) - fst (rotate k s' c')) <= e
  /\ Rabs (snd (rotate k s c) - snd (rotate k s' c')) <= e.
Proof.
  intros k s c s' c' e Hs Hc. unfold rotate.
  assert (Hn : forall u v, Rabs (u - v) <= e -> Rabs (- u - - v) <= e).
  { intros u v H. replace (- u - - v) with (- (u - v)) by ring. rewrite Rabs_Ropp. exact H. }
  repeat match goal with |- context [match ?z with _ => _ end] => destruct z end;
    simpl; split; auto.
Qed.

Theorem sincos_float32 : sincos_float32_spec.
Proof.
  intros x Hf Hx.
  destruct (reduction x Hf Hx) as (R1 & E1 & R2 & E2).
  set (k := quadrant x) in *. set (re := x - IZR k * (PI / 2)) in *.
  assert (Hx' : x = re + IZR k * (PI / 2)) by (unfold re; ring).
  assert (Hrot : (sin x, cos x) = rotate k (sin re) (cos re))
    by (rewrite rotation, <- Hx'; reflexivity).
  assert (F1 : is_float32 (reduce x))
    by (unfold reduce, rnd32; apply generic_format_round; typeclasses eauto).
  assert (F2 : is_float32 (reduce_fma x))
    by (unfold reduce_fma, rnd32; apply generic_format_round; typeclasses eauto).
  pose proof (sin_kernel_bound _ F1 R1). pose proof (cos_kernel_bound _ F1 R1).
  pose proof (sin_kernel_fma_bound _ F2 R2). pose proof (cos_kernel_fma_bound _ F2 R2).
  pose proof (sin_lipschitz (reduce x) re). pose proof (cos_lipschitz (reduce x) re).
  pose proof (sin_lipschitz (reduce_fma x) re). pose proof (cos_lipschitz (reduce_fma x) re).
  assert (T : forall a b c e1 e2, Rabs (a - b) <= e1 -> Rabs (b - c) <= e2 ->
    Rabs (a - c) <= e1 + e2).
  { intros a b c e1 e2 Ha Hb. replace (a - c) with ((a - b) + (b - c)) by ring.
    eapply Rle_trans; [apply Rabs_triang | lra]. }
  replace (sin x) with (fst (rotate k (sin re) (cos re))) by (rewrite <- Hrot; reflexivity).
  replace (cos x) with (snd (rotate k (sin re) (cos re))) by (rewrite <- Hrot; reflexivity).
  unfold sincos32, sincos32_fma. fold k.
  destruct (rotate_close k (sin_kernel (reduce x)) (cos_kernel (reduce x)) (sin re) (cos re)
    (105 / 1000000000)) as [A1 A2].
  { eapply Rle_trans; [eapply T; eassumption | lra]. }
  { eapply Rle_trans; [eapply T; eassumption | lra]. }
  destruct (rotate_close k (sin_kernel_fma (reduce_fma x)) (cos_kernel_fma (reduce_fma x))
    (sin re) (cos re) (105 / 1000000000)) as [A3 A4].
  { eapply Rle_trans; [eapply T; eassumption | lra]. }
  { eapply Rle_trans; [eapply T; eassumption | lra]. }
  repeat split; assumption.
Qed.

Print Assumptions sin_kernel_bound.
Print Assumptions cos_kernel_bound.
Print Assumptions sin_kernel_fma_bound.
Print Assumptions cos_kernel_fma_bound.
Print Assumptions reduction.
Print Assumptions rotation.
Print Assumptions sincos_float32.
