(** * Statement 7 (specification): the readout weights

    Informal statement.  For a query [z], anchors [r_j], a mask [mu_j] in
    {0, 1} and an exponent [p >= 1], the unnormalised readout weights are
    [u_j = mu_j max(0, 1 + z.r_j)^p] and the readout is [a_j = u_j / S] with
    [S = sum_j u_j] when [S > 0], else the uniform average over the allowed
    keys, [mu_j / max(1, sum_k mu_k)].  Then
    (i)    every [a_j >= 0], [sum_j a_j = 1] as soon as one key is allowed, and
           [a_j = 0] on masked keys (in the fallback too);
    (ii)   on the sphere [1 + z.r = |z + r|^2 / 2 >= 0] (any dimension), so the
           clipping is inactive, and at [p = 1] the readout is the affine
           [(1 + z.r_j) / sum_l (1 + z.r_l)] over the allowed keys;
    (mono) on the allowed keys the weight is monotone in the alignment;
    (iii)  for bases [0 < b < b_1] the ratio [(b / b_1)^p] to the best anchor
           strictly decreases in [p] and tends to 0;
    (v)    at [z = 0] every numerator is the mask bit.

    Symbol map.
    - a key is the pair [(mu_j, z.r_j)] of its mask bit and its alignment;
    - [num p k]: [syncattn.lohe.readout_kernel] ([u_j]);
    - [weight p ks k]: [syncattn.lohe.normalize_readout] / [syncattn.lohe.readout]
      (division by [S], uniform fallback);
    - [x^p] for real [p] is [rpow x p]: [Rpower x p = exp(p ln x)] for [x > 0]
      and [0] for [x <= 0] (the library's [0^p = 0], [p >= 1]);
    - vectors are [nat -> R] on [0 .. n-1] ([dot], [CoreSpec.v]).
    Proofs: [readout.v]; sympy: [proofs/proof_readout.py]. *)

From Syncattn Require Import CoreSpec.

Definition sumR (l : list R) : R := fold_right Rplus 0 l.

Definition rpow (x p : R) : R := if Rle_dec x 0 then 0 else Rpower x p.

(** A key: its mask bit and its alignment [z . r_j]. *)
Definition key : Type := (bool * R)%type.

(** [syncattn.lohe.readout_kernel]: [mu max(0, 1 + z.r)^p]. *)
Definition num (p : R) (k : key) : R :=
  if fst k then rpow (Rmax 0 (1 + snd k)) p else 0.

Definition total (p : R) (ks : list key) : R := sumR (map (num p) ks).

Definition allowed (ks : list key) : R :=
  sumR (map (fun k : key => if fst k then 1 else 0) ks).

(** [syncattn.lohe.normalize_readout]: division by the total, else uniform over
    the allowed keys. *)
Definition weight (p : R) (ks : list key) (k : key) : R :=
  if Rlt_dec 0 (total p ks) then num p k / total p ks
  else (if fst k then 1 else 0) / Rmax 1 (allowed ks).

(** The seed's affine numerator [mu (1 + z.r)]. *)
Definition affine (k : key) : R := if fst k then 1 + snd k else 0.

(** (i) non-negative. *)
Definition readout_nonneg_spec : Prop :=
  forall p ks k, 0 <= weight p ks k.

(** (i) sums to 1 over the keys when one key is allowed. *)
Definition readout_spec : Prop :=
  forall p ks, (exists k, In k ks /\ fst k = true) -> sumR (map (weight p ks) ks) = 1.

(** (i) zero on masked keys. *)
Definition readout_masked_spec : Prop :=
  forall p ks c, weight p ks (false, c) = 0.

(** (ii) on the sphere the base is [|z + r|^2 / 2 >= 0]: no clipping. *)
Definition readout_sphere_spec : Prop :=
  forall n (z r : nat -> R), dot n z z = 1 -> dot n r r = 1 ->
    1 + dot n z r = dot n (fun i => z i + r i) (fun i => z i + r i) / 2
    /\ Rmax 0 (1 + dot n z r) = 1 + dot n z r.

(** (ii) at [p = 1], without clipping, the readout is the affine one. *)
Definition readout_affine_spec : Prop :=
  forall ks k, (forall k', In k' ks -> -1 <= snd k') -> -1 <= snd k ->
    0 < total 1 ks -> weight 1 ks k = affine k / sumR (map affine ks).

(** (mono) monotone in the alignment on the allowed keys. *)
Definition readout_monotone_spec : Prop :=
  forall p ks ci cj, 1 <= p -> ci <= cj -> weight p ks (true, ci) <= weight p ks (true, cj).

(** (iii) the ratio to the best anchor strictly decreases in [p]. *)
Definition readout_sharpens_spec : Prop :=
  forall b b1 p q, 0 < b -> b < b1 -> p < q -> Rpower (b / b1) q < Rpower (b / b1) p.

(** (iii) and tends to 0 as [p] grows. *)
Definition readout_ratio_limit_spec : Prop :=
  forall b b1 eps, 0 < b -> b < b1 -> 0 < eps ->
    exists P, forall p, P < p -> 0 < Rpower (b / b1) p < eps.

(** (v) at [z = 0] the numerators are the mask bits. *)
Definition readout_origin_spec : Prop :=
  forall p m, num p (m, 0) = if m then 1 else 0.
