# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Kuramoto synchronisation: the transition r(K) and the Ott-Antonsen reduction
#
# $N$ phase oscillators with Lorentzian natural frequencies (half width $\gamma$),
# coupled all-to-all with strength $K$:
# $\dot\theta_i = \omega_i + \frac KN \sum_j \sin(\theta_j - \theta_i)$.
# Kuramoto's theory predicts incoherence below $K_c = 2\gamma$ and a stationary
# order parameter $r_\infty = \sqrt{1 - 2\gamma/K}$ above; Ott and Antonsen reduced
# the dynamics of $r(t)$ to one ODE. This notebook checks both with
# `syncattn.kuramoto`. Set `SYNCATTN_SMOKE=1` for a seconds-long run.
# The full study is `syncattn study kuramoto` (see docs/studies.md).

# %%
import os

import jax


jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from syncattn import kuramoto, torus  # noqa: E402


SMOKE = bool(os.environ.get("SYNCATTN_SMOKE"))
N = 400 if SMOKE else 5000
T1 = 30.0 if SMOKE else 100.0
GAMMA = 0.5
couplings = [0.5, 2.0] if SMOKE else [0.5, 0.8, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0]

# %% [markdown]
# Deterministic quantile frequencies $\omega_i = \gamma\tan(\pi((i-\frac12)/N - \frac12))$
# remove the sampling noise of the frequency distribution; phases start uniform.

# %%
omega = kuramoto.lorentzian_frequencies(N, GAMMA)
theta0 = jax.random.uniform(jax.random.key(0), (N,), minval=-jnp.pi, maxval=jnp.pi)
ts = jnp.linspace(0.0, T1, 61)


def order_trajectory(theta_start, K):
    """The flow from `theta_start` at coupling K, saving only r(t) at `ts`."""
    return kuramoto.simulate(
        theta_start,
        omega,
        jnp.asarray(K),
        T1,
        saveat=ts,
        rtol=1e-5,
        atol=1e-7,
        save_phases=False,
    )


r_sim = []
for K in couplings:
    sol = order_trajectory(theta0, K)
    r_sim.append(
        float(jnp.mean(sol.r[ts >= T1 / 2]))
    )  # time average over the second half
r_theory = np.asarray(
    kuramoto.lorentzian_order_parameter(jnp.asarray(couplings), GAMMA)
)
for K, r, rt in zip(couplings, r_sim, r_theory, strict=True):
    print(f"K={K:4.2f}  simulated r={r:.3f}  theory r={rt:.3f}")

# %% [markdown]
# ## The Ott-Antonsen trajectory
# From a slightly coherent start, $r(t)$ follows
# $\dot r = (K/2 - \gamma) r - (K/2) r^3$ (closed form `kuramoto.ott_antonsen`).
# Phases on the Ott-Antonsen manifold are wrapped-Cauchy distributed (mean resultant
# length $r_0$), independently of the frequencies: deterministic quantiles of a
# Cauchy law of scale $-\log r_0$, randomly permuted.

# %%
K, r0 = 2.0, (0.2 if SMOKE else 0.05)  # r0 well above the finite-N noise 1/sqrt(N)
q = (np.arange(1, N + 1) - 0.5) / N
phases = np.random.default_rng(1).permutation(-np.log(r0) * np.tan(np.pi * (q - 0.5)))
theta_oa = torus.wrap(jnp.asarray(phases))
sol = order_trajectory(theta_oa, K)
r_oa = kuramoto.ott_antonsen(float(sol.r[0]), K, GAMMA, ts)
print(
    f"max |r_sim(t) - r_OA(t)| = {float(jnp.max(jnp.abs(sol.r - r_oa))):.3f}  (finite-N noise ~ {1 / np.sqrt(N):.3f})"
)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
grid = jnp.linspace(0.0, max(couplings) * 1.05, 200)
ax1.plot(grid, kuramoto.lorentzian_order_parameter(grid, GAMMA), "k-", label="theory")
ax1.plot(couplings, r_sim, "o", label=f"simulation, N={N}")
ax1.set(xlabel="K", ylabel="r", title="Lorentzian, $\\gamma$=0.5")
ax1.legend()
ax2.plot(ts, sol.r, label="simulation")
ax2.plot(ts, r_oa, "k--", label="Ott-Antonsen")
ax2.set(xlabel="t", ylabel="r(t)", title=f"K={K}")
ax2.legend()
plt.show()
