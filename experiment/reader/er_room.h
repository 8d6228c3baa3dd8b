/* Room to append an element to one of the reader's growing arrays: the
 * array's capacity is implied by its count (16, then doubling), so each
 * append costs amortized O(1) (one realloc per element before: a 1 M-sample
 * experiment's reading copied its arrays over and over), and a realloc
 * that fails leaves the array as it was (before, unchecked: a NULL
 * dereference). */
#ifndef ER_ROOM_H
#define ER_ROOM_H

#include <stddef.h>
#include <stdlib.h>

/* Room for element N of *ARRAY (elements of SIZE bytes, N of them there,
 * the array grown only by this function): 0, or -1 (out of memory). */
static inline int er_room_for(void *array, size_t n, size_t size)
{
  void **slot = array;
  if (n != 0 && (n < 16 || (n & (n - 1)) != 0))
    return 0; /* (within the capacity already allocated) */
  size_t room = n == 0 ? 16 : 2 * n;
  if (room > (size_t)-1 / size)
    return -1;
  void *more = realloc(*slot, room * size);
  if (more == NULL)
    return -1;
  *slot = more;
  return 0;
}

#endif
