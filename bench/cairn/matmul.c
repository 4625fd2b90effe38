/* matmul.cairn in C: the product of two 300x300 u64 matrices (row-major,
 * a[k] = k * 2654435761 + 1, b[k] = k ^ 40503) by the i, j, k triple loop;
 * prints h = h * 31 + c[k] over the result. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void matmul(size_t n, const uint64_t *a, const uint64_t *b, uint64_t *c) {
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      uint64_t s = 0;
      for (size_t k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}

int main(void) {
  size_t n = 300, nn = n * n;
  uint64_t *a = calloc(nn, sizeof *a), *b = calloc(nn, sizeof *b), *c = calloc(nn, sizeof *c);
  if (!a || !b || !c) return 2;
  for (size_t k = 0; k < nn; ++k) {
    a[k] = (uint64_t)k * 2654435761u + 1;
    b[k] = (uint64_t)k ^ 40503u;
  }
  matmul(n, a, b, c);
  uint64_t h = 0;
  for (size_t k = 0; k < nn; ++k) h = h * 31 + c[k];
  printf("%" PRIu64 "\n", h);
  free(a);
  free(b);
  free(c);
  return 0;
}
