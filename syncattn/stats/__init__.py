r"""Statistics of repeated trainings: binomial intervals, power-law fits with a bootstrap.

Apps (studies, experiments) call these; nothing here knows about models.

* [`syncattn.stats.clopper_pearson`][] and [`syncattn.stats.wilson`][]: confidence
  intervals for a failure rate $k/n$ (experiment 4: failed trainings over seeds);
* [`syncattn.stats.power_law_fit`][]: $\Delta(d) = C d^{-\alpha}$ by least squares of
  $\log\Delta$ on $\log d$ (experiment 5: the PPL gap to softmax);
* [`syncattn.stats.power_law_bootstrap`][]: the same fit on per-seed values, with a
  percentile bootstrap interval for $\alpha$ and $C$ (resampling the seeds within
  each $d$ and within the baseline);
* [`syncattn.stats.binomial_pvalue`][]: the exact two-sided binomial test of a
  Monte Carlo count against a theory's probability (the studies' acceptance checks);
* [`syncattn.stats.fisher_exact`][]: Fisher's exact test of two counts $k_1/n_1$
  against $k_2/n_2$ (experiment 4: our failure counts against the paper's 3/50 and
  12/50, and the two models against each other);
* [`syncattn.stats.exponential_rate_fit`][]: $p(d) = e^{a - \lambda d}$ by least
  squares of $\log p$ on $d$ (the studies' failure rates in the oscillator dimension);
* [`syncattn.stats.summarize`][]: mean, sample standard deviation, median;
* [`syncattn.stats.t_interval`][]: the Student-t interval of a mean (paired gaps over
  seeds);
* [`syncattn.stats.t_pvalue`][] and [`syncattn.stats.holm`][]: the paired t test's
  p-value and Holm's step-down adjustment of many (the geometry experiment's comparisons
  against Kuramoto);
* [`syncattn.stats.log_linear_bootstrap`][]: $y = a + b\ln x$ through per-group means
  (the ladder's gap against the parameter count), with a percentile bootstrap over the
  samples within each group and predictions at chosen $x$;
* [`syncattn.stats.relative_improvement`][]: how much a learning curve still fell over
  its last fraction of steps (the ladder's convergence record);
* [`syncattn.stats.copy_depth`][], [`syncattn.stats.copy_depth_losses`][]: a language
  model's per-position loss split by whether the predicted token continues a repeat of
  an n-gram seen d or more positions back (issue 40's copy-depth diagnostic).

Everything is NumPy float64 on the host (these are a handful of numbers per run).

Files: `_binomial.py` (counts: the Clopper-Pearson and Wilson intervals, the exact
binomial and Fisher tests), `_samples.py` (a sample's summary and the t interval of its
mean), `_multiplicity.py` (the t test's p-value, Holm's adjustment), `_fits.py` (the
least-squares lines: exponential rate, power law, log-linear), `_bootstrap.py` (the
power-law and log-linear fits through per-group means, with percentile bootstrap
intervals), `_copy_depth.py` (the copy-depth split), `_curves.py`
(learning curves: the relative improvement), `_arguments.py` (their argument checks).
"""

from ._binomial import (
    binomial_pvalue as binomial_pvalue,
    clopper_pearson as clopper_pearson,
    fisher_exact as fisher_exact,
    wilson as wilson,
)
from ._bootstrap import (
    log_linear_bootstrap as log_linear_bootstrap,
    power_law_bootstrap as power_law_bootstrap,
)
from ._copy_depth import (
    COPY_DEPTHS as COPY_DEPTHS,
    copy_depth as copy_depth,
    copy_depth_losses as copy_depth_losses,
)
from ._curves import relative_improvement as relative_improvement
from ._fits import (
    exponential_rate_fit as exponential_rate_fit,
    log_linear_fit as log_linear_fit,
    power_law_fit as power_law_fit,
)
from ._multiplicity import holm as holm, t_pvalue as t_pvalue
from ._samples import summarize as summarize, t_interval as t_interval


__all__ = [
    "clopper_pearson",
    "wilson",
    "binomial_pvalue",
    "fisher_exact",
    "exponential_rate_fit",
    "power_law_fit",
    "power_law_bootstrap",
    "summarize",
    "t_interval",
    "t_pvalue",
    "holm",
    "log_linear_fit",
    "log_linear_bootstrap",
    "relative_improvement",
    "copy_depth",
    "copy_depth_losses",
    "COPY_DEPTHS",
]
