/* cairn_rt_driver.h: the driver half of the runtime of emitted C.
 *
 * Part of runtime/cairn_rt.h, which includes it at its end (and the emitter
 * pastes it there, so an emitted .c file stays self-contained): --slot
 * values parsed and checked as the CLI and the interpreter check them
 * (ir/dtype.cpp parseLiteral/literalBits, exec/machine.cpp prepare), value
 * text as ir/dtype.cpp bitsText writes it (shortest round-trip floats), and
 * cairn_rt_run / cairn_rt_batch_main, the programs' main. Not meant to be
 * included alone. */
#ifndef CAIRN_RT_H
#error "include cairn_rt.h, not cairn_rt_driver.h"
#endif

/* ---- literals (--slot values): ir/dtype.cpp parseLiteral and literalBits ---- */

typedef struct {
  int kind; /* 0 int, 1 float, 2 bool */
  int negative;
  uint64_t magnitude;
  double f;
} cairn_rt_lit;

static int cairn_rt_parse_lit(const char *s, size_t len, cairn_rt_lit *l) {
  char buf[512], *end;
  size_t i, start = 0;
  int neg = 0, isint = 1;
  memset(l, 0, sizeof *l);
  if (len == 0 || len >= sizeof buf) return 0;
  memcpy(buf, s, len);
  buf[len] = 0;
  if (!strcmp(buf, "true") || !strcmp(buf, "false")) {
    l->kind = 2;
    l->magnitude = buf[0] == 't';
    return 1;
  }
  if (buf[0] == '-' || buf[0] == '+') {
    neg = buf[0] == '-';
    start = 1;
  }
  if (start == len) return 0;
  if (!strcmp(buf + start, "inf") || !strcmp(buf + start, "nan")) {
    l->kind = 1;
    l->f = buf[start] == 'i' ? HUGE_VAL : NAN;
    if (neg) l->f = -l->f;
    return 1;
  }
  for (i = start; i < len; ++i)
    if (buf[i] < '0' || buf[i] > '9') isint = 0;
  if (isint) {
    unsigned long long m;
    errno = 0;
    m = strtoull(buf + start, &end, 10);
    if (errno == ERANGE || *end) return 0;
    l->negative = neg && m != 0;
    l->magnitude = m;
    return 1;
  }
  for (i = start; i < len; ++i) {
    char c = buf[i];
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) return 0;
  }
  if (buf[start] < '0' || buf[start] > '9') return 0;
  l->kind = 1;
  l->f = strtod(buf + start, &end); /* correctly rounded; overflow gives inf, underflow 0 */
  if (*end) return 0;
  if (neg) l->f = -l->f;
  return 1;
}

/* Writes the literal as a value of dtype t into *dst; 0 when it does not fit. */
static int cairn_rt_lit_store(const cairn_rt_lit *l, int t, void *dst) {
  if (t == CAIRN_BOOL) {
    uint8_t v;
    if (l->kind == 2) v = (uint8_t)l->magnitude;
    else if (l->kind == 0 && l->magnitude <= 1 && !l->negative) v = (uint8_t)l->magnitude;
    else return 0;
    memcpy(dst, &v, 1);
    return 1;
  }
  if (t == CAIRN_F32 || t == CAIRN_F64) {
    double d;
    if (l->kind == 1) d = l->f;
    else if (l->kind == 0) d = l->negative ? -(double)l->magnitude : (double)l->magnitude;
    else return 0;
    if (t == CAIRN_F64) memcpy(dst, &d, 8);
    else {
      float f = (float)d;
      memcpy(dst, &f, 4);
    }
    return 1;
  }
  if (l->kind != 0) return 0;
  {
    int w = (int)cairn_rt_esize(t) * 8, sgn = t >= CAIRN_I8 && t <= CAIRN_I64;
    uint64_t v;
    if (l->negative) {
      uint64_t minmag = (uint64_t)1 << (w - 1);
      if (!sgn || l->magnitude > minmag) return 0;
      v = ~l->magnitude + 1;
    } else {
      uint64_t max = w == 64 ? (sgn ? (uint64_t)INT64_MAX : UINT64_MAX) : ((uint64_t)1 << (w - sgn)) - 1;
      if (l->magnitude > max) return 0;
      v = l->magnitude;
    }
    switch (w) {
      case 8: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
      case 16: { uint16_t x = (uint16_t)v; memcpy(dst, &x, 2); break; }
      case 32: { uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); break; }
      default: memcpy(dst, &v, 8); break;
    }
    return 1;
  }
}

/* ---- value text: ir/dtype.cpp bitsText ---------------------------------------- */

/* Shortest decimal digits that read back as v (v > 0, finite), as std::to_chars
 * finds them: the fewest significant digits, and among those the nearest.
 * For each precision p, the correctly rounded p-digit decimal is the nearest;
 * when it does not read back, its neighbour on the other side of v is the
 * only other candidate. digits gets p digits, *exp10 the decimal exponent of
 * the first. */
static int cairn_rt_reads_back(const char *s, double v, int is_f32) {
  if (is_f32) return strtof(s, NULL) == (float)v;
  return strtod(s, NULL) == v;
}
/* The p-digit candidate for v, if one reads back: 1, digits and *exp10 set. */
static int cairn_rt_try_digits(double v, int is_f32, int p, char *digits, int *exp10) {
  char tmp[64], cand[64];
  int n = 0, e, k;
  const char *q;
  snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
  for (q = tmp; *q && *q != 'e'; ++q)
    if (*q >= '0' && *q <= '9') digits[n++] = *q;
  digits[n] = 0;
  e = atoi(q + 1);
  *exp10 = e;
  if (cairn_rt_reads_back(tmp, v, is_f32)) return 1;
  /* The neighbour: one unit in the last digit toward v. */
  if (is_f32 ? strtof(tmp, NULL) < (float)v : strtod(tmp, NULL) < v) {
    for (k = n - 1; k >= 0 && digits[k] == '9'; --k) digits[k] = '0';
    if (k >= 0) digits[k]++;
    else { digits[0] = '1'; ++e; } /* 9.99 -> 10.0: a 1, then zeros */
  } else {
    for (k = n - 1; k >= 0 && digits[k] == '0'; --k) digits[k] = '9';
    if (k >= 0) digits[k]--;
    if (digits[0] == '0') { /* 1.00 -> 0.999: renormalise to 9.99 one decade down */
      memmove(digits, digits + 1, (size_t)n);
      digits[n - 1] = '9';
      digits[n] = 0;
      --e;
    }
  }
  snprintf(cand, sizeof cand, "%c.%se%d", digits[0], digits + 1, e);
  *exp10 = e;
  return cairn_rt_reads_back(cand, v, is_f32);
}
/* "Some p-digit decimal reads back" is monotonic in p (a p-digit decimal is
 * also a (p+1)-digit one), so the least p is found by bisection; 17 digits
 * (9 for f32) always read back. */
static int cairn_rt_shortest(double v, int is_f32, char *digits, int *exp10) {
  int lo = 1, hi = is_f32 ? 9 : 17;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (cairn_rt_try_digits(v, is_f32, mid, digits, exp10)) hi = mid;
    else lo = mid + 1;
  }
  cairn_rt_try_digits(v, is_f32, hi, digits, exp10);
  return (int)strlen(digits);
}

/* std::to_chars(value) (the shortest of fixed and scientific, fixed on a
 * tie; as libstdc++ decides it from the digit count and exponent), then
 * ".0" when the text has neither '.' nor 'e', as bitsText adds. */
static void cairn_rt_float_text(double v, int is_f32, char *out) {
  char digits[40];
  int n, e, E;
  char *o = out;
  if (v != v) { strcpy(out, "nan"); return; }
  if (isinf(v)) { strcpy(out, v < 0 ? "-inf" : "inf"); return; }
  if (signbit(v)) { *o++ = '-'; v = -v; }
  if (v == 0) { strcpy(o, "0.0"); return; }
  n = cairn_rt_shortest(v, is_f32, digits, &e);
  while (n > 1 && digits[n - 1] == '0') digits[--n] = 0;
  E = e - (n - 1); /* value = digits * 10^E */
  {
    int lower = n == 1 ? -3 : -(n + 3), upper = n == 1 ? 4 : 5;
    if (E >= lower && E <= upper) {
      if (E >= 0) {
        if (E == 0) strcpy(o, digits);
        else snprintf(o, 64, "%.0f", v); /* the exact integer (at most 23 digits), as to_chars prints it */
      } else {
        int point = n + E, k;
        if (point > 0) {
          memcpy(o, digits, (size_t)point);
          o[point] = '.';
          strcpy(o + point + 1, digits + point);
        } else {
          *o++ = '0';
          *o++ = '.';
          for (k = 0; k < -point; ++k) *o++ = '0';
          strcpy(o, digits);
        }
      }
    } else {
      *o++ = digits[0];
      if (n > 1) {
        *o++ = '.';
        memcpy(o, digits + 1, (size_t)(n - 1));
        o += n - 1;
      }
      sprintf(o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
  }
  if (!strpbrk(out, ".eE")) strcat(out, ".0");
}

/* Element k of a buffer as bitsText prints it; json: NaN and infinities
 * quoted. out has room for 128 bytes. */
static void cairn_rt_value_text(int t, const void *p, uint64_t k, int json, char *out) {
  const unsigned char *b = (const unsigned char *)p + k * cairn_rt_esize(t);
  switch (t) {
    case CAIRN_BOOL: { uint8_t v; memcpy(&v, b, 1); sprintf(out, "%u", (unsigned)(v != 0)); return; }
    case CAIRN_I8: { int8_t v; memcpy(&v, b, 1); sprintf(out, "%d", (int)v); return; }
    case CAIRN_I16: { int16_t v; memcpy(&v, b, 2); sprintf(out, "%d", (int)v); return; }
    case CAIRN_I32: { int32_t v; memcpy(&v, b, 4); sprintf(out, "%ld", (long)v); return; }
    case CAIRN_I64: { int64_t v; memcpy(&v, b, 8); sprintf(out, "%lld", (long long)v); return; }
    case CAIRN_U8: { uint8_t v; memcpy(&v, b, 1); sprintf(out, "%u", (unsigned)v); return; }
    case CAIRN_U16: { uint16_t v; memcpy(&v, b, 2); sprintf(out, "%u", (unsigned)v); return; }
    case CAIRN_U32: { uint32_t v; memcpy(&v, b, 4); sprintf(out, "%lu", (unsigned long)v); return; }
    case CAIRN_U64: { uint64_t v; memcpy(&v, b, 8); sprintf(out, "%llu", (unsigned long long)v); return; }
    default: break;
  }
  {
    double d;
    if (t == CAIRN_F32) { float f; memcpy(&f, b, 4); d = f; }
    else memcpy(&d, b, 8);
    if (json && (d != d || isinf(d))) {
      out[0] = '"';
      cairn_rt_float_text(d, t == CAIRN_F32, out + 1);
      strcat(out, "\"");
    } else {
      cairn_rt_float_text(d, t == CAIRN_F32, out);
    }
  }
}

/* ---- the driver ----------------------------------------------------------------- */

static const char cairn_rt_help[] =
    "usage: PROGRAM [--json] [--slot K=V,V,...]... [--slot-file FILE] [--max-elements N]\n"
    "Runs the compiled .uir program and prints each slot's final contents, as `cairn run` does.\n"
    "  --slot K=V,...     replace the initial data of the buffer bound to slot K\n"
    "  --slot-file FILE   the same, one K=V,V,... per line\n"
    "  --max-elements N   trap when all buffers together exceed N elements (default 268435456)\n"
    "  --json             print {\"slots\": {\"K\": [V, ...]}}\n"
    "Exit status: 0 ok; 1 a trap; 2 a usage error; 3 (built with guard zones) a load or store out of bounds,\n"
    "or an overwritten guard zone: a bug in cairn, reported at the buffer's line.\n";

static int cairn_rt_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Bytes of scratch slot k, at least n (the old contents are dropped). */
static void *cairn_rt_scratch(cairn_rt *rt, int k, size_t n) {
  free(rt->scratch[k]);
  rt->scratch[k] = malloc(n ? n : 1);
  if (!rt->scratch[k]) cairn_rt_usage(rt, "out of memory");
  return rt->scratch[k];
}

/* The next comma-separated value of [*p, end), blank-trimmed. */
static void cairn_rt_next_value(const char **p, const char *end, const char **vb, const char **ve) {
  const char *b = *p, *e;
  while (*p < end && **p != ',') ++*p;
  e = (*p)++;
  while (b < e && cairn_rt_blank(*b)) ++b;
  while (e > b && cairn_rt_blank(e[-1])) --e;
  *vb = b;
  *ve = e;
}

/* One `K=V,V,...` (len bytes at spec), checked as exec/machine.cpp prepare()
 * checks --slot data: the slot exists, a static size matches, values fit. */
static void cairn_rt_slot(cairn_rt *rt, const char *spec, size_t len) {
  const cairn_rt_prog *pr = rt->prog;
  const char *eq = (const char *)memchr(spec, '=', len), *p, *end = spec + len, *kb, *ke, *vb, *ve;
  long long slot = 0;
  uint32_t bi;
  uint64_t count = 0, k;
  size_t es;
  unsigned char *vals;
  cairn_rt_lit *lits;
  if (!eq) cairn_rt_usage(rt, "--slot %.*s: expected K=V,V,... (for example --slot 0=5,6,7)", (int)len, spec);
  for (kb = spec; kb < eq && cairn_rt_blank(*kb); ++kb) {}
  for (ke = eq; ke > kb && cairn_rt_blank(ke[-1]); --ke) {}
  if (kb == ke || ke - kb > 18) cairn_rt_usage(rt, "--slot %.*s: `%.*s` is not a slot number", (int)len, spec, (int)(ke - kb), kb);
  for (p = kb; p < ke; ++p) {
    if (*p < '0' || *p > '9') cairn_rt_usage(rt, "--slot %.*s: `%.*s` is not a slot number", (int)len, spec, (int)(ke - kb), kb);
    slot = slot * 10 + (*p - '0');
  }
  for (bi = 0; bi < pr->nbufs && pr->bufs[bi].slot != slot; ++bi) {}
  if (bi == pr->nbufs) cairn_rt_usage(rt, "--slot %lld: the program has no buffer with slot=%lld", slot, slot);
  if (rt->bufs[bi].init) cairn_rt_usage(rt, "--slot %.*s: slot %lld is given twice", (int)len, spec, slot);
  /* Values are comma-separated; none at all (`0=`) is an empty buffer. */
  for (p = eq + 1; p < end && cairn_rt_blank(*p); ++p) {}
  if (p < end)
    for (count = 1, p = eq + 1; p < end; ++p) count += *p == ',';
  if (count > SIZE_MAX / sizeof *lits / 2) cairn_rt_usage(rt, "out of memory");
  lits = (cairn_rt_lit *)cairn_rt_scratch(rt, 1, (size_t)count * sizeof *lits);
  for (k = 0, p = eq + 1; k < count; ++k) {
    cairn_rt_next_value(&p, end, &vb, &ve);
    if (!cairn_rt_parse_lit(vb, (size_t)(ve - vb), &lits[k]))
      cairn_rt_usage(rt, "--slot %.*s: `%.*s` is not a literal", (int)len, spec, (int)(ve - vb), vb);
  }
  if (!pr->bufs[bi].dynamic && count != pr->bufs[bi].size)
    cairn_rt_usage(rt, "slot %lld has %llu elements, --slot gave %llu", slot, (unsigned long long)pr->bufs[bi].size,
                   (unsigned long long)count);
  es = cairn_rt_esize(pr->bufs[bi].dtype);
  vals = (unsigned char *)malloc((size_t)(count ? count : 1) * es);
  if (!vals) cairn_rt_usage(rt, "out of memory");
  rt->bufs[bi].init = vals; /* freed after the run, whatever happens */
  rt->bufs[bi].init_n = count;
  for (k = 0, p = eq + 1; k < count; ++k) {
    cairn_rt_next_value(&p, end, &vb, &ve);
    if (!cairn_rt_lit_store(&lits[k], pr->bufs[bi].dtype, vals + k * es))
      cairn_rt_usage(rt, "slot %lld: value %llu (%.*s) does not fit %s", slot, (unsigned long long)k, (int)(ve - vb), vb,
                     cairn_rt_dtype_name(pr->bufs[bi].dtype));
  }
}

/* --slot-file: one K=V,V,... per line; blank lines are skipped. */
static void cairn_rt_slot_file(cairn_rt *rt, const char *path) {
  FILE *f = fopen(path, "rb");
  char *text, *line, *nl;
  size_t n = 0, cap = 1 << 16, got;
  if (!f) cairn_rt_usage(rt, "%s: cannot open: %s", path, strerror(errno));
  text = (char *)malloc(cap);
  for (;;) {
    if (!text) break;
    got = fread(text + n, 1, cap - n - 1, f);
    n += got;
    if (n + 1 < cap) break;
    if (cap > SIZE_MAX / 4) { free(text); text = NULL; break; }
    line = (char *)realloc(text, cap *= 2);
    if (!line) free(text);
    text = line;
  }
  fclose(f);
  rt->scratch[0] = text; /* freed after the run (after a longjmp too) */
  if (!text) cairn_rt_usage(rt, "out of memory");
  text[n] = 0;
  for (line = text; line < text + n; line = nl + 1) {
    const char *b = line;
    nl = (char *)memchr(line, '\n', (size_t)(text + n - line));
    if (!nl) nl = text + n;
    while (b < nl && cairn_rt_blank(*b)) ++b;
    if (b < nl) cairn_rt_slot(rt, line, (size_t)(nl - line));
  }
}

/* Static buffers exist before the run, in node order (exec/machine.cpp
 * prepare): a negative size or the element limit traps at the first one
 * that fails. Slot buffers are allocated here; the kernel allocates the
 * others. */
static void cairn_rt_prepare(cairn_rt *rt) {
  const cairn_rt_prog *pr = rt->prog;
  uint32_t bi;
  for (bi = 0; bi < pr->nbufs; ++bi) {
    const cairn_rt_bufdesc *d = &pr->bufs[bi];
    if (d->dynamic) continue;
    if (d->negative) cairn_rt_trap(rt, d->line, d->col, "buffer size is negative");
    cairn_rt_account(rt, bi, d->size);
  }
  for (bi = 0; bi < pr->nbufs; ++bi)
    if (!pr->bufs[bi].dynamic && pr->bufs[bi].slot >= 0) cairn_rt_storage(rt, bi);
}

static void cairn_rt_phases(cairn_rt *rt) {
  int i;
  for (i = 0; i < rt->nargs; ++i) {
    const char *a = rt->args[i];
    if (!strcmp(a, "--json")) rt->json = 1;
    else if (!strcmp(a, "--slot") || !strcmp(a, "--slot-file") || !strcmp(a, "--max-elements")) {
      const char *v;
      if (i + 1 >= rt->nargs) cairn_rt_usage(rt, "%s needs a value", a);
      v = rt->args[++i];
      if (a[6] == 0) cairn_rt_slot(rt, v, strlen(v));
      else if (a[6] == '-') cairn_rt_slot_file(rt, v);
      else {
        char *e;
        errno = 0;
        rt->limit = strtoull(v, &e, 10);
        if (errno || *e || !*v || *v == '-') cairn_rt_usage(rt, "--max-elements: `%s` is not a count", v);
      }
    } else if (!strncmp(a, "--slot=", 7)) {
      cairn_rt_slot(rt, a + 7, strlen(a + 7));
    } else {
      cairn_rt_usage(rt, "unknown option `%s` (see --help)", a);
    }
  }
  cairn_rt_prepare(rt);
  rt->prog->entry(rt);
}

static int cairn_rt_protect(cairn_rt *rt, void (*fn)(cairn_rt *)) {
  if (setjmp(rt->jb)) return rt->status;
  fn(rt);
  return CAIRN_OK;
}

static void cairn_rt_print(cairn_rt *rt) {
  const cairn_rt_prog *pr = rt->prog;
  char text[128];
  uint32_t s;
  uint64_t k;
  if (rt->json) fputs("{\"slots\": {", rt->out);
  for (s = 0; s < pr->nslots; ++s) {
    uint32_t bi = pr->slot_order[s];
    const cairn_rt_bufdesc *d = &pr->bufs[bi];
    const cairn_rt_buf *b = &rt->bufs[bi];
    if (rt->json) fprintf(rt->out, "%s\"%lld\": [", s ? ", " : "", (long long)d->slot);
    else fprintf(rt->out, "slot %lld = [", (long long)d->slot);
    for (k = 0; k < b->n; ++k) {
      cairn_rt_value_text(d->dtype, b->p, k, rt->json, text);
      if (k) fputs(rt->json ? ", " : " ", rt->out);
      fputs(text, rt->out);
    }
    fputs(rt->json ? "]" : "]\n", rt->out);
  }
  if (rt->json) fputs("}}\n", rt->out);
}

/* Runs one program: args are the options (no program name). Returns the
 * exit status; output goes to out, diagnostics to err. */
static CAIRN_RT_UNUSED int cairn_rt_run(const cairn_rt_prog *prog, int nargs, char **args, FILE *out, FILE *err) {
  cairn_rt rt;
  uint32_t bi;
  int i, status;
  for (i = 0; i < nargs; ++i)
    if (!strcmp(args[i], "--help") || !strcmp(args[i], "-h")) {
      fputs(cairn_rt_help, out);
      return CAIRN_OK;
    }
  memset(&rt, 0, sizeof rt);
  rt.prog = prog;
  rt.out = out;
  rt.err = err;
  rt.limit = (uint64_t)1 << 28;
  rt.nargs = nargs;
  rt.args = args;
  rt.bufs = (cairn_rt_buf *)calloc(prog->nbufs ? prog->nbufs : 1, sizeof *rt.bufs);
  if (!rt.bufs) {
    fputs("cairn: error: out of memory\n", err);
    return CAIRN_USAGE;
  }
  status = cairn_rt_protect(&rt, cairn_rt_phases);
  if (cairn_rt_check_guards(&rt)) status = CAIRN_GUARD;
  if (status == CAIRN_OK) cairn_rt_print(&rt);
  for (bi = 0; bi < prog->nbufs; ++bi) {
    free(rt.bufs[bi].block);
    free(rt.bufs[bi].init);
  }
  free(rt.bufs);
  free(rt.scratch[0]);
  free(rt.scratch[1]);
  fflush(out);
  fflush(err);
  return status;
}

/* Many programs in one executable (emitCBatch, and emitModuleCBatch through
 * cairn_m_batch_main):
 *   PROG --count                 prints the number of programs
 *   PROG --program K [OPTIONS]   runs program K (0-based) like a single one
 *   PROG --all [OPTIONS]         runs each with its own data; for each prints
 *                                `=== program K`, its output and diagnostics
 *                                (both on stdout, in order), `=== exit STATUS`
 * `run` runs program k of `progs` (an array of the caller's program type). */
typedef int (*cairn_rt_run_k)(const void *progs, uint32_t k, int argc, char **argv, FILE *out, FILE *err);
static CAIRN_RT_UNUSED int cairn_rt_batch(const void *progs, uint32_t n, cairn_rt_run_k run, const char *options, int argc,
                                          char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--count")) {
    printf("%u\n", (unsigned)n);
    return CAIRN_OK;
  }
  if (argc >= 3 && !strcmp(argv[1], "--program")) {
    char *e;
    unsigned long k = strtoul(argv[2], &e, 10);
    if (*e || !*argv[2] || k >= n) {
      fprintf(stderr, "cairn: error: --program %s: there are %u programs\n", argv[2], (unsigned)n);
      return CAIRN_USAGE;
    }
    return run(progs, (uint32_t)k, argc - 3, argv + 3, stdout, stderr);
  }
  if (argc >= 2 && !strcmp(argv[1], "--all")) {
    uint32_t k;
    for (k = 0; k < n; ++k) {
      int rc;
      printf("=== program %u\n", (unsigned)k);
      fflush(stdout);
      rc = run(progs, k, argc - 2, argv + 2, stdout, stdout);
      fflush(stdout);
      printf("=== exit %d\n", rc);
    }
    fflush(stdout);
    return CAIRN_OK;
  }
  fprintf(stderr, "usage: PROG --count | --program K [OPTIONS] | --all [OPTIONS] (OPTIONS: %s)\n", options);
  return CAIRN_USAGE;
}

static CAIRN_RT_UNUSED int cairn_rt_run_k_flat(const void *progs, uint32_t k, int argc, char **argv, FILE *out, FILE *err) {
  return cairn_rt_run(((const cairn_rt_prog *const *)progs)[k], argc, argv, out, err);
}

static CAIRN_RT_UNUSED int cairn_rt_batch_main(const cairn_rt_prog *const *progs, uint32_t n, int argc, char **argv) {
  return cairn_rt_batch((const void *)progs, n, cairn_rt_run_k_flat, "see --program 0 --help", argc, argv);
}
