// The elementwise blocks of the models' feed-forward and normalisation, fused for XLA:CPU and
// called through jax.ffi (syncattn._kernels._blocks). Rows are the flattened leading axes.
//
// gated SiLU (syncattn.nn.gated_silu), y = [a || b] (rows of 2h), s = sigmoid(a):
//   forward:  out = a s b
//   backward: da = g b s (1 + a (1 - s)),  db = g a s      (g = d out), written as [da || db]
//
// RMSNorm (syncattn.nn.RMSNorm), x rows of d, gain w (d), r = 1 / sqrt(mean(x^2) + eps):
//   forward:  y = x r w
//   backward: dx = r w dy - r^3 x (sum_i w_i dy_i x_i) / d,  dw = sum_rows dy x r
//
// swap: out[..., j, i, :] = x[..., i, j, :] for x (..., a, b, c) (c = 1: the sphere's lift and
// its inverse; the oscillator layer's (T, 3 H, d_h) -> (3 H, T, d_h)).
//
// Work items are blocks of rows; dw is summed per item and the items' sums added in item order
// after the loop (bit-stable).

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "simd.h"

namespace {

constexpr int64_t ROWS = 32;  // rows per work item

// sigmoid(a) = 1 / (1 + e^{-a}), with e^{-|a|} (no overflow)
HOT vf vsigmoid(vf a) {
  const vf e = vexp(-vabs(a));
  const vf inv = splat(1.0f) / (splat(1.0f) + e);
  return a >= splat(0.0f) ? inv : e * inv;
}

SYNCATTN_CLONES void silu_rows(const float* Y, const float* G, float* OUT, int64_t h, int64_t r0,
                               int64_t r1, bool backward) {
  for (int64_t row = r0; row < r1; ++row) {
    const float *a = Y + row * 2 * h, *b = a + h;
    for (int64_t j = 0; j < h; j += VW) {
      const int64_t cnt = h - j;
      const vf av = load_n(a + j, cnt), bv = load_n(b + j, cnt);
      const vf s = vsigmoid(av);
      if (!backward) {
        store_n(OUT + row * h + j, av * s * bv, cnt);
        continue;
      }
      const vf g = load_n(G + row * h + j, cnt);
      store_n(OUT + row * 2 * h + j, g * bv * s * (splat(1.0f) + av * (splat(1.0f) - s)), cnt);
      store_n(OUT + row * 2 * h + h + j, g * av * s, cnt);
    }
  }
}

ffi::Error SiluForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> y,
                       ffi::ResultBuffer<ffi::F32> out) {
  auto d = y.dimensions();
  if (d.size() < 1 || d[d.size() - 1] % 2)
    return ffi::Error::InvalidArgument("y must be (..., 2h)");
  const int64_t h = d[d.size() - 1] / 2, rows = h ? y.element_count() / (2 * h) : 0;
  if (rows * h == 0) return ffi::Error::Success();
  const float* Y = y.typed_data();
  float* O = out->typed_data();
  for_rows(pool, rows, ROWS, [=](int64_t r0, int64_t r1) {
    silu_rows(Y, nullptr, O, h, r0, r1, false);
  });
  return ffi::Error::Success();
}

ffi::Error SiluBackward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> y, ffi::Buffer<ffi::F32> g,
                        ffi::ResultBuffer<ffi::F32> dy) {
  auto d = y.dimensions();
  if (d.size() < 1 || d[d.size() - 1] % 2 || 2 * g.element_count() != y.element_count())
    return ffi::Error::InvalidArgument("y must be (..., 2h) and g (..., h)");
  const int64_t h = d[d.size() - 1] / 2, rows = h ? y.element_count() / (2 * h) : 0;
  if (rows * h == 0) return ffi::Error::Success();
  const float *Y = y.typed_data(), *G = g.typed_data();
  float* D = dy->typed_data();
  for_rows(pool, rows, ROWS, [=](int64_t r0, int64_t r1) {
    silu_rows(Y, G, D, h, r0, r1, true);
  });
  return ffi::Error::Success();
}

// RMSNorm rows [r0, r1) of sequence-agnostic rows; backward adds dw into dwp (d floats).
SYNCATTN_CLONES void rms_rows(const float* X, const float* W, const float* DY, float* OUT,
                              float* dwp, int64_t d, float eps, int64_t r0, int64_t r1,
                              bool backward) {
  for (int64_t row = r0; row < r1; ++row) {
    const float* x = X + row * d;
    vf acc = splat(0.0f);
    for (int64_t j = 0; j < d; j += VW) {
      const vf xv = load_n(x + j, d - j);
      acc += xv * xv;
    }
    const float r = 1.0f / std::sqrt(hsum(acc) / static_cast<float>(d) + eps);
    if (!backward) {
      for (int64_t j = 0; j < d; j += VW)
        store_n(OUT + row * d + j, load_n(x + j, d - j) * r * load_n(W + j, d - j), d - j);
      continue;
    }
    const float* dy = DY + row * d;
    vf sw = splat(0.0f);
    for (int64_t j = 0; j < d; j += VW)
      sw += load_n(W + j, d - j) * load_n(dy + j, d - j) * load_n(x + j, d - j);
    const float c = r * r * r * hsum(sw) / static_cast<float>(d);
    for (int64_t j = 0; j < d; j += VW) {
      const int64_t cnt = d - j;
      const vf xv = load_n(x + j, cnt), g = load_n(dy + j, cnt);
      store_n(OUT + row * d + j, load_n(W + j, cnt) * g * r - xv * c, cnt);
      store(dwp + j, load(dwp + j) + g * xv * r);
    }
  }
}

ffi::Error rms_shape(ffi::Buffer<ffi::F32>& x, ffi::Buffer<ffi::F32>& w, int64_t& N,
                     int64_t& T, int64_t& d) {
  auto dx = x.dimensions(), dw = w.dimensions();
  if (dx.size() < 2 || dw.size() < 1)
    return ffi::Error::InvalidArgument("x must be (..., T, d) and w (..., d)");
  d = dx[dx.size() - 1], T = dx[dx.size() - 2];
  N = 1;
  for (size_t i = 0; i + 2 < dx.size(); ++i) N *= dx[i];
  if (dw[dw.size() - 1] != d || static_cast<int64_t>(w.element_count()) != N * d)
    return ffi::Error::InvalidArgument("w must be (..., d) of x's batch");
  return ffi::Error::Success();
}

ffi::Error RmsForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> w,
                      ffi::ResultBuffer<ffi::F32> y, float eps) {
  int64_t N, T, d;
  if (auto err = rms_shape(x, w, N, T, d); !err.success()) return err;
  if (N * T * d == 0) return ffi::Error::Success();
  const float *X = x.typed_data(), *W = w.typed_data();
  float* Y = y->typed_data();
  const int64_t nb = (T + ROWS - 1) / ROWS;
  for_items(pool, N * nb, [=](int64_t item) {
    const int64_t n = item / nb, t0 = (item % nb) * ROWS;
    rms_rows(X + n * T * d, W + n * d, nullptr, Y + n * T * d, nullptr, d, eps, t0,
             std::min(T, t0 + ROWS), false);
  });
  return ffi::Error::Success();
}

ffi::Error RmsBackward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> w,
                       ffi::Buffer<ffi::F32> dy, ffi::ResultBuffer<ffi::F32> dx,
                       ffi::ResultBuffer<ffi::F32> dw, float eps) {
  int64_t N, T, d;
  if (auto err = rms_shape(x, w, N, T, d); !err.success()) return err;
  if (dy.element_count() != x.element_count())
    return ffi::Error::InvalidArgument("dy must have the shape of x");
  float* DW = dw->typed_data();
  std::fill(DW, DW + N * d, 0.0f);
  if (N * T * d == 0) return ffi::Error::Success();
  const float *X = x.typed_data(), *W = w.typed_data(), *DY = dy.typed_data();
  float* DX = dx->typed_data();
  const int64_t nb = (T + ROWS - 1) / ROWS, items = N * nb, dp = round_up(d, VW);
  std::vector<float> part(items * dp, 0.0f);
  float* P = part.data();
  for_items(pool, items, [=](int64_t item) {
    const int64_t n = item / nb, t0 = (item % nb) * ROWS;
    rms_rows(X + n * T * d, W + n * d, DY + n * T * d, DX + n * T * d, P + item * dp, d, eps,
             t0, std::min(T, t0 + ROWS), true);
  });
  for (int64_t item = 0; item < items; ++item)  // in item order: bit-stable
    for (int64_t j = 0; j < d; ++j) DW[(item / nb) * d + j] += P[item * dp + j];
  return ffi::Error::Success();
}

ffi::Error SwapForward(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x,
                       ffi::ResultBuffer<ffi::F32> out) {
  auto d = x.dimensions();
  if (d.size() < 3) return ffi::Error::InvalidArgument("x must be (..., a, b, c)");
  const int64_t a = d[d.size() - 3], b = d[d.size() - 2], c = d[d.size() - 1];
  const int64_t size = a * b * c, mats = size ? x.element_count() / size : 0;
  if (mats == 0) return ffi::Error::Success();
  const float* X = x.typed_data();
  float* O = out->typed_data();
  const int64_t per = std::max<int64_t>(1, 8192 / (b * c));  // rows i per work item
  const int64_t blocks = (a + per - 1) / per;
  for_items(pool, mats * blocks, [=](int64_t item) {
    const int64_t m = item / blocks, i0 = (item % blocks) * per;
    const float* src = X + m * size;
    float* dst = O + m * size;
    for (int64_t i = i0; i < std::min(a, i0 + per); ++i)
      for (int64_t j = 0; j < b; ++j) {
        const float* s = src + (i * b + j) * c;
        float* t = dst + (j * a + i) * c;
        if (c == 1)
          *t = *s;
        else
          std::memcpy(t, s, c * sizeof(float));
      }
  });
  return ffi::Error::Success();
}

}  // namespace

#define SYNCATTN_EXPORT extern "C" __attribute__((visibility("default"))) XLA_FFI_Error*
SYNCATTN_EXPORT SyncattnSiluForward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnSiluBackward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnRmsForward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnRmsBackward(XLA_FFI_CallFrame* call_frame);
SYNCATTN_EXPORT SyncattnSwapForward(XLA_FFI_CallFrame* call_frame);

using F32 = ffi::Buffer<ffi::F32>;

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnSiluForward, SiluForward,
                              ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<F32>().Ret<F32>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnSiluBackward, SiluBackward,
                              ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<F32>().Arg<F32>().Ret<F32>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnRmsForward, RmsForward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>()
                                  .Ret<F32>()
                                  .Attr<float>("eps"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnRmsBackward, RmsBackward,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<F32>().Arg<F32>().Arg<F32>()
                                  .Ret<F32>().Ret<F32>()
                                  .Attr<float>("eps"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(SyncattnSwapForward, SwapForward,
                              ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<F32>().Ret<F32>());
