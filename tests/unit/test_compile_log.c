/* test_compile_log.c -- what a candidate's resources are read from in
 * ptxas's log (pipeline/compile_nvrtc.c): the lines of its own kernel,
 * where a user's file compiles others beside it (a reference that ptxas
 * happens to compile last must not lend it its registers). */
#include <stdio.h>
#include <string.h>

#include "pipeline/compile_nvrtc.h"
#include "test_util.h"

static const char *const ref_last =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'conv2d' for 'sm_90'\n"
    "ptxas info    : Function properties for conv2d\n"
    "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 "
    "bytes spill loads\n"
    "ptxas info    : Used 22 registers, used 1 barriers, 82944 bytes smem\n"
    "ptxas info    : Compile time = 108.682 ms\n"
    "ptxas info    : Compiling entry function 'conv2d_naive' for 'sm_90'\n"
    "ptxas info    : Function properties for conv2d_naive\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 "
    "bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers\n"
    "ptxas info    : Compile time = 111.853 ms\n";

int main(void)
{
  tn_candidate c;

  memset(&c, 0, sizeof(c));
  CHECK_EQ_INT(tn_compile_parse_resources(ref_last, "conv2d", &c), 0);
  CHECK_EQ_INT(c.regs, 22);
  CHECK_EQ_INT(c.smem_bytes, 82944);
  CHECK_EQ_INT(c.stack_bytes, 8);
  CHECK_EQ_INT(c.spill_stores, 4);

  /* the other kernel by its name; without a name, the log's last */
  memset(&c, 0, sizeof(c));
  CHECK_EQ_INT(tn_compile_parse_resources(ref_last, "conv2d_naive", &c), 0);
  CHECK_EQ_INT(c.regs, 32);
  memset(&c, 0, sizeof(c));
  CHECK_EQ_INT(tn_compile_parse_resources(ref_last, NULL, &c), 0);
  CHECK_EQ_INT(c.regs, 32);
  /* a name that is a prefix of another's is not that other */
  memset(&c, 0, sizeof(c));
  CHECK_EQ_INT(tn_compile_parse_resources(ref_last, "conv2", &c), 0);
  CHECK_EQ_INT(c.regs, 32);
  CHECK_EQ_INT(tn_compile_parse_resources(NULL, "conv2d", &c), -1);
  TEST_DONE();
}
