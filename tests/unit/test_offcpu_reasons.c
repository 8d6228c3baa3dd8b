/* Why a thread was off its CPU (er/er_offcpu.h): the reason a blocked
 * thread's stack names or its system call gives, and the micro-state
 * gprofng counts each reason's time in. */
#include <string.h>
#include <sys/syscall.h>

#include "er/er_offcpu.h"
#include "test_util.h"

int main(void)
{
  /* glibc's names for one entry point all give its reason. */
  CHECK(er_offcpu_reason_of_function("__GI___libc_read") == ER_OFFCPU_IO);
  CHECK(er_offcpu_reason_of_function("read@GLIBC_2.2.5") == ER_OFFCPU_IO);
  CHECK(er_offcpu_reason_of_function("__clock_nanosleep") == ER_OFFCPU_SLEEP);
  CHECK(er_offcpu_reason_of_function("__GI___lll_lock_wait") == ER_OFFCPU_LOCK);
  CHECK(er_offcpu_reason_of_function("pthread_cond_wait") == ER_OFFCPU_LOCK);
  /* Python's threading.Lock: sem_clockwait's insides, a compiler's clone */
  CHECK(er_offcpu_reason_of_function("__futex_abstimed_wait_common") == ER_OFFCPU_LOCK);
  CHECK(er_offcpu_reason_of_function("__new_sem_wait_slow64.constprop.0") == ER_OFFCPU_LOCK);
  /* ...and where libc is stripped, CPython's own entry point above them */
  CHECK(er_offcpu_reason_of_function("PyThread_acquire_lock_timed") == ER_OFFCPU_LOCK);
  CHECK(er_offcpu_reason_of_function("_PyMutex_LockTimed") == ER_OFFCPU_LOCK);
  CHECK(er_offcpu_reason_of_function("read.part.0") == ER_OFFCPU_IO);
  CHECK(er_offcpu_reason_of_function("getdents64") == ER_OFFCPU_IO);
  /* A name the table does not know says nothing (look further up). */
  CHECK(er_offcpu_reason_of_function("reader_loop") == ER_OFFCPU_NONE);
  CHECK(er_offcpu_reason_of_function("readv_helper") == ER_OFFCPU_NONE);
  CHECK(er_offcpu_reason_of_function(NULL) == ER_OFFCPU_NONE);

  /* A raw system call (no glibc name on the stack). */
  CHECK(er_offcpu_reason_of_syscall(SYS_read) == ER_OFFCPU_IO);
  CHECK(er_offcpu_reason_of_syscall(SYS_ppoll) == ER_OFFCPU_IO);
  CHECK(er_offcpu_reason_of_syscall(SYS_clock_nanosleep) == ER_OFFCPU_SLEEP);
  CHECK(er_offcpu_reason_of_syscall(SYS_wait4) == ER_OFFCPU_SLEEP);
  /* A futex that no lock entry point names is a runtime's own wait:
   * blocked, as the kernel's stacks of it say. */
  CHECK(er_offcpu_reason_of_syscall(SYS_futex) == ER_OFFCPU_NONE);
  CHECK(er_offcpu_reason_of_syscall(-1) == ER_OFFCPU_NONE);

  /* gprofng's micro-states (LMS_*): each reason off a CPU counts off it. */
  CHECK(er_offcpu_mstate(ER_OFFCPU_RUNNABLE) == ER_MSTATE_WAIT_CPU);
  CHECK(er_offcpu_mstate(ER_OFFCPU_LOCK) == ER_MSTATE_USER_LOCK);
  CHECK(er_offcpu_mstate(ER_OFFCPU_IO) == ER_MSTATE_SLEEP);
  CHECK(er_offcpu_mstate(ER_OFFCPU_BLOCKED) == ER_MSTATE_SLEEP);
  CHECK(er_offcpu_mstate(ER_OFFCPU_STOPPED) == ER_MSTATE_STOPPED);
  CHECK(er_offcpu_mstate(ER_OFFCPU_TEXT_FAULT) == ER_MSTATE_TEXT_FAULT);
  CHECK(er_offcpu_mstate(ER_OFFCPU_DATA_FAULT) == ER_MSTATE_DATA_FAULT);
  for (int r = ER_OFFCPU_RUNNABLE; r < ER_OFFCPU_REASONS; r++) {
    CHECK(!er_mstate_on_cpu(er_offcpu_mstate((enum er_offcpu_reason)r)));
    CHECK(strcmp(er_offcpu_reason_title((enum er_offcpu_reason)r), "?") != 0);
  }
  CHECK(er_mstate_on_cpu(0) && er_mstate_on_cpu(1) && er_mstate_on_cpu(10));
  CHECK(strcmp(er_offcpu_reason_title(ER_OFFCPU_REASONS), "?") == 0);
  return TEST_EXIT();
}
