(** * The attention identities on the sphere and on U(1) (the issue's item 8)

    Informal statement.
    (a) Sphere, any n: for a unit query [z] (in fact any [z]), keys [z_u] and real
        weights [A_u], with [G = sum_u A_u z_u],
            [(I - z z^T) G = sum_u A_u (z_u - <z_u, z> z)]
        (the tangent update is the Lohe coupling).
    (b) At n = 2, with [z = (cos t, sin t)] and [z_u = (cos u, sin u)], both sides
        equal [(sum_u A_u sin(u - t)) (-sin t, cos t)]: the Kuramoto coupling
        (statement 1) times the unit tangent.
    (c) U(1), complex numbers as pairs of reals: with [U_t = e^{i t}],
        [U_u = e^{i u}], [G = sum_u A_u U_u] and [skew(c) = (c - conj c)/2],
            [U_t skew(conj(U_t) G) = 1/2 sum_u A_u (U_u - U_t conj(U_u) U_t)
                                   = (sum_u A_u sin(u - t)) i U_t]:
        the matrix coupling on U(1) is the Kuramoto coupling.

    Symbol map.
    - library: [syncattn.lohe.sphere_tangent_update] and
      [syncattn.lohe.sphere_coupling] (a, b); [syncattn.lohe.matrix_tangent_update]
      and [syncattn.lohe.matrix_coupling] on 1x1 unitary matrices (c);
    - sympy proof: none yet (the identities' sympy proof belongs to the issue that
      added the layers); this file is reported as Coq-only until it lands under the
      name [proofs/proof_lohe_identities.py].
    - Vectors are [nat -> R] on coordinates [0 .. n-1]; a family is a list of
      pairs (weight, key).

    Assumes: only the standard library's axioms of the real numbers. *)

From Coq Require Import Reals List Lra Lia.
Import ListNotations.
Open Scope R_scope.

Fixpoint sumN (f : nat -> R) (n : nat) : R :=
  match n with O => 0 | S k => sumN f k + f k end.

Definition dot (n : nat) (x y : nat -> R) : R := sumN (fun i => x i * y i) n.

Lemma dot_lin : forall n (x : nat -> R) a (y w : nat -> R),
  dot n x (fun i => a * y i + w i) = a * dot n x y + dot n x w.
Proof.
  intros n x a y w. unfold dot. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring.
Qed.

Lemma dot_zero : forall n x, dot n x (fun _ => 0) = 0.
Proof. intros n x. unfold dot. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma dot_comm : forall n x y, dot n x y = dot n y x.
Proof.
  intros n x y. unfold dot. induction n as [| n IH]; simpl; [reflexivity|]. rewrite IH. ring.
Qed.

(** (a) the sphere *)
Definition aggregate (w : list (R * (nat -> R))) : nat -> R :=
  fun i => fold_right (fun p acc => fst p * snd p i + acc) 0 w.

Definition tangent_update (n : nat) (z G : nat -> R) : nat -> R :=
  fun i => G i - dot n z G * z i.

Definition lohe_coupling (n : nat) (z : nat -> R) (w : list (R * (nat -> R))) : nat -> R :=
  fun i => fold_right (fun p acc => fst p * (snd p i - dot n (snd p) z * z i) + acc) 0 w.

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
    cbn [fold_right fst snd]. rewrite <- IH, (dot_comm n zu z). ring.
Qed.

(** (b) n = 2 *)
Definition circle (t : R) : nat -> R := fun i => match i with 0%nat => cos t | _ => sin t end.
Definition tangent (t : R) : nat -> R := fun i => match i with 0%nat => - sin t | _ => cos t end.

Definition kuramoto_coupling (t : R) (w : list (R * R)) : R :=
  fold_right (fun p acc => fst p * sin (snd p - t) + acc) 0 w.

Definition on_circle (w : list (R * R)) : list (R * (nat -> R)) :=
  map (fun p => (fst p, circle (snd p))) w.

Lemma circle_reduction : forall t w i, (i < 2)%nat ->
  lohe_coupling 2 (circle t) (on_circle w) i = kuramoto_coupling t w * tangent t i.
Proof.
  intros t w i Hi. unfold lohe_coupling, kuramoto_coupling.
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
Definition cmul (x y : R * R) : R * R :=
  (fst x * fst y - snd x * snd y, fst x * snd y + snd x * fst y).
Definition cconj (x : R * R) : R * R := (fst x, - snd x).
Definition cadd (x y : R * R) : R * R := (fst x + fst y, snd x + snd y).
Definition cscale (a : R) (x : R * R) : R * R := (a * fst x, a * snd x).
Definition skew (c : R * R) : R * R := cscale (1 / 2) (cadd c (cscale (-1) (cconj c))).
Definition cis (t : R) : R * R := (cos t, sin t).

Definition cG (w : list (R * R)) : R * R :=
  fold_right (fun p acc => cadd (cscale (fst p) (cis (snd p))) acc) (0, 0) w.

Definition matrix_update (t : R) (w : list (R * R)) : R * R :=
  cmul (cis t) (skew (cmul (cconj (cis t)) (cG w))).

Definition matrix_coupling (t : R) (w : list (R * R)) : R * R :=
  cscale (1 / 2) (fold_right (fun p acc =>
    cadd (cscale (fst p) (cadd (cis (snd p))
                               (cscale (-1) (cmul (cis t) (cmul (cconj (cis (snd p))) (cis t))))))
         acc) (0, 0) w).

Lemma cG_fst : forall w, fst (cG w) = fold_right (fun p acc => fst p * cos (snd p) + acc) 0 w.
Proof. induction w as [| [a u] w IH]; simpl; [reflexivity|]. rewrite <- IH. reflexivity. Qed.

Lemma cG_snd : forall w, snd (cG w) = fold_right (fun p acc => fst p * sin (snd p) + acc) 0 w.
Proof. induction w as [| [a u] w IH]; simpl; [reflexivity|]. rewrite <- IH. reflexivity. Qed.

Lemma u1_update : forall t w,
  matrix_update t w = cscale (kuramoto_coupling t w) (cmul (0, 1) (cis t)).
Proof.
  intros t w. pose proof (sin2_cos2 t) as Et. unfold Rsqr in Et.
  unfold matrix_update, skew, cmul, cconj, cadd, cscale, cis; simpl.
  assert (HK : kuramoto_coupling t w
               = cos t * snd (cG w) - sin t * fst (cG w)).
  { rewrite cG_fst, cG_snd. unfold kuramoto_coupling.
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
         acc) (0, 0) w = cscale (2 * kuramoto_coupling t w) (cmul (0, 1) (cis t))).
  { induction w0 as [| [a u] w0 IH]; cbn [fold_right fst snd].
    - unfold kuramoto_coupling, cscale; simpl. f_equal; ring.
    - rewrite IH, u1_term. unfold kuramoto_coupling; cbn [fold_right fst snd].
      unfold cadd, cscale; simpl. f_equal; ring. }
  rewrite H. unfold cscale; simpl. f_equal; field.
Qed.

(** Main theorem. *)
Theorem lohe_identities :
  (forall n z w i, tangent_update n z (aggregate w) i = lohe_coupling n z w i)
  /\ (forall t w i, (i < 2)%nat ->
        tangent_update 2 (circle t) (aggregate (on_circle w)) i
        = kuramoto_coupling t w * tangent t i)
  /\ (forall t w, matrix_update t w = matrix_coupling t w
        /\ matrix_update t w = cscale (kuramoto_coupling t w) (cmul (0, 1) (cis t))).
Proof.
  split; [exact sphere_identity|split].
  - intros t w i Hi. rewrite sphere_identity. apply circle_reduction. exact Hi.
  - intros t w. split; [symmetry; apply u1_coupling | apply u1_update].
Qed.

Print Assumptions lohe_identities.
