import time, jax, jax.numpy as jnp, numpy as np
jax.config.update("jax_enable_x64", True)
from syncattn import group, lohe
rng = np.random.default_rng(1)
for kind, n in (("so", 3), ("u", 2)):
    N = 5
    U0 = group.sample_haar(jax.random.key(1), N, n, kind)
    A = rng.normal(size=(N, n, n))
    H = 0.5 * (A - A.swapaxes(-1, -2)) if kind == "so" else 0.5 * (A + A.swapaxes(-1, -2)) + 0j
    for t1 in (2.0, 100.0):
        t = time.time()
        ref = lohe.matrix_simulate(U0, H, 2.0, t1, saveat=None, method="diffrax", rtol=1e-12, atol=1e-12)
        d_amb = float(jnp.max(group.defect(ref.final)))
        rk = lohe.matrix_simulate(U0, H, 2.0, t1, saveat=None, dt0=0.01)
        d_rk = float(jnp.max(group.defect(rk.final)))
        diff = float(jnp.max(jnp.abs(rk.final - ref.final)))
        print(f"{kind}({n}) N={N} K=2 t1={t1}: dopri8 rtol=atol=1e-12 steps={int(ref.num_steps)} defect={d_amb:.2e}; rkmk4 dt=0.01 defect={d_rk:.2e}; max|diff|={diff:.2e} ({time.time()-t:.0f}s)", flush=True)
