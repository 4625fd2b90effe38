/* dot.cairn in C: a[i] = i * 2654435761 + 1, b[i] = i ^ 12345 over 10^6
 * u64s, then 10 dot products, each folded into the total and stored into
 * a[r]; prints the total. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t dot(size_t n, const uint64_t *a, const uint64_t *b) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

int main(void) {
  size_t n = 1000000;
  uint64_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  if (!a || !b) return 2;
  for (size_t i = 0; i < n; ++i) {
    a[i] = (uint64_t)i * 2654435761u + 1;
    b[i] = (uint64_t)i ^ 12345u;
  }
  uint64_t total = 0;
  for (size_t r = 0; r < 10; ++r) {
    uint64_t d = dot(n, a, b);
    total = total * 31 + d;
    a[r] = d;
  }
  printf("%" PRIu64 "\n", total);
  free(a);
  free(b);
  return 0;
}
