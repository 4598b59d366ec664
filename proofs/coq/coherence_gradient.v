(** * Statement 4: synchronisation as coherence ascent (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [coherence_gradient_spec.v] with Coquelicot's
    [is_derive]: (a) the derivative of the local coherence is the Kuramoto
    coupling; (b) for symmetric [K] and any [n], [-dE/d theta_m] is the Kuramoto
    vector field with [omega = 0]; (c) along every solution of the gradient flow
    [d/dt E(theta(t)) = -|grad E|^2 <= 0]; (d) for scalar coupling
    [E = -(K n / 2) R^2].

    Symbol map.  The definitions are those of [coherence_gradient_spec.v] (read it
    against the library); library: [syncattn.entropic.local_coherence],
    [syncattn.kuramoto.coherence_energy], [syncattn.kuramoto.vector_field],
    [syncattn.torus.order_parameter];
    sympy proof: [proofs/proof_coherence_gradient.py].

    Proof idea (that of [proofs/proof_coherence_gradient.py]): (b) [theta_m]
    enters [E] only through the pair terms [(m, j)] and [(i, m)]; for any [K]
    [dE/d theta_m = -(1/2) sum_j (K_mj + K_jm) sin(theta_j - theta_m)], which is
    (b) for symmetric [K].  (c) the time derivative of each pair term along the
    trajectory (chain rule for [cos]), regrouped by exchanging the double sum,
    is [sum_m (dE/d theta_m) theta_m']; the partial derivatives are unique, so
    [theta' = -grad E] gives [-|grad E|^2].  (c) needs no symmetry of [K].
    (d) [cos(a - b) = cos a cos b + sin a sin b] and the double sum factors.
    The sympy proof checks (b) for the generic pair and N = 4, (c) for N = 3
    and (d) for N = 3; here every [n].

    Not formalised: nothing of the statement is left out ((c) holds along any
    differentiable trajectory; existence of the solution is not claimed).

    Assumes: the standard library's axioms of the real numbers (Coquelicot adds
    none of its own). *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core coherence_gradient_spec.

(** ** (a) the local coherence *)

Theorem local_coherence_ascent : local_coherence_ascent_spec.
Proof.
  intros w th. rewrite <- update_is_coupling. unfold coherence.
  auto_derive; [exact I | ring].
Qed.

(** ** (b) the coherence energy *)

(** The derivative in [theta_m] of one pair term [K_ij cos(theta_j - theta_i)]. *)
Definition dterm (K : nat -> nat -> R) (th : nat -> R) (m i j : nat) : R :=
  (if Nat.eq_dec i m then K i j * sin (th j - th m) else 0)
  + (if Nat.eq_dec j m then K i j * sin (th i - th m) else 0).

Lemma term_derivative : forall K th m i j,
  is_derive (fun x => K i j * cos (upd th m x j - upd th m x i)) (th m) (dterm K th m i j).
Proof.
  intros K th m i j. unfold dterm, upd.
  destruct (Nat.eq_dec i m) as [Hi | Hi]; destruct (Nat.eq_dec j m) as [Hj | Hj].
  - apply (is_derive_ext (fun _ => K i j * cos 0)).
    { intro x. f_equal. f_equal. ring. }
    replace (K i j * sin (th j - th m) + K i j * sin (th i - th m)) with 0
      by (subst; rewrite Rminus_diag_eq, sin_0 by reflexivity; ring).
    auto_derive; [exact I | ring].
  - apply (is_derive_ext (fun x => K i j * cos (th j - x))); [reflexivity|].
    auto_derive; [exact I | unfold Rminus; ring].
  - apply (is_derive_ext (fun x => K i j * cos (x - th i))); [reflexivity|].
    auto_derive; [exact I|]. unfold Rminus.
    replace (th i + - th m) with (- (th m + - th i)) by ring. rewrite sin_neg. ring.
  - apply (is_derive_ext (fun _ => K i j * cos (th j - th i))); [reflexivity|].
    auto_derive; [exact I | ring].
Qed.

(** The partial derivative of [E] for any [K]. *)
Definition partial (n : nat) (K : nat -> nat -> R) (th : nat -> R) (m : nat) : R :=
  - (1 / 2) * (sumN (fun j => K m j * sin (th j - th m)) n
               + sumN (fun i => K i m * sin (th i - th m)) n).

Lemma energy_partial_any : forall n K th m, (m < n)%nat ->
  is_derive (fun x => energy n K (upd th m x)) (th m) (partial n K th m).
Proof.
  intros n K th m Hm. unfold energy, partial.
  replace (sumN (fun j => K m j * sin (th j - th m)) n
           + sumN (fun i => K i m * sin (th i - th m)) n)
    with (sumN (fun i => sumN (fun j => dterm K th m i j) n) n).
  { apply is_derive_scal. apply is_derive_sumN. intros i _.
    apply is_derive_sumN. intros j _. apply term_derivative. }
  unfold dterm.
  rewrite (sumN_ext _ (fun i =>
     (if Nat.eq_dec i m then sumN (fun j => K m j * sin (th j - th m)) n else 0)
     + K i m * sin (th i - th m))).
  2:{ intros i Hi. rewrite sumN_plus. f_equal.
      - destruct (Nat.eq_dec i m) as [-> | Hne]; [reflexivity|apply sumN_zero].
      - apply (sumN_select (fun j => K i j * sin (th i - th m))). exact Hm. }
  rewrite sumN_plus.
  rewrite (sumN_select (fun _ => sumN (fun j => K m j * sin (th j - th m)) n) m n Hm).
  reflexivity.
Qed.

Theorem coherence_gradient : coherence_gradient_spec.
Proof.
  intros n K th m Hm Hsym.
  replace (- vector_field n K th m) with (partial n K th m); [apply energy_partial_any; exact Hm|].
  unfold partial, vector_field.
  rewrite (sumN_ext (fun i => K i m * sin (th i - th m)) (fun j => K m j * sin (th j - th m)))
    by (intros k _; rewrite Hsym; reflexivity).
  field.
Qed.

(** ** (c) the energy along a trajectory *)

Lemma pair_time_derivative : forall (theta : R -> nat -> R) t c i j vi vj,
  is_derive (fun s => theta s i) t vi -> is_derive (fun s => theta s j) t vj ->
  is_derive (fun s => c * cos (theta s j - theta s i)) t
            (c * ((vj - vi) * - sin (theta t j - theta t i))).
Proof.
  intros theta t c i j vi vj Hi Hj.
  apply (is_derive_scal (fun s => cos (theta s j - theta s i))).
  apply (is_derive_comp cos (fun s => theta s j - theta s i)).
  - apply is_derive_cos.
  - apply (is_derive_minus (fun s => theta s j) (fun s => theta s i)); assumption.
Qed.

(** The chain rule: [d/dt E(theta(t)) = sum_m (dE/d theta_m) theta_m'], for any [K]. *)
Lemma energy_chain_rule : forall n K (theta : R -> nat -> R) (v : nat -> R) t,
  (forall m, (m < n)%nat -> is_derive (fun s => theta s m) t (v m)) ->
  is_derive (fun s => energy n K (theta s)) t (sumN (fun m => partial n K (theta t) m * v m) n).
Proof.
  intros n K theta v t Hv. set (th := theta t).
  replace (sumN (fun m => partial n K th m * v m) n)
    with (- (1 / 2) * sumN (fun i => sumN (fun j =>
            K i j * ((v j - v i) * - sin (th j - th i))) n) n).
  { unfold energy. apply is_derive_scal. apply is_derive_sumN. intros i Hi.
    apply is_derive_sumN. intros j Hj. apply pair_time_derivative; auto. }
  transitivity (- (1 / 2) * (sumN (fun i => sumN (fun j => K i j * sin (th j - th i) * v i) n) n
                             + sumN (fun i => sumN (fun j => K i j * sin (th i - th j) * v j) n) n)).
  { f_equal. rewrite <- sumN_plus. apply sumN_ext. intros i _. rewrite <- sumN_plus.
    apply sumN_ext. intros j _.
    replace (sin (th i - th j)) with (- sin (th j - th i))
      by (rewrite <- sin_neg; f_equal; ring). ring. }
  rewrite (sumN_swap (fun i j => K i j * sin (th i - th j) * v j)).
  rewrite <- sumN_plus, <- sumN_scal. apply sumN_ext. intros m _. unfold partial.
  rewrite (sumN_ext (fun j => K m j * sin (th j - th m) * v m)
                    (fun j => v m * (K m j * sin (th j - th m)))) by (intros; ring).
  rewrite (sumN_ext (fun i => K i m * sin (th i - th m) * v m)
                    (fun i => v m * (K i m * sin (th i - th m)))) by (intros; ring).
  rewrite !sumN_scal. ring.
Qed.

Theorem energy_descent : energy_descent_spec.
Proof.
  intros n K theta g Hg Hflow t.
  assert (Hp : forall m, (m < n)%nat -> g t m = partial n K (theta t) m).
  { intros m Hm.
    rewrite <- (is_derive_unique (fun x => energy n K (upd (theta t) m x)) (theta t m) (g t m))
      by (apply Hg; exact Hm).
    apply is_derive_unique. apply energy_partial_any. exact Hm. }
  assert (E : sumN (fun m => partial n K (theta t) m * - g t m) n = - sumN (fun m => g t m ^ 2) n).
  { rewrite <- sumN_opp. apply sumN_ext. intros m Hm. rewrite <- Hp by exact Hm. ring. }
  split.
  - rewrite <- E. apply energy_chain_rule. intros m Hm. apply Hflow. exact Hm.
  - assert (0 <= sumN (fun m => g t m ^ 2) n); [|lra].
    apply sumN_nonneg. intros k _. apply pow2_ge_0.
Qed.

(** ** (d) scalar coupling *)

Theorem energy_order_parameter : energy_order_parameter_spec.
Proof.
  intros n Kc th Hn. assert (HN : 0 < INR n) by (apply lt_0_INR; exact Hn).
  unfold energy, order2.
  set (C := sumN (fun j => cos (th j)) n). set (S := sumN (fun j => sin (th j)) n).
  assert (E : sumN (fun i => sumN (fun j => Kc / INR n * cos (th j - th i)) n) n
              = Kc / INR n * (C * C + S * S)).
  { rewrite (sumN_ext _ (fun i => Kc / INR n * (cos (th i) * C + sin (th i) * S))).
    - rewrite sumN_scal, sumN_plus.
      rewrite (sumN_ext (fun i => cos (th i) * C) (fun i => C * cos (th i))) by (intros; ring).
      rewrite (sumN_ext (fun i => sin (th i) * S) (fun i => S * sin (th i))) by (intros; ring).
      rewrite !sumN_scal. reflexivity.
    - intros i _. unfold C, S. rewrite <- !sumN_scal, <- sumN_plus, <- sumN_scal.
      apply sumN_ext. intros j _. rewrite cos_minus. ring. }
  rewrite E. field. lra.
Qed.

Print Assumptions local_coherence_ascent.
Print Assumptions energy_descent.
Print Assumptions energy_order_parameter.
Print Assumptions coherence_gradient.
