(** * Statement 17: the Lohe matrix flow keeps U(n) (and SO(n)), and is Kuramoto on U(1)

    Informal statement.  For [U_j' = f_j = 1/2 (M_j - U_j M_j^H U_j) + W_j U_j],
    [M_j = sum_k K_jk U_k], [W_j^H = -W_j], any real [K], any [n] and [N]:
    (a) where [U_j^H U_j = I], [U_j^H f_j = skew(U_j^H (W_j U_j + M_j))] (the
        library's left-trivialised field [xi_j]), which is skew-Hermitian: the
        field is tangent to the group, and along every solution
        [d/dt (U_j^H U_j) = f_j^H U_j + U_j^H f_j = 0] at such times; and the group
        is invariant: a solution on [[0, T]] that starts in U(n) stays in it.  The
        proof: [G_j = U_j^H U_j - I] solves [G_j' = -1/2 (G_j A_j + A_j^H G_j)] with
        [A_j = M_j^H U_j] (at every time), so [g = ||G_j||_F^2] has
        [g' <= (1 + n^2 max ||A_j||_F^2) g] on [[0, T]] (the maximum of a continuous
        function on a compact interval), and [g e^{-Ct}] does not increase (mean
        value theorem) from [g(0) = 0];
    (b) on U(1), [U_j = e^{i theta_j}], [W_j = -i H_j]: [f_j = i theta_j' U_j]
        with [theta_j' = -H_j + sum_k K_jk sin(theta_k - theta_j)], and a Kuramoto
        solution [theta(t)] gives the solution [e^{i theta(t)}] of the matrix flow.

    Symbol map.
    - library: [syncattn.lohe.matrix_vector_field] ([_field], [_pull]) is
      [lohe_field]; [syncattn.lohe._xi] (the field RKMK4 integrates) is [lohe_xi];
      [syncattn.kuramoto.vector_field] is [kuramoto];
    - sympy proof: [proofs/proof_matrix_lohe.py] (statement 17), which checks (a)
      with noncommutative symbols for 3 oscillators and (b) for 3 oscillators;
      here every [n] and [N];
    - complex matrices are pairs of reals per entry (the specification's
      [cmat]); SO(n) is the real case.  This file also proves the matrix algebra
      (associativity, adjoints, block equality [meq] as a setoid) that
      [matrix_gradient.v] and [matrix_sync.v] reuse, and the Frobenius norm
      [frob2] of [matrix_gradient_spec.v] (traces, derivatives, bounds).

    Not formalised: the RKMK4 integrator and its measured drift.

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core matrix_lohe_spec matrix_gradient_spec.
From Coq Require Import Setoid Morphisms FunctionalExtensionality.
Open Scope R_scope.

(** ** Complex numbers and complex sums *)

Lemma pair_eq : forall x y : R * R, fst x = fst y -> snd x = snd y -> x = y.
Proof. intros [x1 x2] [y1 y2]; simpl; intros -> ->; reflexivity. Qed.

Ltac ceq := apply pair_eq; cbn [fst snd cadd cmul cconj]; ring.

Lemma sumN_lin2 : forall a b (f g : nat -> R) n,
  sumN (fun k => a * f k + b * g k) n = a * sumN f n + b * sumN g n.
Proof. intros a b f g n. induction n as [| n IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma csum_ext : forall f g n, (forall k, (k < n)%nat -> f k = g k) -> csum f n = csum g n.
Proof.
  intros f g n H. unfold csum. f_equal; apply sumN_ext; intros k Hk; rewrite H; auto.
Qed.

Lemma csum_cadd : forall f g n,
  csum (fun k => cadd (f k) (g k)) n = cadd (csum f n) (csum g n).
Proof. intros f g n. unfold csum, cadd; simpl. f_equal; apply sumN_plus. Qed.

Lemma csum_scal : forall r f n,
  csum (fun k => (r * fst (f k), r * snd (f k))) n = (r * fst (csum f n), r * snd (csum f n)).
Proof. intros r f n. unfold csum; simpl. f_equal; apply sumN_scal. Qed.

Lemma csum_cmul_l : forall x f n, csum (fun k => cmul x (f k)) n = cmul x (csum f n).
Proof.
  intros x f n. unfold csum, cmul; simpl. f_equal.
  - transitivity (fst x * sumN (fun k => fst (f k)) n + (- snd x) * sumN (fun k => snd (f k)) n);
      [rewrite <- sumN_lin2; apply sumN_ext; intros; ring | ring].
  - rewrite <- (sumN_lin2 (fst x) (snd x)). apply sumN_ext; intros; ring.
Qed.

Lemma csum_cmul_r : forall x f n, csum (fun k => cmul (f k) x) n = cmul (csum f n) x.
Proof.
  intros x f n. unfold csum, cmul; simpl. f_equal.
  - transitivity (fst x * sumN (fun k => fst (f k)) n + (- snd x) * sumN (fun k => snd (f k)) n);
      [rewrite <- sumN_lin2; apply sumN_ext; intros; ring | ring].
  - transitivity (snd x * sumN (fun k => fst (f k)) n + fst x * sumN (fun k => snd (f k)) n);
      [rewrite <- sumN_lin2; apply sumN_ext; intros; ring | ring].
Qed.

Lemma csum_conj : forall f n, csum (fun k => cconj (f k)) n = cconj (csum f n).
Proof. intros f n. unfold csum, cconj; simpl. f_equal. apply sumN_opp. Qed.

Lemma csum_swap : forall (f : nat -> nat -> R * R) n m,
  csum (fun i => csum (fun j => f i j) m) n = csum (fun j => csum (fun i => f i j) n) m.
Proof. intros f n m. unfold csum; simpl. f_equal; apply sumN_swap. Qed.

Lemma csum_zero : forall n, csum (fun _ => (0, 0)) n = (0, 0).
Proof. intros n. unfold csum; simpl. rewrite sumN_zero. reflexivity. Qed.

(** ** Matrix algebra (equalities of functions) *)

Ltac ext := let a := fresh "a" in let b := fresh "b" in
  apply functional_extensionality; intros a; apply functional_extensionality; intros b.

Lemma mmul_assoc : forall n A B C, mmul n (mmul n A B) C = mmul n A (mmul n B C).
Proof.
  intros n A B C. ext. unfold mmul.
  transitivity (csum (fun c => csum (fun d => cmul (A a d) (cmul (B d c) (C c b))) n) n).
  - apply csum_ext; intros c _. rewrite <- csum_cmul_r. apply csum_ext; intros d _. ceq.
  - rewrite csum_swap. apply csum_ext; intros d _. rewrite csum_cmul_l. reflexivity.
Qed.

Lemma adj_mmul : forall n A B, adj (mmul n A B) = mmul n (adj B) (adj A).
Proof.
  intros n A B. ext. unfold adj, mmul. rewrite <- csum_conj. apply csum_ext; intros c _. ceq.
Qed.

Lemma adj_adj : forall A, adj (adj A) = A.
Proof. intros A. ext. unfold adj. ceq. Qed.

Lemma adj_madd : forall A B, adj (madd A B) = madd (adj A) (adj B).
Proof. intros A B. ext. unfold adj, madd. ceq. Qed.

Lemma adj_mscal : forall r A, adj (mscal r A) = mscal r (adj A).
Proof. intros r A. ext. unfold adj, mscal. apply pair_eq; simpl; ring. Qed.

Lemma adj_msub : forall A B, adj (msub A B) = msub (adj A) (adj B).
Proof. intros A B. unfold msub. rewrite adj_madd, adj_mscal. reflexivity. Qed.

Lemma adj_msum : forall F N, adj (msum F N) = msum (fun k => adj (F k)) N.
Proof. intros F N. ext. unfold adj, msum. rewrite <- csum_conj. reflexivity. Qed.

Lemma mmul_madd_r : forall n A B C, mmul n A (madd B C) = madd (mmul n A B) (mmul n A C).
Proof.
  intros n A B C. ext. unfold mmul, madd. rewrite <- csum_cadd. apply csum_ext; intros; ceq.
Qed.

Lemma mmul_madd_l : forall n A B C, mmul n (madd A B) C = madd (mmul n A C) (mmul n B C).
Proof.
  intros n A B C. ext. unfold mmul, madd. rewrite <- csum_cadd. apply csum_ext; intros; ceq.
Qed.

Lemma mmul_mscal_r : forall n r A B, mmul n A (mscal r B) = mscal r (mmul n A B).
Proof.
  intros n r A B. ext. unfold mmul, mscal. rewrite <- csum_scal.
  apply csum_ext; intros; apply pair_eq; simpl; ring.
Qed.

Lemma mmul_mscal_l : forall n r A B, mmul n (mscal r A) B = mscal r (mmul n A B).
Proof.
  intros n r A B. ext. unfold mmul, mscal. rewrite <- csum_scal.
  apply csum_ext; intros; apply pair_eq; simpl; ring.
Qed.

Lemma mmul_msub_r : forall n A B C, mmul n A (msub B C) = msub (mmul n A B) (mmul n A C).
Proof. intros. unfold msub. rewrite mmul_madd_r, mmul_mscal_r. reflexivity. Qed.

Lemma mmul_msub_l : forall n A B C, mmul n (msub A B) C = msub (mmul n A C) (mmul n B C).
Proof. intros. unfold msub. rewrite mmul_madd_l, mmul_mscal_l. reflexivity. Qed.

Lemma mmul_msum_r : forall n A F N, mmul n A (msum F N) = msum (fun k => mmul n A (F k)) N.
Proof.
  intros n A F N. ext. unfold mmul, msum.
  transitivity (csum (fun c => csum (fun k => cmul (A a c) (F k c b)) N) n).
  - apply csum_ext; intros. rewrite csum_cmul_l. reflexivity.
  - apply csum_swap.
Qed.

Lemma mmul_msum_l : forall n A F N, mmul n (msum F N) A = msum (fun k => mmul n (F k) A) N.
Proof.
  intros n A F N. ext. unfold mmul, msum.
  transitivity (csum (fun c => csum (fun k => cmul (F k a c) (A c b)) N) n).
  - apply csum_ext; intros. rewrite csum_cmul_r. reflexivity.
  - apply csum_swap.
Qed.

Lemma msum_mscal : forall r F N, msum (fun k => mscal r (F k)) N = mscal r (msum F N).
Proof. intros r F N. ext. unfold msum, mscal. apply csum_scal. Qed.

Lemma msum_madd : forall F G N,
  msum (fun k => madd (F k) (G k)) N = madd (msum F N) (msum G N).
Proof. intros F G N. ext. unfold msum, madd. apply csum_cadd. Qed.

Lemma msum_msub : forall F G N,
  msum (fun k => msub (F k) (G k)) N = msub (msum F N) (msum G N).
Proof.
  intros F G N. unfold msub. rewrite msum_madd, msum_mscal. reflexivity.
Qed.

Lemma msum_ext : forall F G N, (forall k, (k < N)%nat -> F k = G k) -> msum F N = msum G N.
Proof. intros F G N H. ext. unfold msum. apply csum_ext. intros k Hk. rewrite H; auto. Qed.

(** ** Equality of the n x n blocks as a setoid *)

Lemma meq_refl : forall n A, meq n A A.
Proof. intros n A a b _ _. reflexivity. Qed.
Lemma meq_sym : forall n A B, meq n A B -> meq n B A.
Proof. intros n A B H a b Ha Hb. symmetry. auto. Qed.
Lemma meq_trans : forall n A B C, meq n A B -> meq n B C -> meq n A C.
Proof. intros n A B C H1 H2 a b Ha Hb. rewrite H1; auto. Qed.

Add Parametric Relation (n : nat) : cmat (meq n)
  reflexivity proved by (meq_refl n)
  symmetry proved by (meq_sym n)
  transitivity proved by (meq_trans n) as meq_rel.

Add Parametric Morphism (n : nat) : (mmul n)
  with signature (meq n) ==> (meq n) ==> (meq n) as mmul_meq.
Proof.
  intros A A' HA B B' HB a b Ha Hb. unfold mmul. apply csum_ext. intros c Hc.
  rewrite HA, HB; auto.
Qed.

Add Parametric Morphism (n : nat) : madd
  with signature (meq n) ==> (meq n) ==> (meq n) as madd_meq.
Proof. intros A A' HA B B' HB a b Ha Hb. unfold madd. rewrite HA, HB; auto. Qed.

Add Parametric Morphism (n : nat) (r : R) : (mscal r)
  with signature (meq n) ==> (meq n) as mscal_meq.
Proof. intros A A' HA a b Ha Hb. unfold mscal. rewrite HA; auto. Qed.

Add Parametric Morphism (n : nat) : msub
  with signature (meq n) ==> (meq n) ==> (meq n) as msub_meq.
Proof. intros A A' HA B B' HB. unfold msub. rewrite HA, HB. reflexivity. Qed.

Add Parametric Morphism (n : nat) : adj
  with signature (meq n) ==> (meq n) as adj_meq.
Proof. intros A A' HA a b Ha Hb. unfold adj. rewrite HA; auto. Qed.

Add Parametric Morphism (n : nat) : skew
  with signature (meq n) ==> (meq n) as skew_meq.
Proof. intros A A' HA. unfold skew. rewrite HA. reflexivity. Qed.

Lemma mid_mmul : forall n X, meq n (mmul n mid X) X.
Proof.
  intros n X a b Ha Hb. unfold mmul, mid, csum. apply pair_eq; simpl.
  - rewrite <- (sumN_select (fun c => fst (X c b)) a n Ha). apply sumN_ext; intros c _.
    destruct (Nat.eq_dec a c), (Nat.eq_dec c a); subst; simpl; try ring; congruence.
  - rewrite <- (sumN_select (fun c => snd (X c b)) a n Ha). apply sumN_ext; intros c _.
    destruct (Nat.eq_dec a c), (Nat.eq_dec c a); subst; simpl; try ring; congruence.
Qed.

Lemma mmul_mid : forall n X, meq n (mmul n X mid) X.
Proof.
  intros n X a b Ha Hb. unfold mmul, mid, csum. apply pair_eq; simpl.
  - rewrite <- (sumN_select (fun c => fst (X a c)) b n Hb). apply sumN_ext; intros c _.
    destruct (Nat.eq_dec c b); subst; simpl; ring.
  - rewrite <- (sumN_select (fun c => snd (X a c)) b n Hb). apply sumN_ext; intros c _.
    destruct (Nat.eq_dec c b); subst; simpl; ring.
Qed.

(** Entrywise linear algebra: a block identity between linear combinations of the
    same matrices. *)
Ltac lin := let a := fresh "a" in let b := fresh "b" in
  intros a b _ _; unfold skew, msub, madd, mscal, cadd; apply pair_eq; cbn [fst snd]; field.

Lemma skew_is_skew : forall n X, skew_hermitian n (skew X).
Proof.
  intros n X. unfold skew_hermitian, skew.
  rewrite adj_mscal, adj_msub, adj_adj. lin.
Qed.

(** ** (a) tangency *)

Theorem tangent : tangent_spec.
Proof.
  intros n N K W U j HU HW. unfold skew_hermitian in HW.
  assert (H1 : meq n (mmul n (adj (U j)) (lohe_field n N K W U j)) (lohe_xi n N K W U j)).
  { unfold lohe_field, lohe_xi, skew. set (M := pull N K U j).
    rewrite mmul_madd_r, mmul_mscal_r, mmul_msub_r.
    rewrite <- (mmul_assoc n (adj (U j)) (mmul n (U j) (adj M)) (U j)).
    rewrite <- (mmul_assoc n (adj (U j)) (U j) (adj M)), HU, mid_mmul.
    rewrite mmul_madd_r, adj_madd, !adj_mmul, adj_adj, HW.
    rewrite !mmul_mscal_r, mmul_mscal_l, <- !mmul_assoc.
    lin. }
  split; [exact H1|]. unfold skew_hermitian. rewrite H1. apply skew_is_skew.
Qed.

(** ** Derivatives of matrix curves *)

Definition mderiv (n : nat) (X : R -> cmat) (t : R) (X' : cmat) : Prop :=
  forall a b, (a < n)%nat -> (b < n)%nat ->
    is_derive (fun s => fst (X s a b)) t (fst (X' a b)) /\
    is_derive (fun s => snd (X s a b)) t (snd (X' a b)).

Lemma mderiv_adj : forall n X t X', mderiv n X t X' -> mderiv n (fun s => adj (X s)) t (adj X').
Proof.
  intros n X t X' H a b Ha Hb. unfold adj, cconj; simpl.
  destruct (H b a Hb Ha) as [H1 H2]. split; [exact H1|].
  apply (is_derive_opp (fun s => snd (X s b a))). exact H2.
Qed.

Lemma is_derive_mul2 : forall (f g : R -> R) t df dg, is_derive f t df -> is_derive g t dg ->
  is_derive (fun s => f s * g s) t (df * g t + f t * dg).
Proof.
  intros f g t df dg Hf Hg. exact (is_derive_mult f g t df dg Hf Hg (fun _ _ => Rmult_comm _ _)).
Qed.
Lemma is_derive_sub : forall (f g : R -> R) t df dg, is_derive f t df -> is_derive g t dg ->
  is_derive (fun s => f s - g s) t (df - dg).
Proof. intros f g t df dg Hf Hg. exact (is_derive_minus f g t df dg Hf Hg). Qed.
Lemma is_derive_add : forall (f g : R -> R) t df dg, is_derive f t df -> is_derive g t dg ->
  is_derive (fun s => f s + g s) t (df + dg).
Proof. intros f g t df dg Hf Hg. exact (is_derive_plus f g t df dg Hf Hg). Qed.
Lemma is_derive_val : forall (f : R -> R) (t d d' : R), is_derive f t d -> d = d' -> is_derive f t d'.
Proof. intros f t d d' H <-. exact H. Qed.

Lemma mderiv_mmul : forall n X Y t X' Y',
  mderiv n X t X' -> mderiv n Y t Y' ->
  mderiv n (fun s => mmul n (X s) (Y s)) t (madd (mmul n X' (Y t)) (mmul n (X t) Y')).
Proof.
  intros n X Y t X' Y' HX HY a b Ha Hb. unfold mmul, madd, csum, cadd, cmul; cbn [fst snd].
  rewrite <- !sumN_plus. split; apply is_derive_sumN; intros c Hc;
    destruct (HX a c Ha Hc) as [X1 X2]; destruct (HY c b Hc Hb) as [Y1 Y2].
  - eapply is_derive_val.
    + apply is_derive_sub; apply is_derive_mul2; eassumption.
    + cbv beta. ring.
  - eapply is_derive_val.
    + apply is_derive_add; apply is_derive_mul2; eassumption.
    + cbv beta. ring.
Qed.

Lemma mderiv_meq : forall n X t X' Y', mderiv n X t X' -> meq n X' Y' -> mderiv n X t Y'.
Proof. intros n X t X' Y' H E a b Ha Hb. rewrite <- (E a b Ha Hb). auto. Qed.

Lemma mderiv_ext : forall n X Y t X', (forall s, meq n (X s) (Y s)) -> mderiv n X t X' ->
  mderiv n Y t X'.
Proof.
  intros n X Y t X' E H a b Ha Hb. destruct (H a b Ha Hb) as [H1 H2].
  split; [eapply is_derive_ext; [|exact H1] | eapply is_derive_ext; [|exact H2]];
    intros s; cbv beta; rewrite (E s a b Ha Hb); reflexivity.
Qed.

Lemma mderiv_const : forall n A t, mderiv n (fun _ => A) t (fun _ _ => (0, 0)).
Proof. intros n A t a b _ _. cbn [fst snd]. split; apply (is_derive_const (V := R_NormedModule)). Qed.

Lemma mderiv_madd : forall n X Y t X' Y', mderiv n X t X' -> mderiv n Y t Y' ->
  mderiv n (fun s => madd (X s) (Y s)) t (madd X' Y').
Proof.
  intros n X Y t X' Y' HX HY a b Ha Hb. unfold madd, cadd; cbn [fst snd].
  destruct (HX a b Ha Hb), (HY a b Ha Hb). split; apply is_derive_add; assumption.
Qed.

Lemma mderiv_mscal : forall n r X t X', mderiv n X t X' ->
  mderiv n (fun s => mscal r (X s)) t (mscal r X').
Proof.
  intros n r X t X' HX a b Ha Hb. unfold mscal; cbn [fst snd].
  destruct (HX a b Ha Hb) as [H1 H2].
  split; eapply is_derive_val; [apply (is_derive_scal (fun s => fst (X s a b))); exact H1
    | unfold scal; simpl; unfold mult; simpl; ring
    | apply (is_derive_scal (fun s => snd (X s a b))); exact H2
    | unfold scal; simpl; unfold mult; simpl; ring].
Qed.

Lemma mderiv_msub : forall n X Y t X' Y', mderiv n X t X' -> mderiv n Y t Y' ->
  mderiv n (fun s => msub (X s) (Y s)) t (msub X' Y').
Proof. intros. unfold msub. apply mderiv_madd; [|apply mderiv_mscal]; assumption. Qed.

Lemma mderiv_msum : forall n N F t F', (forall k, (k < N)%nat -> mderiv n (fun s => F s k) t (F' k)) ->
  mderiv n (fun s => msum (F s) N) t (msum F' N).
Proof.
  intros n N F t F' H a b Ha Hb. unfold msum, csum; cbn [fst snd].
  split; apply (is_derive_sumN (fun k s => _ (F s k a b))); intros k Hk;
    destruct (H k Hk a b Ha Hb); assumption.
Qed.

Lemma has_deriv_mderiv : forall n X t X', has_deriv n X t X' <-> mderiv n X t X'.
Proof.
  intros n X t X'. split; intros H a b Ha Hb; destruct (H a b Ha Hb) as [H1 H2];
    split; apply is_derive_Reals; assumption.
Qed.

Lemma solves_mderiv : forall n N K W U t j, solves n N K W U t -> (j < N)%nat ->
  mderiv n (fun s => U s j) t (lohe_field n N K W (U t) j).
Proof. intros n N K W U t j H Hj. apply has_deriv_mderiv, H, Hj. Qed.

(** ** (a) d/dt (U^H U) = 0 on the group *)

Theorem gram_stationary : gram_stationary_spec.
Proof.
  intros n N K W U t j Hs Hj HU HW a b Ha Hb.
  pose proof (mderiv_mmul n _ _ t _ _ (mderiv_adj n _ t _ (solves_mderiv n N K W U t j Hs Hj))
                (solves_mderiv n N K W U t j Hs Hj)) as HD.
  destruct (tangent n N K W (U t) j HU HW) as [_ Hsk].
  assert (Z : meq n (madd (mmul n (adj (lohe_field n N K W (U t) j)) (U t j))
                          (mmul n (adj (U t j)) (lohe_field n N K W (U t) j)))
                    (fun _ _ => (0, 0))).
  { rewrite <- (adj_adj (U t j)) at 1. rewrite <- adj_mmul.
    unfold skew_hermitian in Hsk. rewrite Hsk. lin. }
  destruct (HD a b Ha Hb) as [D1 D2]. rewrite (Z a b Ha Hb) in D1, D2.
  split; apply is_derive_Reals; assumption.
Qed.

(** ** (a) the linear equation of U^H U - I *)

(** Along every solution, at every time (on the group or off it), with [W_j]
    skew-Hermitian: [G_j = U_j^H U_j - I] solves the linear equation
    [G_j' = -1/2 (G_j A_j + A_j^H G_j)], [A_j = M_j^H U_j]. *)
Definition gram_defect (n : nat) (X : cmat) : cmat := msub (mmul n (adj X) X) mid.

Lemma gram_linear : forall n N K W (U : R -> nat -> cmat) t j,
    solves n N K W U t -> (j < N)%nat -> skew_hermitian n (W j) ->
    has_deriv n (fun s => gram_defect n (U s j)) t
      (mscal (- (1 / 2))
         (madd (mmul n (gram_defect n (U t j)) (mmul n (adj (pull N K (U t) j)) (U t j)))
               (mmul n (adj (mmul n (adj (pull N K (U t) j)) (U t j))) (gram_defect n (U t j))))).
Proof.
  intros n N K W U t j Hs Hj HW. apply has_deriv_mderiv. unfold gram_defect.
  eapply mderiv_meq.
  - apply mderiv_msub; [|apply mderiv_const].
    apply mderiv_mmul; [apply mderiv_adj|]; apply (solves_mderiv n N K W); assumption.
  - unfold skew_hermitian in HW. unfold lohe_field. set (M := pull N K (U t) j).
    set (V := U t j).
    rewrite !adj_madd, !adj_mscal, !adj_msub, !adj_mmul, !adj_adj, HW.
    repeat progress (rewrite ?mmul_madd_l, ?mmul_madd_r, ?mmul_mscal_l, ?mmul_mscal_r,
      ?mmul_msub_l, ?mmul_msub_r, ?mmul_assoc).
    rewrite mid_mmul, mmul_mid.
    lin.
Qed.

(** ** Traces and Frobenius norms *)

Add Parametric Morphism (n : nat) : (trace n)
  with signature (meq n) ==> eq as trace_meq.
Proof. intros A B H. unfold trace. apply csum_ext. intros a Ha. apply H; auto. Qed.

Lemma trace_madd : forall n A B, trace n (madd A B) = cadd (trace n A) (trace n B).
Proof. intros. unfold trace, madd. apply csum_cadd. Qed.

Lemma trace_mscal : forall n r A,
  trace n (mscal r A) = (r * fst (trace n A), r * snd (trace n A)).
Proof. intros. unfold trace, mscal. apply csum_scal. Qed.

Lemma trace_cyclic : forall n A B, trace n (mmul n A B) = trace n (mmul n B A).
Proof.
  intros n A B. unfold trace, mmul. rewrite csum_swap. apply csum_ext; intros a _.
  apply csum_ext; intros c _. ceq.
Qed.

Lemma trace_adj : forall n A, trace n (adj A) = cconj (trace n A).
Proof. intros. unfold trace, adj. apply csum_conj. Qed.

Lemma re_trace_skew : forall n Y, skew_hermitian n Y -> fst (trace n Y) = 0.
Proof.
  intros n Y H. unfold skew_hermitian in H. pose proof (trace_adj n Y) as E.
  rewrite H, trace_mscal in E. apply (f_equal fst) in E. unfold cconj in E.
  cbn [fst snd] in E. lra.
Qed.

Lemma re_trace_skew_herm : forall n A B, skew_hermitian n A -> meq n (adj B) B ->
  fst (trace n (mmul n A B)) = 0.
Proof.
  intros n A B HA HB. unfold skew_hermitian in HA.
  pose proof (trace_adj n (mmul n A B)) as E.
  rewrite adj_mmul, HA, HB, mmul_mscal_r, trace_mscal, trace_cyclic in E.
  apply (f_equal fst) in E. unfold cconj in E. cbn [fst snd] in E. lra.
Qed.

Lemma frob2_trace : forall n X, frob2 n X = fst (trace n (mmul n (adj X) X)).
Proof.
  intros n X. unfold frob2, trace, mmul, csum, adj, cmul, cconj; cbn [fst snd].
  rewrite sumN_swap. apply sumN_ext; intros a _. apply sumN_ext; intros b _. simpl. ring.
Qed.

Lemma frob2_nonneg : forall n X, 0 <= frob2 n X.
Proof.
  intros n X. unfold frob2. apply sumN_nonneg; intros a _. apply sumN_nonneg; intros b _.
  apply Rplus_le_le_0_compat; apply pow2_ge_0.
Qed.

Lemma sumN_nonneg_zero : forall f n, (forall k, (k < n)%nat -> 0 <= f k) ->
  sumN f n = 0 -> forall k, (k < n)%nat -> f k = 0.
Proof.
  intros f n H E k Hk. destruct (Rle_lt_or_eq_dec 0 (f k) (H k Hk)) as [P | P]; [|auto].
  exfalso. pose proof (sumN_pos f n H (ex_intro _ k (conj Hk P))). lra.
Qed.

Lemma frob2_zero : forall n X, frob2 n X = 0 -> meq n X zero.
Proof.
  intros n X H a b Ha Hb. unfold frob2 in H.
  assert (P : forall a b, 0 <= fst (X a b) ^ 2 + snd (X a b) ^ 2)
    by (intros; apply Rplus_le_le_0_compat; apply pow2_ge_0).
  assert (Ha' := sumN_nonneg_zero _ n (fun a _ => sumN_nonneg _ n (fun b _ => P a b)) H a Ha).
  assert (Hb' := sumN_nonneg_zero _ n (fun b _ => P a b) Ha' b Hb). cbv beta in Hb'.
  pose proof (pow2_ge_0 (fst (X a b))). pose proof (pow2_ge_0 (snd (X a b))).
  unfold zero. apply pair_eq; simpl; apply Rsqr_0_uniq; unfold Rsqr; simpl in *; nra.
Qed.

Lemma frob2_meq : forall n X Y, meq n X Y -> frob2 n X = frob2 n Y.
Proof. intros n X Y H. rewrite !frob2_trace, H. reflexivity. Qed.

(** ** Derivatives of Frobenius norms along curves *)

Lemma frob2_deriv : forall n X t X', mderiv n X t X' ->
  is_derive (fun s => frob2 n (X s)) t (2 * fst (trace n (mmul n (adj (X t)) X'))).
Proof.
  intros n X t X' H. unfold frob2. eapply is_derive_val.
  - apply (is_derive_sumN (fun a s => sumN (fun b => fst (X s a b) ^ 2 + snd (X s a b) ^ 2) n)).
    intros a Ha.
    apply (is_derive_sumN (fun b s => fst (X s a b) ^ 2 + snd (X s a b) ^ 2)).
    intros b Hb. destruct (H a b Ha Hb) as [H1 H2].
    apply (is_derive_ext (fun s => fst (X s a b) * fst (X s a b) + snd (X s a b) * snd (X s a b)));
      [intros s; simpl; ring|].
    eapply is_derive_val; [apply is_derive_add; apply is_derive_mul2;
      [exact H1 | exact H1 | exact H2 | exact H2]|].
    reflexivity.
  - cbv beta. unfold trace, mmul, csum, adj, cmul, cconj; cbn [fst snd].
    rewrite <- sumN_scal, sumN_swap. apply sumN_ext; intros a _.
    rewrite <- sumN_scal. apply sumN_ext; intros b _. simpl. ring.
Qed.

Lemma mderiv_frob2 : forall n X t X', mderiv n X t X' ->
  derivable_pt_lim (fun s => frob2 n (X s)) t (2 * fst (trace n (mmul n (adj (X t)) X'))).
Proof. intros. apply is_derive_Reals, frob2_deriv. assumption. Qed.

(** Real parts of traces. *)

Lemma re_tr_madd : forall n A B, fst (trace n (madd A B)) = fst (trace n A) + fst (trace n B).
Proof. intros. rewrite trace_madd. reflexivity. Qed.
Lemma re_tr_mscal : forall n r A, fst (trace n (mscal r A)) = r * fst (trace n A).
Proof. intros. rewrite trace_mscal. reflexivity. Qed.
Lemma re_tr_msub : forall n A B, fst (trace n (msub A B)) = fst (trace n A) - fst (trace n B).
Proof. intros. unfold msub. rewrite re_tr_madd, re_tr_mscal. ring. Qed.
Lemma re_tr_adj : forall n A, fst (trace n (adj A)) = fst (trace n A).
Proof. intros. rewrite trace_adj. reflexivity. Qed.
Lemma re_tr_msum : forall n F N, fst (trace n (msum F N)) = sumN (fun j => fst (trace n (F j))) N.
Proof. intros. unfold trace, msum, csum; cbn [fst]. apply sumN_swap. Qed.

(** ** (a) invariance of the group: a Gronwall argument on ||U^H U - I||_F^2 *)

Lemma sumN_const : forall c n, sumN (fun _ => c) n = INR n * c.
Proof. intros c n. induction n as [| n IH]; simpl sumN; [simpl; ring|]. rewrite IH, S_INR. ring. Qed.

Lemma sumN_sq_le : forall f n, sumN f n ^ 2 <= INR n * sumN (fun k => f k ^ 2) n.
Proof.
  intros f n. induction n as [| n IH]; [simpl; lra|].
  replace (sumN f (Datatypes.S n)) with (sumN f n + f n) by reflexivity.
  replace (sumN (fun k => f k ^ 2) (Datatypes.S n)) with (sumN (fun k => f k ^ 2) n + f n ^ 2)
    by reflexivity.
  rewrite S_INR. set (x := f n). set (S := sumN f n) in *. set (Q := sumN (fun k => f k ^ 2) n) in *.
  assert (HQ : 0 <= Q) by (apply sumN_nonneg; intros; apply pow2_ge_0).
  destruct n as [| m].
  - unfold S, Q. simpl. nra.
  - assert (Hn : 0 < INR (Datatypes.S m)) by (apply lt_0_INR; lia).
    pose proof (pow2_ge_0 (S - INR (Datatypes.S m) * x)) as P.
    assert (H2 : INR (Datatypes.S m) * (2 * S * x) <= INR (Datatypes.S m) * (Q + INR (Datatypes.S m) * x ^ 2)) by nra.
    apply Rmult_le_reg_l in H2; [|exact Hn]. nra.
Qed.

Lemma sumN_term_le : forall f n m, (forall k, (k < n)%nat -> 0 <= f k) -> (m < n)%nat ->
  f m <= sumN f n.
Proof.
  intros f n m. induction n as [| n IH]; simpl; intros H Hm; [lia|].
  destruct (Nat.eq_dec m n) as [-> | Hne].
  - pose proof (sumN_nonneg f n (fun k Hk => H k ltac:(lia))). lra.
  - pose proof (H n ltac:(lia)). pose proof (IH (fun k Hk => H k ltac:(lia)) ltac:(lia)). lra.
Qed.

Lemma entry_le_frob2 : forall n X a b, (a < n)%nat -> (b < n)%nat ->
  fst (X a b) ^ 2 + snd (X a b) ^ 2 <= frob2 n X.
Proof.
  intros n X a b Ha Hb. unfold frob2.
  assert (P : forall a b, 0 <= fst (X a b) ^ 2 + snd (X a b) ^ 2)
    by (intros; apply Rplus_le_le_0_compat; apply pow2_ge_0).
  eapply Rle_trans; [|apply (sumN_term_le (fun a => sumN (fun b => _) n) n a); [|exact Ha]].
  - apply (sumN_term_le (fun b => fst (X a b) ^ 2 + snd (X a b) ^ 2) n b); [|exact Hb].
    intros; apply P.
  - intros; apply sumN_nonneg; intros; apply P.
Qed.

Lemma frob2_adj : forall n X, frob2 n (adj X) = frob2 n X.
Proof.
  intros. unfold frob2, adj, cconj; cbn [fst snd]. rewrite sumN_swap.
  apply sumN_ext; intros; apply sumN_ext; intros; ring.
Qed.

Lemma frob2_mmul_le : forall n X Y B, 0 <= B ->
  (forall c b, (c < n)%nat -> (b < n)%nat -> fst (Y c b) ^ 2 + snd (Y c b) ^ 2 <= B) ->
  frob2 n (mmul n X Y) <= INR n * INR n * B * frob2 n X.
Proof.
  intros n X Y B HB HY. unfold frob2 at 1.
  apply Rle_trans with (sumN (fun a => sumN (fun b =>
    INR n * B * sumN (fun c => fst (X a c) ^ 2 + snd (X a c) ^ 2) n) n) n).
  - apply sumN_le; intros a Ha. apply sumN_le; intros b Hb.
    unfold mmul, csum, cmul; cbn [fst snd].
    pose proof (sumN_sq_le (fun c => fst (X a c) * fst (Y c b) - snd (X a c) * snd (Y c b)) n) as E1.
    pose proof (sumN_sq_le (fun c => fst (X a c) * snd (Y c b) + snd (X a c) * fst (Y c b)) n) as E2.
    eapply Rle_trans; [apply Rplus_le_compat; [exact E1 | exact E2]|].
    replace (INR n * B * sumN (fun c => fst (X a c) ^ 2 + snd (X a c) ^ 2) n)
      with (INR n * sumN (fun c => B * (fst (X a c) ^ 2 + snd (X a c) ^ 2)) n)
      by (rewrite sumN_scal; ring).
    rewrite <- Rmult_plus_distr_l, <- sumN_plus. apply Rmult_le_compat_l; [apply pos_INR|].
    apply sumN_le; intros c Hc. specialize (HY c b Hc Hb).
    assert (0 <= fst (X a c) ^ 2 + snd (X a c) ^ 2)
      by (apply Rplus_le_le_0_compat; apply pow2_ge_0).
    replace ((fst (X a c) * fst (Y c b) - snd (X a c) * snd (Y c b)) ^ 2 +
             (fst (X a c) * snd (Y c b) + snd (X a c) * fst (Y c b)) ^ 2)
      with ((fst (X a c) ^ 2 + snd (X a c) ^ 2) * (fst (Y c b) ^ 2 + snd (Y c b) ^ 2)) by ring.
    rewrite (Rmult_comm B). apply Rmult_le_compat_l; assumption.
  - apply Req_le. unfold frob2.
    rewrite (sumN_ext _ (fun a => INR n * (INR n * B * sumN (fun c => fst (X a c) ^ 2 + snd (X a c) ^ 2) n)))
      by (intros; apply sumN_const).
    rewrite sumN_scal, sumN_scal. ring.
Qed.

Lemma neg_re_tr_le : forall n P Q,
  - fst (trace n (mmul n (adj P) Q)) <= (frob2 n P + frob2 n Q) / 2.
Proof.
  intros. unfold frob2, trace, mmul, csum, adj, cmul, cconj; cbn [fst snd].
  rewrite sumN_swap.
  apply Rle_trans with (sumN (fun c => sumN (fun a =>
     /2 * (fst (P c a) ^ 2 + snd (P c a) ^ 2) + /2 * (fst (Q c a) ^ 2 + snd (Q c a) ^ 2)) n) n).
  - rewrite <- sumN_opp. apply sumN_le; intros c _. rewrite <- sumN_opp. apply sumN_le; intros a _.
    pose proof (pow2_ge_0 (fst (P c a) + fst (Q c a))).
    pose proof (pow2_ge_0 (snd (P c a) + snd (Q c a))). nra.
  - apply Req_le.
    rewrite (sumN_ext _ (fun c => /2 * sumN (fun a => fst (P c a) ^ 2 + snd (P c a) ^ 2) n
                                + /2 * sumN (fun a => fst (Q c a) ^ 2 + snd (Q c a) ^ 2) n)).
    + rewrite sumN_plus, !sumN_scal. field.
    + intros c _. rewrite <- !sumN_scal, <- sumN_plus. reflexivity.
Qed.

Lemma frob2_zero_meq : forall n X, meq n X (fun _ _ => (0, 0)) -> frob2 n X = 0.
Proof.
  intros n X H. unfold frob2. rewrite (sumN_ext _ (fun _ => 0)); [apply sumN_zero|].
  intros a Ha. rewrite (sumN_ext _ (fun _ => 0)); [apply sumN_zero|].
  intros b Hb. rewrite (H a b Ha Hb). simpl. ring.
Qed.

Lemma mderiv_pull : forall n N K W U t j, solves n N K W U t ->
  exists P', mderiv n (fun s => pull N K (U s) j) t P'.
Proof.
  intros n N K W U t j Hs. eexists. unfold pull.
  apply (mderiv_msum n N (fun s k => mscal (K j k) (U s k))). intros k Hk.
  apply mderiv_mscal. apply (solves_mderiv n N K W); assumption.
Qed.

Theorem group_invariant : group_invariant_spec.
Proof.
  intros n N K W U T HW Hs H0 t j Ht Hj.
  set (A := fun s => mmul n (adj (pull N K (U s) j)) (U s j)).
  set (G := fun s => gram_defect n (U s j)).
  set (g := fun s => frob2 n (G s)).
  (* A is differentiable, so ||A||_F^2 is bounded on [0, T] *)
  assert (DA : forall s, 0 <= s <= T -> exists A', mderiv n A s A').
  { intros s Hs'. destruct (mderiv_pull n N K W U s j (Hs s Hs')) as [P' HP]. eexists.
    apply mderiv_mmul; [apply mderiv_adj; exact HP|].
    apply (solves_mderiv n N K W); [apply Hs|]; assumption. }
  assert (Hc : forall s, 0 <= s <= T -> continuity_pt (fun s => frob2 n (A s)) s).
  { intros s Hs'. destruct (DA s Hs') as [A' HA']. apply derivable_continuous_pt.
    exists (2 * fst (trace n (mmul n (adj (A s)) A'))). apply is_derive_Reals.
    apply frob2_deriv. exact HA'. }
  destruct (continuity_ab_maj (fun s => frob2 n (A s)) 0 T ltac:(lra) Hc) as [Mx [HMx _]].
  set (B := frob2 n (A Mx)).
  assert (HB : 0 <= B) by apply frob2_nonneg.
  set (C := 1 + INR n * INR n * B).
  (* the derivative of g and its bound g' <= C g *)
  set (g' := fun s => 2 * fst (trace n (mmul n (adj (G s))
      (mscal (- (1 / 2)) (madd (mmul n (G s) (A s)) (mmul n (adj (A s)) (G s))))))).
  assert (Dg : forall s, 0 <= s <= T -> is_derive g s (g' s)).
  { intros s Hs'. apply frob2_deriv. apply has_deriv_mderiv.
    apply (gram_linear n N K W U s j (Hs s Hs') Hj (HW j Hj)). }
  assert (Bg : forall s, 0 <= s <= T -> g' s <= C * g s).
  { intros s Hs'. unfold g', g, C.
    rewrite mmul_mscal_r, re_tr_mscal, mmul_madd_r, re_tr_madd.
    assert (Ent : forall c b, (c < n)%nat -> (b < n)%nat ->
              fst (A s c b) ^ 2 + snd (A s c b) ^ 2 <= B).
    { intros c b Hc' Hb'. eapply Rle_trans; [apply (entry_le_frob2 n); assumption|]. apply HMx, Hs'. }
    pose proof (neg_re_tr_le n (G s) (mmul n (G s) (A s))) as T1.
    pose proof (neg_re_tr_le n (G s) (mmul n (adj (A s)) (G s))) as T2.
    pose proof (frob2_mmul_le n (G s) (A s) B HB Ent) as F1.
    assert (F2 : frob2 n (mmul n (adj (A s)) (G s)) <= INR n * INR n * B * frob2 n (G s)).
    { rewrite <- (adj_adj (G s)) at 1. rewrite <- adj_mmul, frob2_adj.
      rewrite <- (frob2_adj n (G s)). apply frob2_mmul_le; assumption. }
    lra. }
  (* the integrating factor *)
  set (h := fun s => g s * exp (- C * s)).
  set (h' := fun s => g' s * exp (- C * s) + g s * (- C * exp (- C * s))).
  assert (Dh : forall s, 0 <= s <= T -> derivable_pt_lim h s (h' s)).
  { intros s Hs'. apply is_derive_Reals. unfold h, h'.
    apply (is_derive_mul2 g (fun s => exp (- C * s))); [apply Dg, Hs'|]. auto_derive; [exact I | ring]. }
  assert (Hh0 : h 0 = 0).
  { unfold h, g, G, gram_defect. rewrite frob2_zero_meq; [ring|].
    rewrite (H0 j Hj). intros a b _ _. unfold msub, madd, mscal, cadd. apply pair_eq; simpl; ring. }
  assert (Hgt : g t = 0).
  { assert (Hg0 : 0 <= g t) by apply frob2_nonneg.
    assert (Ht0 : h t <= 0).
    { destruct (Req_dec t 0) as [-> | Hne]; [lra|].
      destruct (MVT_cor2 h h' 0 t ltac:(lra) (fun c Hc' => Dh c ltac:(lra))) as [c [E Hc']].
      rewrite Hh0 in E. assert (h' c <= 0).
      { unfold h'. pose proof (exp_pos (- C * c)). pose proof (Bg c ltac:(lra)). nra. }
      nra. }
    unfold h in Ht0. pose proof (exp_pos (- C * t)). nra. }
  pose proof (frob2_zero n (G t) Hgt) as Z. intros a b Ha Hb. specialize (Z a b Ha Hb).
  unfold G, gram_defect, msub, madd, mscal, cadd, zero in Z.
  apply pair_eq; [apply (f_equal fst) in Z | apply (f_equal snd) in Z]; simpl in Z; simpl; lra.
Qed.

(** ** (b) U(1) *)

Lemma u1_sums : forall N K (th : nat -> R) j,
  sumN (fun k => K j k * sin (th k - th j)) N
  = cos (th j) * sumN (fun k => K j k * sin (th k)) N
    - sin (th j) * sumN (fun k => K j k * cos (th k)) N.
Proof.
  intros N K th j.
  transitivity (cos (th j) * sumN (fun k => K j k * sin (th k)) N
                + (- sin (th j)) * sumN (fun k => K j k * cos (th k)) N); [|ring].
  rewrite <- sumN_lin2. apply sumN_ext; intros k _. rewrite sin_minus. ring.
Qed.

Lemma mod_circle : forall c s x y z, s * s + c * c = 1 -> x - y = z * (1 - (s * s + c * c)) -> x = y.
Proof. intros c s x y z P E. rewrite P in E. lra. Qed.

Theorem u1_kuramoto : u1_kuramoto_spec.
Proof.
  intros N K H th j. unfold kuramoto. rewrite u1_sums.
  unfold lohe_field, pull, msum, mmul, msub, madd, mscal, adj, drift, phasor, csum,
    cadd, cmul, cconj.
  cbn [sumN fst snd]. set (C := sumN (fun k => K j k * cos (th k)) N).
  set (S := sumN (fun k => K j k * sin (th k)) N).
  pose proof (sin2_cos2 (th j)) as P. unfold Rsqr in P.
  apply pair_eq; cbn [fst snd].
  - apply (mod_circle (cos (th j)) (sin (th j)) _ _ (C / 2) P). field.
  - apply (mod_circle (cos (th j)) (sin (th j)) _ _ (S / 2) P). field.
Qed.

Theorem u1_solution : u1_solution_spec.
Proof.
  intros N K H th t Hth j Hj a b Ha Hb.
  assert (a = 0%nat) by lia. assert (b = 0%nat) by lia. subst a b.
  pose proof (u1_kuramoto N K H (th t) j) as E. cbv beta. rewrite E.
  pose proof (proj2 (is_derive_Reals _ _ _) (Hth j Hj)) as D.
  unfold phasor; cbn [fst snd cmul]. split; apply is_derive_Reals; eapply is_derive_val.
  - apply (is_derive_comp cos (fun s => th s j)); [apply is_derive_cos | exact D].
  - unfold scal; simpl; unfold mult; simpl. ring.
  - apply (is_derive_comp sin (fun s => th s j)); [apply is_derive_sin | exact D].
  - unfold scal; simpl; unfold mult; simpl. ring.
Qed.

Print Assumptions tangent.
Print Assumptions gram_stationary.
Print Assumptions group_invariant.
Print Assumptions u1_kuramoto.
Print Assumptions u1_solution.
