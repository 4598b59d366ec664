# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # How often does fixed-query attention fail to converge?
#
# Two things slow or stop the flow $\dot z = (I - zz^\top)h$: a start near the
# antipode $-h/\|h\|$ (probability `lohe.antipodal_probability`, which decays like
# $(\sin\alpha)^{d-1}$ with the dimension), and a degenerate drive $\|h\| \approx 0$
# (`lohe.degenerate_probability`, Monte Carlo; its exact value, a Bessel integral, is
# `lohe.degenerate_probability_exact`). The full study is
# `syncattn study failure`.

# %%
import os

import jax


jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from syncattn import lohe, sphere  # noqa: E402


SMOKE = bool(os.environ.get("SYNCATTN_SMOKE"))
n_mc = 20_000 if SMOKE else 1_000_000
dims = np.array([2, 3, 4, 8, 16, 32, 64])
alpha = np.pi / 4

# %% [markdown]
# ## Antipodal starts: theory and a Monte Carlo check at $d = 3$

# %%
p_anti = np.array([float(lohe.antipodal_probability(alpha, int(d))) for d in dims])
z = sphere.sample_uniform(jax.random.key(0), (n_mc,), 3)
pole = jnp.array([0.0, 0.0, 1.0])  # h/||h||; the antipode is -pole
p_mc = float(jnp.mean(z @ -pole > jnp.cos(alpha)))
print(
    f"d=3: Monte Carlo {p_mc:.4f} +- {np.sqrt(p_mc * (1 - p_mc) / n_mc):.4f}, theory {p_anti[1]:.4f}"
)
rate = -np.polyfit(dims, np.log(p_anti), 1)[0]
print(
    f"fitted exponential rate in d: {rate:.3f} (d -> infinity: -log sin(alpha) = {-np.log(np.sin(alpha)):.3f})"
)

# %% [markdown]
# ## Degenerate drives: $h = \sum_{j=1}^{16}\mathrm{softplus}(g_j) r_j$, $P(\|h\| < 1)$

# %%
p_deg = np.array([lohe.degenerate_probability_exact(int(d), 16, 1.0) for d in dims])
p_hat, se = lohe.degenerate_probability(jax.random.key(1), 3, 16, 1.0, n_mc)
print(
    f"d=3: lohe.degenerate_probability {float(p_hat):.4f} +- {float(se):.4f}, exact {p_deg[1]:.4f}"
)

# %% [markdown]
# ## Not converged by a horizon T: uniform starts, $\|h\| = 3$, $\delta = 0.1$

# %%
p_late = np.array(
    [float(lohe.finite_time_failure_probability(3.0, 1.2, 0.1, int(d))) for d in dims]
)

# %%
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.semilogy(dims, p_anti, "o-", label=f"antipodal start, $\\alpha$={alpha:.2f}")
ax.semilogy(dims, p_deg, "s-", label="$\\|h\\| < 1$, m=16")
ax.semilogy(dims, p_late, "^-", label="not within 0.1 rad at T=1.2")
ax.set(xlabel="$d_{osc}$", ylabel="probability")
ax.legend()
plt.show()
