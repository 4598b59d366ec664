(** * Statement 2: rotary position is a phase drift (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [rotary_phase_drift_spec.v]: (a) the gated cosine score
    is the RoPE dot product of the lifted features ([syncattn.torus.lift]), for
    any number of blocks; (b) it depends on the positions only through [t - u];
    (i) the 2x2 rotations form a group and (ii) preserve the inner product.

    Symbol map.  The definitions are those of [rotary_phase_drift_spec.v] (read it
    against the library); library: [syncattn.torus.lift],
    [syncattn.torus.angle_diff];
    sympy proof: [proofs/proof_rotary_phase_drift.py].

    Proof idea (that of [proofs/proof_rotary_phase_drift.py]): one block is the
    cosine addition formula; the sum over the k blocks is an induction over the
    list of blocks (argued on paper in the sympy proof, checked here).

    Not formalised: nothing of the statement is left out.

    Assumes: only the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core rotary_phase_drift_spec.

Lemma rot_compose : forall a b v, rot a (rot b v) = rot (a + b) v.
Proof.
  intros a b [x y]. unfold rot; simpl. rewrite cos_plus, sin_plus.
  f_equal; ring.
Qed.

Lemma rot_zero : forall v, rot 0 v = v.
Proof. intros [x y]. unfold rot; simpl. rewrite cos_0, sin_0. f_equal; ring. Qed.

Lemma rot_inverse : forall a v, rot (- a) (rot a v) = v.
Proof. intros a v. rewrite rot_compose. replace (- a + a) with 0 by ring. apply rot_zero. Qed.

(** One block: the RoPE dot product of the lifted features. *)
Lemma block_score : forall gq gk tht thu om t u,
  dot2 (rot (om * t) (lift gq tht)) (rot (om * u) (lift gk thu))
  = gq * gk * cos (tht - thu + om * (t - u)).
Proof.
  intros. unfold dot2, rot, lift; simpl.
  replace (tht - thu + om * (t - u)) with ((tht + om * t) - (thu + om * u)) by ring.
  rewrite cos_minus, !cos_plus, !sin_plus. ring.
Qed.

Lemma score_is_rope : forall tau sqrtk t u bs,
  score tau sqrtk t u bs = rope tau sqrtk t u bs.
Proof.
  intros tau sqrtk t u bs. unfold score, rope. f_equal.
  induction bs as [| b bs IH]; simpl; [reflexivity|].
  rewrite IH, block_score. reflexivity.
Qed.

Lemma score_shift : forall tau sqrtk t u c bs,
  score tau sqrtk (t + c) (u + c) bs = score tau sqrtk t u bs.
Proof.
  intros. unfold score. replace (t + c - (u + c)) with (t - u) by ring.
  reflexivity.
Qed.

Theorem rotary_phase_drift : rotary_phase_drift_spec.
Proof. intros tau k t u bs. apply score_is_rope. Qed.

Theorem rotary_relative : rotary_relative_spec.
Proof.
  intros tau k t u bs. split.
  - rewrite <- (score_shift tau (sqrt k) (t - u) 0 u bs). f_equal; ring.
  - intro c. rewrite <- !score_is_rope. apply score_shift.
Qed.

Theorem rotary_group : rotary_group_spec.
Proof.
  split; [exact rot_compose | split; [exact rot_zero |]].
  intros a v. split; [apply rot_inverse|].
  rewrite rot_compose. replace (a + - a) with 0 by ring. apply rot_zero.
Qed.

Theorem rotary_isometry : rotary_isometry_spec.
Proof.
  intros a [x y] [x' y']. unfold dot2, rot; simpl.
  pose proof (sin2_cos2 a) as H. unfold Rsqr in H.
  transitivity ((sin a * sin a + cos a * cos a) * (x * x' + y * y')); [ring|].
  rewrite H. ring.
Qed.

Print Assumptions rotary_relative.
Print Assumptions rotary_group.
Print Assumptions rotary_isometry.
Print Assumptions rotary_phase_drift.
