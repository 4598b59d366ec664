(** * The shared definitions of every specification (pinned)

    Every [<statement>_spec.v] imports this file.  It holds definitions only (no
    lemma, no proof), each one mirroring a formula of the library, so that a
    reader can check it against the Python source once:

    - [sumN f n = f 0 + ... + f (n-1)]: a finite sum over oscillator indices;
    - [dot n x y = sum_i x_i y_i], [norm n x = sqrt (dot n x x)]: vectors of R^n
      as functions [nat -> R] read on [0 .. n-1];
    - [re_G w], [im_G w]: the real and imaginary parts of
      [G = sum_u A_u e^{i theta_u}] for a family [w] of pairs [(A_u, theta_u)]
      ([syncattn.kuramoto.tangent_update]);
    - [coupling th w = sum_u A_u sin(theta_u - th)]
      ([syncattn.kuramoto.coupling_term]);
    - [angle a phi0 t = 2 atan(tan(phi0/2) e^{-a t})]: the angle to the drive of
      the fixed-query Lohe flow ([syncattn.lohe.exact_solution]).

    Its SHA-256 is pinned in [proofs/_parts.py] ([CORE_SPEC_SHA256]): a change
    fails [syncattn verify --coq] until a reviewer updates the pin. *)

From Coq Require Export Reals List Lra Lia.
Export ListNotations.
Open Scope R_scope.

Fixpoint sumN (f : nat -> R) (n : nat) : R :=
  match n with O => 0 | S k => sumN f k + f k end.

Definition dot (n : nat) (x y : nat -> R) : R := sumN (fun i => x i * y i) n.
Definition norm (n : nat) (x : nat -> R) : R := sqrt (dot n x x).

Definition re_G (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * cos (snd p) + acc) 0 w.
Definition im_G (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * sin (snd p) + acc) 0 w.
Definition coupling (th : R) (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * sin (snd p - th) + acc) 0 w.

Definition angle (a phi0 t : R) : R := 2 * atan (tan (phi0 / 2) * exp (- a * t)).
