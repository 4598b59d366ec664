(** * Statement 14: the noisy Kuramoto model, [r = I_1/I_0 (2 K r / sigma^2)], onset [K_c = sigma^2]

    Informal statement ([D = sigma^2 / 2]):
    (a) the von Mises density [p ~ exp (kappa cos (theta - psi))] has zero
        Fokker-Planck flux [J = -K r sin (theta - psi) p - D p'] iff
        [kappa = 2 K r / sigma^2];
    (b) near onset, with [A_2(x) = x/2 - x^3/16 + O(x^5)], a branch [r > 0] leaves
        [r = 0] at [K_c = sigma^2] with [r^2 = 16 (c/2 - 1) / c^3], [c = 2 K / sigma^2];
    (c) for Lorentzian frequencies the incoherent state's first mode grows at
        [lambda = K/2 - gamma - sigma^2/2]: onset at [K_c = 2 gamma + sigma^2].

    Symbol map: see [noisy_kuramoto_spec.v].  Sympy proof:
    [proofs/proof_noisy_kuramoto.py].

    Not formalised: the modified Bessel functions ([int e^{kappa cos} = 2 pi I_0],
    [r = I_1/I_0], the series of [A_2]: neither the standard library nor Coquelicot
    defines [I_nu]); the linearised Fokker-Planck mode equation and the Lorentzian
    integral that gives the dispersion relation (complex integrals).  Here (b) is the
    algebra of the two-term truncation and (c) the algebra of the dispersion relation.

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core noisy_kuramoto_spec.
Open Scope R_scope.

Lemma vonmises_derive : forall kappa psi theta,
  is_derive (vonmises kappa psi) theta (- kappa * sin (theta - psi) * vonmises kappa psi theta).
Proof. intros. unfold vonmises. auto_derive; [exact I | unfold Rminus; ring]. Qed.

Theorem zero_flux : zero_flux_spec.
Proof.
  intros K r sigma psi kappa Hs.
  assert (Hs2 : 0 < sigma ^ 2) by (apply pow_lt; lra).
  split.
  - intros H. specialize (H (psi + PI / 2) _ (vonmises_derive kappa psi (psi + PI / 2))).
    replace (psi + PI / 2 - psi) with (PI / 2) in H by ring. rewrite sin_PI2 in H.
    pose proof (exp_pos (kappa * cos (PI / 2))) as Hp. unfold vonmises in H.
    replace (psi + PI / 2 - psi) with (PI / 2) in H by ring.
    assert (E : (sigma ^ 2 / 2 * kappa - K * r) * exp (kappa * cos (PI / 2)) = 0) by lra.
    apply Rmult_integral in E. destruct E as [E | E]; [| lra].
    unfold noisy_kappa. field_simplify; [| lra]. apply (Rmult_eq_reg_r (sigma ^ 2)); [| lra].
    field_simplify; [| lra]. lra.
  - intros -> theta dp Hd. apply is_derive_unique in Hd.
    rewrite (is_derive_unique _ _ _ (vonmises_derive _ psi theta)) in Hd. rewrite <- Hd.
    unfold noisy_kappa. field. lra.
Qed.

Lemma trunc_step : forall c, 0 < c -> forall r, 0 < r ->
  (r = a2_trunc (c * r) <-> r ^ 2 = 16 * (c / 2 - 1) / c ^ 3).
Proof.
  intros c Hc r Hr. assert (Hc3 : 0 < c ^ 3) by (apply pow_lt; lra).
  unfold a2_trunc. split; intros H.
  - assert (E : r * (c ^ 3 * r ^ 2 - 16 * (c / 2 - 1)) = 0).
    { replace (r * (c ^ 3 * r ^ 2 - 16 * (c / 2 - 1))) with (-16 * (c * r / 2 - (c * r) ^ 3 / 16 - r)) by field.
      rewrite <- H. ring. }
    apply Rmult_integral in E. destruct E as [E | E]; [lra|].
    apply (Rmult_eq_reg_r (c ^ 3)); [| lra]. field_simplify; lra.
  - assert (E : c ^ 3 * r ^ 2 = 16 * (c / 2 - 1)) by (rewrite H; field; lra).
    replace ((c * r) ^ 3) with (r * (c ^ 3 * r ^ 2)) by ring. rewrite E. field.
Qed.

Theorem onset : onset_spec.
Proof.
  intros K sigma HK Hs c.
  assert (Hs2 : 0 < sigma ^ 2) by (apply pow_lt; lra).
  assert (Hc : 0 < c) by (unfold c; apply Rdiv_lt_0_compat; lra).
  assert (Hc3 : 0 < c ^ 3) by (apply pow_lt; lra).
  pose proof (trunc_step c Hc) as Step.
  split; [exact Step | split].
  - split.
    + intros [r [Hr H]]. apply Step in H; [| exact Hr].
      assert (0 < r ^ 2) by (apply pow_lt; lra).
      assert (0 < 16 * (c / 2 - 1) / c ^ 3) by lra.
      assert (0 < 16 * (c / 2 - 1)).
      { replace (16 * (c / 2 - 1)) with (16 * (c / 2 - 1) / c ^ 3 * c ^ 3) by (field; lra).
        apply Rmult_lt_0_compat; lra. }
      lra.
    + intros H2. exists (sqrt (16 * (c / 2 - 1) / c ^ 3)).
      assert (Hpos : 0 < 16 * (c / 2 - 1) / c ^ 3) by (apply Rdiv_lt_0_compat; lra).
      split; [apply sqrt_lt_R0; exact Hpos|].
      apply Step; [apply sqrt_lt_R0; exact Hpos|]. apply pow2_sqrt. lra.
  - unfold noisy_critical_coupling, c. split; intros H.
    + apply (Rmult_lt_compat_r (sigma ^ 2)) in H; [| lra].
      replace (2 * K / sigma ^ 2 * sigma ^ 2) with (2 * K) in H by (field; lra). lra.
    + apply (Rmult_lt_reg_r (sigma ^ 2)); [lra|].
      replace (2 * K / sigma ^ 2 * sigma ^ 2) with (2 * K) by (field; lra). lra.
Qed.

Theorem lorentzian_onset : lorentzian_onset_spec.
Proof.
  intros K sigma gamma lam Hg Hl. split.
  - split; intros H.
    + apply (Rmult_eq_compat_r (lam + sigma ^ 2 / 2 + gamma)) in H.
      field_simplify in H; [| lra]. lra.
    + rewrite H. field. lra.
  - intros ->. unfold noisy_critical_coupling. split; intros; lra.
Qed.

Print Assumptions zero_flux.
Print Assumptions onset.
Print Assumptions lorentzian_onset.
