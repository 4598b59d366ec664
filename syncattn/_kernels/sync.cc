// The elementwise maps around the attention of the synchronisation layers (torus, sphere),
// fused for XLA:CPU and called through jax.ffi (syncattn._kernels._sync). Per token t of item
// n of the flattened batch; k oscillators, m ambient coordinates, P drift planes.
//
// Features (syncattn.nn.SyncAttention._features: the gates and the drifted lift), with the
// lift x (N, T, m, k) coordinate-major, the gate pre-activations zq, zk (N, T, k), the drift
// rates w (N, P, k) and the score scale c (N, 1):
//
//   g_j = softplus(z_j) / M,  M = max(mean_j softplus(z_j), tiny)  (M = 1 without `norm`)
//   r_t = R_t x_t:  (r_2p, r_2p+1) = (cos a x_2p - sin a x_2p+1, sin a x_2p + cos a x_2p+1),
//         a = t w_pj (plane p of oscillator j turned by t w_pj); r_i = x_i for i >= 2P
//   q = c g^q r,   k = g^k r
//
// backward (dq, dk the cotangents): dr = c g^q dq + g^k dk, dx = R_t^T dr,
//   dg^q_j = c sum_i dq_ij r_ij, dg^k_j = sum_i dk_ij r_ij, dc = sum_ij dq_ij g^q_j r_ij,
//   da_pj = r_2p dr_2p+1 - r_2p+1 dr_2p, dw_pj = sum_t t da_pj,
//   dsp_j = dg_j / M - [mean > tiny] (sum_i dg_i sp_i) / (k M^2),  dz_j = dsp_j sigmoid(z_j).
//
// Torus step (the Kuramoto layer's move, syncattn.nn._sync_attention.tangent_step on the
// torus), with x = (cos th, sin th) (N, T, 2, k), the attention average G (N, T, 2, k), the
// value gate v (N, T, k) and, optionally, one complex coefficient c_h per head (the frustrated
// layer at one harmonic):
//
//   a_j = -x_1j G_0j + x_0j G_1j   (= Im(e^{-i th} G));  with c: a = Re c a + Im c b,
//         b_j = x_0j G_0j + x_1j G_1j  (= Re(e^{-i th} G))
//   u = v a,  rho = rms(u) / beta,  f = tanh(rho) / rho (1 at u = 0),  th' = th + f u
//
// Sphere step (syncattn.geometry.Sphere.fused_step), with z the states read from the lift x
// (N, T, n, k) and y written (N, T, k, n):
//
//   d_j = z_j . G_j,  w_j = G_j - d_j z_j,  u_j = v_j w_j,  f as above over |u_j|^2,
//   s_j = f |u_j|,  y_j = cos(s_j) z_j + f sin(s_j) / s_j u_j  (y_j = z_j + f u_j at s_j = 0)
//
// Work items are (n, block of tokens); each item is computed by one thread in a fixed order
// and the per-item partial sums (dw, dc, the coefficients') are added in item order after
// the loop, so results do not depend on the threads (bit-stable).

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "simd.h"

namespace {

constexpr int64_t TB = 16;  // tokens per work item
constexpr float TINY = std::numeric_limits<float>::min();

// (sin x, cos x) in float32: the reduction and polynomials of syncattn._numerics._sincos32
// (k = round(2x / pi), a three-part Cody-Waite split of pi/2, degree-9/10 Taylor
// polynomials on |r| <= pi/4, an exact rotation by k quarter turns). k is rounded by the
// 1.5 * 2^23 trick where |2x / pi| < 2^22, else lane by lane (nearbyint, and the quarter turn
// k mod 4 in floating point, as jnp.mod): finite results of modulus 1 for every finite x
// (beyond |x| ~ 10^4 as inexact as the float32 reduction, as XLA's); NaN and inf give NaN.
HOT void vsincos(vf x, vf& sn, vf& cs) {
  const vf magic = splat(12582912.0f);  // 1.5 * 2^23: round to nearest even
  const vf y = x * splat(0.636619772367581343f);
  vf k = (y + magic) - magic;
  vi q;
  if (hmax(vabs(y)) < 4194304.0f) {  // 2^22 (NaN lanes too: NaN results either way)
    q = __builtin_convertvector(k, vi) & 3;
  } else {
    for (int l = 0; l < VW; ++l) {
      if (!(std::fabs(y[l]) >= 4194304.0f)) {
        q[l] = std::isnan(k[l]) ? 0 : static_cast<int32_t>(k[l]) & 3;  // NaN: NaN out
        continue;
      }
      const float kl = std::nearbyint(y[l]);
      const float ql = kl - 4.0f * std::floor(kl * 0.25f);
      k[l] = kl;
      q[l] = std::isfinite(ql) ? static_cast<int32_t>(ql) : 0;
    }
  }
  const vf r = ((x - k * splat(1.5703125f)) - k * splat(4.837512969970703125e-4f)) -
               k * splat(7.54978995489188216e-8f);
  const vf r2 = r * r;
  vf ps = splat(1.0f / 362880.0f);
  ps = ps * r2 + splat(-1.0f / 5040.0f);
  ps = ps * r2 + splat(1.0f / 120.0f);
  ps = ps * r2 + splat(-1.0f / 6.0f);
  const vf s = r + r * r2 * ps;
  vf pc = splat(-1.0f / 3628800.0f);
  pc = pc * r2 + splat(1.0f / 40320.0f);
  pc = pc * r2 + splat(-1.0f / 720.0f);
  pc = pc * r2 + splat(1.0f / 24.0f);
  pc = pc * r2 + splat(-0.5f);
  const vf c = splat(1.0f) + r2 * pc;
  sn = q == 0 ? s : (q == 1 ? c : (q == 2 ? -s : -c));
  cs = q == 0 ? c : (q == 1 ? -s : (q == 2 ? -c : s));
}

// Lane-wise square root.
HOT vf vsqrt(vf x) {
  float a[VW];
  store(a, x);
  for (int l = 0; l < VW; ++l) a[l] = std::sqrt(a[l]);
  return load(a);
}

// softplus(z) = max(z, 0) + log(1 + e^{-|z|}) and sigmoid(z).
HOT void softplus_sigmoid(vf z, vf& sp, vf& sig) {
  const vf e = vexp(-vabs(z));
  const vf zero = splat(0.0f);
  sp = (z > zero ? z : zero) + vlog1p01(e);
  const vf inv = splat(1.0f) / (splat(1.0f) + e);
  sig = z >= zero ? inv : e * inv;
}

// The bound's factor f = tanh(rho) / rho at rho = sqrt(sq) / beta (1 at sq = 0), and
// f'(rho) / (2 beta^2 rho) = df / dsq (0 at sq = 0), in double.
struct Bound {
  float f;
  double dfdsq;
};

inline Bound bound_factor(double sq, double beta) {
  if (!(sq > 0)) return {1.0f, 0.0};
  const double rho = std::sqrt(sq) / beta;
  const double th = std::tanh(rho);
  double fp_over_rho;  // f'(rho) / rho
  if (rho < 1e-3)
    fp_over_rho = -2.0 / 3.0 + 8.0 / 15.0 * rho * rho;
  else
    fp_over_rho = ((1.0 - th * th) * rho - th) / (rho * rho * rho);
  return {static_cast<float>(th / rho), fp_over_rho / (2.0 * beta * beta)};
}

// ------------------------------------------------------------------------------ features

struct FeatShape {
  int64_t N, T, m, k, P, kp, nb;
  bool norm;
};

struct FeatIO {
  const float *X, *ZQ, *ZK, *W, *SC, *DQ, *DK;
  float *Q, *K, *DX, *DZQ, *DZK;
  float *dw_part, *dsc_part;  // per item: P * kp, 1
};

// Softplus and sigmoid of a row of k pre-activations into sp, sig (kp each); returns M.
HOT float gate_row(const FeatShape& s, const float* z, float* sp, float* sig, float& mean) {
  vf acc = splat(0.0f);
  for (int64_t j = 0; j < s.k; j += VW) {
    vf a, b;
    softplus_sigmoid(load_n(z + j, s.k - j), a, b);
    a = lanes(a, s.k - j);
    store(sp + j, a);
    store(sig + j, b);
    acc += a;
  }
  mean = hsum(acc) / static_cast<float>(s.k);
  return s.norm ? std::max(mean, TINY) : 1.0f;
}

SYNCATTN_CLONES void features_item(const FeatShape& s, const FeatIO& io, int64_t item,
                                   bool backward, std::vector<float>& work) {
  const int64_t n = item / s.nb, t0 = (item % s.nb) * TB, t1 = std::min(s.T, t0 + TB);
  const int64_t kp = s.kp;
  float *spq = work.data(), *sgq = spq + kp, *spk = sgq + kp, *sgk = spk + kp;
  float *dgq = sgk + kp, *dgk = dgq + kp;
  const float sc = io.SC[n];
  const float* w = io.W + n * s.P * s.k;
  float* dw = backward ? io.dw_part + item * s.P * kp : nullptr;
  if (backward) std::fill(dw, dw + s.P * kp, 0.0f);
  vf dsc = splat(0.0f);
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t row = n * s.T + t;
    float mean_q, mean_k;
    const float Mq = gate_row(s, io.ZQ + row * s.k, spq, sgq, mean_q);
    const float Mk = gate_row(s, io.ZK + row * s.k, spk, sgk, mean_k);
    const float* x = io.X + row * s.m * s.k;
    const float tf = static_cast<float>(t);
    vf sq_q = splat(0.0f), sq_k = splat(0.0f);  // sum_j dg_j sp_j
    for (int64_t j = 0; j < s.k; j += VW) {
      const int64_t cnt = s.k - j;
      const vf gq = load(spq + j) / Mq, gk = load(spk + j) / Mk;
      if (!backward) {
        float *q = io.Q + row * s.m * s.k, *kk = io.K + row * s.m * s.k;
        for (int64_t p = 0; p < s.P; ++p) {
          vf sn, cs;
          vsincos(tf * load_n(w + p * s.k + j, cnt), sn, cs);
          const vf xa = load_n(x + 2 * p * s.k + j, cnt), xb = load_n(x + (2 * p + 1) * s.k + j, cnt);
          const vf ra = cs * xa - sn * xb, rb = sn * xa + cs * xb;
          store_n(q + 2 * p * s.k + j, (gq * ra) * sc, cnt);
          store_n(q + (2 * p + 1) * s.k + j, (gq * rb) * sc, cnt);
          store_n(kk + 2 * p * s.k + j, gk * ra, cnt);
          store_n(kk + (2 * p + 1) * s.k + j, gk * rb, cnt);
        }
        for (int64_t i = 2 * s.P; i < s.m; ++i) {
          const vf r = load_n(x + i * s.k + j, cnt);
          store_n(q + i * s.k + j, (gq * r) * sc, cnt);
          store_n(kk + i * s.k + j, gk * r, cnt);
        }
        continue;
      }
      const float *dq = io.DQ + row * s.m * s.k, *dk = io.DK + row * s.m * s.k;
      float* dx = io.DX + row * s.m * s.k;
      vf aq = splat(0.0f), ak = splat(0.0f);
      const vf cq = gq * sc;
      for (int64_t p = 0; p < s.P; ++p) {
        vf sn, cs;
        vsincos(tf * load_n(w + p * s.k + j, cnt), sn, cs);
        const int64_t ia = 2 * p * s.k + j, ib = (2 * p + 1) * s.k + j;
        const vf xa = load_n(x + ia, cnt), xb = load_n(x + ib, cnt);
        const vf ra = cs * xa - sn * xb, rb = sn * xa + cs * xb;
        const vf dqa = load_n(dq + ia, cnt), dqb = load_n(dq + ib, cnt);
        const vf dka = load_n(dk + ia, cnt), dkb = load_n(dk + ib, cnt);
        aq += dqa * ra + dqb * rb;
        ak += dka * ra + dkb * rb;
        const vf dra = cq * dqa + gk * dka, drb = cq * dqb + gk * dkb;
        store_n(dx + ia, cs * dra + sn * drb, cnt);
        store_n(dx + ib, cs * drb - sn * dra, cnt);
        float* dwp = dw + p * kp + j;
        store(dwp, load(dwp) + tf * (ra * drb - rb * dra));
      }
      for (int64_t i = 2 * s.P; i < s.m; ++i) {
        const vf r = load_n(x + i * s.k + j, cnt);
        const vf dqi = load_n(dq + i * s.k + j, cnt), dki = load_n(dk + i * s.k + j, cnt);
        aq += dqi * r;
        ak += dki * r;
        store_n(dx + i * s.k + j, cq * dqi + gk * dki, cnt);
      }
      const vf gq_bar = aq * sc, gk_bar = ak;
      dsc += lanes(gq * aq, cnt);
      store(dgq + j, gq_bar);
      store(dgk + j, gk_bar);
      sq_q += lanes(gq_bar * load(spq + j), cnt);
      sq_k += lanes(gk_bar * load(spk + j), cnt);
    }
    if (!backward) continue;
    // the gate normalisation's backward: dsp = dg / M - [mean > tiny] sum(dg sp) / (k M^2)
    const float kf = static_cast<float>(s.k);
    // (sum / M) / (k M), not sum / (k M^2): M^2 underflows for gates far below 0
    const float shift_q = (s.norm && mean_q > TINY) ? -(hsum(sq_q) / Mq) / (kf * Mq) : 0.0f;
    const float shift_k = (s.norm && mean_k > TINY) ? -(hsum(sq_k) / Mk) / (kf * Mk) : 0.0f;
    for (int64_t j = 0; j < s.k; j += VW) {
      const int64_t cnt = s.k - j;
      store_n(io.DZQ + row * s.k + j, (load(dgq + j) / Mq + shift_q) * load(sgq + j), cnt);
      store_n(io.DZK + row * s.k + j, (load(dgk + j) / Mk + shift_k) * load(sgk + j), cnt);
    }
  }
  if (backward) io.dsc_part[item] = hsum(dsc);
}

ffi::Error feat_shape(ffi::Buffer<ffi::F32>& x, ffi::Buffer<ffi::F32>& zq,
                      ffi::Buffer<ffi::F32>& zk, ffi::Buffer<ffi::F32>& w,
                      ffi::Buffer<ffi::F32>& sc, int32_t norm, FeatShape& s) {
  auto dx = x.dimensions(), dw = w.dimensions();
  const size_t rank = dx.size();
  if (rank < 3 || dw.size() < 2)
    return ffi::Error::InvalidArgument("x must be (..., T, m, k) and w (..., P, k)");
  s.N = 1;
  for (size_t i = 0; i + 3 < rank; ++i) s.N *= dx[i];
  s.T = dx[rank - 3], s.m = dx[rank - 2], s.k = dx[rank - 1];
  s.P = dw[dw.size() - 2];
  if (dw[dw.size() - 1] != s.k || 2 * s.P > s.m)
    return ffi::Error::InvalidArgument("w must be (..., P, k) with 2 P <= m");
  if (static_cast<int64_t>(zq.element_count()) != s.N * s.T * s.k ||
      static_cast<int64_t>(zk.element_count()) != s.N * s.T * s.k)
    return ffi::Error::InvalidArgument("zq, zk must be (..., T, k)");
  if (static_cast<int64_t>(w.element_count()) != s.N * s.P * s.k ||
      static_cast<int64_t>(sc.element_count()) != s.N)
    return ffi::Error::InvalidArgument("w must be (..., P, k) and scale (..., 1) of x's batch");
  s.kp = round_up(std::max<int64_t>(s.k, 1), VW);
  s.nb = (s.T + TB - 1) / TB;
  s.norm = norm != 0;
  return ffi::Error::Success();
}

ffi::Error FeaturesForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x,
                           ffi::Buffer<ffi::F32> zq, ffi::Buffer<ffi::F32> zk,
                           ffi::Buffer<ffi::F32> w, ffi::Buffer<ffi::F32> sc,
                           ffi::ResultBuffer<ffi::F32> q, ffi::ResultBuffer<ffi::F32> kk,
                           int32_t norm) {
  FeatShape s;
  if (auto err = feat_shape(x, zq, zk, w, sc, norm, s); !err.success()) return err;
  if (s.N * s.T * s.k == 0) return ffi::Error::Success();
  const FeatIO io{x.typed_data(), zq.typed_data(), zk.typed_data(), w.typed_data(),
                  sc.typed_data(), nullptr, nullptr, q->typed_data(), kk->typed_data(),
                  nullptr, nullptr, nullptr, nullptr, nullptr};
  for_items(pool, s.N * s.nb, [s, io](int64_t item) {
    std::vector<float> work(6 * s.kp, 0.0f);
    features_item(s, io, item, false, work);
  });
  return ffi::Error::Success();
}

ffi::Error FeaturesBackward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x,
                            ffi::Buffer<ffi::F32> zq, ffi::Buffer<ffi::F32> zk,
                            ffi::Buffer<ffi::F32> w, ffi::Buffer<ffi::F32> sc,
                            ffi::Buffer<ffi::F32> dq, ffi::Buffer<ffi::F32> dk,
                            ffi::ResultBuffer<ffi::F32> dx, ffi::ResultBuffer<ffi::F32> dzq,
                            ffi::ResultBuffer<ffi::F32> dzk, ffi::ResultBuffer<ffi::F32> dw,
                            ffi::ResultBuffer<ffi::F32> dsc, int32_t norm) {
  FeatShape s;
  if (auto err = feat_shape(x, zq, zk, w, sc, norm, s); !err.success()) return err;
  if (dq.element_count() != x.element_count() || dk.element_count() != x.element_count())
    return ffi::Error::InvalidArgument("dq, dk must have the shape of x");
  float *DW = dw->typed_data(), *DSC = dsc->typed_data();
  std::fill(DW, DW + s.N * s.P * s.k, 0.0f);
  std::fill(DSC, DSC + s.N, 0.0f);
  if (s.N * s.T * s.k == 0) return ffi::Error::Success();
  const int64_t items = s.N * s.nb;
  std::vector<float> dw_part(items * s.P * s.kp), dsc_part(items);
  const FeatIO io{x.typed_data(), zq.typed_data(), zk.typed_data(), w.typed_data(),
                  sc.typed_data(), dq.typed_data(), dk.typed_data(), nullptr, nullptr,
                  dx->typed_data(), dzq->typed_data(), dzk->typed_data(), dw_part.data(),
                  dsc_part.data()};
  for_items(pool, items, [s, io](int64_t item) {
    std::vector<float> work(6 * s.kp, 0.0f);
    features_item(s, io, item, true, work);
  });
  for (int64_t item = 0; item < items; ++item) {  // in item order: bit-stable
    const int64_t n = item / s.nb;
    DSC[n] += dsc_part[item];
    for (int64_t p = 0; p < s.P; ++p)
      for (int64_t j = 0; j < s.k; ++j) DW[(n * s.P + p) * s.k + j] += dw_part[(item * s.P + p) * s.kp + j];
  }
  return ffi::Error::Success();
}

// ----------------------------------------------------------------------------- torus step

struct TorusShape {
  int64_t N, T, k, H, kh, kp, nb;
  bool gate, coef;
  double beta;
};

struct TorusIO {
  const float *TH, *X, *G, *V, *CR, *CI, *DY;
  float *Y, *DX, *DG, *DV, *dcr_part, *dci_part;  // per item: H, H
};

SYNCATTN_CLONES void torus_item(const TorusShape& s, const TorusIO& io, int64_t item,
                                bool backward, std::vector<float>& work) {
  const int64_t n = item / s.nb, t0 = (item % s.nb) * TB, t1 = std::min(s.T, t0 + TB);
  const int64_t kp = s.kp;
  float *cr = work.data(), *ci = cr + kp, *u = ci + kp, *av = u + kp, *bv = av + kp;
  if (s.coef) {
    for (int64_t j = 0; j < s.k; ++j) {
      cr[j] = io.CR[n * s.H + j / s.kh];
      ci[j] = io.CI[n * s.H + j / s.kh];
    }
  }
  float *dcr = nullptr, *dci = nullptr;
  if (backward && s.coef) {
    dcr = io.dcr_part + item * s.H, dci = io.dci_part + item * s.H;
    std::fill(dcr, dcr + s.H, 0.0f);
    std::fill(dci, dci + s.H, 0.0f);
  }
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t row = n * s.T + t;
    const float *x0 = io.X + row * 2 * s.k, *x1 = x0 + s.k;
    const float *G0 = io.G + row * 2 * s.k, *G1 = G0 + s.k;
    const float* v = io.V + row * s.k;
    vf acc = splat(0.0f);
    for (int64_t j = 0; j < s.k; j += VW) {
      const int64_t cnt = s.k - j;
      const vf a0 = load_n(x0 + j, cnt), a1 = load_n(x1 + j, cnt);
      const vf g0 = load_n(G0 + j, cnt), g1 = load_n(G1 + j, cnt);
      vf a = a0 * g1 - a1 * g0;
      if (s.coef) {
        const vf b = a0 * g0 + a1 * g1;
        store(av + j, a);
        store(bv + j, b);
        a = load(cr + j) * a + load(ci + j) * b;
      }
      const vf uu = s.gate ? load_n(v + j, cnt) * a : a;
      store(u + j, uu);
      acc += uu * uu;
    }
    const Bound bd = bound_factor(static_cast<double>(hsum(acc)) / static_cast<double>(s.k), s.beta);
    if (!backward) {
      const float* th = io.TH + row * s.k;
      float* y = io.Y + row * s.k;
      for (int64_t j = 0; j < s.k; j += VW)
        store_n(y + j, load_n(th + j, s.k - j) + load(u + j) * bd.f, s.k - j);
      continue;
    }
    const float* dy = io.DY + row * s.k;
    vf su = splat(0.0f);
    for (int64_t j = 0; j < s.k; j += VW) su += load_n(dy + j, s.k - j) * load(u + j);
    const float c1 = static_cast<float>(bd.dfdsq * 2.0 / static_cast<double>(s.k) * hsum(su));
    float *dx0 = io.DX + row * 2 * s.k, *dx1 = dx0 + s.k;
    float *dG0 = io.DG + row * 2 * s.k, *dG1 = dG0 + s.k;
    for (int64_t j = 0; j < s.k; j += VW) {
      const int64_t cnt = s.k - j;
      const vf du = load_n(dy + j, cnt) * bd.f + load(u + j) * c1;
      const vf a0 = load_n(x0 + j, cnt), a1 = load_n(x1 + j, cnt);
      const vf g0 = load_n(G0 + j, cnt), g1 = load_n(G1 + j, cnt);
      vf da = du;
      if (s.gate) {
        const vf vv = load_n(v + j, cnt);
        const vf a = s.coef ? load(cr + j) * load(av + j) + load(ci + j) * load(bv + j)
                            : a0 * g1 - a1 * g0;
        store_n(io.DV + row * s.k + j, du * a, cnt);
        da = du * vv;
      }
      vf da1 = da, da2 = splat(0.0f);
      if (s.coef) {
        da1 = load(cr + j) * da, da2 = load(ci + j) * da;
        float ra[VW], rb[VW];
        store(ra, lanes(da * load(av + j), cnt));
        store(rb, lanes(da * load(bv + j), cnt));
        for (int64_t l = 0; l < std::min<int64_t>(VW, cnt); ++l) {
          dcr[(j + l) / s.kh] += ra[l];
          dci[(j + l) / s.kh] += rb[l];
        }
      }
      // a = x0 G1 - x1 G0, b = x0 G0 + x1 G1
      store_n(dG0 + j, a0 * da2 - a1 * da1, cnt);
      store_n(dG1 + j, a0 * da1 + a1 * da2, cnt);
      store_n(dx0 + j, g1 * da1 + g0 * da2, cnt);
      store_n(dx1 + j, g1 * da2 - g0 * da1, cnt);
    }
  }
}

ffi::Error torus_shape(ffi::Buffer<ffi::F32>& th, ffi::Buffer<ffi::F32>& x,
                       ffi::Buffer<ffi::F32>& G, ffi::Buffer<ffi::F32>& v,
                       ffi::Buffer<ffi::F32>& cr, ffi::Buffer<ffi::F32>& ci, float bound,
                       int32_t has_gate, int32_t has_coef, TorusShape& s) {
  auto dt = th.dimensions();
  const size_t rank = dt.size();
  if (rank < 2) return ffi::Error::InvalidArgument("theta must be (..., T, k)");
  s.N = 1;
  for (size_t i = 0; i + 2 < rank; ++i) s.N *= dt[i];
  s.T = dt[rank - 2], s.k = dt[rank - 1];
  const int64_t count = s.N * s.T * s.k;
  if (static_cast<int64_t>(x.element_count()) != 2 * count ||
      static_cast<int64_t>(G.element_count()) != 2 * count)
    return ffi::Error::InvalidArgument("x and G must be (..., T, 2, k)");
  s.gate = has_gate != 0, s.coef = has_coef != 0;
  if (s.gate && static_cast<int64_t>(v.element_count()) != count)
    return ffi::Error::InvalidArgument("the value gate must be (..., T, k)");
  s.H = 1;
  if (s.coef) {
    auto dc = cr.dimensions();
    s.H = dc.size() ? dc[dc.size() - 1] : 1;
    if (s.H < 1 || s.k % s.H || static_cast<int64_t>(cr.element_count()) != s.N * s.H ||
        ci.element_count() != cr.element_count())
      return ffi::Error::InvalidArgument("the coefficients must be (..., H), H dividing k");
  }
  if (!(bound > 0)) return ffi::Error::InvalidArgument("bound must be > 0");
  s.kh = s.k / s.H;
  s.kp = round_up(std::max<int64_t>(s.k, 1), VW);
  s.nb = (s.T + TB - 1) / TB;
  s.beta = bound;
  return ffi::Error::Success();
}

ffi::Error TorusForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> th, ffi::Buffer<ffi::F32> x,
                        ffi::Buffer<ffi::F32> G, ffi::Buffer<ffi::F32> v,
                        ffi::Buffer<ffi::F32> cr, ffi::Buffer<ffi::F32> ci,
                        ffi::ResultBuffer<ffi::F32> y, float bound, int32_t has_gate,
                        int32_t has_coef) {
  TorusShape s;
  if (auto err = torus_shape(th, x, G, v, cr, ci, bound, has_gate, has_coef, s); !err.success())
    return err;
  if (s.N * s.T * s.k == 0) return ffi::Error::Success();
  const TorusIO io{th.typed_data(), x.typed_data(), G.typed_data(), v.typed_data(),
                   cr.typed_data(), ci.typed_data(), nullptr, y->typed_data(), nullptr,
                   nullptr, nullptr, nullptr, nullptr};
  for_items(pool, s.N * s.nb, [s, io](int64_t item) {
    std::vector<float> work(5 * s.kp, 0.0f);
    torus_item(s, io, item, false, work);
  });
  return ffi::Error::Success();
}

ffi::Error TorusBackward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> th, ffi::Buffer<ffi::F32> x,
                         ffi::Buffer<ffi::F32> G, ffi::Buffer<ffi::F32> v,
                         ffi::Buffer<ffi::F32> cr, ffi::Buffer<ffi::F32> ci,
                         ffi::Buffer<ffi::F32> dy, ffi::ResultBuffer<ffi::F32> dx,
                         ffi::ResultBuffer<ffi::F32> dG, ffi::ResultBuffer<ffi::F32> dv,
                         ffi::ResultBuffer<ffi::F32> dcr, ffi::ResultBuffer<ffi::F32> dci,
                         float bound, int32_t has_gate, int32_t has_coef) {
  TorusShape s;
  if (auto err = torus_shape(th, x, G, v, cr, ci, bound, has_gate, has_coef, s); !err.success())
    return err;
  if (dy.element_count() != th.element_count())
    return ffi::Error::InvalidArgument("dy must have the shape of theta");
  float *DCR = dcr->typed_data(), *DCI = dci->typed_data();
  std::fill(DCR, DCR + dcr->element_count(), 0.0f);
  std::fill(DCI, DCI + dci->element_count(), 0.0f);
  if (!s.gate) std::fill(dv->typed_data(), dv->typed_data() + dv->element_count(), 0.0f);
  if (s.N * s.T * s.k == 0) return ffi::Error::Success();
  const int64_t items = s.N * s.nb;
  std::vector<float> cr_part(s.coef ? items * s.H : 0), ci_part(s.coef ? items * s.H : 0);
  const TorusIO io{th.typed_data(), x.typed_data(), G.typed_data(), v.typed_data(),
                   cr.typed_data(), ci.typed_data(), dy.typed_data(), nullptr,
                   dx->typed_data(), dG->typed_data(), dv->typed_data(), cr_part.data(),
                   ci_part.data()};
  for_items(pool, items, [s, io](int64_t item) {
    std::vector<float> work(5 * s.kp, 0.0f);
    torus_item(s, io, item, true, work);
  });
  if (s.coef)
    for (int64_t item = 0; item < items; ++item)  // in item order: bit-stable
      for (int64_t h = 0; h < s.H; ++h) {
        DCR[(item / s.nb) * s.H + h] += cr_part[item * s.H + h];
        DCI[(item / s.nb) * s.H + h] += ci_part[item * s.H + h];
      }
  return ffi::Error::Success();
}

// ---------------------------------------------------------------------------- sphere step

struct SphereShape {
  int64_t N, T, n, k, kp, nb;
  bool gate;
  double beta;
};

struct SphereIO {
  const float *X, *G, *V, *DY;
  float *Y, *DX, *DG, *DV;
};

// (sin s / s) and h(s) = (s cos s - sin s) / (2 s^3) = d(sin s / s) / ds / (2 s), by series
// below s = 1/2.
HOT void sinc_parts(vf s, vf sn, vf cs, vf& sig, vf& h) {
  const vf s2 = s * s;
  const vi small = s < splat(0.5f);
  const vf safe = small ? splat(1.0f) : s;
  const vf sig_series = splat(1.0f) + s2 * (splat(-1.0f / 6.0f) + s2 * (splat(1.0f / 120.0f) + s2 * splat(-1.0f / 5040.0f)));
  const vf h_series = splat(-1.0f / 6.0f) + s2 * (splat(1.0f / 60.0f) + s2 * splat(-1.0f / 1680.0f));
  sig = small ? sig_series : sn / safe;
  h = small ? h_series : (safe * cs - sn) / (splat(2.0f) * safe * safe * safe);
}

SYNCATTN_CLONES void sphere_item(const SphereShape& s, const SphereIO& io, int64_t item,
                                 bool backward, std::vector<float>& work) {
  const int64_t nn = item / s.nb, t0 = (item % s.nb) * TB, t1 = std::min(s.T, t0 + TB);
  const int64_t kp = s.kp, dim = s.n;
  // scratch: u (n kp), w (n kp), du (n kp), sqj (kp), d (kp), dsq (kp)
  float *u = work.data(), *wv = u + dim * kp, *du = wv + dim * kp;
  float *sqj = du + dim * kp, *dd = sqj + kp, *dsqj = dd + kp;
  float tmp[VW];
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t row = nn * s.T + t;
    const float* z = io.X + row * dim * s.k;
    const float* G = io.G + row * dim * s.k;
    const float* v = io.V + row * s.k;
    vf acc = splat(0.0f);
    for (int64_t j = 0; j < s.k; j += VW) {
      const int64_t cnt = s.k - j;
      vf d = splat(0.0f);
      for (int64_t i = 0; i < dim; ++i) d += load_n(z + i * s.k + j, cnt) * load_n(G + i * s.k + j, cnt);
      store(dd + j, d);
      const vf vv = s.gate ? load_n(v + j, cnt) : splat(1.0f);
      vf sq = splat(0.0f);
      for (int64_t i = 0; i < dim; ++i) {
        const vf w = load_n(G + i * s.k + j, cnt) - d * load_n(z + i * s.k + j, cnt);
        const vf uu = vv * w;
        store(wv + i * kp + j, w);
        store(u + i * kp + j, uu);
        sq += uu * uu;
      }
      store(sqj + j, sq);
      acc += sq;
    }
    const Bound bd = bound_factor(static_cast<double>(hsum(acc)) / static_cast<double>(s.k), s.beta);
    const vf f = splat(1.0f) * bd.f;
    if (!backward) {
      float* y = io.Y + row * s.k * dim;
      for (int64_t j = 0; j < s.k; j += VW) {
        const int64_t cnt = std::min<int64_t>(VW, s.k - j);
        const vf nsq = load(sqj + j) * (f * f);
        const vi p = nsq > splat(0.0f);
        const vf nrm = p ? vsqrt(p ? nsq : splat(1.0f)) : splat(1.0f);
        vf sn, cs, sig, h;
        vsincos(nrm, sn, cs);
        sinc_parts(nrm, sn, cs, sig, h);
        const vf c = p ? cs : splat(1.0f);
        const vf sinc = (p ? sig : splat(1.0f)) * f;
        for (int64_t i = 0; i < dim; ++i) {
          store(tmp, c * load_n(z + i * s.k + j, s.k - j) + sinc * load(u + i * kp + j));
          for (int64_t l = 0; l < cnt; ++l) y[(j + l) * dim + i] = tmp[l];
        }
      }
      continue;
    }
    const float* dy = io.DY + row * s.k * dim;
    float* dx = io.DX + row * dim * s.k;
    float* dG = io.DG + row * dim * s.k;
    vf df_acc = splat(0.0f);
    for (int64_t j = 0; j < s.k; j += VW) {
      const int64_t cnt = s.k - j, c16 = std::min<int64_t>(VW, cnt);
      const vf sq = load(sqj + j);
      const vf nsq = sq * (f * f);
      const vi p = nsq > splat(0.0f);
      const vf nrm = p ? vsqrt(p ? nsq : splat(1.0f)) : splat(1.0f);
      vf sn, cs, sig, h;
      vsincos(nrm, sn, cs);
      sinc_parts(nrm, sn, cs, sig, h);
      const vf c = p ? cs : splat(1.0f);
      const vf sig1 = p ? sig : splat(1.0f);
      const vf sinc = sig1 * f;
      vf dc = splat(0.0f), dsinc = splat(0.0f);
      for (int64_t i = 0; i < dim; ++i) {
        for (int64_t l = 0; l < c16; ++l) tmp[l] = dy[(j + l) * dim + i];
        for (int64_t l = c16; l < VW; ++l) tmp[l] = 0.0f;
        const vf g = load(tmp);
        const vf zi = load_n(z + i * s.k + j, cnt);
        const vf ui = load(u + i * kp + j);
        dc += g * zi;
        dsinc += g * ui;
        store_n(dx + i * s.k + j, c * g, cnt);  // the direct term; the rest added below
        store(du + i * kp + j, sinc * g);
      }
      // d nsq: c = cos(nrm), sinc = sig(nrm) f; nrm = sqrt(nsq); 0 where nsq = 0
      const vf dnsq = p ? (splat(-0.5f) * sig * dc + f * h * dsinc) : splat(0.0f);
      df_acc += lanes(sig1 * dsinc + splat(2.0f) * f * sq * dnsq, cnt);
      store(dsqj + j, f * f * dnsq);
    }
    const float dsq_all = static_cast<float>(bd.dfdsq * hsum(df_acc) / static_cast<double>(s.k));
    for (int64_t j = 0; j < s.k; j += VW) {
      const int64_t cnt = s.k - j;
      const vf dsq = load(dsqj + j) + dsq_all;
      const vf vv = s.gate ? load_n(v + j, cnt) : splat(1.0f);
      const vf d = load(dd + j);
      vf dvv = splat(0.0f), ddot = splat(0.0f);
      for (int64_t i = 0; i < dim; ++i) {
        const vf dui = load(du + i * kp + j) + splat(2.0f) * load(u + i * kp + j) * dsq;
        const vf w = load(wv + i * kp + j);
        dvv += dui * w;
        const vf dw = vv * dui;
        store(du + i * kp + j, dw);  // now dw
        ddot -= dw * load_n(z + i * s.k + j, cnt);
      }
      if (s.gate) store_n(io.DV + row * s.k + j, dvv, cnt);
      for (int64_t i = 0; i < dim; ++i) {
        const vf dw = load(du + i * kp + j);
        const vf zi = load_n(z + i * s.k + j, cnt), Gi = load_n(G + i * s.k + j, cnt);
        store_n(dG + i * s.k + j, dw + zi * ddot, cnt);
        store_n(dx + i * s.k + j, load_n(dx + i * s.k + j, cnt) - d * dw + Gi * ddot, cnt);
      }
    }
  }
}

ffi::Error sphere_shape(ffi::Buffer<ffi::F32>& x, ffi::Buffer<ffi::F32>& G,
                        ffi::Buffer<ffi::F32>& v, float bound, int32_t has_gate, SphereShape& s) {
  auto dx = x.dimensions();
  const size_t rank = dx.size();
  if (rank < 3) return ffi::Error::InvalidArgument("x must be (..., T, n, k)");
  s.N = 1;
  for (size_t i = 0; i + 3 < rank; ++i) s.N *= dx[i];
  s.T = dx[rank - 3], s.n = dx[rank - 2], s.k = dx[rank - 1];
  if (G.element_count() != x.element_count())
    return ffi::Error::InvalidArgument("G must have the shape of x (..., T, n, k)");
  s.gate = has_gate != 0;
  if (s.gate && static_cast<int64_t>(v.element_count()) != s.N * s.T * s.k)
    return ffi::Error::InvalidArgument("the value gate must be (..., T, k)");
  if (!(bound > 0)) return ffi::Error::InvalidArgument("bound must be > 0");
  s.kp = round_up(std::max<int64_t>(s.k, 1), VW);
  s.nb = (s.T + TB - 1) / TB;
  s.beta = bound;
  return ffi::Error::Success();
}

ffi::Error SphereForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> G,
                         ffi::Buffer<ffi::F32> v, ffi::ResultBuffer<ffi::F32> y, float bound,
                         int32_t has_gate) {
  SphereShape s;
  if (auto err = sphere_shape(x, G, v, bound, has_gate, s); !err.success()) return err;
  if (s.N * s.T * s.k * s.n == 0) return ffi::Error::Success();
  const SphereIO io{x.typed_data(), G.typed_data(), v.typed_data(), nullptr,
                    y->typed_data(), nullptr, nullptr, nullptr};
  for_items(pool, s.N * s.nb, [s, io](int64_t item) {
    std::vector<float> work((3 * s.n + 3) * s.kp, 0.0f);
    sphere_item(s, io, item, false, work);
  });
  return ffi::Error::Success();
}

ffi::Error SphereBackward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> G,
                          ffi::Buffer<ffi::F32> v, ffi::Buffer<ffi::F32> dy,
                          ffi::ResultBuffer<ffi::F32> dx, ffi::ResultBuffer<ffi::F32> dG,
                          ffi::ResultBuffer<ffi::F32> dv, float bound, int32_t has_gate) {
  SphereShape s;
  if (auto err = sphere_shape(x, G, v, bound, has_gate, s); !err.success()) return err;
  if (dy.element_count() != x.element_count())
    return ffi::Error::InvalidArgument("dy must be (..., T, k, n)");
  if (!s.gate) std::fill(dv->typed_data(), dv->typed_data() + dv->element_count(), 0.0f);
  if (s.N * s.T * s.k * s.n == 0) return ffi::Error::Success();
  const SphereIO io{x.typed_data(), G.typed_data(), v.typed_data(), dy.typed_data(),
                    nullptr, dx->typed_data(), dG->typed_data(), dv->typed_data()};
  for_items(pool, s.N * s.nb, [s, io](int64_t item) {
    std::vector<float> work((3 * s.n + 3) * s.kp, 0.0f);
    sphere_item(s, io, item, true, work);
  });
  return ffi::Error::Success();
}

// ---------------------------------------------------------------- torus lift, bounded add

// lift: x_t = (cos th_t, sin th_t) (N, T, 2, k); backward dth = x_0 dx_1 - x_1 dx_0.
// bounded add: y = th + f u, f = tanh(rho) / rho, rho = rms(u) / beta (per token, over the
// last axis of k); backward du = f dy + (df/dsq) (2 / k) (dy . u) u (dth = dy, by the caller).

SYNCATTN_CLONES void lift_rows(const float* TH, const float* X, const float* DX, float* OUT,
                               int64_t k, int64_t r0, int64_t r1, bool backward) {
  for (int64_t row = r0; row < r1; ++row) {
    for (int64_t j = 0; j < k; j += VW) {
      const int64_t cnt = k - j;
      if (!backward) {
        vf sn, cs;
        vsincos(load_n(TH + row * k + j, cnt), sn, cs);
        store_n(OUT + row * 2 * k + j, cs, cnt);
        store_n(OUT + row * 2 * k + k + j, sn, cnt);
      } else {
        const float *x = X + row * 2 * k, *dx = DX + row * 2 * k;
        store_n(OUT + row * k + j,
                load_n(x + j, cnt) * load_n(dx + k + j, cnt) -
                    load_n(x + k + j, cnt) * load_n(dx + j, cnt),
                cnt);
      }
    }
  }
}

SYNCATTN_CLONES void bound_rows(const float* TH, const float* U, const float* DY, float* OUT,
                                int64_t k, double beta, int64_t r0, int64_t r1, bool backward) {
  for (int64_t row = r0; row < r1; ++row) {
    const float* u = U + row * k;
    vf acc = splat(0.0f);
    for (int64_t j = 0; j < k; j += VW) {
      const vf uu = load_n(u + j, k - j);
      acc += uu * uu;
    }
    const Bound bd = bound_factor(static_cast<double>(hsum(acc)) / static_cast<double>(k), beta);
    if (!backward) {
      for (int64_t j = 0; j < k; j += VW)
        store_n(OUT + row * k + j, load_n(TH + row * k + j, k - j) + load_n(u + j, k - j) * bd.f,
                k - j);
      continue;
    }
    const float* dy = DY + row * k;
    vf su = splat(0.0f);
    for (int64_t j = 0; j < k; j += VW) su += load_n(dy + j, k - j) * load_n(u + j, k - j);
    const float c1 = static_cast<float>(bd.dfdsq * 2.0 / static_cast<double>(k) * hsum(su));
    for (int64_t j = 0; j < k; j += VW)
      store_n(OUT + row * k + j, load_n(dy + j, k - j) * bd.f + load_n(u + j, k - j) * c1, k - j);
  }
}

constexpr int64_t ROWS = 64;  // rows per work item

ffi::Error LiftForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> th,
                       ffi::ResultBuffer<ffi::F32> x) {
  auto d = th.dimensions();
  if (d.size() < 1) return ffi::Error::InvalidArgument("theta must be (..., k)");
  const int64_t k = d[d.size() - 1], rows = k ? th.element_count() / k : 0;
  if (rows * k == 0) return ffi::Error::Success();
  const float* TH = th.typed_data();
  float* X = x->typed_data();
  for_rows(pool, rows, ROWS, [=](int64_t r0, int64_t r1) {
    lift_rows(TH, nullptr, nullptr, X, k, r0, r1, false);
  });
  return ffi::Error::Success();
}

ffi::Error LiftBackward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> dx,
                        ffi::ResultBuffer<ffi::F32> dth) {
  auto d = x.dimensions();
  if (d.size() < 2 || d[d.size() - 2] != 2 || dx.element_count() != x.element_count())
    return ffi::Error::InvalidArgument("x and dx must be (..., 2, k)");
  const int64_t k = d[d.size() - 1], rows = k ? x.element_count() / (2 * k) : 0;
  if (rows * k == 0) return ffi::Error::Success();
  const float *X = x.typed_data(), *DX = dx.typed_data();
  float* DTH = dth->typed_data();
  for_rows(pool, rows, ROWS, [=](int64_t r0, int64_t r1) {
    lift_rows(nullptr, X, DX, DTH, k, r0, r1, true);
  });
  return ffi::Error::Success();
}

ffi::Error BoundForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> th, ffi::Buffer<ffi::F32> u,
                        ffi::ResultBuffer<ffi::F32> y, float bound) {
  auto d = th.dimensions();
  if (d.size() < 1 || u.element_count() != th.element_count())
    return ffi::Error::InvalidArgument("theta and u must have one shape (..., k)");
  if (!(bound > 0)) return ffi::Error::InvalidArgument("bound must be > 0");
  const int64_t k = d[d.size() - 1], rows = k ? th.element_count() / k : 0;
  if (rows * k == 0) return ffi::Error::Success();
  const float *TH = th.typed_data(), *U = u.typed_data();
  float* Y = y->typed_data();
  const double beta = bound;
  for_rows(pool, rows, ROWS, [=](int64_t r0, int64_t r1) {
    bound_rows(TH, U, nullptr, Y, k, beta, r0, r1, false);
  });
  return ffi::Error::Success();
}

ffi::Error BoundBackward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> u, ffi::Buffer<ffi::F32> dy,
                         ffi::ResultBuffer<ffi::F32> du, float bound) {
  auto d = u.dimensions();
  if (d.size() < 1 || dy.element_count() != u.element_count())
    return ffi::Error::InvalidArgument("u and dy must have one shape (..., k)");
  if (!(bound > 0)) return ffi::Error::InvalidArgument("bound must be > 0");
  const int64_t k = d[d.size() - 1], rows = k ? u.element_count() / k : 0;
  if (rows * k == 0) return ffi::Error::Success();
  const float *U = u.typed_data(), *DY = dy.typed_data();
  float* DU = du->typed_data();
  const double beta = bound;
  for_rows(pool, rows, ROWS, [=](int64_t r0, int64_t r1) {
    bound_rows(nullptr, U, DY, DU, k, beta, r0, r1, true);
  });
  return ffi::Error::Success();
}

}  // namespace

#define SYNCATTN_EXPORT extern "C" __attribute__((visibility("default"))) XLA_FFI_Error*
SYNCATTN_EXPORT SyncattnFeaturesForward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnFeaturesBackward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnTorusForward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnTorusBackward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnSphereForward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnSphereBackward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnLiftForward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnLiftBackward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnBoundForward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnBoundBackward(XLA_FFI_CallFrame* call_frame);

using F32 = ffi::Buffer<ffi::F32>;

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnFeaturesForward, FeaturesForward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>()
                                  .Ret<F32>().Ret<F32>()
                                  .Attr<int32_t>("norm"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnFeaturesBackward, FeaturesBackward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>()
                                  .Arg<F32>().Arg<F32>()
                                  .Ret<F32>().Ret<F32>().Ret<F32>().Ret<F32>().Ret<F32>()
                                  .Attr<int32_t>("norm"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnTorusForward, TorusForward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>()
                                  .Arg<F32>()
                                  .Ret<F32>()
                                  .Attr<float>("bound")
                                  .Attr<int32_t>("has_gate")
                                  .Attr<int32_t>("has_coef"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnTorusBackward, TorusBackward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>()
                                  .Arg<F32>().Arg<F32>()
                                  .Ret<F32>().Ret<F32>().Ret<F32>().Ret<F32>().Ret<F32>()
                                  .Attr<float>("bound")
                                  .Attr<int32_t>("has_gate")
                                  .Attr<int32_t>("has_coef"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnSphereForward, SphereForward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>().Arg<F32>()
                                  .Ret<F32>()
                                  .Attr<float>("bound")
                                  .Attr<int32_t>("has_gate"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnSphereBackward, SphereBackward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>().Arg<F32>().Arg<F32>()
                                  .Ret<F32>().Ret<F32>().Ret<F32>()
                                  .Attr<float>("bound")
                                  .Attr<int32_t>("has_gate"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnLiftForward, LiftForward,
                              ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<F32>().Ret<F32>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnLiftBackward, LiftBackward,
                              ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<F32>().Arg<F32>().Ret<F32>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnBoundForward, BoundForward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>()
                                  .Ret<F32>()
                                  .Attr<float>("bound"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnBoundBackward, BoundBackward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>()
                                  .Ret<F32>()
                                  .Attr<float>("bound"));
