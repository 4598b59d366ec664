(** * Statement 17: the Lohe matrix flow keeps U(n) (and SO(n)), and is Kuramoto on U(1)

    Informal statement.  For [U_j' = f_j = 1/2 (M_j - U_j M_j^H U_j) + W_j U_j],
    [M_j = sum_k K_jk U_k], [W_j^H = -W_j], any real [K], any [n] and [N]:
    (a) where [U_j^H U_j = I], [U_j^H f_j = skew(U_j^H (W_j U_j + M_j))] (the
        library's left-trivialised field [xi_j]), which is skew-Hermitian: the
        field is tangent to the group, and along every solution
        [d/dt (U_j^H U_j) = f_j^H U_j + U_j^H f_j = 0] at such times;
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
      [matrix_gradient.v] and [matrix_sync.v] reuse.

    Not formalised: that a solution starting in the group stays there for all
    time (uniqueness for the linear equation of [U^H U - I]); the RKMK4 integrator
    and its measured drift.

    Assumes: the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core matrix_lohe_spec.
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

Theorem gram_linear : gram_linear_spec.
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
Print Assumptions gram_linear.
Print Assumptions u1_kuramoto.
Print Assumptions u1_solution.
