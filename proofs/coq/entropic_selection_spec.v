(** * Statement 3 (specification): entropic selection

    Informal statement.  For scores [s in R^n] (any n >= 1) and a temperature
    [tau > 0], the objective [f(a) = sum_i a_i s_i + tau H(a)],
    [H(a) = - sum_i a_i ln a_i] (with [0 ln 0 = 0]), satisfies on the
    probability simplex (a) [f(a) <= tau ln Z], [Z = sum_j exp(s_j / tau)],
    (b) with equality iff [a = a* = softmax(s / tau)], [a*_i = exp(s_i / tau) / Z]
    (the unique maximiser); (c) [a*] lies in the open simplex; (d) the maximum
    [f] at [a*], [tau ln Z] (tau logsumexp(s / tau)) is attained.

    Symbol map.
    - a point of the simplex together with the scores is a list [l] of pairs
      [(a_i, s_i)]; [sumR] sums a list;
    - [softmax_i tau Z s_i]: [syncattn.entropic.gibbs] (the i-th weight),
      [softmax_list tau l] the list [(a*_i, s_i)];
    - [objective tau l]: [syncattn.entropic.objective]; Coq's [ln] is 0 on
      [x <= 0], so [a_i ln a_i = 0] at [a_i = 0], the convention of the entropy.
    Proofs: [entropic_selection.v]; sympy: [proofs/proof_entropic_selection.py]. *)

From Syncattn Require Import CoreSpec.

Definition sumR (l : list R) : R := fold_right Rplus 0 l.

(** [Z = sum_j exp(s_j / tau)]. *)
Definition partition (tau : R) (l : list (R * R)) : R :=
  sumR (map (fun p => exp (snd p / tau)) l).

(** [syncattn.entropic.gibbs]: [a*_i = exp(s_i / tau) / Z]. *)
Definition softmax_i (tau Z s : R) : R := exp (s / tau) / Z.

Definition softmax_list (tau : R) (l : list (R * R)) : list (R * R) :=
  map (fun p => (softmax_i tau (partition tau l) (snd p), snd p)) l.

(** [syncattn.entropic.objective]: [sum_i (a_i s_i - tau a_i ln a_i)]. *)
Definition objective (tau : R) (l : list (R * R)) : R :=
  sumR (map (fun p => fst p * snd p - tau * (fst p * ln (fst p))) l).

Definition in_simplex (l : list (R * R)) : Prop :=
  (forall p, In p l -> 0 <= fst p) /\ sumR (map fst l) = 1.

(** (a) The objective is at most [tau ln Z] on the simplex. *)
Definition entropic_bound_spec : Prop :=
  forall (tau : R) (l : list (R * R)), 0 < tau -> in_simplex l ->
    objective tau l <= tau * ln (partition tau l).

(** (b) Equality holds exactly at the softmax: the unique maximiser. *)
Definition entropic_selection_spec : Prop :=
  forall (tau : R) (l : list (R * R)), 0 < tau -> in_simplex l ->
    (objective tau l = tau * ln (partition tau l)
     <-> forall p, In p l -> fst p = softmax_i tau (partition tau l) (snd p)).

(** (c) The softmax lies in the open simplex. *)
Definition softmax_in_simplex_spec : Prop :=
  forall (tau : R) (l : list (R * R)), l <> [] ->
    (forall p, In p l -> 0 < softmax_i tau (partition tau l) (snd p))
    /\ sumR (map (fun p => softmax_i tau (partition tau l) (snd p)) l) = 1.

(** (d) The maximum [tau ln Z] is attained at the softmax. *)
Definition entropic_value_spec : Prop :=
  forall (tau : R) (l : list (R * R)), 0 < tau -> l <> [] ->
    objective tau (softmax_list tau l) = tau * ln (partition tau l).
