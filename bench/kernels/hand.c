/* The benchmark kernels of bench/kernels/*.uir, written by hand in C.
 *
 * Each function does what its .uir program does, the way a C programmer
 * would write it: allocate the buffers (malloc; every element is written
 * before it is read), fill the inputs from the index, run the kernel, and
 * return the one value the program puts in slot 1 (as a double; every such
 * value here is exact in a double). bench/bench_kernels.cpp compiles this
 * file with the same compiler and flags as the emitted C (cc -O2) and
 * checks each result against the interpreter's before timing anything.
 * Returns NaN when memory runs out. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int64_t clamp_n(int64_t n) { return n < 1 ? 1 : n; }

double hand_add(int64_t n) {
  n = clamp_n(n);
  float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b), *c = malloc((size_t)n * sizeof *c);
  double r = NAN;
  if (a && b && c) {
    for (int64_t i = 0; i < n; ++i) {
      a[i] = (float)(i % 1000);
      b[i] = (float)(i % 7) * 0.5f;
    }
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    r = c[12345 % n];
  }
  free(a), free(b), free(c);
  return r;
}

double hand_saxpy(int64_t n) {
  n = clamp_n(n);
  float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  double r = NAN;
  if (x && y) {
    for (int64_t i = 0; i < n; ++i) {
      x[i] = (float)(i % 1000);
      y[i] = (float)(i % 7);
    }
    for (int64_t i = 0; i < n; ++i) y[i] = 2.5f * x[i] + y[i];
    r = y[12345 % n];
  }
  free(x), free(y);
  return r;
}

double hand_prefix(int64_t n) {
  n = clamp_n(n);
  int64_t *b = malloc((size_t)n * sizeof *b);
  double r = NAN;
  if (b) {
    for (int64_t i = 0; i < n; ++i) b[i] = i % 10;
    for (int64_t i = 1; i < n; ++i) b[i] += b[i - 1];
    r = (double)b[12345 % n];
  }
  free(b);
  return r;
}

double hand_dot(int64_t n) {
  n = clamp_n(n);
  double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  double r = NAN;
  if (a && b) {
    for (int64_t i = 0; i < n; ++i) {
      a[i] = (double)(i % 1000);
      b[i] = (double)(i % 7);
    }
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
    r = s;
  }
  free(a), free(b);
  return r;
}

/* rows: the number of rows R (clamped to [1, 3125]); 3200 columns. */
double hand_transpose(int64_t rows) {
  enum { C = 3200, RMAX = 3125 };
  int64_t R = rows < 1 ? 1 : rows > RMAX ? RMAX : rows;
  float *in = malloc((size_t)RMAX * C * sizeof *in), *out = malloc((size_t)RMAX * C * sizeof *out);
  double r = NAN;
  if (in && out) {
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) in[i * C + j] = (float)((i * C + j) % 1000);
    for (int64_t j = 0; j < C; ++j)
      for (int64_t i = 0; i < R; ++i) out[j * R + i] = in[i * C + j];
    r = out[12345 % (R * C)];
  }
  free(in), free(out);
  return r;
}

double hand_gather(int64_t n) {
  n = clamp_n(n);
  float *src = malloc((size_t)n * sizeof *src), *out = malloc((size_t)n * sizeof *out);
  int32_t *idx = malloc((size_t)n * sizeof *idx);
  double r = NAN;
  if (src && out && idx) {
    for (int64_t i = 0; i < n; ++i) {
      src[i] = (float)(i % 1000);
      idx[i] = (int32_t)((i * 7919) % n);
    }
    for (int64_t i = 0; i < n; ++i) out[i] = src[idx[i]];
    r = out[12345 % n];
  }
  free(src), free(out), free(idx);
  return r;
}
