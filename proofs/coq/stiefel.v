(** * Statement 27: the Kuramoto flow on St(p, n) is tangent; p = 1 (proof)

    Informal statement (the parts of the specification, proved here).
    Proves the parts of [stiefel_spec.v]: at p = 1, for every n, the Markdahl
    field [G - x <G, x>] is orthogonal to a unit [x], and it equals the
    projection field [G - x sym(x^T G)] and the Lohe sphere field
    [G - <x, G> x] for every [x]; for every n and p, wherever [X^T X = I_p],
    [X^T F + F^T X = 0] for the Markdahl field [F = G - X G^T X] and the
    projection field [F = G - X sym(X^T G)].

    Symbol map.  The definitions are those of [stiefel_spec.v] (read it against
    the library); library: [syncattn.lohe.markdahl_field],
    [syncattn.lohe.geometric_field], [syncattn.lohe.vector_field];
    sympy proof: [proofs/proof_stiefel.py].

    Proof idea: [dot] is symmetric and linear in its second argument (induction
    on n); then [<x, G - <G, x> x> = <x, G> (1 - <x, x>)].  For p > 1: for any
    [H], [X^T (X H) = H] and [(X H)^T X = H^T] when [X^T X = I] (exchange the
    double sum, select the diagonal); then [X^T M + M^T X = (X^T G - G^T X) +
    (G^T X - X^T G) = 0] and [X^T P + P^T X = 2 sym(X^T G) - 2 sym(X^T G) = 0].

    Not formalised: the relations between the two forms for p > 1 and the rate of
    the order parameter (sympy, in [proofs/proof_stiefel.py]).

    Assumes: only the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core stiefel_spec.
Open Scope R_scope.

Lemma dot_comm : forall n x y, dot n x y = dot n y x.
Proof.
  intros n x y. unfold dot. induction n as [| n IH]; simpl; [reflexivity|].
  rewrite IH. ring.
Qed.

Lemma dot_minus_scal : forall n (x G : nat -> R) c,
  dot n x (fun i => G i - x i * c) = dot n x G - c * dot n x x.
Proof.
  intros n x G c. unfold dot. induction n as [| n IH]; simpl; [ring|].
  rewrite IH. ring.
Qed.

Theorem p1_tangent : p1_tangent_spec.
Proof.
  intros n x G Hx. unfold markdahl1.
  rewrite dot_minus_scal, Hx, (dot_comm n G x). ring.
Qed.

Theorem p1_lohe : p1_lohe_spec.
Proof.
  intros n x G i. unfold markdahl1, projection1, lohe_field.
  rewrite (dot_comm n G x). split; field.
Qed.

(** p > 1 *)

Lemma sumN_mul_r : forall f c n, sumN (fun k => f k * c) n = sumN f n * c.
Proof. intros f c n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma gram_comm : forall n X Y a b, gram n X Y a b = gram n Y X b a.
Proof. intros. unfold gram. apply sumN_ext. intros k _. ring. Qed.

Lemma gram_minus_r : forall n X Z G Y, (forall i c, Z i c = G i c - Y i c) ->
  forall a b, gram n X Z a b = gram n X G a b - gram n X Y a b.
Proof.
  intros n X Z G Y HZ a b. unfold gram.
  induction n as [| n IH]; simpl; [ring|]. rewrite IH, HZ. ring.
Qed.

Lemma gram_minus_l : forall n X Z G Y, (forall i c, Z i c = G i c - Y i c) ->
  forall a b, gram n Z X a b = gram n G X a b - gram n Y X a b.
Proof.
  intros n X Z G Y HZ a b. rewrite !(gram_comm n _ X).
  apply (gram_minus_r n X Z G Y HZ).
Qed.

(** [X^T (X H) = H] on the manifold. *)
Lemma gram_XH : forall n p X h Y, orthonormal n p X ->
  (forall i c, Y i c = sumN (fun d => X i d * h d c) p) ->
  forall a b, (a < p)%nat -> gram n X Y a b = h a b.
Proof.
  intros n p X h Y HX HY a b Ha. unfold gram.
  transitivity (sumN (fun i => sumN (fun d => X i a * (X i d * h d b)) p) n).
  { apply sumN_ext. intros i _. rewrite HY, <- sumN_scal. reflexivity. }
  rewrite sumN_swap.
  transitivity (sumN (fun d => if Nat.eq_dec d a then h d b else 0) p).
  { apply sumN_ext. intros d Hd.
    transitivity (sumN (fun i => X i a * X i d) n * h d b).
    { rewrite <- sumN_mul_r. apply sumN_ext. intros i _. ring. }
    pose proof (HX a d Ha Hd) as E. unfold gram in E. rewrite E.
    destruct (Nat.eq_dec a d), (Nat.eq_dec d a); subst; try lia; ring. }
  exact (sumN_select (fun d => h d b) a p Ha).
Qed.

(** [(X H)^T X = H^T] on the manifold. *)
Lemma gram_HX : forall n p X h Y, orthonormal n p X ->
  (forall i c, Y i c = sumN (fun d => X i d * h d c) p) ->
  forall a b, (b < p)%nat -> gram n Y X a b = h b a.
Proof.
  intros n p X h Y HX HY a b Hb. rewrite gram_comm.
  exact (gram_XH n p X h Y HX HY b a Hb).
Qed.

Theorem markdahl_tangent : markdahl_tangent_spec.
Proof.
  intros n p X G HX a b Ha Hb.
  set (Y := fun i c => sumN (fun d => X i d * gram n G X d c) p).
  assert (EM : forall i c, markdahl n p X G i c = G i c - Y i c)
    by (intros; reflexivity).
  assert (EY : forall i c, Y i c = sumN (fun d => X i d * gram n G X d c) p)
    by (intros; reflexivity).
  rewrite (gram_minus_r n X _ G Y EM a b), (gram_minus_l n X _ G Y EM a b).
  rewrite (gram_XH n p X (gram n G X) Y HX EY a b Ha).
  rewrite (gram_HX n p X (gram n G X) Y HX EY a b Hb).
  rewrite (gram_comm n G X b a). ring.
Qed.

Theorem projection_tangent : projection_tangent_spec.
Proof.
  intros n p X G HX a b Ha Hb.
  set (h := fun d c => (gram n X G d c + gram n X G c d) / 2).
  set (Y := fun i c => sumN (fun d => X i d * h d c) p).
  assert (EP : forall i c, projection n p X G i c = G i c - Y i c)
    by (intros; reflexivity).
  assert (EY : forall i c, Y i c = sumN (fun d => X i d * h d c) p)
    by (intros; reflexivity).
  rewrite (gram_minus_r n X _ G Y EP a b), (gram_minus_l n X _ G Y EP a b).
  rewrite (gram_XH n p X h Y HX EY a b Ha), (gram_HX n p X h Y HX EY a b Hb).
  unfold h. rewrite (gram_comm n G X a b). field.
Qed.

Print Assumptions p1_tangent.
Print Assumptions p1_lohe.
Print Assumptions markdahl_tangent.
Print Assumptions projection_tangent.
