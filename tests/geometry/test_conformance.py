"""Every registered geometry against the contract of `syncattn.geometry.Geometry`
(issue 41 §2): random points lie on the manifold; `project` is the orthogonal projection
onto a tangent space of dimension `dim`, orthogonal to the state; `inner` is the ambient
metric times `norm_scale`; `exp` stays on the manifold and starts along its tangent; the
drift is an isometry of the embedding; the order parameter is invariant under the
symmetry, 1 on identical states and in [0, 1]; declared plane rates turn the planes of the
lift; a fused CPU step (`kernel_step`) is the plain `tangent_step`.

Each check is computed independently of the implementation it tests: ambient Euclidean
products, `jax.jvp` of `embed`, the numerical rank of the projection.
"""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import geometry


GEOMETRIES = {
    "torus": geometry.Torus(),
    "sphere2": geometry.Sphere(2),
    "sphere5": geometry.Sphere(5),
    "sphere4-full": geometry.Sphere(4, "full"),
    "so2": geometry.Group("so", 2),
    "so3": geometry.Group("so", 3),
    "so4-full": geometry.Group("so", 4, "full"),
    "u1": geometry.Group("u", 1),
    "u2": geometry.Group("u", 2),
    "u3-full": geometry.Group("u", 3, "full"),
    "stiefel1x3": geometry.Stiefel(1, 3),
    "stiefel2x4": geometry.Stiefel(2, 4),
    "stiefel3x3": geometry.Stiefel(3, 3),
    "stiefel2x5-full": geometry.Stiefel(2, 5, "full"),
}
TOL = 1e-10
# the default run checks one case of each kind (the whole table runs under -m slow, in CI)
DEFAULT = {"torus", "sphere5", "so3", "u2", "stiefel2x4"}


@pytest.fixture(
    params=[
        pytest.param(g, marks=() if g in DEFAULT else pytest.mark.slow)
        for g in sorted(GEOMETRIES)
    ]
)
def geo(request):
    return GEOMETRIES[request.param]


def _points(geo, key, shape=(6, 3)):
    return geo.random(key, shape, jnp.complex128 if geo.complex else jnp.float64)


def _ambient(geo, key, shape=(6, 3)):
    """A random ambient vector in `unembed`'s form."""
    return geo.unembed(jax.random.normal(key, shape + (geo.m,), jnp.float64))


def _dot(x, y):
    """The ambient Euclidean product over the last axis (embedded coordinates)."""
    return jnp.sum(x * y, -1)


def test_every_registered_space_is_covered():
    spaces = {re.match("[a-z]+", g.space).group() for g in GEOMETRIES.values()}
    assert spaces == set(geometry.REGISTRY)


def test_random_points_lie_on_the_manifold_and_pass_the_check(geo):
    s = _points(geo, jax.random.key(0))
    assert s.shape == (6, 3, *geo.fiber)
    assert float(jnp.max(geo.residual(s))) < TOL
    assert geo.embed(s).shape == (6, 3, geo.m)
    geo.check(s, 3, "s")  # no error


def test_tangents_are_orthogonal_to_the_state(geo):
    s = _points(geo, jax.random.key(1))
    a = geo.project(s, _ambient(geo, jax.random.key(2)))
    assert float(jnp.max(jnp.abs(_dot(geo.embed(s), geo.ambient_tangent(s, a))))) < TOL


def test_project_is_the_orthogonal_projection(geo):
    s = _points(geo, jax.random.key(3))
    v, w = _ambient(geo, jax.random.key(4)), _ambient(geo, jax.random.key(5))
    pv, pw = geo.project(s, v), geo.project(s, w)
    # idempotent: a tangent, written as an ambient vector, projects to itself
    back = geo.project(s, geo.unembed(geo.ambient_tangent(s, pv)))
    np.testing.assert_allclose(back, pv, atol=TOL)
    # the residual v - P v is orthogonal to every tangent
    resid = _flat(geo, v) - geo.ambient_tangent(s, pv)
    assert float(jnp.max(jnp.abs(_dot(resid, geo.ambient_tangent(s, pw))))) < TOL


def _flat(geo, v):
    """An ambient vector in `unembed`'s form back to its m real coordinates."""
    if geo.fiber_ndim == 0:  # the torus: (cos, sin) coordinates already
        return v
    if geo.complex:
        r = v.reshape(v.shape[: v.ndim - geo.fiber_ndim] + (-1,))
        return jnp.concatenate([jnp.real(r), jnp.imag(r)], -1)
    return v.reshape(v.shape[: v.ndim - geo.fiber_ndim] + (-1,))


def test_the_tangent_space_has_dimension_dim(geo):
    s = _points(geo, jax.random.key(6), (1, 1))

    def P(x):  # R^m -> R^m: ambient coordinates to the projected tangent's
        return geo.ambient_tangent(s, geo.project(s, geo.unembed(x[None, None])))[0, 0]

    J = jax.jacobian(P)(jnp.zeros(geo.m, jnp.float64))
    assert np.linalg.matrix_rank(np.asarray(J), tol=1e-8) == geo.dim
    np.testing.assert_allclose(J @ J, J, atol=TOL)  # a projection
    np.testing.assert_allclose(J, J.T, atol=TOL)  # orthogonal


def test_inner_is_the_scaled_ambient_product(geo):
    s = _points(geo, jax.random.key(7))
    a = geo.project(s, _ambient(geo, jax.random.key(8)))
    b = geo.project(s, _ambient(geo, jax.random.key(9)))
    want = geo.norm_scale * _dot(geo.ambient_tangent(s, a), geo.ambient_tangent(s, b))
    np.testing.assert_allclose(geo.inner(a, b), want, atol=TOL)
    np.testing.assert_allclose(geo.norm_sq(a), geo.inner(a, a), atol=TOL)


def test_exp_stays_on_the_manifold_and_starts_along_the_tangent(geo):
    s = _points(geo, jax.random.key(10))
    a = 3.0 * geo.project(s, _ambient(geo, jax.random.key(11)))  # long steps
    assert float(jnp.max(geo.residual(geo.exp(s, a)))) < 1e-9
    np.testing.assert_allclose(geo.exp(s, 0 * a), s, atol=TOL)

    def curve(t):
        return geo.embed(geo.exp(s, t * a))

    _, velocity = jax.jvp(curve, (jnp.float64(0.0),), (jnp.float64(1.0),))
    np.testing.assert_allclose(velocity, geo.ambient_tangent(s, a), atol=1e-8)


def test_the_drift_is_an_isometry_of_the_embedding(geo):
    k = 3
    s, r = _points(geo, jax.random.key(12)), _points(geo, jax.random.key(13))
    omega = jax.random.normal(jax.random.key(14), geo.omega_shape(k), jnp.float64)
    ds, dr = geo.drifted_lift(s, omega), geo.drifted_lift(r, omega)  # (T, m, k)
    assert ds.shape == (6, geo.m, k)
    plain = geo.norm_scale * _dot(geo.embed(s), geo.embed(r))  # (T, k)
    np.testing.assert_allclose(jnp.sum(ds * dr, 1), plain, atol=TOL)
    # token 0 is not turned; a later one is (the drift acts)
    np.testing.assert_allclose(
        ds[0], geo.lift(s)[0] * np.sqrt(geo.norm_scale), atol=TOL
    )
    assert (
        float(jnp.max(jnp.abs(ds[1:] - geo.lift(s)[1:] * np.sqrt(geo.norm_scale))))
        > 1e-3
    )
    Om = geo.generator(omega)
    if Om.ndim >= 3:  # a Lie algebra element: skew(-Hermitian)
        np.testing.assert_allclose(Om, -jnp.conj(jnp.swapaxes(Om, -1, -2)), atol=TOL)


def test_the_order_parameter_is_invariant_under_the_symmetry(geo):
    s = _points(geo, jax.random.key(15))
    g = geo.random_symmetry(jax.random.key(16), s.dtype)
    gs = geo.act(g, s)
    assert float(jnp.max(geo.residual(gs))) < TOL
    R = geo.order_parameter(s)
    np.testing.assert_allclose(geo.order_parameter(gs), R, atol=TOL)
    assert R.shape == (3,) and bool(jnp.all((R >= 0) & (R <= 1 + TOL)))
    same = jnp.broadcast_to(s[:1], s.shape)
    np.testing.assert_allclose(geo.order_parameter(same), 1.0, atol=TOL)
    w = jnp.array([1.0, 0, 0, 0, 0, 0])  # one token carries all the weight
    np.testing.assert_allclose(geo.order_parameter(s, w), 1.0, atol=TOL)


def test_the_order_parameter_is_the_brute_force_mean():
    """Independent closed forms: |mean e^{i theta}|, ||mean z||, ||mean U||_F / sqrt n."""
    key = jax.random.key(17)
    th = geometry.Torus().random(key, (50, 2), jnp.float64)
    want = np.abs(np.mean(np.exp(1j * np.asarray(th)), 0))
    np.testing.assert_allclose(geometry.Torus().order_parameter(th), want, atol=TOL)
    U = geometry.Group("u", 2).random(key, (50, 2), jnp.complex128)
    want = np.linalg.norm(np.mean(np.asarray(U), 0), axis=(-2, -1)) / np.sqrt(2)
    np.testing.assert_allclose(
        geometry.Group("u", 2).order_parameter(U), want, atol=TOL
    )


def test_from_space_names_the_geometries_and_rejects_others():
    assert geometry.from_space("torus") == geometry.Torus()
    assert geometry.from_space("sphere", 3) == geometry.Sphere(3)
    assert geometry.from_space("SO3") == geometry.Group("so", 3)
    assert geometry.from_space("u2", drift="full") == geometry.Group("u", 2, "full")
    assert geometry.from_space("Stiefel2x5") == geometry.Stiefel(2, 5)
    assert geometry.from_space("stiefel2", 5, "none") == geometry.Stiefel(2, 5, "none")
    for bad in ("torus2", "cube", "so1", "stiefel", "stiefel3x2", "stiefel2y5"):
        with pytest.raises(ValueError):
            geometry.from_space(bad)
    with pytest.raises(ValueError, match="needs n"):
        geometry.from_space("sphere")
    with pytest.raises(ValueError, match="n must be"):
        geometry.Sphere(1)
    with pytest.raises(ValueError, match="drift"):
        geometry.Sphere(3, "spiral")


def test_the_contract_is_abstract():
    with pytest.raises(TypeError):
        geometry.Geometry()

    class Half(geometry.Torus.__mro__[1]):  # Geometry with nothing implemented
        pass

    with pytest.raises(TypeError, match="abstract"):
        Half()


def test_velocity_is_the_derivative_of_the_state_along_exp(geo):
    s = _points(geo, jax.random.key(18))
    a = geo.project(s, _ambient(geo, jax.random.key(19)))
    _, ds = jax.jvp(
        lambda t: geo.exp(s, t * a), (jnp.float64(0.0),), (jnp.float64(1.0),)
    )
    np.testing.assert_allclose(ds, geo.velocity(s, a), atol=1e-8)


def test_nearest_returns_points_on_the_manifold_and_fixes_them(geo):
    s = _points(geo, jax.random.key(20))
    np.testing.assert_allclose(geo.nearest(s), s, atol=1e-9)
    noise = jax.random.normal(jax.random.key(21), s.shape, jnp.float64) * 1e-3
    near = geo.nearest(s + noise.astype(s.dtype))
    assert float(jnp.max(geo.residual(near))) < 1e-9
    assert float(jnp.max(jnp.abs(near - s))) < 1e-2


def test_the_drift_parameter_from_rates_has_the_declared_shape(geo):
    k = 4
    P = geo.drift_planes
    assert P >= 1  # every registered case drifts (drift="none" gives 0)
    omega = geo.omega_from_rates(jnp.ones((k, P), jnp.float64))
    assert omega.shape == geo.omega_shape(k)


def test_plane_rates_turn_the_planes_of_the_lift(geo):
    """Where a geometry declares its drift as plane rates $w$ $(P, k)$ (the fused CPU
    features' input), `drifted_lift` is the lift with planes $(2p, 2p+1)$ of oscillator
    $j$ turned by $t\\,w_{pj}$ (numpy cos and sin, float64)."""
    k = 3
    s = _points(geo, jax.random.key(21))
    omega = jax.random.normal(jax.random.key(22), geo.omega_shape(k), jnp.float64)
    w = geo.plane_rates(omega)
    if w is None:
        pytest.skip(f"{geo!r} declares no plane rates")
    w = np.asarray(w)
    P = w.shape[0]
    assert w.shape == (P, k) and 1 <= 2 * P <= geo.m
    x = np.array(geo.lift(s))  # (T, m, k)
    t = np.arange(x.shape[0], dtype=np.float64)[:, None, None]
    c, sn = np.cos(t * w[None]), np.sin(t * w[None])  # (T, P, k)
    a, b = x[:, 0 : 2 * P : 2].copy(), x[:, 1 : 2 * P : 2].copy()
    x[:, 0 : 2 * P : 2], x[:, 1 : 2 * P : 2] = c * a - sn * b, sn * a + c * b
    np.testing.assert_allclose(geo.drifted_lift(s, omega), x, atol=TOL)


def test_kernel_step_is_the_plain_step(geo):
    """Where a geometry has a fused CPU step (`kernel_step` not None: float32 on the CPU
    with the kernels built), it is `tangent_step`'s plain value (float32 tolerance), with
    and without a value gate."""
    from syncattn._kernels import kernel_enabled
    from syncattn.nn._sync_attention import tangent_step

    if geo.complex or not kernel_enabled(jnp.float32):
        pytest.skip("no float32 CPU kernels for this geometry here")
    s = geo.random(jax.random.key(23), (6, 3), jnp.float32)
    G = jax.random.normal(jax.random.key(24), (6, geo.m, 3), jnp.float32)
    gate = jax.random.normal(jax.random.key(25), (6, 3), jnp.float32)
    for v in (gate, None):
        y = geo.kernel_step(s, geo.lift(s), G, v, 0.7)
        if y is None:
            pytest.skip(f"{geo!r} has no kernel step")
        np.testing.assert_allclose(y, tangent_step(geo, s, G, v, 0.7), rtol=2e-5, atol=2e-6)
