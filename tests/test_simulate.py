"""The one simulation driver behind kuramoto.simulate and lohe.simulate (syncattn._simulate)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import kuramoto, lohe, sphere

from .helpers import assert_close


N = 5
THETA0 = jnp.linspace(-2.0, 2.5, N)
OMEGA = jnp.linspace(-0.3, 0.4, N)
J = jnp.array([[0.0, -1.0], [1.0, 0.0]])


def _lift(theta):  # independent of torus.lift: plain numpy
    theta = np.asarray(theta)
    return np.stack([np.cos(theta), np.sin(theta)], axis=-1)


def test_lohe_on_the_circle_is_kuramoto_through_one_driver():
    # d = 2, Omega_i = omega_i J, scalar K: x_i = (cos theta_i, sin theta_i) solves Lohe
    # iff theta solves Kuramoto; both go through the same driver and Solution type.
    K, t1, kw = 1.7, 3.0, dict(saveat=7, rtol=1e-11, atol=1e-13)
    ks = kuramoto.simulate(THETA0, OMEGA, K, t1, **kw)
    ls = lohe.simulate(jnp.asarray(_lift(THETA0)), OMEGA[:, None, None] * J[None], K, t1, **kw)
    assert type(ks) is type(ls) is kuramoto.Solution is lohe.Solution
    assert_close(ls.ts, ks.ts)
    # two state spaces (angles vs points of the circle), two step sequences: the
    # solves agree at the solver's tolerance (rtol=1e-11), not at rounding
    agree = dict(rtol=0, atol=1e-9)
    assert_close(ls.states, _lift(ks.states), **agree)
    assert_close(ls.final, _lift(ks.final), **agree)
    assert_close(ls.r, ks.r, **agree)
    # the order parameters agree as vectors: Z_lohe = (Re Z, Im Z)
    assert_close(ls.order[..., 0], jnp.real(ks.order), **agree)
    assert_close(ls.order[..., 1], jnp.imag(ks.order), **agree)


def test_solution_fields_and_old_names():
    sol = kuramoto.simulate(THETA0, OMEGA, 1.0, 2.0, saveat=5, rtol=1e-10, atol=1e-12)
    th = np.asarray(sol.theta)
    assert sol.theta is sol.states and sol.theta_final is sol.final
    z = np.exp(1j * th).mean(-1)  # numpy order parameter
    assert_close(sol.order, z)
    assert_close(sol.r, np.abs(z))
    assert_close(sol.psi, np.angle(z))
    assert_close(sol.final, th[-1])
    assert int(sol.num_steps) > 0
    x0 = sphere.sample_uniform(jax.random.key(0), (4,), 3)
    ls = lohe.simulate(x0, None, 1.0, 1.0, saveat=3)
    assert ls.x is ls.states and ls.rho is ls.r
    assert_close(ls.rho, np.linalg.norm(np.asarray(ls.x).mean(-2), axis=-1))
    with pytest.raises(AttributeError, match="psi"):
        ls.psi


@pytest.mark.parametrize(
    "saveat, want",
    [
        (None, [2.0]),
        (5, [0.0, 0.5, 1.0, 1.5, 2.0]),
        (jnp.array([0.0, 0.3, 0.3, 2.0]), [0.0, 0.3, 0.3, 2.0]),
    ],
)
def test_saveat_rule_is_shared(saveat, want):
    x0 = jnp.asarray(_lift(THETA0))
    for sol in (
        kuramoto.simulate(THETA0, OMEGA, 1.0, 2.0, saveat=saveat),
        lohe.simulate(x0, None, 1.0, 2.0, saveat=saveat),
        lohe.simulate(x0, None, 1.0, 2.0, saveat=saveat, method="geodesic"),
    ):
        assert_close(sol.ts, want)
        assert sol.states.shape[0] == len(want) and sol.r.shape == (len(want),)


def test_defaults_are_shared():
    import inspect

    pk = inspect.signature(kuramoto.simulate).parameters
    pl = inspect.signature(lohe.simulate).parameters
    for name in ("saveat", "solver", "dt0", "max_steps"):
        assert pk[name].default == pl[name].default, name
    # the documented, measured difference: Lohe's tolerances are 100x tighter
    assert (pk["rtol"].default, pk["atol"].default) == (1e-6, 1e-8)
    assert (pl["rtol"].default, pl["atol"].default) == (1e-8, 1e-10)


def test_bad_options_same_message_for_both_flows():
    x0 = jnp.asarray(_lift(THETA0))
    cases = [
        (dict(saveat=1), ValueError, "saveat must be an int >= 2"),
        (dict(saveat=jnp.array([1.0, 0.5])), ValueError, "non-decreasing"),
        (dict(saveat=jnp.array([0.5, 3.0])), ValueError, "within"),
        (dict(solver="rk99"), ValueError, "solver must be one of"),
        (dict(solver=3), TypeError, "solver must be a name"),
        (dict(rtol=None), ValueError, "rtol=None asks for fixed steps"),
        (dict(solver="euler"), ValueError, "has no error estimate"),
        (dict(rtol=0.0), ValueError, "rtol must lie in"),
        (dict(dt0=-1.0), ValueError, "dt0 must lie in"),
        (dict(max_steps=0), ValueError, "max_steps must be a positive int"),
    ]
    for kw, err, msg in cases:
        with pytest.raises(err, match=msg):
            kuramoto.simulate(THETA0, OMEGA, 1.0, 2.0, **kw)
        with pytest.raises(err, match=msg):
            lohe.simulate(x0, None, 1.0, 2.0, **kw)
    with pytest.raises(ValueError, match="t1 must be a scalar"):
        kuramoto.simulate(THETA0, OMEGA, 1.0, jnp.ones(2))
    with pytest.raises(ValueError, match="dt0 only"):
        lohe.simulate(x0, None, 1.0, 2.0, dt=0.1, dt0=0.1)


def test_lohe_constant_steps_and_dt_alias():
    # new through the shared driver: Lohe with constant steps (rtol=None, dt0), second
    # order (Heun), against the adaptive solve
    x0 = sphere.sample_uniform(jax.random.key(1), (6,), 3)
    ref = lohe.simulate(x0, None, 1.3, 1.0, saveat=None, rtol=1e-11, atol=1e-13)
    errs = []
    for dt0 in (0.02, 0.01):
        sol = lohe.simulate(x0, None, 1.3, 1.0, saveat=None, solver="heun", dt0=dt0)
        errs.append(float(jnp.max(jnp.abs(sol.final - ref.final))))
    assert errs[1] < errs[0] / 3.5  # second order: about 4x per halving
    geo_old = lohe.simulate(x0, None, 1.3, 1.0, method="geodesic", dt=0.05)
    geo_new = lohe.simulate(x0, None, 1.3, 1.0, method="geodesic", dt0=0.05)
    assert_close(geo_old.final, geo_new.final)


def test_geodesic_final_state_is_at_t1():
    x0 = sphere.sample_uniform(jax.random.key(2), (5,), 3)
    early = lohe.simulate(
        x0, None, 1.0, 2.0, saveat=jnp.array([0.0, 1.0]), method="geodesic", dt0=0.01
    )
    full = lohe.simulate(
        x0, None, 1.0, 2.0, saveat=jnp.array([0.0, 1.0, 2.0]), method="geodesic", dt0=0.01
    )
    assert early.states.shape[0] == 2
    assert_close(early.states, full.states[:2])
    assert_close(early.final, full.final)


def test_lohe_default_tolerances_keep_norms():
    """The measurement quoted in lohe.simulate's docstring (why its rtol is 1e-8)."""
    n, d = 60, 3
    x0 = sphere.sample_uniform(jax.random.key(0), (n,), d)
    A = jax.random.normal(jax.random.key(1), (n, d, d))
    Omega = A - jnp.swapaxes(A, -1, -2)

    def drift(**kw):
        x = np.asarray(lohe.simulate(x0, Omega, 1.0, 20.0, saveat=21, **kw).x)
        return float(np.max(np.abs(np.linalg.norm(x, axis=-1) - 1)))

    loose, default = drift(rtol=1e-6, atol=1e-8), drift()
    assert 1e-5 < loose < 1e-4, loose
    assert default < 1e-6, default
