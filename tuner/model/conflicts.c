/* conflicts.c -- `tuner conflicts`: the wavefront model as a calculator. */
#define _POSIX_C_SOURCE 200809L
#include "model/conflicts.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"
#include "base/util.h"

#define MAX_OFFSET (1u << 24) /* far above any GPU's shared memory */

/* Next whitespace-separated field of *p into out.  Returns 1, 0 if none is
 * left, or -1 with a reason in why when it does not fit in out (a long
 * token is rejected, never cut: 0000...0004 is not 0). */
static int next_field(const char **p, char *out, size_t n, char *why,
                      size_t why_len)
{
  const char *s = *p;
  size_t len = 0;
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
    s++;
  if (*s == '\0')
    return 0;
  while (s[len] && !isspace((unsigned char)s[len]))
    len++;
  if (len >= n) {
    snprintf(why, why_len, "'%.16s...' is longer than %zu characters",
             s, n - 1);
    return -1;
  }
  memcpy(out, s, len);
  out[len] = '\0';
  while (*s && !isspace((unsigned char)*s))
    s++;
  *p = s;
  return 1;
}

static int parse_op(const char *tok, tn_warp_access *a)
{
  const char *rest;
  if (strcmp(tok, "ld") == 0) {
    a->op = TN_OP_LD;
    return 0;
  }
  if (strcmp(tok, "st") == 0) {
    a->op = TN_OP_ST;
    return 0;
  }
  if (strcmp(tok, "cp.async.ca") == 0 || strcmp(tok, "cp.async.cg") == 0) {
    a->op = tok[10] == 'a' ? TN_OP_CP_ASYNC_CA : TN_OP_CP_ASYNC_CG;
    return 0;
  }
  if (strncmp(tok, "ldmatrix.x", 10) == 0)
    a->op = TN_OP_LDMATRIX;
  else if (strncmp(tok, "stmatrix.x", 10) == 0)
    a->op = TN_OP_STMATRIX;
  else
    return -1;
  rest = tok + 10;
  if (*rest != '1' && *rest != '2' && *rest != '4')
    return -1;
  a->matrices = *rest - '0';
  rest++;
  if (strcmp(rest, ".trans") == 0)
    a->trans = 1;
  else if (*rest != '\0')
    return -1;
  return 0;
}

/* One lane's token: '-' (inactive: returns 1), or a byte offset below
 * MAX_OFFSET and a multiple of width, with a 'z' after it allowed when
 * zfill (a zero-filled cp.async lane, costed like any other: measured).
 * Returns 0, 1, or -1 with a reason in why. */
static int parse_offset(const char *tok, int lane, int width, int zfill,
                        const char *what, uint32_t *out, char *why,
                        size_t why_len)
{
  char *end;
  unsigned long v;
  if (strcmp(tok, "-") == 0)
    return 1;
  if (!isdigit((unsigned char)tok[0])) {
    snprintf(why, why_len, "lane %d: '%s' is not a %sbyte offset or -", lane,
             tok, what);
    return -1;
  }
  errno = 0;
  v = strtoul(tok, &end, 10);
  if (zfill && *end == 'z')
    end++;
  if (*end != '\0' || errno != 0 || v >= MAX_OFFSET) {
    snprintf(why, why_len, "lane %d: '%s' is not a %sbyte offset below %u",
             lane, tok, what, MAX_OFFSET);
    return -1;
  }
  if (v % (unsigned long)width != 0) {
    snprintf(why, why_len, "lane %d: %soffset %lu is not a multiple of the "
                           "width %d",
             lane, what, v, width);
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}

/* After the 32 shared offsets of a cp.async: nothing (each lane reads the
 * global offset equal to its shared one) or '|' and 32 global offsets, '-'
 * exactly where the lane is inactive. */
static int parse_global(const char **p, tn_warp_access *a, char *why,
                        size_t why_len)
{
  char tok[64];
  int lane, f;
  memcpy(a->gaddr, a->addr, sizeof(a->gaddr));
  f = next_field(p, tok, sizeof(tok), why, why_len);
  if (f <= 0)
    return f;
  if (strcmp(tok, "|") != 0) {
    snprintf(why, why_len, "more than 32 lane addresses ('%s'); global "
                           "offsets follow a '|'",
             tok);
    return -1;
  }
  for (lane = 0; lane < 32; lane++) {
    int r, on = (a->active >> lane) & 1u;
    f = next_field(p, tok, sizeof(tok), why, why_len);
    if (f < 0)
      return -1;
    if (f == 0) {
      snprintf(why, why_len, "expected 32 global offsets after '|', found "
                             "%d",
               lane);
      return -1;
    }
    r = parse_offset(tok, lane, a->width, 0, "global ", &a->gaddr[lane], why,
                     why_len);
    if (r < 0)
      return -1;
    if (r != !on) {
      snprintf(why, why_len, "lane %d: %s", lane,
               r ? "'-' as the global offset of an active lane"
                 : "a global offset for an inactive lane");
      return -1;
    }
  }
  f = next_field(p, tok, sizeof(tok), why, why_len);
  if (f < 0)
    return -1;
  if (f > 0) {
    snprintf(why, why_len, "more than 32 global offsets ('%s')", tok);
    return -1;
  }
  return 0;
}

int tn_conflicts_parse_line(const char *line, tn_warp_access *a, char *why,
                            size_t why_len)
{
  const char *p = line;
  char tok[64];
  int lane, async, f;

  memset(a, 0, sizeof(*a));
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '\0' || *p == '\n' || *p == '\r' || *p == '#')
    return 1;
  f = next_field(&p, tok, sizeof(tok), why, why_len);
  if (f <= 0)
    return f < 0 ? -1 : 1;
  if (parse_op(tok, a) != 0) {
    snprintf(why, why_len,
             "unknown operation '%s' (expected ld, st, ldmatrix.x1|x2|x4"
             "[.trans], stmatrix.x1|x2|x4[.trans], cp.async.ca or "
             "cp.async.cg)",
             tok);
    return -1;
  }
  async = a->op == TN_OP_CP_ASYNC_CA || a->op == TN_OP_CP_ASYNC_CG;
  f = next_field(&p, tok, sizeof(tok), why, why_len);
  if (f < 0)
    return -1;
  if (f == 0 ||
      (strcmp(tok, "1") && strcmp(tok, "2") && strcmp(tok, "4") &&
       strcmp(tok, "8") && strcmp(tok, "16"))) {
    snprintf(why, why_len, "expected the width 1, 2, 4, 8 or 16 after the "
                           "operation");
    return -1;
  }
  a->width = atoi(tok);
  if ((a->op == TN_OP_LDMATRIX || a->op == TN_OP_STMATRIX) &&
      a->width != 16) {
    snprintf(why, why_len, "ldmatrix and stmatrix rows are 16 bytes wide, "
                           "not %d",
             a->width);
    return -1;
  }
  if ((a->op == TN_OP_CP_ASYNC_CG && a->width != 16) ||
      (a->op == TN_OP_CP_ASYNC_CA && a->width < 4)) {
    snprintf(why, why_len, "cp.async.%s copies %s bytes a lane, not %d",
             a->op == TN_OP_CP_ASYNC_CG ? "cg" : "ca",
             a->op == TN_OP_CP_ASYNC_CG ? "16" : "4, 8 or 16", a->width);
    return -1;
  }
  for (lane = 0; lane < 32; lane++) {
    int r;
    f = next_field(&p, tok, sizeof(tok), why, why_len);
    if (f < 0)
      return -1;
    if (f == 0) {
      snprintf(why, why_len, "expected 32 lane addresses, found %d", lane);
      return -1;
    }
    r = parse_offset(tok, lane, a->width, async, "", &a->addr[lane], why,
                     why_len);
    if (r < 0)
      return -1;
    if (r == 0)
      a->active |= 1u << lane;
  }
  if (async)
    return parse_global(&p, a, why, why_len);
  f = next_field(&p, tok, sizeof(tok), why, why_len);
  if (f < 0)
    return -1;
  if (f > 0) {
    snprintf(why, why_len, "more than 32 lane addresses ('%s')", tok);
    return -1;
  }
  if (a->op == TN_OP_LDMATRIX || a->op == TN_OP_STMATRIX) {
    uint32_t need = a->matrices == 4 ? 0xffffffffu
                                     : (1u << (8 * a->matrices)) - 1u;
    if ((a->active & need) != need) {
      snprintf(why, why_len, "%s.x%d needs the row addresses of lanes 0-%d",
               a->op == TN_OP_LDMATRIX ? "ldmatrix" : "stmatrix",
               a->matrices, 8 * a->matrices - 1);
      return -1;
    }
  }
  return 0;
}

/* Every active lane's bytes in shared memory lie within what one block of
 * arch may use (its opt-in maximum, the architecture table's
 * smem_per_block): an address past it is no access of that GPU.  0, or
 * -1 with why. */
static int check_smem(const tn_warp_access *a, const tn_arch *arch, char *why,
                      size_t why_len)
{
  int lane;
  for (lane = 0; lane < 32; lane++) {
    unsigned long end = (unsigned long)a->addr[lane] + (unsigned)a->width;
    if (!((a->active >> lane) & 1u) ||
        end <= (unsigned long)arch->smem_per_block)
      continue;
    snprintf(why, why_len, "lane %d: bytes %u to %lu are past the %d bytes "
                           "of shared memory a block may use on %s",
             lane, a->addr[lane], end - 1, arch->smem_per_block, arch->name);
    return -1;
  }
  return 0;
}

static void usage(FILE *out)
{
  fprintf(out,
"Usage: tuner conflicts [--arch sm_XX] [FILE]\n"
"\n"
"Predicts the shared-memory wavefronts of warp-wide instructions.  Reads\n"
"FILE (or standard input), one instruction per line:\n"
"\n"
"  OP WIDTH A0 A1 ... A31\n"
"\n"
"  OP     ld, st, ldmatrix.x1|x2|x4, stmatrix.x1|x2|x4 (these two with an\n"
"         optional .trans suffix), cp.async.ca, cp.async.cg\n"
"  WIDTH  bytes per lane: 1, 2, 4, 8 or 16 (16 for ldmatrix, stmatrix and\n"
"         cp.async.cg; 4, 8 or 16 for cp.async.ca)\n"
"  Ai     lane i's byte offset in shared memory (decimal), or - when the\n"
"         lane is inactive; ldmatrix/stmatrix .xN use lanes 0..8N-1; its\n"
"         WIDTH bytes within the shared memory one block may use on the\n"
"         architecture\n"
"\n"
"A cp.async line may go on with '| G0 G1 ... G31', the global byte offsets\n"
"the lanes read from a 128-byte-aligned base (default: Gi = Ai), and its\n"
"Ai may end in z (a zero-filled lane, costed like the others).\n"
"\n"
"Blank lines and lines starting with # are skipped.  For each instruction\n"
"prints:  WAVEFRONTS DEGREE BANKS\n"
"  WAVEFRONTS  passes of the shared-memory pipeline\n"
"  DEGREE      most distinct 4-byte words asked of one bank in one pass\n"
"              group (1: no conflict)\n"
"  BANKS       the banks reaching DEGREE, comma-separated (- if none)\n"
"\n"
"  -a, --arch sm_XX  architecture (default: %s; no GPU is asked)\n"
"  -h, --help        this text\n"
"  -V, --version     the version\n"
"\n"
"Exit status: 0; 2 for a bad line (its number is named) or option.\n",
          TN_DEFAULT_ARCH);
}

int tn_conflicts_main(int argc, char **argv)
{
  static const struct option longopts[] = {
      {"arch", required_argument, NULL, 'a'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  const tn_arch *arch = NULL;
  const char *path = NULL;
  FILE *in = stdin;
  char *line = NULL;
  size_t cap = 0;
  int c, lineno = 0, rc = TN_EXIT_OK;

  optind = 1;
  while ((c = getopt_long(argc, argv, "a:hV", longopts, NULL)) != -1) {
    switch (c) {
    case 'a':
      arch = tn_arch_find(optarg);
      if (arch == NULL) {
        char list[256];
        tn_arch_list(list, sizeof(list));
        fprintf(stderr, "tuner conflicts: --arch %s: unknown (known: %s)\n",
                optarg, list);
        return TN_EXIT_INPUT;
      }
      break;
    case 'h':
      usage(stdout);
      return TN_EXIT_OK;
    case 'V':
      printf("tuner %s\n", TN_VERSION);
      return TN_EXIT_OK;
    default:
      fprintf(stderr, "Try 'tuner conflicts --help'.\n");
      return TN_EXIT_INPUT;
    }
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "tuner conflicts: one input file at most\n");
    return TN_EXIT_INPUT;
  }
  if (optind < argc && strcmp(argv[optind], "-") != 0) {
    path = argv[optind];
    in = fopen(path, "r");
    if (in == NULL) {
      fprintf(stderr, "tuner conflicts: %s: %s\n", path, strerror(errno));
      return TN_EXIT_INPUT;
    }
  }
  /* the command line's, else the default: a calculator asks no GPU */
  if (arch == NULL)
    arch = tn_arch_find(TN_DEFAULT_ARCH);

  while (getline(&line, &cap, in) >= 0) {
    tn_warp_access a;
    tn_access_cost cost;
    char why[256], banks[160];
    int r, b, used = 0;
    lineno++;
    if (strlen(line) > 4096) {
      fprintf(stderr, "%s:%d: line too long\n", path ? path : "<stdin>",
              lineno);
      rc = TN_EXIT_INPUT;
      break;
    }
    r = tn_conflicts_parse_line(line, &a, why, sizeof(why));
    if (r > 0)
      continue;
    if (r == 0 && check_smem(&a, arch, why, sizeof(why)) != 0)
      r = -1;
    if (r == 0 && tn_model_access(&a, arch, &cost, why, sizeof(why)) != 0)
      r = -1;
    if (r < 0) {
      fprintf(stderr, "%s:%d: %s\n", path ? path : "<stdin>", lineno, why);
      rc = TN_EXIT_INPUT;
      break;
    }
    banks[0] = '\0';
    for (b = 0; b < 32; b++)
      if (cost.busiest & (1u << b))
        used += snprintf(banks + used, sizeof(banks) - (size_t)used, "%s%d",
                         used ? "," : "", b);
    printf("%d %d %s\n", cost.wavefronts, cost.degree, used ? banks : "-");
  }
  if (ferror(in)) {
    fprintf(stderr, "%s: read error\n", path ? path : "<stdin>");
    rc = TN_EXIT_INPUT;
  }
  free(line);
  if (in != stdin)
    fclose(in);
  fflush(stdout);
  return rc;
}
