/* The Firefox export's libraries: a lib per load object a sampled
 * function's code lies in (map.xml's segment of its PC), with its build
 * id as the profiler wants it (breakpadId: the id's first 16 bytes as a
 * GUID, then the age 0; codeId: the whole id), and a library resource per
 * lib that each function's "resource" names. */
#define _GNU_SOURCE
#include "er_firefox_libs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er/er_archive.h"
#include "er_json.h"

static const char *base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

/* Room for index I in *ARRAY (zeroed as it grows); 0, or -1. */
static int reach(void *array, size_t *room, size_t i, size_t size)
{
  void **a = array;
  if (i < *room)
    return 0;
  size_t more = *room ? *room : 64;
  while (more <= i)
    more *= 2;
  void *grown = realloc(*a, more * size);
  if (grown == NULL)
    return -1;
  memset((char *)grown + *room * size, 0, (more - *room) * size);
  *a = grown, *room = more;
  return 0;
}

void er_firefox_libs_note(struct er_firefox_libs *l, struct er_strings *strings, const struct er_experiment *exp,
                          uint64_t func, uint64_t pc)
{
  if ((func < l->func_room && l->func_lib[func] != 0) || reach(&l->func_lib, &l->func_room, func, sizeof *l->func_lib))
    return;
  const struct er_segment *seg = er_experiment_segment(exp, pc);
  if (seg == NULL || seg->name == NULL || seg->name[0] != '/')
    return; /* (no file: anonymous code, the pseudo-functions) */
  long lib = er_id_of(&l->paths, er_strings_intern(strings, seg->name));
  if (lib < 0 || reach(&l->name, &l->name_room, (size_t)lib, sizeof *l->name))
    return;
  l->name[lib] = er_strings_intern(strings, base_name(seg->name));
  l->func_lib[func] = lib + 1;
}

/* The build id of PATH as breakpad's debug id and as the code id. */
static void ids_of(const char *path, char *breakpad, size_t breakpad_len, char *code, size_t code_len)
{
  breakpad[0] = code[0] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  int got = er_build_id_of_fd(fd, code, code_len);
  close(fd);
  unsigned char b[16] = {0};
  for (size_t i = 0; got == 0 && i < 16 && code[2 * i] && code[2 * i + 1]; i++) {
    unsigned v;
    if (sscanf(code + 2 * i, "%2x", &v) == 1)
      b[i] = (unsigned char)v;
  }
  if (got != 0) {
    code[0] = '\0';
    return;
  }
  /* (a GUID's first three fields are little-endian in the id's bytes) */
  static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
  size_t n = 0;
  for (int i = 0; i < 16 && n + 3 < breakpad_len; i++)
    n += (size_t)snprintf(breakpad + n, breakpad_len - n, "%02X", b[order[i]]);
  snprintf(breakpad + n, breakpad_len - n, "0");
}

void er_firefox_libs_write(FILE *out, const struct er_firefox_libs *l, const struct er_strings *strings)
{
  fputs("\"libs\":[", out);
  for (size_t i = 0; i < l->paths.n; i++) {
    const char *path = strings->text[l->paths.key[i]];
    char breakpad[40], code[130];
    ids_of(path, breakpad, sizeof breakpad, code, sizeof code);
    fputs(i ? ",{\"name\":" : "{\"name\":", out);
    json_string(out, base_name(path));
    fputs(",\"path\":", out);
    json_string(out, path);
    fputs(",\"debugName\":", out);
    json_string(out, base_name(path));
    fputs(",\"debugPath\":", out);
    json_string(out, path);
    fprintf(out, ",\"breakpadId\":\"%s\",\"codeId\":", breakpad);
    if (code[0] != '\0')
      fprintf(out, "\"%s\"", code);
    else
      fputs("null", out);
    fputs(",\"arch\":\"x86_64\"}", out);
  }
  fputs("],", out);
}

void er_firefox_libs_write_func_resources(FILE *out, const struct er_firefox_libs *l, size_t n_funcs)
{
  fputs("\"resource\":[", out);
  for (size_t i = 0; i < n_funcs; i++)
    fprintf(out, "%s%" PRId64, i ? "," : "", i < l->func_room && l->func_lib[i] != 0 ? l->func_lib[i] - 1 : -1);
  fputs("],", out);
}

void er_firefox_libs_write_resources(FILE *out, const struct er_firefox_libs *l)
{
  fprintf(out, "\"resourceTable\":{\"length\":%zu,\"lib\":[", l->paths.n);
  for (size_t i = 0; i < l->paths.n; i++)
    fprintf(out, "%s%zu", i ? "," : "", i);
  fputs("],\"name\":[", out);
  for (size_t i = 0; i < l->paths.n; i++)
    fprintf(out, "%s%" PRIu64, i ? "," : "", l->name[i]);
  fputs("],", out);
  json_repeat_column(out, "host", "null", l->paths.n, 0);
  json_repeat_column(out, "type", "1", l->paths.n, 1); /* a library */
  fputs("},", out);
}

void er_firefox_libs_free(struct er_firefox_libs *l)
{
  er_id_table_free(&l->paths);
  free(l->name);
  free(l->func_lib);
  memset(l, 0, sizeof *l);
}
