// Vector helpers shared by the CPU kernels (attention.cc, sync.cc, blocks.cc): GCC vector extensions of
// 16 floats, the clone attribute, a few transcendental functions and the thread-pool loop.

#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

// 16 floats: one AVX-512 register (two AVX2 registers on the other clones).
constexpr int VW = 16;
typedef float vf __attribute__((vector_size(4 * VW)));
typedef int32_t vi __attribute__((vector_size(4 * VW)));

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define SYNCATTN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SYNCATTN_CLONES
#endif

#define HOT inline __attribute__((always_inline))

inline int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// Constants only: for a runtime scalar, `x * v` broadcasts well and a built vector does not.
HOT vf splat(float x) { return vf{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}; }

HOT vf load(const float* p) {
  vf r;
  std::memcpy(&r, p, sizeof(r));
  return r;
}

HOT void store(float* p, vf x) { std::memcpy(p, &x, sizeof(x)); }

// exp(x) for x <= 88, to about 2 ulp (Cephes' expf reduction and polynomial); 0 below -87.
HOT vf vexp(vf x) {
  const vf lo = splat(-87.0f);
  vi keep = x >= lo;
  x = x < lo ? lo : x;
  x = x > splat(88.0f) ? splat(88.0f) : x;
  const vf magic = splat(12582912.0f);  // 1.5 * 2^23: round to nearest
  vf n = (x * splat(1.44269504088896341f) + magic) - magic;
  vf r = x - n * splat(0.693359375f) - n * splat(-2.12194440e-4f);
  vf y = splat(1.9875691500e-4f);
  y = y * r + splat(1.3981999507e-3f);
  y = y * r + splat(8.3334519073e-3f);
  y = y * r + splat(4.1665795894e-2f);
  y = y * r + splat(1.6666665459e-1f);
  y = y * r + splat(5.0000001201e-1f);
  y = y * r * r + r + splat(1.0f);
  vi e = (__builtin_convertvector(n, vi) + 127) << 23;
  return (vf)((vi)(y * (vf)e) & keep);
}

// Horizontal max and sum by halving (four shuffles, not fifteen scalar steps).
HOT float hmax(vf x) {
  typedef float h8 __attribute__((vector_size(32)));
  typedef float h4 __attribute__((vector_size(16)));
  h8 a = __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7);
  h8 b = __builtin_shufflevector(x, x, 8, 9, 10, 11, 12, 13, 14, 15);
  a = a > b ? a : b;
  h4 c = __builtin_shufflevector(a, a, 0, 1, 2, 3), d = __builtin_shufflevector(a, a, 4, 5, 6, 7);
  c = c > d ? c : d;
  return std::max(std::max(c[0], c[1]), std::max(c[2], c[3]));
}

HOT float hsum(vf x) {
  typedef float h8 __attribute__((vector_size(32)));
  typedef float h4 __attribute__((vector_size(16)));
  h8 a = __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7) +
         __builtin_shufflevector(x, x, 8, 9, 10, 11, 12, 13, 14, 15);
  h4 c = __builtin_shufflevector(a, a, 0, 1, 2, 3) + __builtin_shufflevector(a, a, 4, 5, 6, 7);
  return (c[0] + c[2]) + (c[1] + c[3]);
}

// dst[0..n) = src[0..n): whole vectors, then the tail (rows are short: no memcpy call).
HOT void copy_row(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
  for (; i + VW <= n; i += VW) store(dst + i, load(src + i));
  for (; i < n; ++i) dst[i] = src[i];
}

// log(1 + e) for e in [0, 1]: 2 atanh(u), u = e / (2 + e) <= 1/3, to the u^15 term (the
// next is below 1e-9); no cancellation for small e.
HOT vf vlog1p01(vf e) {
  const vf u = e / (splat(2.0f) + e);
  const vf u2 = u * u;
  vf y = splat(2.0f / 15.0f);
  y = y * u2 + splat(2.0f / 13.0f);
  y = y * u2 + splat(2.0f / 11.0f);
  y = y * u2 + splat(2.0f / 9.0f);
  y = y * u2 + splat(2.0f / 7.0f);
  y = y * u2 + splat(2.0f / 5.0f);
  y = y * u2 + splat(2.0f / 3.0f);
  y = y * u2 + splat(2.0f);
  return y * u;
}

HOT vf vabs(vf x) { return (vf)((vi)x & 0x7fffffff); }

// Run `body(next, done)` on the caller and up to threads - 1 pool tasks; the items are
// claimed from `next`, so a task that starts late finds none and returns at once.
template <typename Body>
void parallel(ffi::ThreadPool& pool, int64_t items, Body body) {
  struct State {
    std::atomic<int64_t> next{0}, done{0};
  };
  auto state = std::make_shared<State>();
  const int64_t tasks = std::min<int64_t>(pool.num_threads(), items) - 1;
  for (int64_t i = 0; i < tasks; ++i)
    pool.Schedule([state, body]() { body(state->next, state->done); });
  body(state->next, state->done);
  while (state->done.load(std::memory_order_acquire) < items) std::this_thread::yield();
}

// Run `body(item)` for items 0, ..., items - 1 on the pool (each item by one thread).
template <typename Body>
void for_items(ffi::ThreadPool& pool, int64_t items, Body body) {
  parallel(pool, items, [items, body](std::atomic<int64_t>& next, std::atomic<int64_t>& done) {
    for (int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < items;) {
      body(i);
      done.fetch_add(1, std::memory_order_release);
    }
  });
}

// Run `body(r0, r1)` over the rows [0, rows) in blocks of `per` rows, one block per item.
template <typename Body>
void for_rows(ffi::ThreadPool& pool, int64_t rows, int64_t per, Body body) {
  for_items(pool, (rows + per - 1) / per, [=](int64_t item) {
    body(item * per, std::min(rows, (item + 1) * per));
  });
}

// The first n < VW lanes of a vector (the rest 0), and back; whole vectors for n >= VW.
HOT vf load_n(const float* p, int64_t n) {
  if (n >= VW) return load(p);
  vf r = splat(0.0f);
  std::memcpy(&r, p, n * sizeof(float));
  return r;
}

HOT void store_n(float* p, vf x, int64_t n) {
  if (n >= VW) {
    store(p, x);
    return;
  }
  std::memcpy(p, &x, n * sizeof(float));
}

// Lanes >= n to 0.
HOT vf lanes(vf x, int64_t n) {
  if (n >= VW) return x;
  const vi iota = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return (vf)((vi)x & (iota < static_cast<int32_t>(n)));
}

}  // namespace
