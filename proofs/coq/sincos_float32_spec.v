(** * Specification: the float32 sin/cos kernel, eager and under jax.jit

    Definitions only, each mirroring [syncattn._numerics._sincos32] (Python line
    named in its comment), and one [<thm>_spec] per Coq part of
    [proofs/proof_sincos_float32.py].  Proved in [sincos_float32.v].

    Two operation sequences of the same Python source are modelled:
    - eager ([_sincos32(x)] outside [jit], and [jit] at XLA's backend optimisation
      level 0): every float32 multiply and add rounded on its own;
    - [jax.jit] on XLA:CPU at the default level (every library caller): LLVM
      contracts each [a - k * p] of the reduction and each [c + r2 * acc],
      [r + (r * r2) * h1], [1 + r2 * g1] into one fused multiply-add (one rounding);
      [r * r] and [r * r2] stay plain multiplies.
    Which backend runs which is measured, not proved (the proof module's part h).

    The float32 constants are the library's: [rnd32 (-1/6)] is
    [np.float32(-1/6)] (rounding the float64 [-1/6] to float32 gives the same
    value as rounding [-1/6], checked exactly in the proof module), and the
    reduction's four constants are written as the exact dyadic rationals of
    [np.float32(2/pi)] and [_PIO2_F32]. *)

From Syncattn Require Import CoreSpec.
From Flocq Require Import Core.
Open Scope R_scope.

(** Rounding to the nearest binary32, ties to even, with gradual underflow (no
    overflow arises on the ranges below).  XLA:CPU flushes subnormals to zero
    instead; that changes the result only for subnormal inputs (measured). *)
Definition rnd32 (x : R) : R := round radix2 (FLT_exp (-149) 24) ZnearestE x.

(** [x] is a float32 value. *)
Definition is_float32 (x : R) : Prop := generic_format radix2 (FLT_exp (-149) 24) x.

(** [np.float32(2 / np.pi)] and the three float32 parts of pi/2 ([_PIO2_F32]). *)
Definition two_over_pi32 : R := 10680707 / 16777216.
Definition pio2_hi : R := 201 / 128.
Definition pio2_mid : R := 2029 / 4194304.
Definition pio2_lo : R := 10625385 / 140737488355328.

(** [k = jnp.round(x * np.float32(2.0 / np.pi))] (round half to even). *)
Definition quadrant (x : R) : Z := ZnearestE (rnd32 (x * two_over_pi32)).

(** [r = ((x - k * p0) - k * p1) - k * p2], eager: every operation rounded. *)
Definition reduce (x : R) : R :=
  let k := IZR (quadrant x) in
  rnd32 (rnd32 (rnd32 (x - rnd32 (k * pio2_hi)) - rnd32 (k * pio2_mid))
         - rnd32 (k * pio2_lo)).

(** The same under [jit]: each [a - k * p] one fused multiply-add. *)
Definition reduce_fma (x : R) : R :=
  let k := IZR (quadrant x) in
  rnd32 (rnd32 (rnd32 (x - k * pio2_hi) - k * pio2_mid) - k * pio2_lo).

(** [s = r + r * r2 * _horner(r2, _SIN_C[:4])], eager (the Horner loop of
    [_horner], innermost first). *)
Definition sin_kernel (r : R) : R :=
  let r2 := rnd32 (r * r) in
  let h3 := rnd32 (rnd32 (-1/5040) + rnd32 (r2 * rnd32 (1/362880))) in
  let h2 := rnd32 (rnd32 (1/120) + rnd32 (r2 * h3)) in
  let h1 := rnd32 (rnd32 (-1/6) + rnd32 (r2 * h2)) in
  rnd32 (r + rnd32 (rnd32 (r * r2) * h1)).

(** [c = 1.0 + r2 * _horner(r2, _COS_C[:5])], eager. *)
Definition cos_kernel (r : R) : R :=
  let r2 := rnd32 (r * r) in
  let g4 := rnd32 (rnd32 (1/40320) + rnd32 (r2 * rnd32 (-1/3628800))) in
  let g3 := rnd32 (rnd32 (-1/720) + rnd32 (r2 * g4)) in
  let g2 := rnd32 (rnd32 (1/24) + rnd32 (r2 * g3)) in
  let g1 := rnd32 (rnd32 (-1/2) + rnd32 (r2 * g2)) in
  rnd32 (1 + rnd32 (r2 * g1)).

(** [s] under [jit]: each add with the product it takes one fused multiply-add. *)
Definition sin_kernel_fma (r : R) : R :=
  let r2 := rnd32 (r * r) in
  let h3 := rnd32 (rnd32 (-1/5040) + r2 * rnd32 (1/362880)) in
  let h2 := rnd32 (rnd32 (1/120) + r2 * h3) in
  let h1 := rnd32 (rnd32 (-1/6) + r2 * h2) in
  rnd32 (r + rnd32 (r * r2) * h1).

(** [c] under [jit]. *)
Definition cos_kernel_fma (r : R) : R :=
  let r2 := rnd32 (r * r) in
  let g4 := rnd32 (rnd32 (1/40320) + r2 * rnd32 (-1/3628800)) in
  let g3 := rnd32 (rnd32 (-1/720) + r2 * g4) in
  let g2 := rnd32 (rnd32 (1/24) + r2 * g3) in
  let g1 := rnd32 (rnd32 (-1/2) + r2 * g2) in
  rnd32 (1 + r2 * g1).

(** [q = jnp.mod(k, 4.0)] and the two [jnp.where] chains: (sin, cos) of
    [k pi/2 + r] from (sin r, cos r) = (s, c). *)
Definition rotate (k : Z) (s c : R) : R * R :=
  match (k mod 4)%Z with
  | 0%Z => (s, c)
  | 1%Z => (c, - s)
  | 2%Z => (- s, - c)
  | _ => (- c, s)
  end.

(** [_sincos32(x)], eager and under [jit]. *)
Definition sincos32 (x : R) : R * R :=
  let r := reduce x in rotate (quadrant x) (sin_kernel r) (cos_kernel r).
Definition sincos32_fma (x : R) : R * R :=
  let r := reduce_fma x in rotate (quadrant x) (sin_kernel_fma r) (cos_kernel_fma r).

(** (a)-(d): the kernels on the reduced range [|r| <= 403/512] (just above pi/4,
    to cover the rounding of the quadrant). *)
Definition sin_kernel_bound_spec : Prop := forall r, is_float32 r -> Rabs r <= 403 / 512 ->
  Rabs (sin_kernel r - sin r) <= 5 / 100000000.
Definition cos_kernel_bound_spec : Prop := forall r, is_float32 r -> Rabs r <= 403 / 512 ->
  Rabs (cos_kernel r - cos r) <= 75 / 1000000000.
Definition sin_kernel_fma_bound_spec : Prop := forall r, is_float32 r -> Rabs r <= 403 / 512 ->
  Rabs (sin_kernel_fma r - sin r) <= 5 / 100000000.
Definition cos_kernel_fma_bound_spec : Prop := forall r, is_float32 r -> Rabs r <= 403 / 512 ->
  Rabs (cos_kernel_fma r - cos r) <= 75 / 1000000000.

(** (e): the Cody-Waite reduction, both sequences, for float32 [|x| <= 10^4]. *)
Definition reduction_spec : Prop := forall x, is_float32 x -> Rabs x <= 10000 ->
  Rabs (reduce x) <= 403 / 512
  /\ Rabs (reduce x - (x - IZR (quadrant x) * (PI / 2))) <= 3 / 100000000
  /\ Rabs (reduce_fma x) <= 403 / 512
  /\ Rabs (reduce_fma x - (x - IZR (quadrant x) * (PI / 2))) <= 3 / 100000000.

(** (f): the quadrant rotation is exact. *)
Definition rotation_spec : Prop := forall k y,
  rotate k (sin y) (cos y) = (sin (y + IZR k * (PI / 2)), cos (y + IZR k * (PI / 2))).

(** (g): the whole kernel, both sequences, for float32 [|x| <= 10^4]. *)
Definition sincos_float32_spec : Prop := forall x, is_float32 x -> Rabs x <= 10000 ->
  Rabs (fst (sincos32 x) - sin x) <= 105 / 1000000000
  /\ Rabs (snd (sincos32 x) - cos x) <= 105 / 1000000000
  /\ Rabs (fst (sincos32_fma x) - sin x) <= 105 / 1000000000
  /\ Rabs (snd (sincos32_fma x) - cos x) <= 105 / 1000000000.
