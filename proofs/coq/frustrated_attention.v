(** * Statement 26: frustrated synchronisation attention

    Informal statement.  For one query t of one head, with the weights A_u of its row
    and phases th: (a) Im(e^{-i m th_t} c_m Z^m_t) summed over the harmonics is
    sum_u A_u |c_m| sin(m(th_u - th_t) + arg c_m), which in daido's convention
    c_m = a_m e^{-i alpha_m} reads sum_u A_u a_m sin(m(th_u - th_t) - alpha_m);
    (b) the delayed term is sum_{u<t} A_u |b_m| sin(m(th_u - th_t) + m delta_u + arg b_m),
    delta_u = th_{u+1} - th_u; (c) it locks at th_t = th_{u+1} + arg b / m with slope
    - m |b|; (d) M = 1, c = 1, b = 0 is Kuramoto attention's increment; (e) the fused
    one-stream path equals the plain composition; (f) the collective-mode block is the
    Daido coupling to the modes; (g) F_t reads th_0 .. th_t only.

    Symbol map.
    - library: [syncattn.kuramoto.daido_update] ([daido_upd], [upd_term]),
      [syncattn.nn.FrustratedAttention] ([frustrated_F]; its fast path [fused_F]),
      [syncattn.nn.CollectiveModes];
    - sympy proof: [proofs/proof_frustrated_attention.py] (statement 26); specification:
      [frustrated_attention_spec.v].

    Assumes: only the standard library's axioms of the real numbers. *)

Set Warnings "-ambiguous-paths".
From Syncattn Require Import Core frustrated_attention_spec.
Open Scope R_scope.

(** ** Helpers *)

Lemma sumN_minus' : forall f g n, sumN f n - sumN g n = sumN (fun k => f k - g k) n.
Proof. intros f g n. induction n as [| n IH]; simpl; [ring|]. rewrite <- IH. ring. Qed.

(** One harmonic of [daido_update] on an attention sum over keys with phases f u. *)
Lemma term_sum : forall m cr ci x (A f : nat -> R) n,
  upd_term m cr ci x (sumN (fun u => A u * cos (m * f u)) n) (sumN (fun u => A u * sin (m * f u)) n)
  = sumN (fun u => A u * (cr * sin (m * f u - m * x) + ci * cos (m * f u - m * x))) n.
Proof.
  intros m cr ci x A f n. unfold upd_term.
  rewrite <- !sumN_scal, sumN_minus'. apply sumN_ext. intros u _.
  rewrite sin_minus, cos_minus. ring.
Qed.

(** The polar form: (r cos g) sin p + (r sin g) cos p = r sin(p + g). *)
Lemma polar : forall r g p, r * cos g * sin p + r * sin g * cos p = r * sin (p + g).
Proof. intros r g p. rewrite sin_plus. ring. Qed.

Lemma polar_conj : forall r g p, r * cos g * sin p + - (r * sin g) * cos p = r * sin (p - g).
Proof. intros r g p. rewrite sin_minus. ring. Qed.

(** ** (a) *)
Theorem harmonic_identity : harmonic_identity_spec.
Proof.
  intros M r g A th t. unfold daido_upd, Zr, Zi. split; apply sumN_ext; intros k _;
    rewrite term_sum; apply sumN_ext; intros u _.
  - replace (INR (S k) * (th u - th t)) with (INR (S k) * th u - INR (S k) * th t) by ring.
    rewrite <- (polar (r k) (g k)). ring.
  - replace (INR (S k) * (th u - th t)) with (INR (S k) * th u - INR (S k) * th t) by ring.
    rewrite <- (polar_conj (r k) (g k)). ring.
Qed.

(** ** (b) *)
Theorem delay_identity : delay_identity_spec.
Proof.
  intros M r g A th t. unfold daido_upd, Wr, Wi. apply sumN_ext. intros k _.
  rewrite (term_sum _ _ _ _ A (fun u => th (S u))). apply sumN_ext. intros u _.
  replace (INR (S k) * (th u - th t) + INR (S k) * (th (S u) - th u) + g k)
    with ((INR (S k) * th (S u) - INR (S k) * th t) + g k) by ring.
  rewrite <- (polar (r k) (g k)). ring.
Qed.

(** ** (c) *)
Theorem locking : locking_spec.
Proof.
  intros m r g y Hm.
  assert (E : m * (y - (y + g / m)) + g = 0) by (field; exact Hm).
  split.
  - rewrite E, sin_0. ring.
  - auto_derive; [exact I|].
    replace (m * (y + - (y + g / m)) + g) with 0 by (rewrite <- E; ring). rewrite cos_0. ring.
Qed.

(** ** (d) *)
Theorem kuramoto_reduction : kuramoto_reduction_spec.
Proof.
  intros A th t. split.
  - unfold frustrated_F, daido_upd, upd_term. simpl sumN. simpl INR.
    replace (1 * th t) with (th t) by ring. ring.
  - unfold Zr, Zi. rewrite <- !sumN_scal, <- sumN_plus. apply sumN_ext. intros u _.
    replace (1 * th u) with (th u) by ring. rewrite sin_minus. ring.
Qed.

(** ** (e) *)
Lemma lin_r : forall (A th : nat -> R) cr ci br bi m n,
  sumN (fun u => A u * (rot_r cr ci m (th u) + rot_r br bi m (th (S u)))) n
  = cr * Zr n A m th - ci * Zi n A m th + br * Wr n A m th - bi * Wi n A m th.
Proof.
  intros A th cr ci br bi m n. unfold Zr, Zi, Wr, Wi.
  induction n as [| n IH]; simpl; [ring|]. rewrite IH. unfold rot_r. ring.
Qed.

Lemma lin_i : forall (A th : nat -> R) cr ci br bi m n,
  sumN (fun u => A u * (rot_i cr ci m (th u) + rot_i br bi m (th (S u)))) n
  = cr * Zi n A m th + ci * Zr n A m th + br * Wi n A m th + bi * Wr n A m th.
Proof.
  intros A th cr ci br bi m n. unfold Zr, Zi, Wr, Wi.
  induction n as [| n IH]; simpl; [ring|]. rewrite IH. unfold rot_i. ring.
Qed.

Lemma Zr_S : forall n A m th, Zr (S n) A m th = Zr n A m th + A n * cos (m * th n).
Proof. reflexivity. Qed.

Lemma Zi_S : forall n A m th, Zi (S n) A m th = Zi n A m th + A n * sin (m * th n).
Proof. reflexivity. Qed.

Theorem fused_path : fused_path_spec.
Proof.
  intros M cr ci br bi A th t. unfold fused_F, frustrated_F, daido_upd.
  rewrite <- sumN_plus. apply sumN_ext. intros k _.
  rewrite lin_r, lin_i, !Zr_S, !Zi_S. unfold upd_term, rot_r, rot_i. ring.
Qed.

(** ** (f) *)
Theorem modes_identity : modes_identity_spec.
Proof.
  intros M J r g A psi x. unfold daido_upd.
  rewrite (sumN_ext _ (fun k => sumN (fun j => A j * (r k * sin (INR (S k) * (psi j - x) + g k))) J)).
  - rewrite sumN_swap. apply sumN_ext. intros j _. rewrite <- sumN_scal. reflexivity.
  - intros k _. rewrite term_sum. apply sumN_ext. intros j _.
    replace (INR (S k) * (psi j - x)) with (INR (S k) * psi j - INR (S k) * x) by ring.
    rewrite <- (polar (r k) (g k)). ring.
Qed.

(** ** (g) *)
Theorem causality : causality_spec.
Proof.
  intros M cr ci br bi A th th' t H.
  assert (Ht : th t = th' t) by (apply H; lia).
  unfold frustrated_F, daido_upd, Zr, Zi, Wr, Wi. rewrite Ht.
  f_equal; apply sumN_ext; intros k _; f_equal; apply sumN_ext; intros u Hu;
    rewrite H by lia; reflexivity.
Qed.

Print Assumptions harmonic_identity.
Print Assumptions delay_identity.
Print Assumptions locking.
Print Assumptions kuramoto_reduction.
Print Assumptions fused_path.
Print Assumptions modes_identity.
Print Assumptions causality.
