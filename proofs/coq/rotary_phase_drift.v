(** * Statement 2: rotary position is a phase drift

    Informal statement.  The gated cosine score of Kuramoto attention

        s_tu = (tau / sqrt k) sum_j gq_j gk_j cos(theta_tj - theta_uj + omega_j (t - u))

    equals [(tau / sqrt k) < R(omega t) q_t, R(omega u) k_u >], where
    [q_tj = gq_j (cos theta_tj, sin theta_tj)], [k_uj = gk_j (cos theta_uj,
    sin theta_uj)] and [R(omega t)] rotates the j-th 2-d block by [omega_j t]
    (RoPE).  Hence the score depends on the positions only through [t - u]
    (shifting both by [c] changes nothing), and the 2x2 rotations form a group
    ([R a (R b v) = R (a + b) v], [R 0 = id], [R (-a)] inverts [R a]) that
    preserves the inner product.

    Symbol map.
    - library: [syncattn.torus.lift] (the lifted, gated features [lift g th]),
      [syncattn.torus.angle_diff] (the phase difference in the cosine);
    - sympy proof: [proofs/proof_rotary_phase_drift.py] (statement 2); there the
      sum over the k blocks is argued on paper, here it is an induction over
      the list of blocks.
    - A block is a record of [gq, gk, theta_t, theta_u, omega]; the model has
      [k = length blocks] blocks and the score any real [tau] and any [k].

    Assumes: only the standard library's axioms of the real numbers. *)

From Coq Require Import Reals List Lra.
Import ListNotations.
Open Scope R_scope.

Definition vec2 : Type := (R * R)%type.

Definition dot (v w : vec2) : R := fst v * fst w + snd v * snd w.

(** The rotation of the plane by the angle [a]. *)
Definition rot (a : R) (v : vec2) : vec2 :=
  (cos a * fst v - sin a * snd v, sin a * fst v + cos a * snd v).

(** [syncattn.torus.lift]: the gated phasor [g (cos th, sin th)]. *)
Definition lift (g th : R) : vec2 := (g * cos th, g * sin th).

(** The group laws and the isometry. *)
Lemma rot_compose : forall a b v, rot a (rot b v) = rot (a + b) v.
Proof.
  intros a b [x y]. unfold rot; simpl. rewrite cos_plus, sin_plus.
  f_equal; ring.
Qed.

Lemma rot_zero : forall v, rot 0 v = v.
Proof. intros [x y]. unfold rot; simpl. rewrite cos_0, sin_0. f_equal; ring. Qed.

Lemma rot_inverse : forall a v, rot (- a) (rot a v) = v.
Proof. intros a v. rewrite rot_compose. replace (- a + a) with 0 by ring. apply rot_zero. Qed.

Lemma rot_dot : forall a v w, dot (rot a v) (rot a w) = dot v w.
Proof.
  intros a [x y] [x' y']. unfold dot, rot; simpl.
  pose proof (sin2_cos2 a) as H. unfold Rsqr in H.
  transitivity ((sin a * sin a + cos a * cos a) * (x * x' + y * y')); [ring|].
  rewrite H. ring.
Qed.

(** One block: the RoPE dot product of the lifted features. *)
Lemma block_score : forall gq gk tht thu om t u,
  dot (rot (om * t) (lift gq tht)) (rot (om * u) (lift gk thu))
  = gq * gk * cos (tht - thu + om * (t - u)).
Proof.
  intros. unfold dot, rot, lift; simpl.
  replace (tht - thu + om * (t - u)) with ((tht + om * t) - (thu + om * u)) by ring.
  rewrite cos_minus, !cos_plus, !sin_plus. ring.
Qed.

Record block : Type := { gq : R; gk : R; th_t : R; th_u : R; omega : R }.

(** The gated cosine score [s_tu] and the RoPE dot product, summed over blocks. *)
Definition score (tau sqrtk t u : R) (bs : list block) : R :=
  tau / sqrtk * fold_right (fun b acc =>
    gq b * gk b * cos (th_t b - th_u b + omega b * (t - u)) + acc) 0 bs.

Definition rope (tau sqrtk t u : R) (bs : list block) : R :=
  tau / sqrtk * fold_right (fun b acc =>
    dot (rot (omega b * t) (lift (gq b) (th_t b)))
        (rot (omega b * u) (lift (gk b) (th_u b))) + acc) 0 bs.

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

(** Main theorem: the score is the RoPE dot product, it depends on the
    positions only through [t - u], and the rotations form a group of
    isometries of the inner product. *)
Theorem rotary_phase_drift :
  (forall tau k t u bs,
     score tau (sqrt k) t u bs = rope tau (sqrt k) t u bs
     /\ score tau (sqrt k) t u bs = score tau (sqrt k) (t - u) 0 bs
     /\ forall c, rope tau (sqrt k) (t + c) (u + c) bs = rope tau (sqrt k) t u bs)
  /\ (forall a b v, rot a (rot b v) = rot (a + b) v)
  /\ (forall v, rot 0 v = v)
  /\ (forall a v, rot (- a) (rot a v) = v /\ rot a (rot (- a) v) = v)
  /\ (forall a v w, dot (rot a v) (rot a w) = dot v w).
Proof.
  split; [| split; [exact rot_compose | split; [exact rot_zero | split]]].
  - intros tau k t u bs. split; [apply score_is_rope|split].
    + rewrite <- (score_shift tau (sqrt k) (t - u) 0 u bs). f_equal; ring.
    + intro c. rewrite <- !score_is_rope. apply score_shift.
  - intros a v. split; [apply rot_inverse|].
    rewrite rot_compose. replace (a + - a) with 0 by ring. apply rot_zero.
  - exact rot_dot.
Qed.

Print Assumptions rotary_phase_drift.
