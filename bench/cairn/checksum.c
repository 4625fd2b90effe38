/* checksum.cairn in C: fill 10^7 bytes with (i * 7 + 3) % 251 and sum them
 * into a wrapping u32; prints the sum. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t checksum(size_t n, const uint8_t *bytes) {
  uint32_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += (uint32_t)bytes[i];
  return sum;
}

int main(void) {
  size_t n = 10000000;
  uint8_t *v = calloc(n, 1);
  if (!v) return 2;
  for (size_t i = 0; i < n; ++i) v[i] = (uint8_t)((i * 7 + 3) % 251);
  printf("%" PRIu32 "\n", checksum(n, v));
  free(v);
  return 0;
}
