/* GOT patching after an attach (interpose/got_patch.c), without GDB: a
 * library is loaded that asks for pthread_cond_timedwait at the current
 * symbol version and at the old ABI's, and calls a function of its own
 * through its GOT.  The table here (the runtime's has the same shape)
 * interposes the current version and the unversioned function, the
 * latter only while its (made-up) traced kind is on.  After
 * col_got_patch_all, the slot of the current version and the unversioned
 * one call the stand-in wrappers, the old version's slot still reaches
 * libc (another ABI: measured in the runtime, a wake-up was lost when it
 * was redirected); col_got_restore_all puts every slot back.  The test
 * program's own object is never patched (it holds got_patch.c, as the
 * runtime does). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "interpose/got_patch.h"
#include "interposed_list.h"
#include "test_util.h"

static const char *last_wrapper;

static int wrapped_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *when)
{
  last_wrapper = "pthread_cond_timedwait";
  return 4242;
}

static int wrapped_unversioned(void)
{
  last_wrapper = "got_unversioned_target";
  return 4243;
}

/* What got_patch.c needs of the rest of the runtime. */
int col_wrap_pthread_create(void)
{
  return 0;
}

void col_runtime_was_injected(void)
{
}

__thread int col_tracing_here; /* trace_record.c's guard, which the lookups set */

void *col_real_function_version(const char *name, const char *version, void *ours)
{
  void *real = version != NULL ? dlvsym(RTLD_DEFAULT, name, version) : NULL;
  return real != NULL ? real : dlsym(RTLD_DEFAULT, name);
}

const struct col_interposed col_interposed[] = {
    {"pthread_cond_timedwait", "GLIBC_2.3.2", (void *)wrapped_timedwait, 0},
    {"got_unversioned_target", NULL, (void *)wrapped_unversioned, 1u << 3}, /* a traced kind's: patched when on */
};
const size_t col_n_interposed = sizeof col_interposed / sizeof col_interposed[0];

typedef int (*timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);

/* Each call waits on a cond nobody signals, until a deadline already past. */
static int expired_wait(timedwait_fn fn)
{
  static pthread_cond_t conds[64]; /* each used once: the old ABI reads a used one as its own */
  static int next;
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  struct timespec past = {0, 0};
  pthread_mutex_lock(&mutex);
  last_wrapper = NULL;
  int rc = fn(&conds[next++ % 64], &mutex, &past);
  pthread_mutex_unlock(&mutex);
  return rc;
}

int main(int argc, char **argv)
{
  CHECK(argc == 2);
  /* Global, as libc is: the original of a slot is what the default scope
   * finds (col_real_function_version). */
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  CHECK(lib != NULL);
  if (lib == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return TEST_EXIT();
  }
  timedwait_fn current = (timedwait_fn)dlsym(lib, "got_lib_timedwait_current");
  timedwait_fn old = (timedwait_fn)dlsym(lib, "got_lib_timedwait_old");
  int (*unversioned)(void) = (int (*)(void))dlsym(lib, "got_lib_call_unversioned");
  CHECK(current != NULL && old != NULL && unversioned != NULL);

  /* Before: libc's functions, both versions. */
  CHECK(expired_wait(current) == ETIMEDOUT && last_wrapper == NULL);
  CHECK(expired_wait(old) == ETIMEDOUT && last_wrapper == NULL);
  CHECK(unversioned() == 1);

  /* Its kind off, the unversioned function's slot is left alone. */
  struct col_got_report report;
  memset(&report, 0, sizeof report);
  col_got_patch_all(0, &report);
  CHECK(unversioned() == 1 && last_wrapper == NULL);
  CHECK(expired_wait(current) == 4242);
  col_got_restore_all();
  memset(&report, 0, sizeof report);
  col_got_patch_all(1u << 3, &report);
  fprintf(stderr, "patched %u slot(s) in %u object(s), %u unreadable\n", report.slots, report.objects,
          report.unreadable);
  CHECK(report.slots >= 2 && report.objects >= 1);
  /* The current version's slot and the unversioned one reach the wrappers. */
  CHECK(expired_wait(current) == 4242 && last_wrapper != NULL && strcmp(last_wrapper, "pthread_cond_timedwait") == 0);
  last_wrapper = NULL;
  CHECK(unversioned() == 4243 && last_wrapper != NULL && strcmp(last_wrapper, "got_unversioned_target") == 0);
  /* The old ABI's slot keeps libc's compatibility code. */
  CHECK(expired_wait(old) == ETIMEDOUT && last_wrapper == NULL);
  /* The test's own calls (the object that holds got_patch.c) are untouched. */
  CHECK(expired_wait(pthread_cond_timedwait) == ETIMEDOUT && last_wrapper == NULL);

  /* A second walk changes nothing; objects loaded since would be patched. */
  col_got_patch_new_objects();
  CHECK(expired_wait(current) == 4242);

  col_got_restore_all();
  CHECK(expired_wait(current) == ETIMEDOUT && last_wrapper == NULL);
  CHECK(expired_wait(old) == ETIMEDOUT && last_wrapper == NULL);
  last_wrapper = NULL;
  CHECK(unversioned() == 1 && last_wrapper == NULL);
  return TEST_EXIT();
}
