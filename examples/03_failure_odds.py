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

# %% [markdown]
# That decay needs a long enough horizon: $P(\varphi(T) > \delta)$ decays in $d$ only when
# $\|h\|T > \log\cot(\delta/2)$ (`lohe.finite_time_threshold`); below it, more dimensions
# make failure *certain* ($\varphi_0$ concentrates at $\pi/2$, beyond the critical angle).

# %%
T_c = float(lohe.finite_time_threshold(3.0, 0.1))
p_early = np.array(
    [float(lohe.finite_time_failure_probability(3.0, 0.6, 0.1, int(d))) for d in dims]
)
print(
    f"T_c = {T_c:.3f}: at T = 1.2 (above) P -> 0, at T = 0.6 (below) P -> {p_early[-1]:.4f}"
)

# %% [markdown]
# ## Scale-free degenerate events
#
# $P(\|h\| < 1)$ flattens at $P(\|w\|_2 < 1)$: it measures the size of the weights. The
# events that vanish with $d$ are scale free: $0$ in the convex hull of the anchors (the
# only way positive weights cancel; Wendel's law, exactly 0 for $d \ge m$) and
# $\|h\| < \tfrac12\|w\|_2$.

# %%
p_hull = np.array([lohe.hull_degenerate_probability(16, int(d)).exact for d in dims])
p_rel = np.array(
    [
        float(
            lohe.relative_degenerate_probability(
                jax.random.key(2), int(d), 16, 0.5, n_mc
            )[0]
        )
        for d in dims[:4]
    ]
)
print("P(0 in hull):", np.round(p_hull, 5))
print("P(||h|| < ||w||/2):", np.round(p_rel, 5), "at d =", dims[:4])

# %%
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.semilogy(dims, p_anti, "o-", label=f"antipodal start, $\\alpha$={alpha:.2f}")
ax.semilogy(dims, p_deg, "s-", label="$\\|h\\| < 1$, m=16 (absolute: plateaus)")
ax.semilogy(
    dims[p_hull > 0], p_hull[p_hull > 0], "D-", label="0 in hull (0 for d $\\geq$ 16)"
)
ax.semilogy(
    dims[:4][p_rel > 0], p_rel[p_rel > 0], "v-", label="$\\|h\\| < \\|w\\|_2/2$"
)
ax.semilogy(dims, p_late, "^-", label="not within 0.1 rad at T=1.2 > $T_c$")
ax.semilogy(dims, p_early, "^--", label="... at T=0.6 < $T_c$")
ax.set(xlabel="$d_{osc}$", ylabel="probability")
ax.legend(fontsize=7)
plt.show()
