# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # The Lohe flow on spheres, and the fixed-query flow of oscillator attention
#
# The Lohe model moves unit vectors $x_i \in S^{d-1}$:
# $\dot x_i = \Omega_i x_i + \frac Kn\sum_j (x_j - \langle x_i, x_j\rangle x_i)$,
# with skew-symmetric natural frequencies $\Omega_i$. For $d = 2$ it is the Kuramoto
# model. One query of fixed-query oscillator attention is the single-oscillator flow
# $\dot z = (I - zz^\top)h$ driven by $h = \sum_j w_j r_j$, solved in closed form by
# $\tan(\varphi/2) = \tan(\varphi_0/2)e^{-\|h\|t}$. The full studies are
# `syncattn study lohe` and `syncattn study convergence`.

# %%
import os

import jax


jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from syncattn import lohe, sphere  # noqa: E402


SMOKE = bool(os.environ.get("SYNCATTN_SMOKE"))
n, d = (60, 3) if SMOKE else (500, 3)
T1 = 20.0 if SMOKE else 60.0

# %% [markdown]
# ## Lohe synchronisation on $S^2$
# Random $\Omega_i = (A_i - A_i^\top)/\sqrt 2$ (entries $\mathcal N(0, 1)$) and uniform starts.

# %%
rng = np.random.default_rng(0)
A = rng.standard_normal((n, d, d))
Omega = jnp.asarray((A - np.swapaxes(A, 1, 2)) / np.sqrt(2))
x0 = sphere.sample_uniform(jax.random.key(0), (n,), d)
ts = jnp.linspace(0.0, T1, 81)
rhos = {}
for K in (0.0, 1.0, 4.0):
    sol = lohe.simulate(x0, Omega, jnp.asarray(K), T1, saveat=ts, rtol=1e-6, atol=1e-8)
    rhos[K] = sol.rho
    drift = float(jnp.max(jnp.abs(jnp.linalg.norm(sol.x, axis=-1) - 1)))
    print(
        f"K={K}: final rho={float(sol.rho[-1]):.3f}, max | ||x_i|| - 1 | = {drift:.1e}"
    )

# %% [markdown]
# ## Fixed-query flow: closed form
# A random drive from 8 softplus-weighted anchors; the angle to $h$ from the closed
# form, the time to come within $\delta$, and the Jacobian at the two equilibria.

# %%
r = sphere.sample_uniform(jax.random.key(1), (8,), d)
w = jax.nn.softplus(jax.random.normal(jax.random.key(2), (1, 8)))
h = lohe.drive(w, r)[0]
z_star, degenerate = lohe.equilibrium(h)
norm_h = float(jnp.linalg.norm(h))
phi0 = jnp.linspace(0.1, 3.0, 6)
print("||h|| =", round(norm_h, 3), " degenerate:", bool(degenerate))
print(
    "time to within 0.05 rad:",
    np.round(np.asarray(lohe.time_to_converge(phi0, norm_h, 0.05)), 3),
)
print(
    "spectrum at h/||h||:",
    np.asarray(lohe.jacobian_spectrum(z_star, h)),
    " at -h/||h||:",
    np.asarray(lohe.jacobian_spectrum(-z_star, h)),
)
t = jnp.linspace(0.0, 3.0, 100)
angles = lohe.exact_angle(phi0[:, None], norm_h, t[None, :])

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
for K, rho in rhos.items():
    ax1.plot(ts, rho, label=f"K={K}")
ax1.set(xlabel="t", ylabel="$\\rho(t)$", title=f"Lohe on $S^{d - 1}$, n={n}")
ax1.legend()
ax2.plot(t, angles.T)
ax2.set(xlabel="t", ylabel="angle to h", title="fixed-query flow (closed form)")
plt.show()
