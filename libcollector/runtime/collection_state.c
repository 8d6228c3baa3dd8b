/* The runtime's state (collection_state.h). */
#define _GNU_SOURCE
#include <unistd.h>

#include "runtime/collection_state.h"

static int state = COL_STATE_INERT;
static pid_t owner_pid;

int col_collecting(void)
{
  return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == COL_STATE_COLLECTING && getpid() == owner_pid;
}

int col_active(void)
{
  return __atomic_load_n(&state, __ATOMIC_RELAXED) == COL_STATE_COLLECTING;
}

void col_state_set(enum col_collection_state s)
{
  __atomic_store_n(&state, (int)s, __ATOMIC_RELEASE);
}

int col_state_collecting_anywhere(void)
{
  return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == COL_STATE_COLLECTING;
}

int col_state_close(void)
{
  int expected = COL_STATE_COLLECTING;
  return __atomic_compare_exchange_n(&state, &expected, COL_STATE_CLOSED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void col_state_own(void)
{
  owner_pid = getpid();
}

int col_state_owned_here(void)
{
  return getpid() == owner_pid;
}
