/* startup.cairn in C: no work, prints 0. */
#include <stdio.h>

int main(void) {
  printf("0\n");
  return 0;
}
