(** * Statement 16: the attention identities on the sphere and on U(1) (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [lohe_identities_spec.v]: (a) for any n and any list
    of real weights, [(I - z z^T) sum_u A_u z_u = sum_u A_u (z_u - <z_u, z> z)];
    at n = 2 on the circle both sides are the Kuramoto coupling (statement 1)
    times the unit tangent; (b) on U(1), [U_t skew(U_t^H G) =
    1/2 sum_u A_u (U_u - U_t U_u^H U_t) = (sum_u A_u sin(u - t)) i U_t].

    Symbol map.  The definitions are those of [lohe_identities_spec.v] (read it
    against the library); library: [syncattn.lohe.sphere_tangent_update],
    [syncattn.lohe.sphere_coupling], [syncattn.lohe.matrix_tangent_update],
    [syncattn.lohe.matrix_coupling];
    sympy proof: [proofs/proof_lohe_identities.py].

    Proof idea: (a) linearity of [z |-> <z, x>] and induction over the list;
    (b) on U(1) complex arithmetic on pairs with [cos^2 + sin^2 = 1].

    Not formalised: (b) for U(n) / SO(n) with n > 1, where the identity uses
    only [U_t U_t^H = I] and [G^H = sum_u A_u U_u^H] (sympy, with
    noncommutative symbols, in [proofs/proof_lohe_identities.py]).

    Assumes: only the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core lohe_identities_spec.

Lemma dot_lin : forall n (x : nat -> R) a (y w : nat -> R),
  dot n x (fun i => a * y i + w i) = a * dot n x y + dot n x w.
Proof.
  intros n x a y w. unfold dot. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring.
Qed.

Lemma dot_zero : forall n x, dot n x (fun _ => 0) = 0.
Proof. intros n x. unfold dot. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.


(** (a) the sphere *)



Lemma aggregate_cons : forall a zu w,
  aggregate ((a, zu) :: w) = fun i => a * zu i + aggregate w i.
Proof. reflexivity. Qed.

Lemma sphere_identity : forall n z w i,
  tangent_update n z (aggregate w) i = lohe_coupling n z w i.
Proof.
  intros n z w i. unfold tangent_update, lohe_coupling.
  induction w as [| [a zu] w IH].
  - unfold aggregate; simpl. rewrite dot_zero. ring.
  - rewrite aggregate_cons, dot_lin.
    cbn [fold_right fst snd]. rewrite <- IH, (dot_sym n zu z). ring.
Qed.

(** (b) n = 2 *)



Lemma circle_reduction : forall t w i, (i < 2)%nat ->
  lohe_coupling 2 (circle t) (on_circle w) i = coupling t w * tangent t i.
Proof.
  intros t w i Hi. unfold lohe_coupling, coupling.
  induction w as [| [a u] w IH]; simpl; [ring|]. rewrite IH.
  unfold dot; simpl. rewrite sin_minus.
  pose proof (sin2_cos2 t) as Et. unfold Rsqr in Et.
  destruct i as [| [| i]]; simpl.
  - replace (cos u - (0 + cos u * cos t + sin u * sin t) * cos t)
      with (cos u * (1 - cos t * cos t) - sin u * sin t * cos t) by ring.
    replace (1 - cos t * cos t) with (sin t * sin t) by lra. ring.
  - replace (sin u - (0 + cos u * cos t + sin u * sin t) * sin t)
      with (sin u * (1 - sin t * sin t) - cos u * cos t * sin t) by ring.
    replace (1 - sin t * sin t) with (cos t * cos t) by lra. ring.
  - lia.
Qed.

(** (c) U(1): complex numbers as pairs (re, im) *)




Lemma cG_fst : forall w, fst (cG w) = fold_right (fun p acc => fst p * cos (snd p) + acc) 0 w.
Proof. induction w as [| [a u] w IH]; simpl; [reflexivity|]. rewrite <- IH. reflexivity. Qed.

Lemma cG_snd : forall w, snd (cG w) = fold_right (fun p acc => fst p * sin (snd p) + acc) 0 w.
Proof. induction w as [| [a u] w IH]; simpl; [reflexivity|]. rewrite <- IH. reflexivity. Qed.

Lemma u1_update : forall t w,
  matrix_update t w = cscale (coupling t w) (cmul (0, 1) (cis t)).
Proof.
  intros t w. pose proof (sin2_cos2 t) as Et. unfold Rsqr in Et.
  unfold matrix_update, skew, cmul, cconj, cadd, cscale, cis; simpl.
  assert (HK : coupling t w
               = cos t * snd (cG w) - sin t * fst (cG w)).
  { rewrite cG_fst, cG_snd. unfold coupling.
    induction w as [| [a u] w IH]; simpl; [ring|]. rewrite IH, sin_minus. ring. }
  rewrite HK. f_equal; field_simplify; nra.
Qed.

Lemma u1_term : forall t a u,
  cscale a (cadd (cis u) (cscale (-1) (cmul (cis t) (cmul (cconj (cis u)) (cis t)))))
  = cscale (2 * (a * sin (u - t))) (cmul (0, 1) (cis t)).
Proof.
  intros t a u. pose proof (sin2_cos2 t) as Et. unfold Rsqr in Et.
  unfold cscale, cadd, cmul, cconj, cis; simpl. rewrite sin_minus. f_equal.
  - apply Rminus_diag_uniq. lazymatch goal with |- ?x - ?y = 0 =>
      replace (x - y) with (a * cos u * (1 - (sin t * sin t + cos t * cos t))) by ring end.
    rewrite Et. ring.
  - apply Rminus_diag_uniq. lazymatch goal with |- ?x - ?y = 0 =>
      replace (x - y) with (a * sin u * (1 - (sin t * sin t + cos t * cos t))) by ring end.
    rewrite Et. ring.
Qed.

Lemma u1_coupling : forall t w, matrix_coupling t w = matrix_update t w.
Proof.
  intros t w. rewrite u1_update. unfold matrix_coupling.
  assert (H : forall w, fold_right (fun p acc =>
    cadd (cscale (fst p) (cadd (cis (snd p))
                               (cscale (-1) (cmul (cis t) (cmul (cconj (cis (snd p))) (cis t))))))
         acc) (0, 0) w = cscale (2 * coupling t w) (cmul (0, 1) (cis t))).
  { induction w0 as [| [a u] w0 IH]; cbn [fold_right fst snd].
    - unfold coupling, cscale; simpl. f_equal; ring.
    - rewrite IH, u1_term. unfold coupling; cbn [fold_right fst snd].
      unfold cadd, cscale; simpl. f_equal; ring. }
  rewrite H. unfold cscale; simpl. f_equal; field.
Qed.

Theorem lohe_identities : lohe_identities_spec.
Proof. exact sphere_identity. Qed.

Theorem sphere_circle : sphere_circle_spec.
Proof. intros t w i Hi. rewrite sphere_identity. apply circle_reduction. exact Hi. Qed.

Theorem u1_identity : u1_identity_spec.
Proof. intros t w. symmetry. apply u1_coupling. Qed.

Theorem u1_kuramoto : u1_kuramoto_spec.
Proof. exact u1_update. Qed.

Print Assumptions sphere_circle.
Print Assumptions u1_identity.
Print Assumptions u1_kuramoto.
Print Assumptions lohe_identities.
