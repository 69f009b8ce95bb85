/* drift.c -- the drift tests' shared part: kinds and widths from plans and
 * from SASS, per-block plans, traces grouped into warp accesses and their
 * comparison as multisets.
 *
 * The plans reach the test through the sink: tn_sink_access is the one
 * function every plan calls, and the drift test programs are linked with
 * -Wl,--wrap=tn_sink_access, so __wrap_tn_sink_access below sees every
 * access (and passes it on to the model, which still checks it). */
#include "drift.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The sink, wrapped. ---- */

typedef void (*recorder_fn)(void *ctx, const tn_warp_access *a,
                            long long times);
static recorder_fn recorder;
static void *recorder_ctx;

void __real_tn_sink_access(tn_access_sink *sink, const tn_warp_access *a,
                           long long times);
void __wrap_tn_sink_access(tn_access_sink *sink, const tn_warp_access *a,
                           long long times);

void __wrap_tn_sink_access(tn_access_sink *sink, const tn_warp_access *a,
                           long long times)
{
  if (recorder != NULL && times > 0)
    recorder(recorder_ctx, a, times);
  __real_tn_sink_access(sink, a, times);
}

/* Runs f's plan with rec seeing every access.  Returns 0, or -1 with why
 * if the model found a malformed access. */
static int run_plan(const tn_family *f, const tn_params *p,
                    const tn_problem *prob, recorder_fn rec, void *ctx,
                    char *why, size_t n)
{
  tn_access_sink sink;
  tn_model_cost cost;
  memset(&sink, 0, sizeof(sink));
  memset(&cost, 0, sizeof(cost));
  sink.total = &cost;
  sink.arch = tn_arch_find("sm_90");
  recorder = rec;
  recorder_ctx = ctx;
  f->plan(f, p, prob, &sink);
  recorder = NULL;
  recorder_ctx = NULL;
  if (sink.failed) {
    snprintf(why, n, "the plan emits a malformed access: %s", sink.why);
    return -1;
  }
  return 0;
}

/* ---- Kinds and widths. ---- */

int tn_drift_op(int op)
{
  if (op == TN_OP_CP_ASYNC_CA || op == TN_OP_CP_ASYNC_CG)
    return TN_OP_ST;
  return op;
}

void tn_kind_set_add(tn_kind_set *s, int op, int width)
{
  int i;
  op = tn_drift_op(op);
  for (i = 0; i < s->n; i++)
    if (s->op[i] == op && s->width[i] == width)
      return;
  if (s->n >= TN_DRIFT_MAX_KINDS)
    return;
  s->op[s->n] = op;
  s->width[s->n] = width;
  s->n++;
}

static int kind_in(const tn_kind_set *s, int op, int width)
{
  int i;
  for (i = 0; i < s->n; i++)
    if (s->op[i] == op && s->width[i] == width)
      return 1;
  return 0;
}

int tn_kind_set_equal(const tn_kind_set *a, const tn_kind_set *b)
{
  int i;
  for (i = 0; i < a->n; i++)
    if (!kind_in(b, a->op[i], a->width[i]))
      return 0;
  for (i = 0; i < b->n; i++)
    if (!kind_in(a, b->op[i], b->width[i]))
      return 0;
  return 1;
}

static const char *op_name(int op)
{
  switch (op) {
  case TN_OP_LD:
    return "LD";
  case TN_OP_ST:
    return "ST";
  case TN_OP_LDMATRIX:
    return "LDSM";
  case TN_OP_STMATRIX:
    return "STSM";
  case TN_OP_CP_ASYNC_CA:
    return "CPASYNC.CA";
  case TN_OP_CP_ASYNC_CG:
    return "CPASYNC.CG";
  default:
    return "?";
  }
}

const char *tn_kind_set_format(const tn_kind_set *s, char *buf, size_t n)
{
  size_t used = 0;
  int op, w, i;
  buf[0] = '\0';
  /* sorted by op, then width */
  for (op = TN_OP_LD; op <= TN_OP_CP_ASYNC_CG; op++)
    for (w = 1; w <= 16; w *= 2)
      for (i = 0; i < s->n; i++) {
        int k;
        if (s->op[i] != op || s->width[i] != w || used >= n)
          continue;
        k = snprintf(buf + used, n - used, "%s%s.%d", used ? " " : "",
                     op_name(op), w);
        if (k > 0)
          used += (size_t)k;
      }
  if (s->n == 0)
    snprintf(buf, n, "(none)");
  return buf;
}

static void record_kind(void *ctx, const tn_warp_access *a, long long times)
{
  (void)times;
  tn_kind_set_add(ctx, a->op, a->width);
}

int tn_drift_plan_kinds(const tn_family *f, const tn_params *p,
                        const tn_problem *prob, tn_kind_set *s, char *why,
                        size_t n)
{
  return run_plan(f, p, prob, record_kind, s, why, n);
}

/* Width in bytes of a load/store's size modifiers (.64, .U8, ...). */
static int ldst_width(const char *mods)
{
  if (strstr(mods, ".128"))
    return 16;
  if (strstr(mods, ".64"))
    return 8;
  if (strstr(mods, ".U16") || strstr(mods, ".S16"))
    return 2;
  if (strstr(mods, ".U8") || strstr(mods, ".S8"))
    return 1;
  return 4;
}

int tn_drift_sass_line(const char *line, int *op, int *width, char *opcode,
                       size_t n)
{
  const char *p = strstr(line, "*/");
  char tok[64], base[64], *dot;
  size_t k = 0;

  if (p == NULL)
    return 0;
  p += 2;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '{')
    p++;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '@') {
    /* @!PT: never executed (ptxas pads with such instructions) */
    if (strncmp(p, "@!PT", 4) == 0 && (p[4] == ' ' || p[4] == '\t'))
      return 0;
    while (*p && *p != ' ' && *p != '\t')
      p++;
    while (*p == ' ' || *p == '\t')
      p++;
  }
  while (p[k] && (isalnum((unsigned char)p[k]) || p[k] == '.' ||
                  p[k] == '_') &&
         k + 1 < sizeof(tok)) {
    tok[k] = p[k];
    k++;
  }
  tok[k] = '\0';
  if (k == 0)
    return 0;
  snprintf(base, sizeof(base), "%s", tok);
  dot = strchr(base, '.');
  if (dot)
    *dot = '\0';
  snprintf(opcode, n, "%s", tok);
  if (strcmp(base, "LDS") == 0 || strcmp(base, "STS") == 0) {
    *op = base[0] == 'L' ? TN_OP_LD : TN_OP_ST;
    *width = ldst_width(tok + strlen(base));
    return 1;
  }
  if (strcmp(base, "LDSM") == 0 || strcmp(base, "STSM") == 0) {
    *op = base[0] == 'L' ? TN_OP_LDMATRIX : TN_OP_STMATRIX;
    *width = 16;
    return 1;
  }
  if (strcmp(base, "LDGSTS") == 0) {
    *op = strstr(tok, ".BYPASS") ? TN_OP_CP_ASYNC_CG : TN_OP_CP_ASYNC_CA;
    *width = ldst_width(tok + strlen(base));
    return 1;
  }
  if (strcmp(base, "LD") == 0 || strcmp(base, "ST") == 0 ||
      strcmp(base, "ATOM") == 0 || strcmp(base, "ATOMS") == 0 ||
      strcmp(base, "RED") == 0)
    return 2;
  return 0;
}

/* ---- Warp accesses of one block. ---- */

void tn_block_plan_free(tn_block_plan *bp)
{
  free(bp->v);
  memset(bp, 0, sizeof(*bp));
}

int tn_block_plan_add(tn_block_plan *bp, int warp, const tn_warp_access *a,
                      long long times)
{
  tn_warp_access norm;
  int lane;
  long long t;

  memset(&norm, 0, sizeof(norm));
  norm.op = tn_drift_op(a->op);
  norm.width = a->width;
  norm.matrices = a->matrices;
  norm.active = a->active;
  for (lane = 0; lane < 32; lane++)
    if (a->active >> lane & 1u)
      norm.addr[lane] = a->addr[lane];
  for (t = 0; t < times; t++) {
    if (bp->n == bp->cap) {
      int cap = bp->cap ? 2 * bp->cap : 256;
      tn_block_access *v = realloc(bp->v, (size_t)cap * sizeof(*v));
      if (v == NULL)
        return -1;
      bp->v = v;
      bp->cap = cap;
    }
    bp->v[bp->n].warp = warp;
    bp->v[bp->n].a = norm;
    bp->n++;
  }
  return 0;
}

/* Accesses a plan may emit before the recorder gives up (some 300 MB of
 * them): a plan that loops without end is a failure, not an exhausted
 * memory; the emulation tests' grids emit up to some 50 000. */
#define TN_DRIFT_MAX_RECORDS 2000000LL

static void record_block(void *ctx, const tn_warp_access *a,
                         long long times)
{
  tn_block_plan *bp = ctx;
  if (bp->failed)
    return;
  if (times > TN_DRIFT_MAX_RECORDS - bp->n) {
    bp->failed = 1;
    snprintf(bp->why, sizeof(bp->why),
             "the plan emits more than %lld accesses", TN_DRIFT_MAX_RECORDS);
    return;
  }
  if (tn_block_plan_add(bp, -1, a, times) != 0) {
    bp->failed = 1;
    snprintf(bp->why, sizeof(bp->why), "out of memory");
  }
}

int tn_drift_grid_plan(const tn_family *f, const tn_params *p,
                       const tn_problem *prob, tn_block_plan *out,
                       char *why, size_t n)
{
  memset(out, 0, sizeof(*out));
  if (run_plan(f, p, prob, record_block, out, why, n) != 0)
    return -1;
  if (out->failed) {
    snprintf(why, n, "%s", out->why);
    tn_block_plan_free(out);
    return -1;
  }
  return 0;
}

int tn_drift_block_plan(const tn_family *f, const tn_params *p,
                        const tn_problem *prob, tn_block_plan *out,
                        char *why, size_t n)
{
  tn_launch l;
  f->launch(f, p, prob, &l);
  memset(out, 0, sizeof(*out));
  if (l.grid[0] * l.grid[1] * l.grid[2] != 1) {
    snprintf(why, n, "the problem has a grid of %ux%ux%u, not one block",
             l.grid[0], l.grid[1], l.grid[2]);
    return -1;
  }
  return tn_drift_grid_plan(f, p, prob, out, why, n);
}

static int rec_cmp(const void *pa, const void *pb)
{
  const tn_trace_rec *a = pa, *b = pb;
  if (a->warp != b->warp)
    return a->warp < b->warp ? -1 : 1;
  if (a->seq != b->seq)
    return a->seq < b->seq ? -1 : 1;
  if (a->lane != b->lane)
    return a->lane < b->lane ? -1 : 1;
  return 0;
}

int tn_drift_trace_group(const tn_trace_rec *r, long long n,
                         tn_block_plan *out, char *why, size_t len)
{
  tn_trace_rec *s;
  long long i, j;

  memset(out, 0, sizeof(*out));
  if (n == 0)
    return 0;
  s = malloc((size_t)n * sizeof(*s));
  if (s == NULL) {
    snprintf(why, len, "out of memory");
    return -1;
  }
  memcpy(s, r, (size_t)n * sizeof(*s));
  qsort(s, (size_t)n, sizeof(*s), rec_cmp);
  for (i = 0; i < n; i = j) {
    tn_warp_access a;
    memset(&a, 0, sizeof(a));
    a.op = (tn_op)s[i].op;
    a.width = (int)s[i].width;
    for (j = i; j < n && s[j].warp == s[i].warp && s[j].seq == s[i].seq;
         j++) {
      if (s[j].lane >= 32 || (a.active >> s[j].lane & 1u) ||
          s[j].op != s[i].op || s[j].width != s[i].width) {
        snprintf(why, len,
                 "warp %u access %u: lane %u recorded twice or with "
                 "another op/width (the hooks are not warp-uniform)",
                 s[j].warp, s[j].seq, s[j].lane);
        free(s);
        tn_block_plan_free(out);
        return -1;
      }
      a.active |= 1u << s[j].lane;
      a.addr[s[j].lane] = s[j].addr;
    }
    if (tn_block_plan_add(out, (int)s[i].warp, &a, 1) != 0) {
      free(s);
      tn_block_plan_free(out);
      snprintf(why, len, "out of memory");
      return -1;
    }
  }
  free(s);
  return 0;
}

/* Orders warp accesses by their content (not their warp). */
static int access_cmp(const void *pa, const void *pb)
{
  const tn_warp_access *a = &((const tn_block_access *)pa)->a;
  const tn_warp_access *b = &((const tn_block_access *)pb)->a;
  if (a->op != b->op)
    return a->op < b->op ? -1 : 1;
  if (a->width != b->width)
    return a->width < b->width ? -1 : 1;
  if (a->active != b->active)
    return a->active < b->active ? -1 : 1;
  return memcmp(a->addr, b->addr, sizeof(a->addr));
}

static void print_access(const char *label, const char *side,
                         const tn_block_access *x)
{
  int lane;
  fprintf(stderr, "%s: only in the %s", label, side);
  if (x->warp >= 0)
    fprintf(stderr, " (warp %d)", x->warp);
  fprintf(stderr, ": %s.%d active %08x addr", op_name(x->a.op), x->a.width,
          x->a.active);
  for (lane = 0; lane < 32; lane++)
    if (x->a.active >> lane & 1u)
      fprintf(stderr, " %u:%u", lane, x->a.addr[lane]);
  fprintf(stderr, "\n");
}

long long tn_drift_compare(const tn_block_plan *plan,
                           const tn_block_plan *trace, const char *label,
                           int max_print)
{
  tn_block_access *a = NULL, *b = NULL;
  long long i = 0, j = 0, bad = 0;
  int printed = 0;

  if (plan->n)
    a = malloc((size_t)plan->n * sizeof(*a));
  if (trace->n)
    b = malloc((size_t)trace->n * sizeof(*b));
  if ((plan->n && a == NULL) || (trace->n && b == NULL)) {
    free(a);
    free(b);
    fprintf(stderr, "%s: out of memory\n", label);
    return plan->n + trace->n + 1;
  }
  if (plan->n)
    memcpy(a, plan->v, (size_t)plan->n * sizeof(*a));
  if (trace->n)
    memcpy(b, trace->v, (size_t)trace->n * sizeof(*b));
  qsort(a, (size_t)plan->n, sizeof(*a), access_cmp);
  qsort(b, (size_t)trace->n, sizeof(*b), access_cmp);
  while (i < plan->n || j < trace->n) {
    int c = i >= plan->n    ? 1
            : j >= trace->n ? -1
                            : access_cmp(&a[i], &b[j]);
    if (c == 0) {
      i++;
      j++;
      continue;
    }
    bad++;
    if (printed < max_print) {
      print_access(label, c < 0 ? "plan" : "trace", c < 0 ? &a[i] : &b[j]);
      printed++;
    }
    if (c < 0)
      i++;
    else
      j++;
  }
  if (bad > printed && max_print > 0)
    fprintf(stderr, "%s: ... %lld differences in all\n", label, bad);
  free(a);
  free(b);
  return bad;
}

/* ---- One-block problems and the instrumented build. ---- */

int tn_drift_one_block(const tn_family *f, const tn_params *p,
                       const tn_problem *base, int ragged, tn_problem *out,
                       char *why, size_t n)
{
  if (f->one_block == NULL) {
    snprintf(why, n, "family %s has no one_block(): it cannot be traced",
             f->name);
    return -1;
  }
  return f->one_block(f, p, base, ragged, out, why, n);
}

int tn_drift_render_traced(const tn_family *f, const tn_params *p,
                           const tn_problem *prob, const tn_template *t,
                           char **source, tn_err *err)
{
  static const char prefix[] = "#define TN_TRACE 1\n";
  char *plain, *out;
  size_t len;
  int rc = tn_render(f, p, prob, t, &plain, err);
  if (rc)
    return rc;
  len = strlen(plain);
  out = malloc(sizeof(prefix) + len);
  if (out == NULL) {
    free(plain);
    return tn_errf(err, TN_ETOOL, "out of memory rendering");
  }
  memcpy(out, prefix, sizeof(prefix) - 1);
  memcpy(out + sizeof(prefix) - 1, plain, len + 1);
  free(plain);
  *source = out;
  return 0;
}
