"""The generic Runge-Kutta-Munthe-Kaas integrators (`syncattn.geometry.rkmk4`, `rkmk43`,
issue 41 §1) against independent computations: the Lohe matrix flow of
`lohe.matrix_simulate` (written out again here), a classical RK4 loop on the torus,
fields with closed-form solutions (SciPy's `expm`), order 4, the group kept to rounding,
the adaptive form's tolerance, and the error for a geometry without a Lie algebra."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg

from syncattn import geometry, group, kuramoto, lohe
from syncattn.geometry import _lie


def _adj(M):
    return jnp.conj(jnp.swapaxes(M, -1, -2))


def _skew(A):
    return 0.5 * (A - np.conj(np.swapaxes(A, -1, -2)))


def _problem(kind, n, N=4, seed=1):
    """Haar starts and random natural frequencies (skew for SO(n), Hermitian for U(n))."""
    rng = np.random.default_rng(seed)
    U0 = group.sample_haar(jax.random.key(seed), N, n, kind)
    A = rng.normal(size=(N, n, n))
    H = _skew(A) if kind == "so" else 0.5 * (A + A.swapaxes(-1, -2)) + 0j
    return U0, H


def _lohe_xi(t, U, args):
    """The Lohe matrix field left-trivialised, written out: U_j^H (W_j U_j + K mean U)
    made skew, W = H (SO(n)) or -iH (U(n))."""
    W, K = args
    X = _adj(U) @ (W @ U + K * jnp.mean(U, axis=-3, keepdims=True))
    return 0.5 * (X - _adj(X))


@pytest.mark.parametrize("kind,n", [("so", 3), ("u", 2)])
def test_rkmk4_with_the_lohe_field_is_matrix_simulate(kind, n):
    """Both paths: the generic fixed and adaptive RKMK on `Group` with the Lohe field
    equal `lohe.matrix_simulate(method="rkmk4" / "rkmk4-adaptive")` (to rounding: the
    field here is written with other operations)."""
    U0, H = _problem(kind, n)
    W = jnp.asarray(H if kind == "so" else -1j * H)
    geo = geometry.Group(kind, n)
    ts = np.linspace(0.0, 1.0, 3)
    fixed = geometry.rkmk4(geo, _lohe_xi, U0, ts, args=(W, 1.5), dt0=0.1)
    ref = lohe.matrix_simulate(U0, H, 1.5, 1.0, saveat=3, dt0=0.1)
    np.testing.assert_allclose(fixed.states, ref.states, rtol=0, atol=1e-13)
    assert int(fixed.num_steps) == int(ref.num_steps) == 3 * 5
    adap = geometry.rkmk43(geo, _lohe_xi, U0, ts, args=(W, 1.5), rtol=1e-7, atol=1e-9)
    ref = lohe.matrix_simulate(
        U0, H, 1.5, 1.0, saveat=3, method="rkmk4-adaptive", rtol=1e-7, atol=1e-9
    )
    np.testing.assert_allclose(adap.states, ref.states, rtol=0, atol=1e-12)
    assert int(adap.num_steps) == int(ref.num_steps)
    np.testing.assert_allclose(adap.t, 1.0, rtol=0, atol=0)


def _kuramoto_rate(t, theta, args):
    """A forced Kuramoto field: omega_j + a cos(t) + K mean_k sin(theta_k - theta_j)."""
    omega, K, a = args
    d = theta[..., None, :] - theta[..., :, None]
    return omega + a * jnp.cos(t) + K * jnp.mean(jnp.sin(d), -1)


def _rk4_loop(theta, omega, K, a, t0, h, steps):
    """The classical RK4 in float64 NumPy, one step at a time."""

    def f(t, x):
        d = x[None, :] - x[:, None]
        return omega + a * np.cos(t) + K * np.mean(np.sin(d), -1)

    x = np.array(theta, np.float64)
    for i in range(steps):
        t = t0 + i * h
        k1 = h * f(t, x)
        k2 = h * f(t + h / 2, x + k1 / 2)
        k3 = h * f(t + h / 2, x + k2 / 2)
        k4 = h * f(t + h, x + k3)
        x = x + (k1 + 2 * k2 + 2 * k3 + k4) / 6
    return x


def test_on_the_torus_rkmk4_is_the_classical_rk4():
    """The circle is abelian (bracket 0, exp = addition): RKMK4 is RK4 on the phases,
    stage times included (a time-dependent forcing)."""
    rng = np.random.default_rng(0)
    theta0, omega = rng.uniform(-3, 3, 7), rng.normal(size=7)
    args = (jnp.asarray(omega), 1.3, 0.7)
    sol = geometry.rkmk4(
        geometry.Torus(),
        _kuramoto_rate,
        theta0,
        [0.5, 1.25],
        args=args,
        dt0=0.05,
        t0=0.2,
    )
    first = _rk4_loop(theta0, omega, 1.3, 0.7, 0.2, 0.3 / 6, 6)  # m = 15 per interval
    assert int(sol.num_steps) == 2 * 15
    np.testing.assert_allclose(
        sol.states[0], _rk4_loop(theta0, omega, 1.3, 0.7, 0.2, 0.3 / 15, 15), atol=1e-13
    )
    np.testing.assert_allclose(
        sol.states[1],
        _rk4_loop(np.asarray(sol.states[0]), omega, 1.3, 0.7, 0.5, 0.75 / 15, 15),
        atol=1e-13,
    )
    assert not np.allclose(first, sol.states[0], rtol=0, atol=1e-9)  # the grid matters


def _kuramoto(t, theta, args):
    """The Kuramoto field of `syncattn.kuramoto.vector_field` (a rate on each circle)."""
    omega, K = args
    return kuramoto.vector_field(theta, omega, K)


def test_the_kuramoto_flow_on_the_torus_geometry_is_kuramoto_simulate():
    """The generic RKMK4 and RKMK4(3) on `Torus` with the Kuramoto field agree with
    `kuramoto.simulate` (Dopri8 at 1e-13) to their own accuracy (RK4 at h = 0.005:
    3.5e-9, 16x less than at h = 0.01)."""
    rng = np.random.default_rng(4)
    theta0, omega = rng.uniform(-3, 3, (2, 6)), rng.normal(size=6)
    K = np.abs(rng.normal(size=(6, 6)))
    ref = kuramoto.simulate(
        theta0, omega, K, 2.0, saveat=3, solver="dopri8", rtol=1e-13, atol=1e-13
    )
    args, geo, ts = (jnp.asarray(omega), jnp.asarray(K)), geometry.Torus(), ref.ts
    fixed = geometry.rkmk4(geo, _kuramoto, theta0, ts, args=args, dt0=0.005)
    np.testing.assert_allclose(fixed.states, ref.theta, rtol=0, atol=1e-8)  # 3.5e-9
    adap = geometry.rkmk43(
        geo, _kuramoto, theta0, ts, args=args, rtol=1e-10, atol=1e-10
    )
    np.testing.assert_allclose(adap.states, ref.theta, rtol=0, atol=2e-9)  # 3.6e-10


def _two_sided(t, U, args):
    """xi = U^H B U + D, the left-trivialised U' = BU + UD (state dependent): solved by
    U(t) = e^{tB} U0 e^{tD}. (With D = 0 RKMK would be exact: U0 e^{t U0^H B U0}.)"""
    B, D = args
    return _adj(U) @ B @ U + jnp.broadcast_to(D, U.shape)


def _magnus(t, U, args):
    """xi(t) = e^{-tD} C e^{tD} + D (state independent, non-commuting): solved by
    U(t) = U0 e^{tC} e^{tD}."""
    C, D = args
    E = jax.scipy.linalg.expm(t * D)
    return jnp.broadcast_to(_adj(E) @ C @ E + D, U.shape)


def _algebra(key, kind, n, scale=1.0):
    k1, k2 = jax.random.split(key)
    A = jax.random.normal(k1, (n, n))
    if kind == "u":
        A = A + 1j * jax.random.normal(k2, (n, n))
    return scale * 0.5 * (A - _adj(A))


def _constant(t, U, A):
    return jnp.broadcast_to(A, U.shape)


@pytest.mark.parametrize("kind,n", [("so", 3), ("u", 2)])
def test_a_constant_field_is_integrated_exactly(kind, n):
    """xi = A constant: U(t) = U0 exp(tA) (SciPy), exact up to rounding over 200 steps."""
    U0 = group.sample_haar(jax.random.key(3), 2, n, kind)
    A = _algebra(jax.random.key(4), kind, n)
    geo = geometry.Group(kind, n)
    sol = geometry.rkmk4(geo, _constant, U0, [2.0], args=A, dt0=0.01)
    exact = np.asarray(U0) @ scipy.linalg.expm(2.0 * np.asarray(A))
    np.testing.assert_allclose(sol.states[0], exact, atol=1e-12)


@pytest.mark.parametrize("field", [_two_sided, _magnus])
@pytest.mark.parametrize("kind,n", [("so", 3), ("u", 2)])
def test_rkmk4_has_order_four_on_fields_with_known_solutions(field, kind, n):
    """The global error at t = 1.5 falls 16-fold per halving of the step."""
    U0 = group.sample_haar(jax.random.key(5), 2, n, kind)
    C = _algebra(jax.random.key(6), kind, n, 1.5)
    D = _algebra(jax.random.key(7), kind, n, 1.5)
    args, t1 = (C, D), 1.5
    Ue, Ce, De = np.asarray(U0), np.asarray(C), np.asarray(D)
    if field is _two_sided:
        exact = scipy.linalg.expm(t1 * Ce) @ Ue @ scipy.linalg.expm(t1 * De)
    else:
        exact = Ue @ scipy.linalg.expm(t1 * Ce) @ scipy.linalg.expm(t1 * De)
    geo = geometry.Group(kind, n)
    errs = []
    for dt in (0.15, 0.075, 0.0375):
        sol = geometry.rkmk4(geo, field, U0, [t1], args=args, dt0=dt)
        errs.append(float(np.max(np.abs(sol.states[0] - exact))))
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(np.abs(rates - 4.0) < 0.35), (errs, rates)


def test_the_state_stays_on_the_group_to_rounding():
    """2000 RKMK4 steps of the Lohe flow on U(3): |U^H U - I| stays at rounding (no
    projection step)."""
    U0, H = _problem("u", 3, N=3, seed=2)
    W = -1j * jnp.asarray(H)
    sol = geometry.rkmk4(
        geometry.Group("u", 3), _lohe_xi, U0, [10.0, 20.0], args=(W, 2.0), dt0=0.01
    )
    assert int(sol.num_steps) == 2000
    assert float(jnp.max(group.defect(sol.states))) < 1e-13


def test_the_adaptive_form_meets_its_tolerance():
    """RKMK4(3) on U' = BU + UD (exact e^{tB} U0 e^{tD}): the global error follows the
    tolerance (within 10x), the steps grow as it shrinks, and the state stays on the
    group."""
    U0 = group.sample_haar(jax.random.key(8), 3, 3, "so")
    B = _algebra(jax.random.key(9), "so", 3, 2.0)
    D = _algebra(jax.random.key(10), "so", 3, 1.0)
    ts = np.array([0.0, 0.7, 2.0])
    Be, De = np.asarray(B), np.asarray(D)
    exact = np.stack(
        [
            scipy.linalg.expm(t * Be) @ np.asarray(U0) @ scipy.linalg.expm(t * De)
            for t in ts
        ]
    )
    geo, steps = geometry.Group("so", 3), []
    for tol in (1e-6, 1e-9):
        sol = geometry.rkmk43(geo, _two_sided, U0, ts, args=(B, D), rtol=tol, atol=tol)
        err = float(np.max(np.abs(sol.states - exact)))
        assert err < 10 * tol, (tol, err)
        assert float(jnp.max(group.defect(sol.states))) < 1e-13
        np.testing.assert_array_equal(sol.states[0], U0)
        steps.append(int(sol.num_steps))
    assert 3.0 < steps[1] / steps[0] < 12.0, steps  # 1000^(1/4) = 5.6


def test_the_adaptive_step_is_the_rkmk4_step_and_its_estimate_is_fourth_order():
    """The accepted update is the fixed step bit for bit; the estimate E is O(h^4)."""
    U0, H = _problem("so", 3)
    geo, args = geometry.Group("so", 3), (jnp.asarray(H), 2.0)
    step = jax.jit(_lie._rkmk4_step, static_argnums=(0, 1))
    step43 = jax.jit(_lie._rkmk43_step, static_argnums=(0, 1))
    V, _ = step43(geo, _lohe_xi, 0.0, U0, 0.1, args)
    np.testing.assert_array_equal(V, step(geo, _lohe_xi, 0.0, U0, 0.1, args))
    E = [
        float(jnp.max(jnp.abs(step43(geo, _lohe_xi, 0.0, U0, h, args)[1])))
        for h in (0.2, 0.1, 0.05)
    ]
    assert 13.0 < E[0] / E[1] < 23.0 and 13.0 < E[1] / E[2] < 23.0, E


def test_brackets():
    """Group: the commutator, in the algebra; torus: 0."""
    geo = geometry.Group("u", 2)
    a, b = _algebra(jax.random.key(1), "u", 2), _algebra(jax.random.key(2), "u", 2)
    c = np.asarray(geo.bracket(a, b))
    np.testing.assert_allclose(c, np.asarray(a) @ np.asarray(b) - np.asarray(b) @ a)
    np.testing.assert_allclose(c, -np.conj(c.T), atol=1e-15)
    z = geometry.Torus().bracket(jnp.ones(3), jnp.ones((2, 3)))
    assert z.shape == (2, 3) and not np.any(np.asarray(z))


def test_a_geometry_without_a_lie_algebra_is_refused():
    sphere = geometry.Sphere(3)
    assert not sphere.has_lie_algebra
    assert geometry.Group("so", 3).has_lie_algebra and geometry.Torus().has_lie_algebra
    z0 = jnp.eye(3)
    for integrate in (geometry.rkmk4, geometry.rkmk43):
        with pytest.raises(TypeError, match="Sphere declares no Lie algebra"):
            integrate(sphere, lambda t, z, a: z, z0, [1.0])
    with pytest.raises(NotImplementedError, match="no Lie algebra"):
        sphere.bracket(z0, z0)
    with pytest.raises(TypeError, match="geo must be a syncattn.geometry.Geometry"):
        geometry.rkmk4("so3", lambda t, z, a: z, z0, [1.0])


def test_bad_options():
    geo, th = geometry.Torus(), jnp.zeros(3)

    def f(t, x, a):
        return jnp.ones_like(x)

    with pytest.raises(ValueError, match="ts must be finite, non-decreasing"):
        geometry.rkmk4(geo, f, th, [1.0, 0.5])
    with pytest.raises(ValueError, match="ts must be finite, non-decreasing"):
        geometry.rkmk4(geo, f, th, [0.5], t0=1.0)
    with pytest.raises(ValueError, match="dt0"):
        geometry.rkmk4(geo, f, th, [1.0], dt0=0.0)
    with pytest.raises(ValueError, match="max_steps"):
        geometry.rkmk43(geo, f, th, [1.0], max_steps=0)
    with pytest.raises(ValueError, match="rtol"):
        geometry.rkmk43(geo, f, th, [1.0], rtol=0.0)
    with pytest.raises(ValueError, match="concrete ts"):
        jax.jit(lambda ts: geometry.rkmk4(geo, f, th, ts).states)(jnp.ones(1))
    # the field is exact for RK4 (constant rate): theta(t) = t, few steps
    sol = geometry.rkmk43(geo, f, th, [2.0], dt0=0.5)
    np.testing.assert_allclose(sol.states[0], 2.0, atol=1e-14)


def test_the_step_cap_raises_or_reports():
    U0 = group.sample_haar(jax.random.key(8), 3, 3, "so")
    B = _algebra(jax.random.key(9), "so", 3, 2.0)
    geo = geometry.Group("so", 3)
    args = (B, B.T)
    with pytest.raises(Exception, match="rkmk43: max_steps=3"):
        geometry.rkmk43(geo, _two_sided, U0, [2.0], args=args, rtol=1e-12, max_steps=3)
    sol = geometry.rkmk43(
        geo, _two_sided, U0, [2.0], args=args, rtol=1e-12, max_steps=3, throw=False
    )
    assert float(sol.t) < 2.0 and int(sol.num_steps) <= 3


@pytest.mark.parametrize("integrator", [geometry.rkmk4, geometry.rkmk43])
def test_a_bad_start_is_an_error_naming_s0(integrator):
    geo = geometry.Group("so", 3)

    def field(t, s, args):
        return jnp.zeros_like(s)

    eye = jnp.eye(3)
    with pytest.raises(ValueError, match="s0 must be finite"):
        integrator(geo, field, eye.at[0, 0].set(jnp.nan), [1.0])
    with pytest.raises(ValueError, match="s0 must lie on"):
        integrator(geo, field, 2.0 * eye, [1.0])
    with pytest.raises(ValueError, match="s0 must have shape"):
        integrator(geo, field, jnp.eye(2), [1.0])
