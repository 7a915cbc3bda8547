/* a2a_version, a2a_result_describe and the header's version macros. */
#include <stdlib.h>

#include "harness.h"

void test_core(void) {
  char want[64];
  a2a_str v = a2a_version();
  snprintf(want, sizeof want, "%d.%d.%d", A2A_VERSION_MAJOR, A2A_VERSION_MINOR,
           A2A_VERSION_PATCH);
  /* Header macros and library agree. */
  STR_EQ(v, want);

  STR_EQ(a2a_result_describe(A2A_OK), "ok");
  {
    a2a_str d = a2a_result_describe(A2A_NULL_PARAMETER);
    CHECK(d.ptr != NULL && d.len > 0);
    d = a2a_result_describe(A2A_PANIC);
    CHECK(d.ptr != NULL && d.len > 0);
    d = a2a_result_describe(A2A_INVALID_UTF8);
    CHECK(d.ptr != NULL && d.len > 0);
  }
  /* Any number is safe to pass. */
  STR_EQ(a2a_result_describe(123456u), "unknown result code");
  STR_EQ(a2a_result_describe(0xffffffffu), "unknown result code");
  /* Stable numbers. */
  CHECK(A2A_OK == 0);
  CHECK(A2A_NULL_PARAMETER == 100);
  CHECK(A2A_PANIC == 999);
}
