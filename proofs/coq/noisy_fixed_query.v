(** * Statement 13: the noisy fixed-query flow has the von Mises-Fisher law, [kappa = 2 |h| / sigma^2]

    Informal statement (Stratonovich SDE [dz = (I - z z^T) h dt + sigma (I - z z^T) o dW]
    on [S^{d-1}], any [d]):
    (a) the Ito correction [sum_k (D g_k) g_k] is [-((d + 1) - 2 |z|^2) z], i.e.
        [-(d - 1) z] on the sphere, and under Ito's rule [d |z|^2 = 0] there;
    (b) the Fokker-Planck flux of [exp (kappa <h/|h|, z>)] vanishes iff
        [kappa = 2 |h| / sigma^2]; in the polar angle the zonal flux vanishes and
        [exp (kappa cos theta)] is its only zero-flux solution up to a constant;
    (d) the moment matrix [(A/kappa) I + (1 - d A/kappa) u u^T] from
        [E[t^2] = 1 - (d - 1) A/kappa] and the trace;
    (e) the expected readout scores, by linearity of the expectation.

    Symbol map: see [noisy_fixed_query_spec.v] ([ito_drift], [vmf_concentration],
    [vmf], [vmf_second] mirror [syncattn.lohe]).  Sympy proof:
    [proofs/proof_noisy_fixed_query.py] ((a) there for d = 2..5 and (b) ambient for
    d = 3; here every d).

    Not formalised: Ito's formula and the Fokker-Planck equation themselves (the
    calculus is assumed: here are the computations they call for); the step from
    regularity at [theta = 0] to zero zonal flux and the uniqueness of the invariant
    law among all densities; the normaliser and the Bessel ratio [A_d] of (c), (d)
    (Bessel functions are not defined in Coq's libraries); the rotational symmetry
    that gives [E[z z^T]] its form.

    Assumes: the standard library's axioms of the real numbers (functional
    extensionality for (e)). *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core noisy_fixed_query_spec.
From Coq Require Import FunctionalExtensionality.
Open Scope R_scope.

Lemma sumN_const : forall c n, sumN (fun _ => c) n = INR n * c.
Proof.
  intros c n. induction n as [| n IH]; simpl sumN; [simpl; ring|].
  rewrite IH, S_INR. ring.
Qed.

Lemma select_delta : forall (a : nat -> R) i n, (i < n)%nat ->
  sumN (fun k => delta k i * a k) n = a i.
Proof.
  intros a i n Hi. rewrite <- (sumN_select a i n Hi). apply sumN_ext.
  intros k _. unfold delta. destruct (Nat.eq_dec k i); ring.
Qed.

Lemma delta_same : forall k, delta k k = 1.
Proof. intros k. unfold delta. destruct (Nat.eq_dec k k); [reflexivity | contradiction]. Qed.

Lemma delta_sq : forall k i, delta k i * delta k i = delta k i.
Proof. intros k i. unfold delta. destruct (Nat.eq_dec k i); ring. Qed.

(** ** (a) *)

Theorem ito_correction : ito_correction_spec.
Proof.
  intros d z i Hi.
  assert (Hsum : sumN (fun k => - (gk k z k * z i + z k * gk k z i)) d
                 = - (INR d + 1 - 2 * dot d z z) * z i).
  { rewrite (sumN_ext _ (fun k => (- z i) * 1 + (2 * z i) * (z k * z k) + (-1) * (delta k i * z k))).
    2: { intros k _. unfold gk. rewrite delta_same. ring. }
    rewrite sumN_lin, sumN_const, select_delta by exact Hi. fold (dot d z z). ring. }
  split.
  - rewrite <- Hsum.
    apply (is_derive_sumN (fun k s => gk k (fun j => z j + s * gk k z j) i)).
    intros k _.
    apply (is_derive_ext (fun s => delta k i - (z k + s * gk k z k) * (z i + s * gk k z i))).
    { intros s. reflexivity. }
    auto_derive; [exact I | ring].
  - intros sigma b Hz. unfold ito_drift. rewrite Hz. field.
Qed.

Lemma trace_inner : forall d z i, (i < d)%nat ->
  sumN (fun k => gk k z i * gk k z i) d = 1 - 2 * (z i * z i) + dot d z z * (z i * z i).
Proof.
  intros d z i Hi.
  rewrite (sumN_ext _ (fun k => 1 * (delta k i * 1) + (-2 * z i) * (delta k i * z k)
                               + (z i * z i) * (z k * z k))).
  2: { intros k _. unfold gk.
       replace ((delta k i - z k * z i) * (delta k i - z k * z i))
         with (delta k i * delta k i - 2 * delta k i * z k * z i + z k * z k * (z i * z i)) by ring.
       rewrite delta_sq. ring. }
  rewrite sumN_lin, !select_delta by exact Hi. fold (dot d z z). ring.
Qed.

Theorem ito_norm : ito_norm_spec.
Proof.
  intros d sigma z h Hz.
  rewrite (sumN_ext _ (fun i => 1 * 1 + (-2) * (z i * z i) + dot d z z * (z i * z i))).
  2: { intros i Hi. rewrite trace_inner by exact Hi. ring. }
  rewrite sumN_lin, sumN_const. fold (dot d z z).
  assert (Hd : dot d z (ito_drift d sigma z (proj d z h))
               = dot d z h * (1 - dot d z z) - (INR d - 1) * sigma ^ 2 / 2 * dot d z z).
  { unfold dot at 1. unfold ito_drift, proj.
    rewrite (sumN_ext _ (fun k => 1 * (z k * h k) + (- dot d z h - (INR d - 1) * sigma ^ 2 / 2) * (z k * z k) + 0 * 0))
      by (intros; ring).
    rewrite sumN_lin. fold (dot d z h) (dot d z z). field. }
  rewrite Hd, Hz. field.
Qed.

(** ** (b) the flux *)

Lemma dot_shift : forall d h z j s, (j < d)%nat ->
  dot d h (fun l => z l + s * delta l j) = dot d h z + s * h j.
Proof.
  intros d h z j s Hj. unfold dot at 1.
  rewrite (sumN_ext _ (fun l => 1 * (h l * z l) + s * (delta l j * h l) + 0 * 0)) by (intros; ring).
  rewrite sumN_lin, select_delta by exact Hj. fold (dot d h z). ring.
Qed.

Lemma vmf_partial : forall d kappa h z j, (j < d)%nat -> 0 < dot d h h ->
  is_derive (fun s => vmf d kappa h (fun l => z l + s * delta l j)) 0
    (kappa * h j / CoreSpec.norm d h * vmf d kappa h z).
Proof.
  intros d kappa h z j Hj Hh.
  assert (HN : 0 < CoreSpec.norm d h) by (unfold CoreSpec.norm; apply sqrt_lt_R0; exact Hh).
  apply (is_derive_ext (fun s => exp (kappa * (dot d h z + s * h j) / CoreSpec.norm d h))).
  { intros s. unfold vmf. rewrite dot_shift by exact Hj. reflexivity. }
  unfold vmf. auto_derive; [exact I|].
  rewrite Rmult_0_l, Rplus_0_r. unfold Rdiv. field. lra.
Qed.

(** The flux is [p (I - z z^T) h (1 - sigma^2 kappa / (2 |h|))]. *)
Lemma flux_factor : forall d sigma kappa (h z G : nat -> R) i, 0 < dot d h h -> (i < d)%nat ->
  (forall j, (j < d)%nat ->
     is_derive (fun s => vmf d kappa h (fun l => z l + s * delta l j)) 0 (G j)) ->
  vmf d kappa h z * proj d z h i - sigma ^ 2 / 2 * proj d z G i
  = vmf d kappa h z * proj d z h i * (1 - sigma ^ 2 * kappa / (2 * CoreSpec.norm d h)).
Proof.
  intros d sigma kappa h z G i Hh Hi HG.
  assert (HN : 0 < CoreSpec.norm d h) by (unfold CoreSpec.norm; apply sqrt_lt_R0; exact Hh).
  set (c := kappa / CoreSpec.norm d h * vmf d kappa h z).
  assert (HGj : forall j, (j < d)%nat -> G j = c * h j).
  { intros j Hj. pose proof (is_derive_unique _ _ _ (HG j Hj)) as E1.
    pose proof (is_derive_unique _ _ _ (vmf_partial d kappa h z j Hj Hh)) as E2.
    rewrite E1 in E2.
    assert (E3 : G j = kappa * h j / CoreSpec.norm d h * vmf d kappa h z) by exact E2.
    rewrite E3. unfold c. field. lra. }
  assert (HzG : dot d z G = c * dot d z h).
  { unfold dot. rewrite <- sumN_scal. apply sumN_ext. intros k Hk. rewrite HGj by exact Hk. ring. }
  unfold proj. rewrite HzG, HGj by exact Hi. unfold c. field. lra.
Qed.

Theorem zero_flux : zero_flux_spec.
Proof.
  intros d sigma h z G Hs Hh HG i Hi.
  assert (HN : 0 < CoreSpec.norm d h) by (unfold CoreSpec.norm; apply sqrt_lt_R0; exact Hh).
  rewrite (flux_factor d sigma _ h z G i Hh Hi HG).
  assert (Hs2 : 0 < sigma ^ 2) by (apply pow_lt; lra).
  unfold vmf_concentration.
  replace (1 - sigma ^ 2 * (2 * CoreSpec.norm d h / sigma ^ 2) / (2 * CoreSpec.norm d h)) with 0
    by (field; lra).
  ring.
Qed.

Theorem kappa_unique : kappa_unique_spec.
Proof.
  intros d sigma kappa h z G i Hs Hh Hi Hp HG H0.
  assert (HN : 0 < CoreSpec.norm d h) by (unfold CoreSpec.norm; apply sqrt_lt_R0; exact Hh).
  assert (Hs2 : 0 < sigma ^ 2) by (apply pow_lt; lra).
  rewrite (flux_factor d sigma kappa h z G i Hh Hi HG) in H0.
  apply Rmult_integral in H0. destruct H0 as [H0 | H0].
  - apply Rmult_integral in H0. destruct H0 as [H0 | H0]; [| contradiction].
    unfold vmf in H0. pose proof (exp_pos (kappa * dot d h z / CoreSpec.norm d h)). lra.
  - unfold vmf_concentration. apply (Rmult_eq_reg_r (sigma ^ 2 / (2 * CoreSpec.norm d h))).
    + replace (kappa * (sigma ^ 2 / (2 * CoreSpec.norm d h))) with (sigma ^ 2 * kappa / (2 * CoreSpec.norm d h))
        by (field; lra).
      replace (2 * CoreSpec.norm d h / sigma ^ 2 * (sigma ^ 2 / (2 * CoreSpec.norm d h))) with 1 by (field; lra).
      lra.
    + apply Rgt_not_eq, Rdiv_lt_0_compat; lra.
Qed.

Theorem zonal_flux : zonal_flux_spec.
Proof.
  intros a sigma theta dp Hs Hd.
  assert (Hs2 : 0 < sigma ^ 2) by (apply pow_lt; lra).
  assert (E : is_derive (fun t => exp (2 * a / sigma ^ 2 * cos t)) theta
                (- (2 * a / sigma ^ 2) * sin theta * exp (2 * a / sigma ^ 2 * cos theta)))
    by (generalize (2 * a / sigma ^ 2); intros k; auto_derive; [exact I | ring]).
  pose proof (is_derive_unique _ _ _ Hd) as D1. pose proof (is_derive_unique _ _ _ E) as D2.
  rewrite D1 in D2.
  assert (D3 : dp = - (2 * a / sigma ^ 2) * sin theta * exp (2 * a / sigma ^ 2 * cos theta)) by exact D2.
  rewrite D3. field. lra.
Qed.

Theorem zonal_unique : zonal_unique_spec.
Proof.
  intros a sigma q dq al be Hs Hab Hq Hflux t Ht.
  assert (Hs2 : 0 < sigma ^ 2) by (apply pow_lt; lra).
  set (k := 2 * a / sigma ^ 2).
  set (w := fun s => q s * exp (- k * cos s)).
  assert (Hw : forall s, al <= s <= be -> is_derive w s zero).
  { intros s Hsab. unfold w.
    assert (He : is_derive (fun s => exp (- k * cos s)) s (k * sin s * exp (- k * cos s)))
      by (auto_derive; [exact I | ring]).
    pose proof (is_derive_mult q (fun s => exp (- k * cos s)) s _ _ (Hq s Hsab) He
                  (fun n m => Rmult_comm n m)) as Hm.
    simpl in Hm. unfold plus, mult in Hm; simpl in Hm.
    replace (zero : R_NormedModule) with (dq s * exp (- k * cos s) + q s * (k * sin s * exp (- k * cos s))).
    - exact Hm.
    - pose proof (Hflux s Hsab) as F. unfold k. unfold zero; simpl.
      assert (Hdq : dq s = - 2 * a * sin s * q s / sigma ^ 2).
      { apply (Rmult_eq_reg_l (sigma ^ 2 / 2)); [| apply Rgt_not_eq, Rdiv_lt_0_compat; lra].
        replace (sigma ^ 2 / 2 * (- 2 * a * sin s * q s / sigma ^ 2)) with (- a * sin s * q s)
          by (field; lra).
        lra. }
      rewrite Hdq. field. lra. }
  assert (Hc : w al = w t).
  { destruct (Req_dec al t) as [-> | Hne]; [reflexivity|].
    apply (eq_is_derive w al t); [| lra].
    intros s Hsab. apply Hw. lra. }
  unfold w in Hc.
  replace (exp (k * (cos t - cos al))) with (exp (- k * cos al) / exp (- k * cos t)).
  - pose proof (exp_pos (- k * cos t)). apply (Rmult_eq_reg_r (exp (- k * cos t))); [| lra].
    rewrite <- Hc. field. lra.
  - unfold Rdiv. rewrite <- exp_Ropp, <- exp_plus. f_equal. ring.
Qed.

(** ** (d), (e) *)

Theorem moment_matrix : moment_matrix_spec.
Proof.
  intros d A kappa alpha beta u i j Hd Hk Ha Htr.
  assert (HD : 1 < INR d) by (apply (lt_INR 1 d) in Hd; simpl in Hd; exact Hd).
  assert (Hb : beta = A / kappa).
  { apply (Rmult_eq_reg_l (INR d - 1)); [| lra]. rewrite Ha in Htr. field_simplify; [|exact Hk]. lra. }
  unfold vmf_second. rewrite Ha, Hb. field. exact Hk.
Qed.

Lemma E_zero : forall (E : ((nat -> R) -> R) -> R),
  (forall c f, E (fun z => c * f z) = c * E f) -> E (fun _ => 0) = 0.
Proof.
  intros E Hs. replace (fun _ : nat -> R => 0) with (fun z : nat -> R => 0 * (fun _ => 1) z).
  - rewrite Hs. ring.
  - apply functional_extensionality. intros. ring.
Qed.

Lemma E_sumN : forall (E : ((nat -> R) -> R) -> R) (f : nat -> (nat -> R) -> R) n,
  (forall f g, E (fun z => f z + g z) = E f + E g) ->
  (forall c f, E (fun z => c * f z) = c * E f) ->
  E (fun z => sumN (fun k => f k z) n) = sumN (fun k => E (f k)) n.
Proof.
  intros E f n Ha Hs. induction n as [| n IH]; simpl.
  - apply E_zero. exact Hs.
  - rewrite (Ha (fun z => sumN (fun k => f k z) n) (f n)), IH. reflexivity.
Qed.

Lemma sumN_mul : forall f g n, sumN f n * sumN g n = sumN (fun i => sumN (fun j => f i * g j) n) n.
Proof.
  intros f g n. rewrite Rmult_comm, <- sumN_scal. apply sumN_ext. intros i _.
  rewrite Rmult_comm, <- sumN_scal. apply sumN_ext. intros; ring.
Qed.

Theorem scores : scores_spec.
Proof.
  intros d E m M r Ha Hs H1 Hm HM.
  assert (Hlin : E (fun z => dot d z r) = dot d m r).
  { unfold dot.
    replace (fun z : nat -> R => sumN (fun i => z i * r i) d)
      with (fun z : nat -> R => sumN (fun i => r i * (fun z => z i) z) d)
      by (apply functional_extensionality; intros z; apply sumN_ext; intros; ring).
    rewrite (E_sumN E (fun i z => r i * (fun z => z i) z) d Ha Hs).
    apply sumN_ext. intros i _. rewrite Hs, Hm. ring. }
  split.
  - rewrite (Ha (fun _ => 1) (fun z => dot d z r)), H1, Hlin. reflexivity.
  - assert (Hq : E (fun z => sumN (fun i => sumN (fun j => r i * r j * (z i * z j)) d) d)
                 = sumN (fun i => sumN (fun j => r i * M i j * r j) d) d).
    { rewrite (E_sumN E (fun i z => sumN (fun j => r i * r j * (z i * z j)) d) d Ha Hs).
      apply sumN_ext. intros i _.
      rewrite (E_sumN E (fun j z => r i * r j * (z i * z j)) d Ha Hs).
      apply sumN_ext. intros j _. rewrite (Hs (r i * r j) (fun z => z i * z j)), HM. ring. }
    replace (fun z : nat -> R => (1 + dot d z r) ^ 2)
      with (fun z : nat -> R => (fun _ => 1) z + (fun z => 2 * (fun z => dot d z r) z
             + (fun z => sumN (fun i => sumN (fun j => r i * r j * (z i * z j)) d) d) z) z).
    2: { apply functional_extensionality. intros z. simpl. unfold dot.
         replace (sumN (fun i => sumN (fun j => r i * r j * (z i * z j)) d) d)
           with (sumN (fun i => z i * r i) d * sumN (fun i => z i * r i) d).
         - ring.
         - rewrite sumN_mul. apply sumN_ext. intros i _. apply sumN_ext. intros; ring. }
    rewrite Ha, H1, Ha, Hs, Hlin, Hq. ring.
Qed.

Print Assumptions ito_correction.
Print Assumptions ito_norm.
Print Assumptions zero_flux.
Print Assumptions kappa_unique.
Print Assumptions zonal_flux.
Print Assumptions zonal_unique.
Print Assumptions moment_matrix.
Print Assumptions scores.
