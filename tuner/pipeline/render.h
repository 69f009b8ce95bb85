/* render.h -- a template and a point of the space into CUDA source.
 *
 * The rendered source is the template preceded by #define lines: TN_<NAME>
 * for every int parameter, TN_<NAME>_B/_M/_S for every swizzle (resolved),
 * and whatever the family adds.  The headers the template includes with
 * #include "..." are read from the template's folder and handed to NVRTC
 * by name, so the source compiles the same anywhere. */
#ifndef TN_RENDER_H
#define TN_RENDER_H

#include "family/family.h"
#include "family/param.h"
#include "base/util.h"

#define TN_MAX_HEADERS 8

typedef struct {
  char path[4096];
  char *text;
  int n_headers;
  char *header_names[TN_MAX_HEADERS];
  char *header_texts[TN_MAX_HEADERS];
} tn_template;

/* Reads a template and the headers it includes.  Returns 0, or TN_EINPUT
 * naming the file (and line of the #include) that could not be read. */
int tn_template_load(const char *path, tn_template *t, tn_err *err);
void tn_template_free(tn_template *t);

/* Renders p into a malloc'd source: the macros of tn_family_macros, then
 * the template.  Returns 0 or TN_ETOOL. */
int tn_render(const tn_family *f, const tn_params *p, const tn_problem *prob,
              const tn_template *t, char **source, tn_err *err);

#endif
