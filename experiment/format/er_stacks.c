/* Stack ids and frame packets; see er/er_stacks.h. */
#define _GNU_SOURCE
#include "er/er_stacks.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "er/er_format.h"

/* gprofng's fold constant (§6.3). */
#define STACK_ROOT 801425552975190205ull

void er_idset_init(struct er_idset *set)
{
  memset(set, 0, sizeof *set);
}

void er_idset_destroy(struct er_idset *set)
{
  if (set->slots != NULL)
    munmap(set->slots, set->capacity * sizeof *set->slots);
  memset(set, 0, sizeof *set);
}

static uint64_t *find_slot(uint64_t *slots, size_t capacity, uint64_t id)
{
  size_t mask = capacity - 1;
  size_t i = (size_t)(id * 0x9E3779B97F4A7C15ull >> 17) & mask;
  while (slots[i] != 0 && slots[i] != id)
    i = (i + 1) & mask;
  return &slots[i];
}

static int grow(struct er_idset *set)
{
  size_t capacity = set->capacity ? set->capacity * 2 : 4096;
  uint64_t *slots = mmap(NULL, capacity * sizeof *slots, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (slots == MAP_FAILED)
    return -ENOMEM;
  for (size_t i = 0; i < set->capacity; i++)
    if (set->slots[i] != 0)
      *find_slot(slots, capacity, set->slots[i]) = set->slots[i];
  if (set->slots != NULL)
    munmap(set->slots, set->capacity * sizeof *set->slots);
  set->slots = slots;
  set->capacity = capacity;
  return 0;
}

int er_idset_insert(struct er_idset *set, uint64_t id)
{
  if ((set->count + 1) * 2 > set->capacity && grow(set) < 0)
    return -ENOMEM;
  uint64_t *slot = find_slot(set->slots, set->capacity, id);
  if (*slot == id)
    return 0;
  *slot = id;
  set->count++;
  return 1;
}

static uint64_t fold(uint64_t start, const uint64_t *pcs, size_t n)
{
  uint64_t u = start;
  for (size_t i = n; i-- > 0;)
    u = (u + pcs[i]) * STACK_ROOT;
  return u != 0 ? u : 1; /* 0 means "no stack" to the reader */
}

uint64_t er_stack_uid(const uint64_t *pcs, size_t n)
{
  return fold(1, pcs, n);
}

uint64_t er_frameinfo_record(struct er_cursor *frameinfo, struct er_idset *seen, const uint64_t *pcs, size_t n)
{
  return er_frameinfo_record_state(frameinfo, seen, pcs, n, 0, NULL, 0);
}

/* A user stack's uid: folded from another root than native stacks' (the
 * two are separate namespaces to gprofng; ours share one set of ids seen). */
#define USER_ROOT 0x5bd1e9955bd1e995ull

/* The UID packet of user stack USER (once); its uid, 0 on error. */
static uint64_t record_user_stack(struct er_cursor *frameinfo, struct er_idset *seen, const uint64_t *user,
                                  size_t n)
{
  uint64_t uid = fold(USER_ROOT, user, n);
  int fresh = er_idset_insert(seen, uid);
  if (fresh <= 0)
    return fresh == 0 ? uid : 0;
  unsigned char packet[sizeof(struct er_uid_packet) + 8 * (ER_MAX_STACK_DEPTH + 1)];
  struct er_uid_packet head = {(uint16_t)(sizeof head + 8 * n), ER_PKT_UID, 0, uid};
  memcpy(packet, &head, sizeof head);
  memcpy(packet + sizeof head, user, 8 * n);
  if (er_cursor_append(frameinfo, packet, sizeof head + 8 * n) < 0)
    return 0;
  return uid;
}

uint64_t er_frameinfo_record_state(struct er_cursor *frameinfo, struct er_idset *seen, const uint64_t *pcs, size_t n,
                                   unsigned omp_state, const uint64_t *user, size_t user_n)
{
  if (n == 0 || n > ER_MAX_STACK_DEPTH + 1 || user_n > ER_MAX_STACK_DEPTH + 1)
    return 0;
  uint64_t user_uid = omp_state != 0 && user_n > 0 ? record_user_stack(frameinfo, seen, user, user_n) : 0;
  /* One frame packet per (stack, state, user stack): both fold into the id. */
  uint64_t frame_uid =
      fold(STACK_ROOT + (uint64_t)omp_state * 0x9E3779B97F4A7C15ULL + user_uid * 0xC2B2AE3D27D4EB4FULL, pcs, n);
  int fresh = er_idset_insert(seen, frame_uid);
  if (fresh < 0)
    return 0;
  if (fresh == 0)
    return frame_uid;
  unsigned char packet[sizeof(struct er_frame_packet) + sizeof(struct er_frame_info) + 8 * (ER_MAX_STACK_DEPTH + 1) +
                       sizeof(struct er_frame_omp2)];
  struct er_frame_packet head = {0};
  struct er_frame_info info = {0};
  struct er_frame_omp2 omp = {sizeof omp, ER_FRAME_INFO_OMP2, omp_state, 0, user_uid};
  size_t len = sizeof head + sizeof info + 8 * n + (omp_state != 0 ? sizeof omp : 0);
  head.tsize = (uint16_t)len;
  head.type = ER_PKT_FRAME;
  head.hsize = sizeof head;
  head.uid = frame_uid;
  info.hsize = (uint32_t)(sizeof info + 8 * n);
  info.kind = ER_FRAME_INFO_STACK;
  info.uid = er_stack_uid(pcs, n);
  memcpy(packet, &head, sizeof head);
  memcpy(packet + sizeof head, &info, sizeof info);
  memcpy(packet + sizeof head + sizeof info, pcs, 8 * n);
  if (omp_state != 0)
    memcpy(packet + sizeof head + sizeof info + 8 * n, &omp, sizeof omp);
  if (er_cursor_append(frameinfo, packet, len) < 0)
    return 0;
  return frame_uid;
}
