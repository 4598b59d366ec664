(** * Statement 2 (specification): rotary position is a phase drift

    Informal statement.  The gated cosine score of Kuramoto attention

        s_tu = (tau / sqrt k) sum_j gq_j gk_j cos(theta_tj - theta_uj + omega_j (t - u))

    equals [(tau / sqrt k) < R(omega t) q_t, R(omega u) k_u >], where
    [q_tj = gq_j (cos theta_tj, sin theta_tj)], [k_uj = gk_j (cos theta_uj,
    sin theta_uj)] and [R(omega t)] rotates the j-th 2-d block by [omega_j t]
    (RoPE), for every number k of blocks.  (b) It depends on the positions only
    through [t - u].  (i) The 2x2 rotations form a group
    ([R a (R b v) = R (a + b) v], [R 0 = id], [R (-a)] inverts [R a]) and
    (ii) preserve the inner product.

    Symbol map.
    - [lift g th]: [syncattn.torus.lift] (the gated phasor of one block);
    - [score]: the gated cosine score (its phase difference is
      [syncattn.torus.angle_diff], inside a cosine, so wrapping is harmless);
    - [rope]: the RoPE dot product of the rotated lifted features;
    - a block is a record of [gq, gk, theta_t, theta_u, omega]; the model has
      [k = length bs] blocks and the score any real [tau].
    Proofs: [rotary_phase_drift.v]; sympy: [proofs/proof_rotary_phase_drift.py]. *)

From Syncattn Require Import CoreSpec.

Definition vec2 : Type := (R * R)%type.

(** The inner product of the plane. *)
Definition dot2 (v w : vec2) : R := fst v * fst w + snd v * snd w.

(** The rotation of the plane by the angle [a]. *)
Definition rot (a : R) (v : vec2) : vec2 :=
  (cos a * fst v - sin a * snd v, sin a * fst v + cos a * snd v).

(** [syncattn.torus.lift]: the gated phasor [g (cos th, sin th)]. *)
Definition lift (g th : R) : vec2 := (g * cos th, g * sin th).

Record block : Type := { gq : R; gk : R; th_t : R; th_u : R; omega : R }.

(** The gated cosine score [s_tu], summed over the blocks. *)
Definition score (tau sqrtk t u : R) (bs : list block) : R :=
  tau / sqrtk * fold_right (fun b acc =>
    gq b * gk b * cos (th_t b - th_u b + omega b * (t - u)) + acc) 0 bs.

(** The RoPE dot product [(tau / sqrt k) < R(omega t) q_t, R(omega u) k_u >]. *)
Definition rope (tau sqrtk t u : R) (bs : list block) : R :=
  tau / sqrtk * fold_right (fun b acc =>
    dot2 (rot (omega b * t) (lift (gq b) (th_t b)))
         (rot (omega b * u) (lift (gk b) (th_u b))) + acc) 0 bs.

(** (a) The score is the RoPE dot product, for every number of blocks. *)
Definition rotary_phase_drift_spec : Prop :=
  forall tau k t u bs, score tau (sqrt k) t u bs = rope tau (sqrt k) t u bs.

(** (b) It depends on the positions only through [t - u]. *)
Definition rotary_relative_spec : Prop :=
  forall tau k t u bs,
    score tau (sqrt k) t u bs = score tau (sqrt k) (t - u) 0 bs
    /\ forall c, rope tau (sqrt k) (t + c) (u + c) bs = rope tau (sqrt k) t u bs.

(** (i) The rotations form a group. *)
Definition rotary_group_spec : Prop :=
  (forall a b v, rot a (rot b v) = rot (a + b) v)
  /\ (forall v, rot 0 v = v)
  /\ (forall a v, rot (- a) (rot a v) = v /\ rot a (rot (- a) v) = v).

(** (ii) They preserve the inner product. *)
Definition rotary_isometry_spec : Prop :=
  forall a v w, dot2 (rot a v) (rot a w) = dot2 v w.
