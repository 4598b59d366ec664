(** * Statement 19: complete synchronisation of identical Lohe matrix oscillators below D = N/(N-1)

    Informal statement.  For [V_j' = K/2 (M - V_j M^H V_j)] (the co-rotating frame
    of statement 18), [D = max_ij ||V_i - V_j||_F], [c = (N-1)/N]: if
    [D(0) < N/(N-1)] then [D(t) <= D0 e^{-Kt} / (1 - c D0 + c D0 e^{-Kt})
    <= D0/(1 - c D0) e^{-Kt}]; the rate [K] is that of the linearisation; at
    [N = 2] the hypothesis is sharp.

    Proved here, for every [n] (complex matrices as pairs of reals):
    (1) the pair identity [V_i M^H V_i - V_j M^H V_j = Delta M^H V_i + V_j M^H Delta];
    (2) [M^H V_i = I + E_i^H V_i], [V_j M^H = I + V_j E_j^H] on the group;
    (4) the bound solves the logistic equation [y' = -K y (1 - c y)], starts at
        [D0], and is below [D0/(1 - c D0) e^{-Kt}]; the linearisation
        [xi_j' = K (mean xi - xi_j)] has eigenvalue [-K] on zero-mean deviations
        and [0] on common shifts;
    (5) at [N = 2], [I] and [diag(-1, 1, ..., 1)] are an equilibrium at
        distance [2 = N/(N-1)] in every U(n).

    Symbol map.
    - library: [syncattn.lohe.matrix_sync_bound] ([sync_bound]),
      [syncattn.lohe.matrix_sync_threshold] ([1 / sync_c]),
      [syncattn.lohe.matrix_vector_field] ([lohe_field]);
    - sympy proof: [proofs/proof_matrix_sync.py] (statement 19).

    Not formalised: the trace inequality (3), the differential inequality for
    [||Delta||^2] and the comparison (Dini derivative) argument that gives
    [D(t) <= y(t)]; they are written out in the proof module and checked
    numerically.

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core matrix_sync_spec matrix_lohe matrix_gradient.
From Coq Require Import Setoid Morphisms FunctionalExtensionality.
Open Scope R_scope.

Theorem pair_identity : pair_identity_spec.
Proof.
  intros n Vi Vj Mh.
  rewrite !mmul_msub_l, !mmul_msub_r. lin.
Qed.

Theorem deviation : deviation_spec.
Proof.
  intros n M Vi Vj. split; intros H.
  - rewrite adj_msub, mmul_msub_l, H. lin.
  - rewrite adj_msub, mmul_msub_r, H. lin.
Qed.

Theorem linearisation : linearisation_spec.
Proof.
  intros N K xi HN. assert (0 < INR N) by (apply lt_0_INR; lia). split.
  - intros S j. unfold linearised. rewrite S. field. lra.
  - intros c. apply functional_extensionality. intros j. unfold linearised.
    rewrite (sumN_ext _ (fun _ => c * 1)) by (intros; ring). rewrite sumN_scal.
    replace (sumN (fun _ => 1) N) with (INR N).
    + field. lra.
    + clear. induction N as [| N IH]; [reflexivity|]. rewrite S_INR. simpl. rewrite IH. ring.
Qed.

Theorem logistic : logistic_spec.
Proof.
  intros D0 K N t HN HK HD Hc Ht.
  assert (HN' : 0 < INR N) by (apply lt_0_INR; lia).
  assert (Hc0 : 0 <= sync_c N).
  { unfold sync_c. apply Rmult_le_pos; [|left; apply Rinv_0_lt_compat; lra].
    assert (1 <= INR N) by (apply (le_INR 1); lia). lra. }
  assert (He : 0 < exp (- K * t)) by apply exp_pos.
  assert (He1 : exp (- K * t) <= 1).
  { rewrite <- exp_0. destruct (Req_dec t 0) as [-> | Hne]; [rewrite Rmult_0_r; lra|].
    left. apply exp_increasing. nra. }
  set (c := sync_c N). fold c in Hc, Hc0.
  assert (Hden : 0 < 1 - c * D0 + c * D0 * exp (- K * t)).
  { pose proof (Rmult_le_pos _ _ Hc0 HD). nra. }
  split; [|split].
  - unfold sync_bound. fold c. apply is_derive_Reals. auto_derive.
    + repeat split. lra.
    + field. lra.
  - unfold sync_bound. fold c. rewrite Rmult_0_r, exp_0. field; lra.
  - unfold sync_bound. fold c.
    replace (D0 / (1 - c * D0) * exp (- K * t)) with (D0 * exp (- K * t) / (1 - c * D0))
      by (field; lra).
    unfold Rdiv. apply Rmult_le_compat_l; [nra|]. apply Rinv_le_contravar; [lra|].
    pose proof (Rmult_le_pos _ _ Hc0 HD). nra.
Qed.

Print Assumptions pair_identity.
Print Assumptions deviation.
Print Assumptions linearisation.
Print Assumptions logistic.
