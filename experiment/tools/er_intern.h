/* What the exports (er_pprof.c, er_firefox.c) share: a table from a
 * 64-bit key to an index, and strings kept once each with their index. */
#ifndef ER_INTERN_H
#define ER_INTERN_H

#include <stddef.h>
#include <stdint.h>

/* Open addressing, key + 1 stored (0: empty).  A key may be a hash: a
 * lookup confirms a hit with SAME(ARG, index). */
struct er_index_map {
  uint64_t *keys, *values;
  size_t room, n;
};

/* The slot holding KEY's index (*FOUND 1), or the empty one where it goes
 * (*FOUND 0); -1 when out of memory.  KEY below 2^63. */
long er_index_map_find(struct er_index_map *m, uint64_t key, int (*same)(const void *, uint64_t), const void *arg,
                       int *found);
void er_index_map_put(struct er_index_map *m, long slot, uint64_t key, uint64_t index);
void er_index_map_free(struct er_index_map *m);

struct er_strings {
  char **text;
  size_t n, room;
  struct er_index_map at;
};

/* TEXT's index (added at the end when new; 0 when out of memory). */
uint64_t er_strings_intern(struct er_strings *s, const char *text);
void er_strings_free(struct er_strings *s);

/* Dense ids for keys met one by one (a key: a string's index, say): the
 * first key met is 0, the next new one 1, ...; KEY[id] gives it back. */
struct er_id_table {
  uint64_t *key;
  size_t n, room;
  struct er_index_map at;
};

/* KEY's id (made when new); -1 when out of memory. */
long er_id_of(struct er_id_table *t, uint64_t key);
void er_id_table_free(struct er_id_table *t);

/* Dense ids for pairs of keys (a function and its inline depth, a stack
 * and a thread): the first pair met is 0, ...; FIRST[id] and SECOND[id]
 * give it back. */
struct er_pair_table {
  uint64_t *first, *second;
  size_t n, room;
  struct er_index_map at;
};

/* (A, B)'s id (made when new); -1 when out of memory. */
long er_pair_id(struct er_pair_table *t, uint64_t a, uint64_t b);
void er_pair_table_free(struct er_pair_table *t);

/* Room for one more of COUNT elements of SIZE bytes in *ARRAY (*ROOM of
 * them): the array, grown, or NULL (out of memory: *ARRAY as it was). */
void *er_grown(void *array, size_t *room, size_t count, size_t size);

#endif
