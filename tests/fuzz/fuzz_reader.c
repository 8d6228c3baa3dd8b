/* libFuzzer target for the experiment reader: every input is one
 * experiment, its files one after another, each introduced by
 * "\n@@@ NAME\n" (see pack_experiment.py, which turns a real experiment into
 * this form for the seed corpus).  NAME is the file's path relative to the
 * experiment: log.xml, map.xml, data.frameinfo, each data kind's file
 * (profile, synctrace, iotrace, heaptrace, hwcounters), overview,
 * archive.log, archives/COPY, a descendant's _f1.er/log.xml..., and a group
 * file NAME.erg.  The reader must never crash, hang or read out of bounds,
 * whatever the files hold; run under AddressSanitizer.
 *
 * What the tools do with an experiment is done too: er-dump itself (its
 * source is included here, main renamed) on the experiment and on each
 * descendant, so every kind's view runs (clock, sync waits, I/O calls,
 * heap events, counters, stacks, names, archive.log's check); the report's
 * profile of every metric (er_profile.c) with its folded stacks, SVG and
 * HTML (er_flamegraph.c); and the group file's reader (er_group.c).
 * Naming opens ELF files (the archive copies among them, through libelf):
 * only the first few PCs of each input are named that way, the others
 * from the segment, or fuzzing would crawl. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er/er_flamegraph.h"
#include "er/er_group.h"
#include "er/er_names.h"
#include "er/er_profile.h"
#include "er/er_reader.h"

#define ELF_NAMED_PER_INPUT 8
static size_t elf_named;

/* er_symbolize for the first few PCs of an input, a cheap name after. */
static void fuzz_symbolize(const struct er_experiment *exp, const struct er_segment *seg, uint64_t pc, char *out,
                           size_t out_len)
{
  if (seg == NULL || elf_named++ < ELF_NAMED_PER_INPUT)
    er_symbolize(exp, seg, pc, out, out_len);
  else
    snprintf(out, out_len, "%s@0x%llx", seg->name, (unsigned long long)(pc - seg->vaddr));
}

#define er_symbolize fuzz_symbolize
#define main er_dump_main
#include "../../experiment/tools/er_dump.c"
#undef main
#undef er_symbolize

/* er_names (libdwfl's names, er_names.c) for the report's profile: the
 * same answers from er_symbolize, so that er_profile.c and the pictures
 * run on names the experiment's files made. */
struct er_names {
  const struct er_experiment *exp;
  char **names;
  size_t n;
};

struct er_names *er_names_open(const struct er_experiment *exp)
{
  struct er_names *n = calloc(1, sizeof *n);
  if (n != NULL)
    n->exp = exp;
  return n;
}

const char *er_names_function(struct er_names *names, uint64_t pc)
{
  char name[512];
  const struct er_code_region *region = er_experiment_code_region(names->exp, pc);
  if (region != NULL)
    snprintf(name, sizeof name, "%s", region->name);
  else
    fuzz_symbolize(names->exp, er_experiment_segment(names->exp, pc), pc, name, sizeof name);
  char **more = realloc(names->names, (names->n + 1) * sizeof *more);
  if (more == NULL)
    abort();
  names->names = more;
  names->names[names->n] = strdup(name);
  return names->names[names->n++];
}

size_t er_names_frames(struct er_names *names, uint64_t pc, const char **frames, size_t max)
{
  if (max == 0)
    return 0;
  frames[0] = er_names_function(names, pc);
  return 1;
}

void er_names_close(struct er_names *names)
{
  for (size_t i = 0; i < names->n; i++)
    free(names->names[i]);
  free(names->names);
  free(names);
}

static char top[64], dir[128];
static FILE *devnull;

static void write_part(const char *name, const uint8_t *data, size_t len)
{
  char path[512];
  /* Parent directories first (archives/, _f1.er/). */
  for (const char *slash = strchr(name, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)(slash - name), name);
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
      return;
  }
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return; /* a name that is a directory already */
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n <= 0)
      abort();
    data += n;
    len -= (size_t)n;
  }
  close(fd);
}

/* A name the unpacker writes: relative, at most 3 components, none of
 * them empty, "." or "..", printable. */
static int acceptable_name(const uint8_t *name, size_t len)
{
  if (len == 0 || len > 200 || name[0] == '/' || name[len - 1] == '/')
    return 0;
  size_t depth = 1, start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len || name[i] == '/') {
      size_t n = i - start;
      if (n == 0 || (n == 1 && name[start] == '.') || (n == 2 && name[start] == '.' && name[start + 1] == '.'))
        return 0;
      start = i + 1;
      if (i < len && ++depth > 3)
        return 0;
    } else if (name[i] < 0x20 || name[i] >= 0x7f) {
      return 0;
    }
  }
  return 1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

#define MARKER "\n@@@ "
#define MAX_FILES 64

static const uint8_t *find_marker(const uint8_t *from, const uint8_t *end)
{
  size_t n = strlen(MARKER);
  for (const uint8_t *p = from; p + n <= end; p++)
    if (memcmp(p, MARKER, n) == 0)
      return p;
  return NULL;
}

/* Splits the input into the experiment's files; files not named are absent. */
static void unpack(const uint8_t *data, size_t size)
{
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (mkdir(dir, 0700) != 0)
    abort();
  const uint8_t *end = data + size, *p = find_marker(data, end);
  for (int files = 0; p != NULL && files < MAX_FILES; files++) {
    const uint8_t *name = p + strlen(MARKER), *nl = memchr(name, '\n', (size_t)(end - name));
    if (nl == NULL)
      return;
    const uint8_t *body = nl + 1, *next = find_marker(body, end);
    const uint8_t *body_end = next != NULL ? next : end;
    if (acceptable_name(name, (size_t)(nl - name))) {
      char path[256];
      snprintf(path, sizeof path, "%.*s", (int)(nl - name), (const char *)name);
      write_part(path, body, (size_t)(body_end - body));
    }
    p = next;
  }
}

/* What er-dump prints and reports, for the experiment at PATH. */
static void dump(const char *path)
{
  char *argv[] = {"er-dump", (char *)path, NULL};
  FILE *saved = stderr;
  stderr = devnull; /* "er-dump: ... is damaged" for most inputs */
  er_dump_main(2, argv);
  stderr = saved;
  free(funcs);
  funcs = NULL;
  n_funcs = 0;
  free(memo);
  memo = NULL;
  n_memo = 0;
}

/* The report's profile of METRIC, its pictures and its callers. */
static void report(const struct er_experiment *exp, const char *metric)
{
  struct er_names *names = er_names_open(exp);
  struct er_profile p;
  char err[512];
  if (names != NULL && er_profile_build(exp, names, metric, 1, ER_VIEW_USER, &p, err, sizeof err) == 0) {
    er_folded_write(devnull, &p);
    er_flamegraph_svg(devnull, &p, "fuzz");
    er_report_html(devnull, &p, "fuzz", 20);
    if (p.n_functions > 0) {
      double *values = calloc(p.n_functions, sizeof *values);
      if (values != NULL) {
        er_profile_neighbours(&p, 0, 1, values);
        er_profile_neighbours(&p, p.n_functions - 1, 0, values);
        er_profile_find(&p, p.functions[0].name);
      }
      free(values);
    }
    er_profile_free(&p);
  }
  if (names != NULL)
    er_names_close(names);
}

static void read_experiment(const char *path)
{
  elf_named = 0;
  dump(path);
  struct er_experiment exp;
  char err[512];
  if (er_experiment_open_map(path, &exp, err, sizeof err) == 0)
    er_experiment_close(&exp);
  if (er_experiment_open(path, &exp, err, sizeof err) != 0)
    return;
  for (size_t i = 0; i < exp.n_clock && i < 64; i++) {
    const struct er_stack *st = er_experiment_stack(&exp, exp.clock[i].frinfo);
    for (size_t k = 0; st != NULL && k < st->n; k++)
      er_experiment_code_region(&exp, st->pcs[k]);
  }
  report(&exp, NULL);
  report(&exp, "cpu");
  for (size_t c = 0; c < exp.n_counters && c < 4; c++)
    report(&exp, exp.counters[c].name);
  er_experiment_close(&exp);
}

/* The group file's reader: a group is joined only when its header is ours. */
static void read_group(const char *name)
{
  char path[512], experiment[64], err[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (er_check_group_name(path) == NULL)
    er_group_experiment_name(path, experiment, sizeof experiment);
  er_group_join(path, dir, err, sizeof err);
}

static void remove_top(void)
{
  nftw(top, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (top[0] == '\0') {
    const char *tmp = getenv("TMPDIR");
    snprintf(top, sizeof top, "%s/gdbcol-fuzz-XXXXXX", tmp != NULL && tmp[0] == '/' && strlen(tmp) < 32 ? tmp : "/tmp");
    if (mkdtemp(top) == NULL)
      abort();
    atexit(remove_top);
    /* ".er": where a descendant (DIR/_f1.er) finds its founder's archives/ */
    snprintf(dir, sizeof dir, "%s/test.1.er", top);
    devnull = fopen("/dev/null", "w");
    if (devnull == NULL || freopen("/dev/null", "w", stdout) == NULL)
      abort();
  }
  unpack(data, size);
  read_experiment(dir);
  /* The descendants (_f1.er, _f1_x2.er, ...) and group files. */
  DIR *d = opendir(dir);
  struct dirent *e;
  int descendants = 0;
  while (d != NULL && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    char path[512];
    if (e->d_name[0] == '_' && len > 3 && strcmp(e->d_name + len - 3, ".er") == 0 && descendants++ < 16) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      read_experiment(path);
    } else if (len > 4 && strcmp(e->d_name + len - 4, ".erg") == 0) {
      read_group(e->d_name);
    }
  }
  if (d != NULL)
    closedir(d);
  return 0;
}
