/* test_toolkit_lib.c -- tuner/gpu/toolkit_lib.c's loader, on libraries
 * every Linux host has (the C maths library): the first name that opens
 * wins, a missing optional function leaves its slot NULL, a missing
 * required one closes the library with "WHAT lacks NAME" and clears every
 * slot, no name opening says which were tried, and a file that is there
 * but does not load is told apart from one not found. */
#include <stdio.h>
#include <string.h>

#include "gpu/toolkit_lib.h"
#include "test_util.h"

int main(void)
{
  static const char *const names[] = {"libtuner-none.so.1", "libm.so.6"};
  static const char *const none[] = {"libtuner-none.so.1",
                                     "libtuner-none.so"};
  void *cos_fn = NULL, *sin_fn = NULL, *absent = &cos_fn; /* not NULL */
  const tn_toolkit_sym good[] = {{"cos", &cos_fn, 0},
                                 {"tuner_no_such_function", &absent, 1},
                                 {"sin", &sin_fn, 0}};
  const tn_toolkit_sym bad[] = {{"cos", &cos_fn, 0},
                                {"tuner_no_such_function", &absent, 0}};
  char why[512] = "";
  void *lib;

  lib = tn_toolkit_lib_load("libm", names, 2, good, 3, why, sizeof(why));
  CHECK(lib != NULL);
  CHECK(cos_fn != NULL && sin_fn != NULL && cos_fn != sin_fn);
  CHECK(absent == NULL);
  if (lib && cos_fn) {
    double (*f)(double);
    memcpy(&f, &cos_fn, sizeof(f)); /* POSIX's dlsym of a function */
    CHECK(f(0.0) == 1.0 && f(3.141592653589793) == -1.0);
  }

  cos_fn = sin_fn = NULL;
  lib = tn_toolkit_lib_load("libm", names, 2, bad, 2, why, sizeof(why));
  CHECK(lib == NULL);
  CHECK(strcmp(why, "libm lacks tuner_no_such_function") == 0);
  CHECK(cos_fn == NULL); /* taken, then cleared with the library closed */

  why[0] = '\0';
  lib = tn_toolkit_lib_load("none", none, 2, good, 3, why, sizeof(why));
  CHECK(lib == NULL);
  {
    static const char want[] =
        "none not found (libtuner-none.so.1, libtuner-none.so) ";
    CHECK(strncmp(why, want, sizeof(want) - 1) == 0);
  }
  fprintf(stderr, "%s\n", why);

  /* dlerror's texts: the library itself absent, or a dependency of it */
  CHECK(tn_toolkit_lib_absent(
      "libcublas.so.12", "libcublas.so.12: cannot open shared object "
                         "file: No such file or directory"));
  CHECK(!tn_toolkit_lib_absent(
      "/usr/local/cuda/lib64/libcublas.so.12",
      "libcublasLt.so.12: cannot open shared object file: No such file or "
      "directory"));
  CHECK(!tn_toolkit_lib_absent("libcublas.so.12",
                               "libcublas.so.12: file too short"));
  CHECK(!tn_toolkit_lib_absent("libcublas.so.1",
                               "libcublas.so.12: cannot open shared object "
                               "file: No such file or directory"));

  /* a file that is there but no library: told as not loadable */
  {
    static const char *const notlib[] = {"/proc/self/cmdline"};
    why[0] = '\0';
    lib = tn_toolkit_lib_load("cmdline", notlib, 1, good, 3, why,
                              sizeof(why));
    CHECK(lib == NULL);
    CHECK(strncmp(why, "cmdline found but not loadable: ", 32) == 0);
    fprintf(stderr, "%s\n", why);
  }
  TEST_DONE();
}
