/* fib.cairn in C: fib(32) by the doubly recursive definition; prints it. */
#include <inttypes.h>
#include <stdio.h>

static uint64_t fib(uint64_t n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

int main(void) {
  printf("%" PRIu64 "\n", fib(32));
  return 0;
}
