"""Float64 numpy loops: independent references for the nn layers (no syncattn maths inside)."""

import math

import numpy as np


def np_(a):
    return np.asarray(a, np.float64)


def softplus(x):
    return np.logaddexp(0.0, x)


def softmax_rows(s, allowed):
    out = np.zeros_like(s)
    for t in range(s.shape[0]):
        idx = np.nonzero(allowed[t])[0]
        e = np.exp(s[t, idx] - s[t, idx].max())
        out[t, idx] = e / e.sum()
    return out


def bound(u, beta):
    """u tanh(rho)/rho, rho = rms(u)/beta, per row."""
    out = np.array(u, np.float64)
    for t in range(u.shape[0]):
        rho = math.sqrt(np.mean(u[t] ** 2)) / beta
        if rho > 0:
            out[t] = u[t] * math.tanh(rho) / rho
    return out


def rotate_pairs(x, angles):
    """x (2m,), angles (m,): pair (x_j, x_{j+m}) rotated by angles[j]."""
    m = len(angles)
    y = np.empty_like(x)
    for j in range(m):
        c, s = math.cos(angles[j]), math.sin(angles[j])
        y[j] = c * x[j] - s * x[j + m]
        y[j + m] = s * x[j] + c * x[j + m]
    return y


def kuramoto_attention(layer, theta, key_mask=None):
    """Naive O(T^2 k) Kuramoto attention: the scores written with cos(theta_t - theta_u + w (t-u)).

    `key_mask` (T,) bool, True = real token: padded keys get zero weight (a row with no
    real key keeps its unmasked row, `allowed_matrix`).
    """
    th = np_(theta)
    T, k = th.shape
    H = layer.n_heads
    kh = k // H
    x = np.concatenate([np.cos(th), np.sin(th)], 1)

    def gate(lin):
        g = softplus(x @ np_(lin.weight).T + np_(lin.bias))
        return g if getattr(layer, "gate_norm", "mean") == "none" else g / g.mean(1, keepdims=True)

    if layer.gates:
        gq, gk = gate(layer.gate_q), gate(layer.gate_k)
    else:
        gq = gk = np.ones((T, k))
    tau, om = math.exp(float(layer.log_tau)), np_(layer.omega)
    A = np.zeros((H, T, T))
    allowed = allowed_matrix(T, layer.causal, key_mask)
    for h in range(H):
        s = np.zeros((T, T))
        for t in range(T):
            for u in range(T):
                for j in range(h * kh, (h + 1) * kh):
                    s[t, u] += (
                        gq[t, j]
                        * gk[u, j]
                        * math.cos(th[t, j] - th[u, j] + om[j] * (t - u))
                    )
        A[h] = softmax_rows(tau / math.sqrt(kh) * s, allowed)
    if layer.value == "phase":
        vre, vim = np.cos(th), np.sin(th)
    else:
        vx = x @ np_(layer.value_proj.weight).T
        vre, vim = vx[:, :k], vx[:, k:]
    a = np.zeros((T, k))
    for t in range(T):
        for j in range(k):
            h = j // kh
            re = sum(A[h, t, u] * vre[u, j] for u in range(T))
            im = sum(A[h, t, u] * vim[u, j] for u in range(T))
            a[t, j] = -math.sin(th[t, j]) * re + math.cos(th[t, j]) * im
    gate_v = x @ np_(layer.value_gate.weight).T + np_(layer.value_gate.bias)
    return th + bound(gate_v * a, layer.bound), A, a


def allowed_matrix(T, causal, key_mask=None):
    """Row i: the keys j that query i may use (a row with no real key keeps its causal row)."""
    base = np.tril(np.ones((T, T), bool)) if causal else np.ones((T, T), bool)
    if key_mask is None:
        return base
    m = base & np.asarray(key_mask)[None, :]
    return np.where(m.any(1, keepdims=True), m, base)


def oscillator_attention(layer, x, key_mask=None):
    """Naive fixed-query oscillator attention: loops over heads, queries and keys."""
    x = np_(x)
    T = x.shape[0]
    km = np.ones(T, bool) if key_mask is None else np.asarray(key_mask)
    read = allowed_matrix(T, layer.causal, key_mask if layer.mask_readout else None)
    H, dh, d = layer.n_heads, layer.d_head, layer.d_osc
    q = (x @ np_(layer.wq.weight).T).reshape(T, H, dh)
    k = (x @ np_(layer.wk.weight).T).reshape(T, H, dh)
    v = (x @ np_(layer.wv.weight).T).reshape(T, H, dh)
    if layer.anchors == "position":
        r = np_(layer.anchor_table)[:, :T]
    else:
        r = (x @ np_(layer.anchor_proj.weight).T).reshape(T, H, d).transpose(1, 0, 2)
    if layer.normalize_anchors:
        r = r / np.linalg.norm(r, axis=-1, keepdims=True)
    elu1 = lambda a: np.where(a > 0, a + 1.0, np.exp(a))
    out = np.zeros((T, H, dh))
    W = np.zeros((H, T, T))
    A = np.zeros((H, T, T))
    Z = np.zeros((H, T, d))
    for h in range(H):
        for i in range(T):
            hi = np.zeros(d)
            js = range(i + 1) if layer.causal else range(T)
            for j in (j for j in js if km[j]):
                raw = q[i, h] @ k[j, h] / math.sqrt(dh)
                if layer.coupling == "softplus":
                    w = softplus(raw)
                elif layer.coupling == "relu":
                    w = max(raw, 0.0) + 1e-3
                elif layer.coupling == "elu1":  # published: elu(raw) + 1
                    w = raw + 1.0 if raw > 0 else math.exp(raw)
                else:  # "elu1_features": the kernel phi(q).phi(k)/d_h
                    w = elu1(q[i, h]) @ elu1(k[j, h]) / dh
                W[h, i, j] = w
                hi += w * r[h, j]
            # a degenerate drive reads out at z = 0 (uniform), as the published layer
            n = np.linalg.norm(hi)
            z = hi / n if n > np.sqrt(np.finfo(np.float64).eps) else np.zeros(d)
            Z[h, i] = z
            js = np.nonzero(read[i])[0]
            u = np.array([max(0.0, 1.0 + z @ r[h, j]) ** layer.p for j in js])
            if u.sum() == 0:  # every kernel value vanished: uniform fallback
                u = np.ones_like(u)
            for j, uj in zip(js, u, strict=True):
                A[h, i, j] = uj / u.sum()
                out[i, h] += A[h, i, j] * v[j, h]
    y = out.reshape(T, H * dh) @ np_(layer.wo.weight).T + np_(layer.wo.bias)
    return y, dict(couplings=W, weights=A, z=Z, anchors=r)


def softmax_attention(layer, x, key_mask=None):
    """Naive RoPE softmax attention with explicit per-pair rotations."""
    x = np_(x)
    T = x.shape[0]
    H = layer.n_heads
    dh = layer.d_model // H
    m = dh // 2
    om = layer.rope_base ** (-np.arange(m) / m)
    q = (x @ np_(layer.wq.weight).T).reshape(T, H, dh)
    k = (x @ np_(layer.wk.weight).T).reshape(T, H, dh)
    v = (x @ np_(layer.wv.weight).T).reshape(T, H, dh)
    allowed = allowed_matrix(T, layer.causal, key_mask)
    if not layer.rope:
        om = np.zeros(m)
    out = np.zeros((T, H, dh))
    A = np.zeros((H, T, T))
    for h in range(H):
        s = np.zeros((T, T))
        for t in range(T):
            for u in range(T):
                s[t, u] = (
                    rotate_pairs(q[t, h], om * t)
                    @ rotate_pairs(k[u, h], om * u)
                    / math.sqrt(dh)
                )
        A[h] = softmax_rows(s, allowed)
        out[:, h] = A[h] @ v[:, h]
    y = out.reshape(T, H * dh) @ np_(layer.wo.weight).T
    if layer.wo.bias is not None:
        y = y + np_(layer.wo.bias)
    return y, A


def _generators(layer, n, k):
    """Omega_j (k, n, n) of a sphere layer, written from its parametrisation."""
    Om = np.zeros((k, n, n))
    if layer.drift == "planes":
        rates = np_(layer.omega)
        for j in range(k):
            for p in range(rates.shape[1]):
                Om[j, 2 * p, 2 * p + 1] = rates[j, p]
                Om[j, 2 * p + 1, 2 * p] = -rates[j, p]
    elif layer.drift == "full":
        w = np_(layer.omega)
        Om = (w - np.swapaxes(w, 1, 2)) / 2
    return Om


def sphere_attention(layer, z, key_mask=None):
    """Naive sphere (Lohe) attention: s_tu = tau/sqrt(k_h) sum_j gq gk <z_tj, expm((t-u) Omega_j) z_uj>,
    G = A z, a = (I - z z^T) G, z <- cos|v| z + sin|v| v/|v| with v the bounded, gated a."""
    from scipy.linalg import expm

    z = np_(z)
    T, k, n = z.shape
    H = layer.n_heads
    kh = k // H
    x = np.array([[z[t, j, c] for c in range(n) for j in range(k)] for t in range(T)])

    def gate(lin):
        g = softplus(x @ np_(lin.weight).T + np_(lin.bias))
        return g if layer.gate_norm == "none" else g / g.mean(1, keepdims=True)

    gq, gk = (gate(layer.gate_q), gate(layer.gate_k)) if layer.gates else (np.ones((T, k)),) * 2
    Om = _generators(layer, n, k)
    tau = math.exp(float(layer.log_tau))
    allowed = allowed_matrix(T, layer.causal, key_mask)
    A = np.zeros((H, T, T))
    for h in range(H):
        s = np.zeros((T, T))
        for t in range(T):
            for u in range(T):
                for j in range(h * kh, (h + 1) * kh):
                    s[t, u] += gq[t, j] * gk[u, j] * (z[t, j] @ expm((t - u) * Om[j]) @ z[u, j])
        A[h] = softmax_rows(tau / math.sqrt(kh) * s, allowed)
    if layer.value == "learned":
        vx = x @ np_(layer.value_proj.weight).T  # coordinate-major: vx[t, c k + j]
        vals = np.array([[[vx[t, c * k + j] for c in range(n)] for j in range(k)] for t in range(T)])
    else:
        vals = z
    a = np.zeros((T, k, n))
    for t in range(T):
        for j in range(k):
            G = sum(A[j // kh, t, u] * vals[u, j] for u in range(T))
            a[t, j] = G - (z[t, j] @ G) * z[t, j]
    gate_v = x @ np_(layer.value_gate.weight).T + np_(layer.value_gate.bias)
    u = gate_v[:, :, None] * a
    y = np.zeros_like(z)
    for t in range(T):
        rho = math.sqrt(np.sum(u[t] ** 2) / k) / layer.bound
        ut = u[t] * (math.tanh(rho) / rho if rho > 0 else 1.0)
        for j in range(k):
            r = np.linalg.norm(ut[j])
            y[t, j] = z[t, j] if r == 0 else math.cos(r) * z[t, j] + math.sin(r) * ut[j] / r
    return y, A, a


def group_attention(layer, U, key_mask=None):
    """Naive group (matrix Lohe) attention: s_tu = tau/sqrt(k_h) sum_j gq gk (1/n) Re tr(U_tj^H
    expm((t-u) Omega_j) U_uj), G = A U, xi = skew(U^H G), U <- U expm(bounded, gated xi)."""
    from scipy.linalg import expm

    U = np.asarray(U, np.complex128)
    T, k, n, _ = U.shape
    cplx = layer.group.startswith("u")
    H = layer.n_heads
    kh = k // H
    parts = [U.real, U.imag] if cplx else [U.real]
    # coordinate-major lift: x[t, c k + j] = c-th real coordinate of U_tj (row-major entries)
    coords = np.concatenate([p.reshape(T, k, n * n) for p in parts], -1)  # (T, k, m)
    x = coords.transpose(0, 2, 1).reshape(T, -1)

    def gate(lin):
        g = softplus(x @ np_(lin.weight).T + np_(lin.bias))
        return g if layer.gate_norm == "none" else g / g.mean(1, keepdims=True)

    gq, gk = (gate(layer.gate_q), gate(layer.gate_k)) if layer.gates else (np.ones((T, k)),) * 2
    Om = np.zeros((k, n, n), np.complex128)
    if layer.omega is not None and layer.drift == "planes" and cplx:
        for j in range(k):
            Om[j] = -1j * np.diag(np.asarray(layer.omega[j], np.float64))
    elif layer.omega is not None and layer.drift == "planes":
        Om = _generators(layer, n, k).astype(np.complex128)
    elif layer.omega is not None:
        w = np.asarray(layer.omega, np.complex128)
        Om = (w - np.conj(np.swapaxes(w, 1, 2))) / 2
    tau = math.exp(float(layer.log_tau))
    allowed = allowed_matrix(T, layer.causal, key_mask)
    A = np.zeros((H, T, T))
    for h in range(H):
        s = np.zeros((T, T))
        for t in range(T):
            for u in range(T):
                for j in range(h * kh, (h + 1) * kh):
                    tr = np.trace(np.conj(U[t, j]).T @ expm((t - u) * Om[j]) @ U[u, j])
                    s[t, u] += gq[t, j] * gk[u, j] * tr.real / n
        A[h] = softmax_rows(tau / math.sqrt(kh) * s, allowed)
    if layer.value == "learned":
        vx = (x @ np_(layer.value_proj.weight).T).reshape(T, -1, k).transpose(0, 2, 1)
        vals = vx[..., : n * n] + (1j * vx[..., n * n :] if cplx else 0)
        vals = vals.reshape(T, k, n, n)
    else:
        vals = U
    xi = np.zeros((T, k, n, n), np.complex128)
    for t in range(T):
        for j in range(k):
            G = sum(A[j // kh, t, u] * vals[u, j] for u in range(T))
            M = np.conj(U[t, j]).T @ G
            xi[t, j] = (M - np.conj(M).T) / 2
    gate_v = x @ np_(layer.value_gate.weight).T + np_(layer.value_gate.bias)
    u = gate_v[:, :, None, None] * xi
    y = np.zeros_like(U)
    for t in range(T):
        rho = math.sqrt(np.sum(np.abs(u[t]) ** 2) / n / k) / layer.bound
        ut = u[t] * (math.tanh(rho) / rho if rho > 0 else 1.0)
        for j in range(k):
            y[t, j] = U[t, j] @ expm(ut[j])
    return (y if cplx else y.real), A, (xi if cplx else xi.real)


def frustrated_attention(layer, theta, key_mask=None, c=None, b=None):
    """Naive O(T^2 k M) frustrated attention, written in the sine form of statement 26:
    F_tj = sum_m sum_u A_tu |c_m| sin(m(th_u - th_t) + arg c_m)
         + sum_m sum_{u<t} A_tu |b_m| sin(m(th_{u+1} - th_t) + arg b_m),
    the weights A from the Kuramoto score loop above. `c`, `b`: complex (H, M) given
    by the caller (the held coefficients of the fixed controls, which are no leaves);
    by default the layer's own leaves."""
    th = np_(theta)
    T, k = th.shape
    H = layer.n_heads
    kh = k // H
    _, A, _ = kuramoto_attention(layer, theta, key_mask)
    allowed = allowed_matrix(T, layer.causal, key_mask)
    if c is None:
        c = np_(layer.c_real) + 1j * np_(layer.c_imag)
    if b is None and layer.b_real is not None:
        b = np_(layer.b_real) + 1j * np_(layer.b_imag)
    F = np.zeros((T, k))
    for t in range(T):
        for j in range(k):
            h = j // kh
            for u in range(T):
                if not allowed[t, u]:
                    continue
                for m in range(1, layer.order + 1):
                    cm = c[h, m - 1]
                    F[t, j] += A[h, t, u] * abs(cm) * math.sin(m * (th[u, j] - th[t, j]) + np.angle(cm))
                    if b is not None and u < t:
                        bm = b[h, m - 1]
                        F[t, j] += A[h, t, u] * abs(bm) * math.sin(
                            m * (th[u + 1, j] - th[t, j]) + np.angle(bm))
    x = np.concatenate([np.cos(th), np.sin(th)], 1)
    gate_v = x @ np_(layer.value_gate.weight).T + np_(layer.value_gate.bias)
    return th + bound(gate_v * F, layer.bound), A, F


def collective_modes(block, theta):
    """Naive coupling to J collective modes: s_ti = tau/sqrt(k_h) sum_{j in h} kappa_ij
    cos(th_tj - psi_ij), A = softmax_i, F_tj = sum_i A_ti sum_m |c_m| sin(m(psi_ij - th_tj) + arg c_m)."""
    th, psi = np_(theta), np_(block.modes)
    T, k = th.shape
    J, H = psi.shape[0], block.n_heads
    kh = k // H
    kappa = softplus(np_(block.concentration))
    tau = math.exp(float(block.log_tau))
    c = np_(block.c_real) + 1j * np_(block.c_imag)
    A = np.zeros((H, T, J))
    for h in range(H):
        s = np.zeros((T, J))
        for t in range(T):
            for i in range(J):
                for j in range(h * kh, (h + 1) * kh):
                    s[t, i] += kappa[i, j] * math.cos(th[t, j] - psi[i, j])
        A[h] = softmax_rows(tau / math.sqrt(kh) * s, np.ones((T, J), bool))
    F = np.zeros((T, k))
    for t in range(T):
        for j in range(k):
            h = j // kh
            for i in range(J):
                for m in range(1, block.order + 1):
                    cm = c[h, m - 1]
                    F[t, j] += A[h, t, i] * abs(cm) * math.sin(m * (psi[i, j] - th[t, j]) + np.angle(cm))
    x = np.concatenate([np.cos(th), np.sin(th)], 1)
    gate_v = x @ np_(block.value_gate.weight).T + np_(block.value_gate.bias)
    return th + bound(gate_v * F, block.bound), A, F
