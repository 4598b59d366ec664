// Fused causal softmax attention for XLA:CPU, called through jax.ffi (syncattn._kernels).
//
// Per (sequence n, head h), with q, k of shape (N, T, H, D), v of shape (N, T, H, E) and the
// allowed keys A_t (causal u <= t and the key-padding mask; a row with no real key keeps its
// causal row):
//
//   forward:  o_t = sum_{u in A_t} exp(q_t.k_u - L_t) v_u,   L_t = log sum_{u in A_t} exp(q_t.k_u)
//   backward: P_tu = exp(q_t.k_u - L_t),  dP_tu = dO_t.v_u,  dS_tu = P_tu (dP_tu - D_t),
//             D_t = dO_t.o_t - dL_t,
//             dq_t = sum_u dS_tu k_u,  dk_u = sum_t dS_tu q_t,  dv_u = sum_t P_tu dO_t.
//
// L is an output with a cotangent dL (has_dlse; 0 without): dL_t/ds_tu = P_tu, which
// moves D_t by -dL_t. `strict` drops the diagonal's value: o_t sums over u in A_t, u != t,
// with P still normalised over A_t (the diagonal counts in L_t); then P_tt v_t is absent
// from o_t, dP_tt = 0 and dv_t gets no P_tt dO_t (v_t never reaches row t: exactly causal
// when v_t reads token t + 1).
//
// `grouped`: q, k of shape (N, T, G, H, Dg) and v, o of shape (N, T, G, H, Eg), head h's
// features the concatenation of its G groups (D = G Dg, E = G Eg): the coordinate-major
// lifts of the sync families, read where they lie instead of transposed to (N, T, H, D).
//
// Blocked online softmax (flash attention): rows in groups of R = 8, keys in chunks of
// KC = 32; no (T, T) array exists, forward or backward (the backward recomputes P from the
// saved row statistics L). Work items are the (n, h) pairs, taken from one atomic counter by
// the caller and the tasks it puts on XLA's intra-op thread pool; every item is computed by
// one thread in a fixed order, so the result does not depend on the threads (bit-stable).
// Inner loops use GCC vector extensions (16 floats); on x86-64 Linux the two entry points
// are cloned for AVX-512 / AVX2+FMA / baseline and picked at load time (no -march=native).

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "simd.h"

namespace {

constexpr int R = 8;    // query rows per group
constexpr int RB = 2 * R;  // query rows per block of the backward
constexpr int KC = 32;  // keys per chunk
constexpr int KV = KC / VW;
static_assert(VW == 16, "mask_chunk's iota has 16 lanes");
constexpr float NEG_INF = -std::numeric_limits<float>::infinity();

// The layout: q, k of shape (N, T, G, H, Dg) and v, o of shape (N, T, G, H, Eg); head h
// reads the G groups of its token as one feature vector of D = G Dg (E = G Eg) entries
// (G = 1: the plain (N, T, H, D)). L is (N, T, H).
struct Shape {
  int64_t N, T, H, D, E, G, Dg, Eg;
  int64_t Dp, Ep, Tq, Tk;  // padded: D, E to VW; rows to RB; keys to KC
  bool causal, has_mask, strict;

  // where group j of token t (sequence n, head h) starts: in q, k (width Dg) / v, o (Eg)
  int64_t qat(int64_t n, int64_t t, int64_t h, int64_t j) const {
    return (((n * T + t) * G + j) * H + h) * Dg;
  }
  int64_t vat(int64_t n, int64_t t, int64_t h, int64_t j) const {
    return (((n * T + t) * G + j) * H + h) * Eg;
  }
  int64_t lat(int64_t n, int64_t t, int64_t h) const { return (n * T + t) * H + h; }
};

// Token t's features of head h: from the layout into a contiguous row (`values`: v's
// width Eg, else q's Dg), and back.
HOT void read_token(const Shape& s, float* row, const float* X, int64_t n, int64_t t,
                    int64_t h, bool values) {
  const int64_t w = values ? s.Eg : s.Dg;
  for (int64_t j = 0; j < s.G; ++j)
    copy_row(row + j * w, X + (values ? s.vat(n, t, h, j) : s.qat(n, t, h, j)), w);
}

HOT void write_token(const Shape& s, float* X, const float* row, int64_t n, int64_t t,
                     int64_t h, bool values) {
  const int64_t w = values ? s.Eg : s.Dg;
  for (int64_t j = 0; j < s.G; ++j)
    copy_row(X + (values ? s.vat(n, t, h, j) : s.qat(n, t, h, j)), row + j * w, w);
}

// One head's inputs gathered into contiguous, zero-padded scratch.
struct Head {
  std::vector<float> q, kt, k, v, vt, bias_mask, bias_plain;
  int64_t first_real = 0;

  void resize(const Shape& s, bool backward) {
    q.assign(s.Tq * s.Dp, 0.0f);
    kt.assign(s.Dp * s.Tk, 0.0f);
    v.assign(s.Tk * s.Ep, 0.0f);
    if (backward) {
      k.assign(s.Tk * s.Dp, 0.0f);
      vt.assign(s.Ep * s.Tk, 0.0f);
    }
    bias_mask.assign(s.Tk, NEG_INF);
    bias_plain.assign(s.Tk, NEG_INF);
  }

  void gather(const Shape& s, int64_t n, int64_t h, const float* Q, const float* K,
              const float* V, const bool* M, bool backward) {
    for (int64_t t = 0; t < s.T; ++t) {
      read_token(s, &q[t * s.Dp], Q, n, t, h, false);
      read_token(s, &v[t * s.Ep], V, n, t, h, true);
      if (backward) read_token(s, &k[t * s.Dp], K, n, t, h, false);
    }
    // the transposed copies in blocks of VW tokens: each feature's VW entries are one
    // contiguous store, the VW source rows stay in cache
    for (int64_t t0 = 0; t0 < s.T; t0 += VW) {
      const int64_t tn = std::min<int64_t>(VW, s.T - t0);
      const int64_t qstep = s.G * s.H * s.Dg, vstep = s.G * s.H * s.Eg;  // one token on
      for (int64_t j = 0; j < s.G; ++j) {
        const float* kb = K + s.qat(n, t0, h, j);
        for (int64_t d = 0; d < s.Dg; ++d)
          for (int64_t i = 0; i < tn; ++i) kt[(j * s.Dg + d) * s.Tk + t0 + i] = kb[i * qstep + d];
        if (!backward) continue;
        const float* vb = V + s.vat(n, t0, h, j);
        for (int64_t e = 0; e < s.Eg; ++e)
          for (int64_t i = 0; i < tn; ++i) vt[(j * s.Eg + e) * s.Tk + t0 + i] = vb[i * vstep + e];
      }
    }
    first_real = s.T;
    for (int64_t u = 0; u < s.T; ++u) {
      const bool real = !s.has_mask || M[n * s.T + u];
      bias_plain[u] = 0.0f;
      bias_mask[u] = real ? 0.0f : NEG_INF;
      if (real && first_real == s.T) first_real = u;
    }
  }

  // The key bias row t uses: the mask's, unless row t has no real key (its plain row).
  HOT const float* bias(const Shape& s, int64_t t) const {
    const int64_t last = s.causal ? std::min(t, s.T - 1) : s.T - 1;
    return first_real <= last ? bias_mask.data() : bias_plain.data();
  }
};

// S[r][c] = a_r . bt[:, j0 + c] for R rows a (stride lda) and KC keys of bt (dim rows, stride ldb).
HOT void scores(const float* a, int64_t lda,
                                                  const float* bt, int64_t ldb, int64_t dim,
                                                  vf S[R][KV]) {
  for (int half = 0; half < KV; half += 2) {
    vf acc[R][2] = {};
    for (int64_t d = 0; d < dim; ++d) {
      const vf b0 = load(bt + d * ldb + half * VW);
      const vf b1 = load(bt + d * ldb + half * VW + VW);
      for (int r = 0; r < R; ++r) {
        const float ar = a[r * lda + d];  // scalar * vector: a broadcast GCC emits well
        acc[r][0] += ar * b0;
        acc[r][1] += ar * b1;
      }
    }
    for (int r = 0; r < R; ++r) {
      S[r][half] = acc[r][0];
      S[r][half + 1] = acc[r][1];
    }
  }
}

// Add the key bias and the causal mask to the chunk S of rows i0.., keys j0...
HOT void mask_chunk(const Shape& s, const Head& hd,
                                                      int64_t i0, int64_t j0, vf S[R][KV]) {
  const vi iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  for (int r = 0; r < R; ++r) {
    if (s.has_mask || !s.causal) {  // causal, no mask: the bias of every key <= t is 0
      const float* b = hd.bias(s, i0 + r) + j0;
      for (int c = 0; c < KV; ++c) S[r][c] += load(b + VW * c);
    }
    if (s.causal && j0 + KC - 1 > i0 + r) {  // keys j0 + c > i0 + r are masked
      const int32_t last = static_cast<int32_t>(i0 + r - j0);
      for (int c = 0; c < KV; ++c) S[r][c] = (iota + VW * c > last) ? splat(NEG_INF) : S[r][c];
    }
  }
}

// acc[r][e..] += sum_{c < cend} coef[r][c] B[c][e..] for the R rows, W vectors at a time
// (R x W accumulators held in registers); acc and B have row stride ld.
template <int W>
HOT void accumulate_w(float* acc, int64_t ld, const float (*coef)[KC], const float* B,
                      int64_t cend, int64_t e) {
  vf a[R][W];
  for (int r = 0; r < R; ++r)
    for (int w = 0; w < W; ++w) a[r][w] = load(acc + r * ld + e + VW * w);
  for (int64_t c = 0; c < cend; ++c) {
    vf b[W];
    for (int w = 0; w < W; ++w) b[w] = load(B + c * ld + e + VW * w);
    for (int r = 0; r < R; ++r)
      for (int w = 0; w < W; ++w) a[r][w] += coef[r][c] * b[w];
  }
  for (int r = 0; r < R; ++r)
    for (int w = 0; w < W; ++w) store(acc + r * ld + e + VW * w, a[r][w]);
}

HOT void accumulate(float* acc, int64_t ld, const float (*coef)[KC], const float* B,
                    int64_t cend) {
  int64_t e = 0;
  for (; e + 2 * VW <= ld; e += 2 * VW) accumulate_w<2>(acc, ld, coef, B, cend, e);
  if (e < ld) accumulate_w<1>(acc, ld, coef, B, cend, e);
}

// dst[c][e..] += sum_r coef[r][c] rows[r][e..] for c < cend: per vector e the RR row
// vectors stay in registers while the keys stream past; dst and rows have row stride ld.
template <int RR>
HOT void scatter(float* dst, int64_t ld, const float (*coef)[KC], const float* rows,
                 int64_t cend) {
  for (int64_t e = 0; e < ld; e += VW) {
    vf o[RR];
    for (int r = 0; r < RR; ++r) o[r] = load(rows + r * ld + e);
    for (int64_t c = 0; c < cend; ++c) {
      float* d = dst + c * ld + e;
      vf x = load(d);
      for (int r = 0; r < RR; ++r) x += coef[r][c] * o[r];
      store(d, x);
    }
  }
}

HOT void forward_head(const Shape& s, Head& hd, std::vector<float>& acc, float* O, float* L,
                  int64_t n, int64_t h) {
  for (int64_t i0 = 0; i0 < s.T; i0 += R) {
    float m[R], l[R];
    std::fill(m, m + R, NEG_INF);
    std::fill(l, l + R, 0.0f);
    std::fill(acc.begin(), acc.end(), 0.0f);
    const int64_t kend = s.causal ? std::min(i0 + R, s.T) : s.T;
    for (int64_t j0 = 0; j0 < kend; j0 += KC) {
      vf S[R][KV];
      scores(&hd.q[i0 * s.Dp], s.Dp, &hd.kt[j0], s.Tk, s.D, S);
      mask_chunk(s, hd, i0, j0, S);
      float P[R][KC];
      for (int r = 0; r < R; ++r) {
        vf mx = S[r][0];
        for (int c = 1; c < KV; ++c) mx = mx > S[r][c] ? mx : S[r][c];
        const float m_new = std::max(m[r], hmax(mx));
        if (m_new == NEG_INF) {  // nothing allowed yet in this row
          std::fill(P[r], P[r] + KC, 0.0f);
          continue;
        }
        const float alpha = std::exp(m[r] - m_new);
        vf sum = {};
        for (int c = 0; c < KV; ++c) {
          const vf p = vexp(S[r][c] - m_new);
          store(&P[r][VW * c], p);
          sum += p;
        }
        l[r] = l[r] * alpha + hsum(sum);
        m[r] = m_new;
        if (s.strict && i0 + r >= j0 && i0 + r < j0 + KC) P[r][i0 + r - j0] = 0.0f;
        if (alpha != 1.0f) {
          float* a = &acc[r * s.Ep];
          for (int64_t e = 0; e < s.Ep; e += VW) store(a + e, load(a + e) * alpha);
        }
      }
      const int64_t cend = std::min<int64_t>(KC, kend - j0);
      accumulate(acc.data(), s.Ep, P, &hd.v[j0 * s.Ep], cend);
    }
    for (int r = 0; r < R && i0 + r < s.T; ++r) {
      const float inv = 1.0f / l[r];
      float* a = &acc[r * s.Ep];
      for (int64_t e = 0; e < s.Ep; e += VW) store(a + e, load(a + e) * inv);
      write_token(s, O, a, n, i0 + r, h, true);
      L[s.lat(n, i0 + r, h)] = m[r] + std::log(l[r]);
    }
  }
}

struct Grads {
  const float *O, *L, *dO, *dL;  // dL: null without a cotangent for L
  float *dQ, *dK, *dV;
};

HOT void backward_head(const Shape& s, Head& hd, std::vector<float>& work, const Grads& g,
                   int64_t n, int64_t h) {
  // work: dO rows (Tq, Ep) | dq block (RB, Dp) | dk (Tk, Dp) | dv (Tk, Ep)
  float* dO = work.data();
  float* dq = dO + s.Tq * s.Ep;
  float* dk = dq + RB * s.Dp;
  float* dv = dk + s.Tk * s.Dp;
  std::fill(work.begin(), work.end(), 0.0f);
  std::vector<float> Lrow(s.Tq, std::numeric_limits<float>::infinity());
  std::vector<float> Drow(s.Tq, 0.0f), orow(s.Ep, 0.0f);  // orow: o_t, zero-padded
  for (int64_t t = 0; t < s.T; ++t) {
    const int64_t row = s.lat(n, t, h);
    read_token(s, dO + t * s.Ep, g.dO, n, t, h, true);
    read_token(s, orow.data(), g.O, n, t, h, true);
    vf acc = {};
    for (int64_t e = 0; e < s.Ep; e += VW) acc += load(dO + t * s.Ep + e) * load(&orow[e]);
    const float dot = hsum(acc);
    Drow[t] = g.dL ? dot - g.dL[row] : dot;
    Lrow[t] = g.L[row];
  }
  // rows in blocks of RB = 2 R (two score tiles of R rows): every key's dk, dv
  // accumulator is read and written once per RB rows
  for (int64_t i0 = 0; i0 < s.T; i0 += RB) {
    std::fill(dq, dq + RB * s.Dp, 0.0f);
    const int64_t kend = s.causal ? std::min(i0 + RB, s.T) : s.T;
    const float* qg = &hd.q[i0 * s.Dp];
    const float* og = dO + i0 * s.Ep;
    for (int64_t j0 = 0; j0 < kend; j0 += KC) {
      float P[RB][KC], dS[RB][KC];
      for (int half = 0; half < RB / R; ++half) {
        const int64_t ib = i0 + half * R;
        vf S[R][KV], dP[R][KV];
        scores(&hd.q[ib * s.Dp], s.Dp, &hd.kt[j0], s.Tk, s.D, S);
        mask_chunk(s, hd, ib, j0, S);
        scores(dO + ib * s.Ep, s.Ep, &hd.vt[j0], s.Tk, s.E, dP);
        for (int r = 0; r < R; ++r) {
          const int64_t diag = ib + r - j0;  // the diagonal's column in this chunk, if any
          const bool strict = s.strict && diag >= 0 && diag < KC;
          float* Pr = P[half * R + r];
          float* dSr = dS[half * R + r];
          if (strict) dP[r][diag / VW][diag % VW] = 0.0f;
          for (int c = 0; c < KV; ++c) {
            const vf p = vexp(S[r][c] - Lrow[ib + r]);
            store(&Pr[VW * c], p);
            store(&dSr[VW * c], p * (dP[r][c] - Drow[ib + r]));
          }
          if (strict) Pr[diag] = 0.0f;  // after dS: P_tt still moves s_tt
        }
      }
      const int64_t cend = std::min<int64_t>(KC, kend - j0);
      scatter<RB>(dv + j0 * s.Ep, s.Ep, P, og, cend);
      scatter<RB>(dk + j0 * s.Dp, s.Dp, dS, qg, cend);
      for (int half = 0; half < RB / R; ++half)
        accumulate(dq + half * R * s.Dp, s.Dp, dS + half * R, &hd.k[j0 * s.Dp], cend);
    }
    for (int r = 0; r < RB && i0 + r < s.T; ++r) {
      write_token(s, g.dQ, dq + r * s.Dp, n, i0 + r, h, false);
    }
  }
  for (int64_t t = 0; t < s.T; ++t) {
    write_token(s, g.dK, dk + t * s.Dp, n, t, h, false);
    write_token(s, g.dV, dv + t * s.Ep, n, t, h, true);
  }
}

struct Inputs {
  const float *Q, *K, *V;
  const bool* M;
};

SYNCATTN_CLONES void forward_items(const Shape& s, const Inputs& in, float* O, float* L,
                                   std::atomic<int64_t>& next, std::atomic<int64_t>& done) {
  Head hd;
  hd.resize(s, false);
  std::vector<float> acc(R * s.Ep);
  for (int64_t i; (i = next.fetch_add(1)) < s.N * s.H;) {
    const int64_t n = i / s.H, h = i % s.H;
    hd.gather(s, n, h, in.Q, in.K, in.V, in.M, false);
    forward_head(s, hd, acc, O, L, n, h);
    done.fetch_add(1, std::memory_order_release);
  }
}

SYNCATTN_CLONES void backward_items(const Shape& s, const Inputs& in, const Grads& g,
                                    std::atomic<int64_t>& next, std::atomic<int64_t>& done) {
  Head hd;
  hd.resize(s, true);
  std::vector<float> work(s.Tq * s.Ep + RB * s.Dp + s.Tk * s.Dp + s.Tk * s.Ep);
  for (int64_t i; (i = next.fetch_add(1)) < s.N * s.H;) {
    const int64_t n = i / s.H, h = i % s.H;
    hd.gather(s, n, h, in.Q, in.K, in.V, in.M, true);
    backward_head(s, hd, work, g, n, h);
    done.fetch_add(1, std::memory_order_release);
  }
}

ffi::Error make_shape(ffi::Buffer<ffi::F32>& q, ffi::Buffer<ffi::F32>& k,
                      ffi::Buffer<ffi::F32>& v, ffi::Buffer<ffi::PRED>& mask,
                      int32_t causal, int32_t has_mask, int32_t strict, int32_t grouped,
                      Shape& s) {
  auto dq = q.dimensions(), dk = k.dimensions(), dv = v.dimensions();
  const size_t rank = dq.size(), lead = grouped ? 4 : 3;  // (T, [G,] H, D)
  if (rank < lead || dk.size() != rank || dv.size() != rank)
    return ffi::Error::InvalidArgument(
        grouped ? "q, k, v must have the same rank >= 4 (..., T, G, H, Dg)"
                : "q, k, v must have the same rank >= 3 (..., T, H, D)");
  for (size_t i = 0; i + 1 < rank; ++i)
    if (dq[i] != dk[i] || dq[i] != dv[i])
      return ffi::Error::InvalidArgument("q, k, v must agree on every axis but v's last");
  if (dq[rank - 1] != dk[rank - 1])
    return ffi::Error::InvalidArgument("q and k must have the same head width D");
  s.N = 1;
  for (size_t i = 0; i + lead < rank; ++i) s.N *= dq[i];
  s.T = dq[rank - lead], s.G = grouped ? dq[rank - 3] : 1, s.H = dq[rank - 2];
  s.Dg = dq[rank - 1], s.Eg = dv[rank - 1], s.D = s.G * s.Dg, s.E = s.G * s.Eg;
  if (has_mask && static_cast<int64_t>(mask.element_count()) != s.N * s.T)
    return ffi::Error::InvalidArgument("mask must have shape (..., T)");
  s.Dp = round_up(std::max<int64_t>(s.D, 1), VW);
  s.Ep = round_up(std::max<int64_t>(s.E, 1), VW);
  s.Tq = round_up(s.T, RB);
  s.Tk = round_up(s.T, KC);
  s.causal = causal != 0;
  s.has_mask = has_mask != 0;
  s.strict = strict != 0;
  return ffi::Error::Success();
}

ffi::Error Forward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> q, ffi::Buffer<ffi::F32> k,
                   ffi::Buffer<ffi::F32> v, ffi::Buffer<ffi::PRED> mask,
                   ffi::ResultBuffer<ffi::F32> o, ffi::ResultBuffer<ffi::F32> lse,
                   int32_t causal, int32_t has_mask, int32_t strict, int32_t grouped) {
  Shape s;
  if (auto err = make_shape(q, k, v, mask, causal, has_mask, strict, grouped, s); !err.success())
    return err;
  if (s.T == 0 || s.N * s.H == 0) return ffi::Error::Success();
  const Inputs in{q.typed_data(), k.typed_data(), v.typed_data(), mask.typed_data()};
  float* O = o->typed_data();
  float* L = lse->typed_data();
  parallel(pool, s.N * s.H, [s, in, O, L](std::atomic<int64_t>& next, std::atomic<int64_t>& done) {
    forward_items(s, in, O, L, next, done);
  });
  return ffi::Error::Success();
}

ffi::Error Backward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> q, ffi::Buffer<ffi::F32> k,
                    ffi::Buffer<ffi::F32> v, ffi::Buffer<ffi::PRED> mask,
                    ffi::Buffer<ffi::F32> o, ffi::Buffer<ffi::F32> lse,
                    ffi::Buffer<ffi::F32> dout, ffi::Buffer<ffi::F32> dlse,
                    ffi::ResultBuffer<ffi::F32> dq, ffi::ResultBuffer<ffi::F32> dk,
                    ffi::ResultBuffer<ffi::F32> dv, int32_t causal, int32_t has_mask,
                    int32_t strict, int32_t has_dlse, int32_t grouped) {
  Shape s;
  if (auto err = make_shape(q, k, v, mask, causal, has_mask, strict, grouped, s); !err.success())
    return err;
  if (has_dlse && static_cast<int64_t>(dlse.element_count()) != s.N * s.T * s.H)
    return ffi::Error::InvalidArgument("dlse must have shape (..., T, H)");
  if (s.T == 0 || s.N * s.H == 0) return ffi::Error::Success();
  const Inputs in{q.typed_data(), k.typed_data(), v.typed_data(), mask.typed_data()};
  const Grads g{o.typed_data(), lse.typed_data(), dout.typed_data(),
                has_dlse ? dlse.typed_data() : nullptr,
                dq->typed_data(), dk->typed_data(), dv->typed_data()};
  parallel(pool, s.N * s.H, [s, in, g](std::atomic<int64_t>& next, std::atomic<int64_t>& done) {
    backward_items(s, in, g, next, done);
  });
  return ffi::Error::Success();
}

}  // namespace

// The two targets, the only symbols the library exports (built with -fvisibility=hidden).
extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* SyncattnAttentionForward(
    XLA_FFI_CallFrame* call_frame);
extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* SyncattnAttentionBackward(
    XLA_FFI_CallFrame* call_frame);

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnAttentionForward, Forward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::PRED>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int32_t>("causal")
                                  .Attr<int32_t>("has_mask")
                                  .Attr<int32_t>("strict")
                                  .Attr<int32_t>("grouped"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnAttentionBackward, Backward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::PRED>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int32_t>("causal")
                                  .Attr<int32_t>("has_mask")
                                  .Attr<int32_t>("strict")
                                  .Attr<int32_t>("has_dlse")
                                  .Attr<int32_t>("grouped"));

// ---------------------------------------------------------------------------------------
// Pair maps of fixed-query attention (syncattn.lohe.masked_drive and readout_sums), per item
// n of the flattened batch, with a of shape (N, n, D), b (N, m, D), c (N, m, F):
//
//   forward:  out_i = sum_{j in A_i} phi(s_ij) c_j,   s_ij = a_i . b_j,
//             A_i = {j < m}, or {j <= i} when causal
//   backward: dc_j = sum_{i: j in A_i} phi(s_ij) g_i,  dS_ij = phi'(s_ij) (g_i . c_j),
//             da_i = sum_j dS_ij b_j,  db_j = sum_i dS_ij a_i          (g = d out)
//
//   kind 0 (the drive's softplus coupling): phi(s) = softplus(c s), phi'(s) = c sigmoid(c s),
//          c = `scale` (1 / sqrt(d_h)); softplus(x) = max(x, 0) + log(1 + e^{-|x|})
//   kind 1 (the readout kernel): phi(s) = max(0, 1 + s)^p, phi'(s) = p max(0, 1 + s)^(p-1)
//          where 1 + s > 0, else 0 (p an integer >= 1)
//
// No (n, m) array exists: rows in blocks of R, keys in chunks of KC, the backward recomputes
// s from a and b. The keys past m are zero-padded (b_j = c_j = 0: they add nothing), the
// causal mask is applied per lane. Items are threaded as the attention's (one thread per
// item, fixed order: bit-stable).

namespace {

struct PairShape {
  int64_t N, n, m, D, F;
  int64_t Dp, Fp, nq, mk;  // D, F padded to VW; rows to R; keys to KC
  int32_t kind, p, causal;
  float scale;
};

// phi and (with `grad`) phi' of one score vector
template <int KIND, bool GRAD>
HOT void pair_phi(const PairShape& s, vf x, vf& w, vf& dw) {
  if constexpr (KIND == 0) {
    x = x * s.scale;
    const vf e = vexp(-vabs(x));
    const vf zero = splat(0.0f);
    w = (x > zero ? x : zero) + vlog1p01(e);
    if constexpr (GRAD) {
      const vf inv = splat(1.0f) / (splat(1.0f) + e);
      dw = (x >= zero ? inv : e * inv) * s.scale;
    }
  } else {
    const vf base = x + splat(1.0f);
    const vf zero = splat(0.0f);
    const vf bp = base > zero ? base : zero;
    vf pw = splat(1.0f);  // bp^(p-1)
    for (int32_t i = 1; i < s.p; ++i) pw = pw * bp;
    w = pw * bp;
    if constexpr (GRAD) {
      if (s.p == 1)
        dw = base > zero ? splat(1.0f) : zero;
      else
        dw = pw * static_cast<float>(s.p);
    }
  }
}

// Lanes j0 + l > i (keys after query i) to 0.
HOT vf causal_lanes(vf x, int64_t j0, int64_t i) {
  const vi iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const vi lane = iota + static_cast<int32_t>(j0);
  return (vf)((vi)x & (lane <= static_cast<int32_t>(i)));
}

struct PairScratch {
  std::vector<float> a, brow, bt, crow, ct, g, db, dc, acc, wbuf, dsbuf;

  void resize(const PairShape& s, bool backward) {
    a.assign(s.nq * s.Dp, 0.0f);
    bt.assign(s.D * s.mk, 0.0f);
    crow.assign(s.mk * s.Fp, 0.0f);
    acc.assign(R * std::max(s.Fp, s.Dp), 0.0f);
    wbuf.assign(R * KC, 0.0f);
    if (backward) {
      brow.assign(s.mk * s.Dp, 0.0f);
      ct.assign(s.F * s.mk, 0.0f);
      g.assign(s.nq * s.Fp, 0.0f);
      db.assign(s.mk * s.Dp, 0.0f);
      dc.assign(s.mk * s.Fp, 0.0f);
      dsbuf.assign(R * KC, 0.0f);
    }
  }

  // item `it`'s rows into the padded scratch (the pads are zero from `resize` and never
  // written: every item has the same shape)
  void gather(const PairShape& s, int64_t it, const float* A, const float* B, const float* C,
              const float* G) {
    const float* ai = A + it * s.n * s.D;
    const float* bi = B + it * s.m * s.D;
    const float* ci = C + it * s.m * s.F;
    for (int64_t i = 0; i < s.n; ++i) copy_row(&a[i * s.Dp], ai + i * s.D, s.D);
    for (int64_t j = 0; j < s.m; ++j) copy_row(&crow[j * s.Fp], ci + j * s.F, s.F);
    for (int64_t j = 0; j < s.m; ++j)
      for (int64_t d = 0; d < s.D; ++d) bt[d * s.mk + j] = bi[j * s.D + d];
    if (G == nullptr) return;
    const float* gi = G + it * s.n * s.F;
    for (int64_t i = 0; i < s.n; ++i) copy_row(&g[i * s.Fp], gi + i * s.F, s.F);
    for (int64_t j = 0; j < s.m; ++j) copy_row(&brow[j * s.Dp], bi + j * s.D, s.D);
    for (int64_t j = 0; j < s.m; ++j)
      for (int64_t f = 0; f < s.F; ++f) ct[f * s.mk + j] = ci[j * s.F + f];
  }
};

// the scores of rows [i0, i0 + R) against keys [j0, j0 + KC): S[r][h], h = half of the chunk
HOT void pair_scores(const PairShape& s, const PairScratch& w, int64_t i0, int64_t j0,
                     vf (&S)[R][KV]) {
  for (int r = 0; r < R; ++r)
    for (int h = 0; h < KV; ++h) S[r][h] = splat(0.0f);
  for (int64_t d = 0; d < s.D; ++d) {
    const float* bd = &w.bt[d * s.mk + j0];
    const vf b0 = load(bd), b1 = load(bd + VW);
    for (int r = 0; r < R; ++r) {
      const float ar = w.a[(i0 + r) * s.Dp + d];
      S[r][0] += ar * b0;
      S[r][1] += ar * b1;
    }
  }
}

// the row block's key range: keys [0, jend) (causal: those of its last real row)
HOT int64_t pair_keys(const PairShape& s, int64_t i0) {
  return s.causal ? std::min<int64_t>(std::min<int64_t>(i0 + R, s.n), s.m) : s.m;
}

// FV > 0 (forward: at most FV output vectors per row) and DV > 0 (backward: at most DV da
// vectors per row) keep the row accumulators in registers (R x FV, R x DV; the lanes past
// the row's width guarded); 0: any width, the accumulators in memory.
template <int KIND, int FV>
HOT void pair_forward_item(const PairShape& s, PairScratch& w, int64_t it, float* O) {
  const int64_t fv = s.Fp / VW;  // the row width in vectors (FV: its bound, if any)
  constexpr int NA = FV > 0 ? FV : 1;
  for (int64_t i0 = 0; i0 < s.n; i0 += R) {
    const int64_t rows = std::min<int64_t>(R, s.n - i0), jend = pair_keys(s, i0);
    float* acc = w.acc.data();
    vf racc[R][NA];
    for (int r = 0; r < R; ++r)
      for (int f = 0; f < NA; ++f) racc[r][f] = splat(0.0f);
    if (FV == 0) std::fill(acc, acc + R * s.Fp, 0.0f);
    for (int64_t j0 = 0; j0 < jend; j0 += KC) {
      vf S[R][KV];
      pair_scores(s, w, i0, j0, S);
      for (int r = 0; r < R; ++r)
        for (int h = 0; h < KV; ++h) {
          vf v, unused;
          pair_phi<KIND, false>(s, S[r][h], v, unused);
          if (s.causal) v = causal_lanes(v, j0 + h * VW, i0 + r);
          store(&w.wbuf[r * KC + h * VW], v);
        }
      const int64_t kn = std::min<int64_t>(KC, jend - j0);
      for (int64_t jj = 0; jj < kn; ++jj) {
        const float* cj = &w.crow[(j0 + jj) * s.Fp];
        if constexpr (FV > 0) {
          vf c[FV];
          for (int f = 0; f < FV; ++f) c[f] = f < fv ? load(cj + f * VW) : splat(0.0f);
          for (int r = 0; r < R; ++r) {
            const float wv = w.wbuf[r * KC + jj];
            for (int f = 0; f < FV; ++f) racc[r][f] += wv * c[f];
          }
        } else {
          for (int64_t f = 0; f < fv; ++f) {
            const vf c = load(cj + f * VW);
            for (int r = 0; r < R; ++r) {
              float* ar = acc + r * s.Fp + f * VW;
              store(ar, load(ar) + w.wbuf[r * KC + jj] * c);
            }
          }
        }
      }
    }
    if constexpr (FV > 0)
      for (int r = 0; r < R; ++r)
        for (int f = 0; f < FV; ++f)
          if (f < fv) store(acc + r * s.Fp + f * VW, racc[r][f]);
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(O + (it * s.n + i0 + r) * s.F, acc + r * s.Fp, s.F * sizeof(float));
  }
}

template <int KIND, int DV>
HOT void pair_backward_item(const PairShape& s, PairScratch& w, int64_t it, float* dA, float* dB,
                            float* dC) {
  const int64_t dv = s.Dp / VW, fv = s.Fp / VW;  // widths in vectors (DV: a bound)
  constexpr int NA = DV > 0 ? DV : 1;
  std::fill(w.db.begin(), w.db.end(), 0.0f);
  std::fill(w.dc.begin(), w.dc.end(), 0.0f);
  float* da = w.acc.data();
  for (int64_t i0 = 0; i0 < s.n; i0 += R) {
    const int64_t rows = std::min<int64_t>(R, s.n - i0), jend = pair_keys(s, i0);
    vf rda[R][NA];
    for (int r = 0; r < R; ++r)
      for (int e = 0; e < NA; ++e) rda[r][e] = splat(0.0f);
    if (DV == 0) std::fill(da, da + R * s.Dp, 0.0f);
    for (int64_t j0 = 0; j0 < jend; j0 += KC) {
      vf S[R][KV], P[R][KV];
      pair_scores(s, w, i0, j0, S);
      for (int r = 0; r < R; ++r)
        for (int h = 0; h < KV; ++h) P[r][h] = splat(0.0f);
      for (int64_t f = 0; f < s.F; ++f) {  // P_ij = g_i . c_j
        const float* cf = &w.ct[f * s.mk + j0];
        const vf c0 = load(cf), c1 = load(cf + VW);
        for (int r = 0; r < R; ++r) {
          const float gr = w.g[(i0 + r) * s.Fp + f];
          P[r][0] += gr * c0;
          P[r][1] += gr * c1;
        }
      }
      for (int r = 0; r < R; ++r)
        for (int h = 0; h < KV; ++h) {
          vf v, dvv;
          pair_phi<KIND, true>(s, S[r][h], v, dvv);
          vf ds = dvv * P[r][h];
          if (s.causal) {
            v = causal_lanes(v, j0 + h * VW, i0 + r);
            ds = causal_lanes(ds, j0 + h * VW, i0 + r);
          }
          store(&w.wbuf[r * KC + h * VW], v);
          store(&w.dsbuf[r * KC + h * VW], ds);
        }
      const int64_t kn = std::min<int64_t>(KC, jend - j0);
      for (int64_t jj = 0; jj < kn; ++jj) {
        const int64_t j = j0 + jj;
        if constexpr (DV > 0) {
          vf bj[DV], accb[DV];
          for (int e = 0; e < DV; ++e) {
            bj[e] = e < dv ? load(&w.brow[j * s.Dp + e * VW]) : splat(0.0f);
            accb[e] = e < dv ? load(&w.db[j * s.Dp + e * VW]) : splat(0.0f);
          }
          for (int r = 0; r < R; ++r) {
            const float d = w.dsbuf[r * KC + jj];
            for (int e = 0; e < DV; ++e) {
              if (e < dv) accb[e] += d * load(&w.a[(i0 + r) * s.Dp + e * VW]);
              rda[r][e] += d * bj[e];
            }
          }
          for (int e = 0; e < DV; ++e)
            if (e < dv) store(&w.db[j * s.Dp + e * VW], accb[e]);
        } else {
          for (int64_t e = 0; e < dv; ++e) {
            const vf bj = load(&w.brow[j * s.Dp + e * VW]);
            vf accb = load(&w.db[j * s.Dp + e * VW]);
            for (int r = 0; r < R; ++r) {
              const float d = w.dsbuf[r * KC + jj];
              accb += d * load(&w.a[(i0 + r) * s.Dp + e * VW]);
              float* dar = da + r * s.Dp + e * VW;
              store(dar, load(dar) + d * bj);
            }
            store(&w.db[j * s.Dp + e * VW], accb);
          }
        }
        for (int64_t f = 0; f < fv; ++f) {
          vf accc = load(&w.dc[j * s.Fp + f * VW]);
          for (int r = 0; r < R; ++r)
            accc += w.wbuf[r * KC + jj] * load(&w.g[(i0 + r) * s.Fp + f * VW]);
          store(&w.dc[j * s.Fp + f * VW], accc);
        }
      }
    }
    if constexpr (DV > 0)
      for (int r = 0; r < R; ++r)
        for (int e = 0; e < DV; ++e)
          if (e < dv) store(da + r * s.Dp + e * VW, rda[r][e]);
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(dA + (it * s.n + i0 + r) * s.D, da + r * s.Dp, s.D * sizeof(float));
  }
  for (int64_t j = 0; j < s.m; ++j) {
    std::memcpy(dB + (it * s.m + j) * s.D, &w.db[j * s.Dp], s.D * sizeof(float));
    std::memcpy(dC + (it * s.m + j) * s.F, &w.dc[j * s.Fp], s.F * sizeof(float));
  }
}

// One item: the register variants where the widths allow (forward: up to 3 output vectors
// per row, F <= 48; backward: up to 2 da vectors per row, D <= 32), else the any-width one.
template <int KIND>
HOT void pair_item(const PairShape& s, PairScratch& w, int64_t it, bool backward,
                   float* O, float* dA, float* dB, float* dC) {
  if (backward) {
    if (s.Dp / VW <= 2) return pair_backward_item<KIND, 2>(s, w, it, dA, dB, dC);
    return pair_backward_item<KIND, 0>(s, w, it, dA, dB, dC);
  }
  if (s.Fp / VW <= 3) return pair_forward_item<KIND, 3>(s, w, it, O);
  return pair_forward_item<KIND, 0>(s, w, it, O);
}

struct PairIO {
  const float *A, *B, *C, *G;
  float *O, *dA, *dB, *dC;
};

SYNCATTN_CLONES void pair_items(const PairShape& s, const PairIO& io, bool backward,
                                std::atomic<int64_t>& next, std::atomic<int64_t>& done) {
  PairScratch w;
  w.resize(s, backward);
  for (int64_t it; (it = next.fetch_add(1)) < s.N;) {
    w.gather(s, it, io.A, io.B, io.C, backward ? io.G : nullptr);
    if (s.kind == 0)
      pair_item<0>(s, w, it, backward, io.O, io.dA, io.dB, io.dC);
    else
      pair_item<1>(s, w, it, backward, io.O, io.dA, io.dB, io.dC);
    done.fetch_add(1, std::memory_order_release);
  }
}

ffi::Error pair_shape(ffi::Buffer<ffi::F32>& a, ffi::Buffer<ffi::F32>& b,
                      ffi::Buffer<ffi::F32>& c, int32_t kind, int32_t p, float scale,
                      int32_t causal, PairShape& s) {
  auto da = a.dimensions(), db = b.dimensions(), dc = c.dimensions();
  const size_t rank = da.size();
  if (rank < 2 || db.size() != rank || dc.size() != rank)
    return ffi::Error::InvalidArgument("a, b, c must have the same rank >= 2 (..., n|m, D|F)");
  for (size_t i = 0; i + 2 < rank; ++i)
    if (da[i] != db[i] || da[i] != dc[i])
      return ffi::Error::InvalidArgument("a, b, c must agree on their batch axes");
  if (da[rank - 1] != db[rank - 1] || db[rank - 2] != dc[rank - 2])
    return ffi::Error::InvalidArgument("a (..., n, D), b (..., m, D), c (..., m, F) must agree");
  if (kind != 0 && kind != 1) return ffi::Error::InvalidArgument("kind must be 0 or 1");
  if (p < 1) return ffi::Error::InvalidArgument("p must be >= 1");
  s.N = 1;
  for (size_t i = 0; i + 2 < rank; ++i) s.N *= da[i];
  s.n = da[rank - 2], s.m = db[rank - 2], s.D = da[rank - 1], s.F = dc[rank - 1];
  s.Dp = round_up(std::max<int64_t>(s.D, 1), VW);
  s.Fp = round_up(std::max<int64_t>(s.F, 1), VW);
  s.nq = round_up(std::max<int64_t>(s.n, 1), R);
  s.mk = round_up(std::max<int64_t>(s.m, 1), KC);
  s.kind = kind, s.p = p, s.scale = scale, s.causal = causal != 0;
  return ffi::Error::Success();
}

ffi::Error PairForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b,
                       ffi::Buffer<ffi::F32> c, ffi::ResultBuffer<ffi::F32> out, int32_t kind,
                       int32_t p, float scale, int32_t causal) {
  PairShape s;
  if (auto err = pair_shape(a, b, c, kind, p, scale, causal, s); !err.success()) return err;
  float* O = out->typed_data();
  if (s.N * s.n * s.F == 0) return ffi::Error::Success();
  if (s.m == 0) {
    std::fill(O, O + s.N * s.n * s.F, 0.0f);
    return ffi::Error::Success();
  }
  const PairIO io{a.typed_data(), b.typed_data(), c.typed_data(), nullptr, O,
                  nullptr, nullptr, nullptr};
  parallel(pool, s.N, [s, io](std::atomic<int64_t>& next, std::atomic<int64_t>& done) {
    pair_items(s, io, false, next, done);
  });
  return ffi::Error::Success();
}

ffi::Error PairBackward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b,
                        ffi::Buffer<ffi::F32> c, ffi::Buffer<ffi::F32> g,
                        ffi::ResultBuffer<ffi::F32> da, ffi::ResultBuffer<ffi::F32> db,
                        ffi::ResultBuffer<ffi::F32> dc, int32_t kind, int32_t p, float scale,
                        int32_t causal) {
  PairShape s;
  if (auto err = pair_shape(a, b, c, kind, p, scale, causal, s); !err.success()) return err;
  if (static_cast<int64_t>(g.element_count()) != s.N * s.n * s.F)
    return ffi::Error::InvalidArgument("g must have the shape of the output (..., n, F)");
  float *dA = da->typed_data(), *dB = db->typed_data(), *dC = dc->typed_data();
  std::fill(dA, dA + s.N * s.n * s.D, 0.0f);
  if (s.N == 0 || s.n == 0 || s.m == 0) {
    std::fill(dB, dB + s.N * s.m * s.D, 0.0f);
    std::fill(dC, dC + s.N * s.m * s.F, 0.0f);
    return ffi::Error::Success();
  }
  const PairIO io{a.typed_data(), b.typed_data(), c.typed_data(), g.typed_data(), nullptr,
                  dA, dB, dC};
  parallel(pool, s.N, [s, io](std::atomic<int64_t>& next, std::atomic<int64_t>& done) {
    pair_items(s, io, true, next, done);
  });
  return ffi::Error::Success();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* SyncattnPairForward(
    XLA_FFI_CallFrame* call_frame);
extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* SyncattnPairBackward(
    XLA_FFI_CallFrame* call_frame);

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnPairForward, PairForward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int32_t>("kind")
                                  .Attr<int32_t>("p")
                                  .Attr<float>("scale")
                                  .Attr<int32_t>("causal"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnPairBackward, PairBackward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int32_t>("kind")
                                  .Attr<int32_t>("p")
                                  .Attr<float>("scale")
                                  .Attr<int32_t>("causal"));
