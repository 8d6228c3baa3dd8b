/* Thread names: our own file in an experiment (ER_THREAD_NAMES_FILE,
 * "TID NAME" lines, NAME as er_value_encode writes it), written by the
 * collector at the experiment's end; absent from gprofng's own
 * experiments and from older ones of ours (then no thread has a name). */
#include <stdlib.h>
#include <string.h>

#include "er/er_fileutil.h"
#include "er/er_naming.h"
#include "er/er_text.h"
#include "er_reader_parts.h"
#include "er_room.h"

#define MAX_NAMES_FILE (1 << 20)

void er_read_thread_names(const char *path, struct er_experiment *exp)
{
  char *text = NULL;
  size_t len = 0;
  if (er_read_file(path, ER_THREAD_NAMES_FILE, 0, 0, MAX_NAMES_FILE, &text, &len) != 0)
    return;
  for (char *line = text, *next; line < text + len; line = next) {
    next = memchr(line, '\n', (size_t)(text + len - line));
    next = next != NULL ? next + 1 : text + len;
    next[-1] = next[-1] == '\n' ? '\0' : next[-1];
    char *end = NULL;
    unsigned long long tid = strtoull(line, &end, 10);
    char buf[256];
    const char *name = end != NULL && *end == ' ' ? er_value_decode(end + 1, buf, sizeof buf) : NULL;
    if (name == NULL || tid == 0)
      continue; /* (a damaged line: that thread unnamed) */
    char *copy = strdup(name);
    if (copy == NULL || er_room_for(&exp->thread_names, exp->n_thread_names, sizeof *exp->thread_names) != 0) {
      free(copy);
      break;
    }
    exp->thread_names[exp->n_thread_names++] = (struct er_thread_name){tid, copy};
  }
  free(text);
}

const char *er_experiment_thread_name(const struct er_experiment *exp, uint64_t tid)
{
  for (size_t i = 0; i < exp->n_thread_names; i++)
    if (exp->thread_names[i].tid == tid)
      return exp->thread_names[i].name;
  return NULL;
}

void er_free_thread_names(struct er_experiment *exp)
{
  for (size_t i = 0; i < exp->n_thread_names; i++)
    free(exp->thread_names[i].name);
  free(exp->thread_names);
  exp->thread_names = NULL;
  exp->n_thread_names = 0;
}
