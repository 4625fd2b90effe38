/* The C side of bench/bench_front.cpp: the same two loop kernels as the
 * CAIRN programs that benchmark generates, written the way a C programmer
 * would, compiled as C with -O2 (bench/CMakeLists.txt) and called through
 * extern "C". Each one is a whole program run: allocate, fill the inputs
 * with the same formula, run the kernel, free, and return the value the
 * CAIRN program checks. The sizes come in as arguments, so the compiler
 * cannot fold the work away.
 */
#include <stdint.h>
#include <stdlib.h>

/* Fill n bytes with (i * 7 + 3) % 251, then sum them into a wrapping u32. */
uint32_t front_checksum_c(size_t n) {
  uint8_t *v = malloc(n ? n : 1);
  if (!v) return 0;
  for (size_t i = 0; i < n; ++i) v[i] = (uint8_t)((i * 7 + 3) % 251);
  uint32_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += (uint32_t)v[i];
  free(v);
  return sum;
}

static uint64_t dot(size_t n, const uint64_t *a, const uint64_t *b) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/* a[i] = i * 2654435761 + 1, b[i] = i ^ 12345 (wrapping u64); then `reps`
 * dot products, each folded into the total and stored into a[r] so no pass
 * is loop-invariant. */
uint64_t front_dot_c(size_t n, size_t reps) {
  uint64_t *a = malloc((n ? n : 1) * sizeof *a);
  uint64_t *b = malloc((n ? n : 1) * sizeof *b);
  uint64_t total = 0;
  if (a && b) {
    for (size_t i = 0; i < n; ++i) {
      a[i] = (uint64_t)i * 2654435761u + 1;
      b[i] = (uint64_t)i ^ 12345u;
    }
    for (size_t r = 0; r < reps; ++r) {
      uint64_t d = dot(n, a, b);
      total = total * 31 + d;
      if (r < n) a[r] = d;
    }
  }
  free(a);
  free(b);
  return total;
}
