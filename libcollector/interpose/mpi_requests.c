/* MPI tracing's tables (mpi_requests.h): open addressing over fixed
 * arrays, slots claimed with a compare-and-swap on their key. */
#include "mpi_requests.h"

#include <sys/mman.h>

#include "trace_record.h"

#define COMMS 256
#define CHANNELS 4096
#define RECEIVES 8192
#define PERSISTENT 1024 /* powers of two */

struct receive_slot {
  uintptr_t request; /* 0: free; REQUEST_GONE: taken out, reusable */
  struct col_mpi_receive r;
  int ready; /* R is written */
};
#define REQUEST_GONE ((uintptr_t)-1)

/* Mapped at the first traced MPI call (a process that never makes one,
 * as most do not, keeps its address space: the tables take 350 KiB, which
 * counts against a tight RLIMIT_AS). */
struct tables {
  uintptr_t comms[COMMS]; /* handle + 1 (0: free) */
  int comm_ids[COMMS];
  int next_comm_id;
  uint64_t channels[CHANNELS]; /* (comm_id + 1) << 32 | peer; 0: free */
  int channel_numbers[CHANNELS];
  int next_channel;
  struct receive_slot receives[RECEIVES];
  struct persistent_slot {
    uintptr_t request; /* 0: free; REQUEST_GONE: freed, reusable */
    struct col_mpi_persistent p;
    int ready;
  } persistent[PERSISTENT];
};
static struct tables *tables;

static struct tables *the_tables(void)
{
  struct tables *t = __atomic_load_n(&tables, __ATOMIC_ACQUIRE);
  if (t != NULL)
    return t;
  int was = col_tracing_here;
  col_tracing_here = 1; /* the runtime's own mapping, not the program's */
  void *mem = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem != MAP_FAILED) {
    t = mem;
    t->next_comm_id = 2;
    struct tables *none = NULL;
    if (!__atomic_compare_exchange_n(&tables, &none, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      munmap(mem, sizeof *t); /* another thread's came first */
      t = none;
    }
  } else {
    t = NULL; /* every lookup then says "full" */
  }
  col_tracing_here = was;
  return t;
}

static size_t hash(uint64_t key, size_t size)
{
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (size - 1);
}

int col_mpi_comm_id(const struct col_mpi_abi *abi, uintptr_t comm)
{
  comm = col_mpi_handle_value(abi, comm);
  if (comm == abi->comm_world)
    return 0;
  if (comm == abi->comm_self)
    return 1;
  struct tables *t = the_tables();
  uintptr_t key = comm + 1;
  if (t == NULL)
    return -1;
  for (size_t i = hash(key, COMMS), n = 0; n < COMMS; i = (i + 1) & (COMMS - 1), n++) {
    uintptr_t seen = __atomic_load_n(&t->comms[i], __ATOMIC_ACQUIRE);
    if (seen == 0 && __atomic_compare_exchange_n(&t->comms[i], &seen, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      int id = __atomic_fetch_add(&t->next_comm_id, 1, __ATOMIC_RELAXED);
      __atomic_store_n(&t->comm_ids[i], id, __ATOMIC_RELEASE);
      return id;
    }
    /* (a failed claim left the key another thread stored in SEEN) */
    if (seen == key) {
      int id;
      while ((id = __atomic_load_n(&t->comm_ids[i], __ATOMIC_ACQUIRE)) == 0)
        ; /* its claimer numbers it next: a few instructions away */
      return id;
    }
  }
  return -1;
}

int col_mpi_channel(int comm_id, int peer, int *first)
{
  *first = 0;
  struct tables *t = the_tables();
  if (t == NULL)
    return -1;
  uint64_t key = (uint64_t)(uint32_t)(comm_id + 1) << 32 | (uint32_t)peer;
  for (size_t i = hash(key, CHANNELS), n = 0; n < CHANNELS; i = (i + 1) & (CHANNELS - 1), n++) {
    uint64_t seen = __atomic_load_n(&t->channels[i], __ATOMIC_ACQUIRE);
    if (seen == 0 && __atomic_compare_exchange_n(&t->channels[i], &seen, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      int number = __atomic_fetch_add(&t->next_channel, 1, __ATOMIC_RELAXED);
      __atomic_store_n(&t->channel_numbers[i], number + 1, __ATOMIC_RELEASE);
      *first = 1;
      return number;
    }
    if (seen == key) {
      int number;
      while ((number = __atomic_load_n(&t->channel_numbers[i], __ATOMIC_ACQUIRE)) == 0)
        ;
      return number - 1;
    }
  }
  return -1;
}

int col_mpi_receive_posted(uintptr_t request, const struct col_mpi_receive *r)
{
  struct tables *t = the_tables();
  if (t == NULL || request == 0 || request == REQUEST_GONE)
    return 0;
  struct receive_slot *receives = t->receives;
  for (size_t i = hash(request, RECEIVES), n = 0; n < RECEIVES; i = (i + 1) & (RECEIVES - 1), n++) {
    uintptr_t seen = __atomic_load_n(&receives[i].request, __ATOMIC_ACQUIRE);
    if (seen != 0 && seen != REQUEST_GONE)
      continue;
    /* Claimed as not ready, filled, then made ready: a lookup meanwhile
     * (the same request completing on another thread before MPI_Irecv
     * returned to this one cannot happen) finds it not ready and leaves it. */
    if (__atomic_compare_exchange_n(&receives[i].request, &seen, request, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
      receives[i].r = *r;
      __atomic_store_n(&receives[i].ready, 1, __ATOMIC_RELEASE);
      return 1;
    }
  }
  return 0;
}

int col_mpi_receive_done(uintptr_t request, struct col_mpi_receive *r)
{
  struct tables *t = __atomic_load_n(&tables, __ATOMIC_ACQUIRE); /* none yet: nothing posted */
  if (t == NULL || request == 0 || request == REQUEST_GONE)
    return 0;
  struct receive_slot *receives = t->receives;
  for (size_t i = hash(request, RECEIVES), n = 0; n < RECEIVES; i = (i + 1) & (RECEIVES - 1), n++) {
    uintptr_t seen = __atomic_load_n(&receives[i].request, __ATOMIC_ACQUIRE);
    if (seen == 0)
      return 0; /* the end of its probe sequence */
    if (seen != request || !__atomic_load_n(&receives[i].ready, __ATOMIC_ACQUIRE))
      continue;
    *r = receives[i].r;
    __atomic_store_n(&receives[i].ready, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&receives[i].request, REQUEST_GONE, __ATOMIC_RELEASE);
    return 1;
  }
  return 0;
}

int col_mpi_persistent_made(uintptr_t request, const struct col_mpi_persistent *p)
{
  struct tables *t = the_tables();
  if (t == NULL || request == 0 || request == REQUEST_GONE)
    return 0;
  for (size_t i = hash(request, PERSISTENT), n = 0; n < PERSISTENT; i = (i + 1) & (PERSISTENT - 1), n++) {
    struct persistent_slot *slot = &t->persistent[i];
    uintptr_t seen = __atomic_load_n(&slot->request, __ATOMIC_ACQUIRE);
    if ((seen == 0 || seen == REQUEST_GONE) &&
        __atomic_compare_exchange_n(&slot->request, &seen, request, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
      slot->p = *p;
      __atomic_store_n(&slot->ready, 1, __ATOMIC_RELEASE);
      return 1;
    }
  }
  return 0;
}

/* The slot of persistent REQUEST, or NULL. */
static struct persistent_slot *persistent_slot(uintptr_t request)
{
  struct tables *t = __atomic_load_n(&tables, __ATOMIC_ACQUIRE);
  if (t == NULL || request == 0 || request == REQUEST_GONE)
    return NULL;
  for (size_t i = hash(request, PERSISTENT), n = 0; n < PERSISTENT; i = (i + 1) & (PERSISTENT - 1), n++) {
    struct persistent_slot *slot = &t->persistent[i];
    uintptr_t seen = __atomic_load_n(&slot->request, __ATOMIC_ACQUIRE);
    if (seen == 0)
      return NULL;
    if (seen == request && __atomic_load_n(&slot->ready, __ATOMIC_ACQUIRE))
      return slot;
  }
  return NULL;
}

int col_mpi_persistent_of(uintptr_t request, struct col_mpi_persistent *p)
{
  struct persistent_slot *slot = persistent_slot(request);
  if (slot != NULL)
    *p = slot->p;
  return slot != NULL;
}

void col_mpi_persistent_freed(uintptr_t request)
{
  struct persistent_slot *slot = persistent_slot(request);
  if (slot != NULL) {
    __atomic_store_n(&slot->ready, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->request, REQUEST_GONE, __ATOMIC_RELEASE);
  }
}
