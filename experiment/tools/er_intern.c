/* Index tables and interned strings for the exports (er_intern.h). */
#include "er_intern.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const struct er_index_map *m, uint64_t key)
{
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->room - 1);
}

static int grow(struct er_index_map *m)
{
  size_t room = m->room ? m->room * 2 : 1024;
  struct er_index_map bigger = {calloc(room, 8), calloc(room, 8), room, m->n};
  if (bigger.keys == NULL || bigger.values == NULL) {
    free(bigger.keys);
    free(bigger.values);
    return -1;
  }
  for (size_t i = 0; i < m->room; i++)
    if (m->keys[i] != 0) {
      size_t at = slot_of(&bigger, m->keys[i] - 1);
      while (bigger.keys[at] != 0)
        at = (at + 1) & (bigger.room - 1);
      bigger.keys[at] = m->keys[i];
      bigger.values[at] = m->values[i];
    }
  free(m->keys);
  free(m->values);
  *m = bigger;
  return 0;
}

long er_index_map_find(struct er_index_map *m, uint64_t key, int (*same)(const void *, uint64_t), const void *arg,
                       int *found)
{
  if ((m->n + 1) * 2 > m->room && grow(m) != 0)
    return -1;
  size_t at = slot_of(m, key);
  for (; m->keys[at] != 0; at = (at + 1) & (m->room - 1))
    if (m->keys[at] == key + 1 && (same == NULL || same(arg, m->values[at]))) {
      *found = 1;
      return (long)at;
    }
  *found = 0;
  return (long)at;
}

void er_index_map_put(struct er_index_map *m, long slot, uint64_t key, uint64_t index)
{
  m->keys[slot] = key + 1;
  m->values[slot] = index;
  m->n++;
}

void er_index_map_free(struct er_index_map *m)
{
  free(m->keys);
  free(m->values);
  memset(m, 0, sizeof *m);
}

void *er_grown(void *array, size_t *room, size_t count, size_t size)
{
  if (count < *room)
    return array;
  size_t bigger = *room ? *room * 2 : 256;
  void *more = realloc(array, bigger * size);
  if (more != NULL)
    *room = bigger;
  return more;
}

static uint64_t text_hash(const char *text)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *text; text++)
    h = (h ^ (unsigned char)*text) * 0x100000001b3ull;
  return h >> 1;
}

struct text_probe {
  const struct er_strings *strings;
  const char *text;
};

static int same_text(const void *arg, uint64_t index)
{
  const struct text_probe *t = arg;
  return strcmp(t->strings->text[index], t->text) == 0;
}

uint64_t er_strings_intern(struct er_strings *s, const char *text)
{
  struct text_probe probe = {s, text};
  int found;
  uint64_t key = text_hash(text);
  long at = er_index_map_find(&s->at, key, same_text, &probe, &found);
  if (at < 0)
    return 0;
  if (found)
    return s->at.values[at];
  char **more = er_grown(s->text, &s->room, s->n, sizeof *more);
  char *copy = strdup(text);
  if (more == NULL || copy == NULL) {
    free(copy);
    if (more != NULL)
      s->text = more;
    return 0;
  }
  s->text = more;
  s->text[s->n] = copy;
  er_index_map_put(&s->at, at, key, s->n);
  return s->n++;
}

void er_strings_free(struct er_strings *s)
{
  for (size_t i = 0; i < s->n; i++)
    free(s->text[i]);
  free(s->text);
  er_index_map_free(&s->at);
  memset(s, 0, sizeof *s);
}

struct key_probe {
  const struct er_id_table *t;
  uint64_t key;
};

static int same_key(const void *arg, uint64_t id)
{
  const struct key_probe *k = arg;
  return k->t->key[id] == k->key;
}

long er_id_of(struct er_id_table *t, uint64_t key)
{
  struct key_probe probe = {t, key};
  int found;
  long at = er_index_map_find(&t->at, key >> 1, same_key, &probe, &found);
  if (at < 0)
    return -1;
  if (found)
    return (long)t->at.values[at];
  uint64_t *more = er_grown(t->key, &t->room, t->n, sizeof *more);
  if (more == NULL)
    return -1;
  t->key = more;
  t->key[t->n] = key;
  er_index_map_put(&t->at, at, key >> 1, t->n);
  return (long)t->n++;
}

void er_id_table_free(struct er_id_table *t)
{
  free(t->key);
  er_index_map_free(&t->at);
  memset(t, 0, sizeof *t);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
  return ((a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull + (a << 6))) >> 1;
}

struct pair_probe {
  const struct er_pair_table *table;
  uint64_t a, b;
};

static int same_pair(const void *arg, uint64_t index)
{
  const struct pair_probe *p = arg;
  return p->table->first[index] == p->a && p->table->second[index] == p->b;
}

long er_pair_id(struct er_pair_table *t, uint64_t a, uint64_t b)
{
  struct pair_probe probe = {t, a, b};
  int found;
  long at = er_index_map_find(&t->at, mix(a, b), same_pair, &probe, &found);
  if (at < 0)
    return -1;
  if (found)
    return (long)t->at.values[at];
  if (t->n == t->room) {
    size_t bigger = t->room ? t->room * 2 : 256;
    uint64_t *x = realloc(t->first, bigger * sizeof *x);
    if (x == NULL)
      return -1;
    t->first = x;
    uint64_t *y = realloc(t->second, bigger * sizeof *y);
    if (y == NULL)
      return -1;
    t->second = y;
    t->room = bigger;
  }
  t->first[t->n] = a;
  t->second[t->n] = b;
  er_index_map_put(&t->at, at, mix(a, b), t->n);
  return (long)t->n++;
}

void er_pair_table_free(struct er_pair_table *t)
{
  free(t->first);
  free(t->second);
  er_index_map_free(&t->at);
  memset(t, 0, sizeof *t);
}
