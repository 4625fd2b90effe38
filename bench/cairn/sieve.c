/* sieve.cairn in C: the sieve of Eratosthenes to 10^7 in a byte array
 * (1 = composite), crossing out from i * i; prints the number of primes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t sieve(size_t n, uint8_t *composite) {
  uint64_t count = 0;
  for (size_t i = 2; i < n; ++i) {
    if (composite[i] == 0) {
      ++count;
      for (size_t j = i * i; j < n; j += i) composite[j] = 1;
    }
  }
  return count;
}

int main(void) {
  size_t n = 10000001; /* the numbers 0..=10^7 */
  uint8_t *composite = calloc(n, 1);
  if (!composite) return 2;
  printf("%" PRIu64 "\n", sieve(n, composite));
  free(composite);
  return 0;
}
