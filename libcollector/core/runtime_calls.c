/* Work handed to the runtime's own thread.
 *
 * Every file the runtime writes is opened, written and closed on that
 * thread, which has a descriptor table of its own (runtime_thread.c): the
 * program can close, dup2 over or close_range its descriptors as it likes
 * and never reaches ours, and we never reach its.  Other threads (the
 * program's, through the Collector API and the pthread_create wrapper;
 * GDB's inferior calls; the exit path) therefore do not touch files: they
 * queue a call here and wait for it.
 *
 * A queued call lives on the caller's stack; the caller leaves only once
 * the call ran, or once it is taken off the queue unrun, so the runtime
 * thread never touches a dead frame. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "core/runtime_calls.h"
#include "core/libc_condvar.h"

/* A caller whose call has not started after this long (the runtime
 * thread is gone or hung) gives up; one already running is waited for. */
#define CALL_START_TIMEOUT_S 10

struct runtime_call {
  void (*fn)(void *);
  void *arg;
  int state; /* QUEUED, RUNNING, DONE */
  struct runtime_call *next;
};

enum { QUEUED, RUNNING, DONE };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static struct runtime_call *head, **tail = &head;
int col_private_descriptors; /* the owner of the files has its own table */
static int accepting; /* the runtime thread serves the queue */
static pid_t runtime_tid;         /* the thread that owns the files */
static void (*wake_runtime)(void); /* wakes it to serve the queue */

void col_calls_set_runtime_thread(pid_t tid, void (*wake)(void))
{
  __atomic_store_n(&runtime_tid, tid, __ATOMIC_RELEASE);
  wake_runtime = wake;
}
static __thread int waiting __attribute__((tls_model("initial-exec"))); /* this thread is inside col_on_runtime_thread */

int col_in_runtime_call(void)
{
  return waiting;
}

void col_calls_accept(int yes)
{
  pthread_mutex_lock(&lock);
  accepting = yes;
  pthread_mutex_unlock(&lock);
}

static void unlink_call(struct runtime_call *call)
{
  for (struct runtime_call **p = &head; *p != NULL; p = &(*p)->next)
    if (*p == call) {
      *p = call->next;
      if (*p == NULL)
        tail = p;
      return;
    }
}

int col_on_runtime_thread(void (*fn)(void *), void *arg)
{
  if (gettid() == __atomic_load_n(&runtime_tid, __ATOMIC_ACQUIRE)) {
    fn(arg);
    return 0;
  }
  struct runtime_call call = {fn, arg, QUEUED, NULL};
  waiting = 1;
  pthread_mutex_lock(&lock);
  if (!accepting) {
    pthread_mutex_unlock(&lock);
    waiting = 0;
    return -ESRCH;
  }
  *tail = &call;
  tail = &call.next;
  if (wake_runtime != NULL)
    wake_runtime();
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += CALL_START_TIMEOUT_S;
  int rc = 0;
  while (call.state != DONE) {
    if (call.state == QUEUED) {
      if (pthread_cond_timedwait(&finished, &lock, &deadline) == ETIMEDOUT && call.state == QUEUED) {
        unlink_call(&call);
        rc = -ETIMEDOUT;
        break;
      }
    } else {
      pthread_cond_wait(&finished, &lock);
    }
  }
  pthread_mutex_unlock(&lock);
  waiting = 0;
  return rc;
}

void col_calls_serve(void)
{
  pthread_mutex_lock(&lock);
  while (head != NULL) {
    struct runtime_call *call = head;
    head = call->next;
    if (head == NULL)
      tail = &head;
    call->state = RUNNING;
    pthread_mutex_unlock(&lock);
    call->fn(call->arg);
    pthread_mutex_lock(&lock);
    call->state = DONE;
    pthread_cond_broadcast(&finished);
  }
  pthread_mutex_unlock(&lock);
}
