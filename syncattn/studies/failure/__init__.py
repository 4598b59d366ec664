r"""Study ``failure``: how the two failure modes of fixed-query attention scale with $d$.

For $d = d_\text{osc} \in \{2, 3, 4, 8, 16, 32, 64\}$:

1. **Antipodal start.** The fixed-query flow $\dot z = (I - zz^\top)h$ leaves the
   antipode $-h/\|h\|$ only slowly; a uniform start lies within angle $\alpha$ of
   it with probability [`syncattn.lohe.antipodal_probability`][] ($= $
   ``sphere.cap_probability``), which decays like $(\sin\alpha)^{d-1}$. Monte
   Carlo: $z$ uniform on $S^{d-1}$ ([`syncattn.sphere.sample_uniform`][]), $h$ a
   uniformly random direction (one per chunk; by rotation invariance the count
   is exactly binomial), success when $\angle(z, -h) < \alpha$.

2. **Degenerate drive.** $\|h\| < \varepsilon$ for the random model of
   [`syncattn.lohe.degenerate_probability`][]:

   $$h = \sum_{j=1}^m w_j r_j,\quad w_j = \operatorname{softplus}(g_j),\
     g_j \overset{iid}{\sim} \mathcal N(0, s^2),\quad r_j \overset{iid}\sim
     \mathrm{Unif}(S^{d-1})$$

   (one row of fixed-query softplus couplings with i.i.d. Gaussian scores, and
   uniformly random anchors). The Monte Carlo of ``lohe.degenerate_probability``
   against the exact value [`syncattn.lohe.degenerate_probability_exact`][] (a
   Kluyver-type Bessel integral, see there), which is the "theory" of this panel.
   (The sampler itself is checked against an independent numpy sampler in the
   tests of ``lohe``.)

   This absolute event does **not** keep decaying: $\|h\|^2 = \|w\|_2^2 +
   2\sum_{j<k} w_jw_k\langle r_j, r_k\rangle$ with cross terms $O(d^{-1/2})$, so it
   tends to $P(\|w\|_2 < \varepsilon)$ ([`syncattn.lohe.weight_norm_probability`][], drawn as
   the plateau): it measures the scale of the weights, not the anchors.

3. **Scale-free degenerate events**, which do vanish: the relative event
   $\|h\| < \varepsilon_{rel}\|w\|_2$ (Monte Carlo on the same model,
   ``lohe.relative_degenerate_probability``, and the proved bound
   ``lohe.relative_degenerate_bound`` averaged over the weights), and the
   convex-hull event $0 \in \operatorname{conv}\{r_j\}$, the only way positive
   weights can cancel: Wendel's law ``lohe.hull_degenerate_probability`` (exactly 0
   for $d \ge m$) with its Hoeffding bound, against a Monte Carlo over uniform
   anchor sets that decides hull membership with ``lohe.hull_contains_origin`` (a
   linear programme).

4. **Finite-time failure on both sides of the threshold**
   $\|h\|T = \log\cot(\delta/2)$ (``lohe.finite_time_threshold``): the exact
   ``lohe.finite_time_failure_probability`` for $\|h\| = 1$ and horizons at
   ``threshold_ratios`` times the threshold, against uniform starts pushed through
   ``lohe.exact_angle``. It rises to 1 with $d$ below the threshold, is $1/2$ on it,
   and decays above it.

Probabilities too small for the sample size are not sampled ("theory
elsewhere"): the antipodal Monte Carlo runs on every $d$ (it is cheap) and shows
zero counts as one-sided Clopper-Pearson upper bounds; the degenerate Monte
Carlo runs only where the exact value predicts at least ``min_expected`` hits.
Both panels are on a log axis with the least-squares rate $\lambda$ of
$\log p \approx a - \lambda d$ (reported in ``results.json``).
"""

from ...lohe import (
    degenerate_probability_exact as degenerate_probability_exact,
    weight_norm_probability as weight_norm_probability,
)
from ._config import NAME as NAME, Config as Config
from ._plots import summary as summary
from ._run import run as run


__all__ = ["Config", "degenerate_probability_exact", "run", "summary"]
