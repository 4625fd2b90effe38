/* adds.cairn in C: 10^8 wrapping u64 adds, the Fibonacci recurrence modulo
 * 2^64; prints the last value. */
#include <inttypes.h>
#include <stdio.h>

int main(void) {
  uint64_t a = 0, b = 1;
  for (uint64_t i = 0; i < 100000000; ++i) {
    uint64_t t = a + b;
    a = b;
    b = t;
  }
  printf("%" PRIu64 "\n", b);
  return 0;
}
