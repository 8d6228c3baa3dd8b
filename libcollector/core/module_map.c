/* The process's mappings, recorded in map.xml (§4).  The sampler rescans
 * when a sample's PC lies outside every known executable mapping (a library
 * came with dlopen) and once a second (unmaps); the sampler process learns
 * of mappings from the kernel's records, and of an unmap when a later
 * mapping takes the place (what matters: a later object at the address of
 * an unloaded one must not take its names).  Only the sampler thread
 * touches these tables, so no lock is needed; they live in static memory.
 * dlopen is deliberately not interposed: a wrapper would become the
 * "caller" glibc uses for RUNPATH and $ORIGIN lookups. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/data_limit.h"
#include "core/hrtime.h"
#include "core/module_map.h"
#include "core/target.h"
#include "er/er_fileutil.h"
#include "er/er_recordfile.h"
#include "er/er_text.h"

#define MAX_MAPPINGS 8192

struct mapping {
  uint64_t start, end, offset;
  unsigned modes; /* r=1 w=2 x=4 shared=8, as map.xml */
  unsigned long inode;
  int named;      /* a file (or the vDSO): its code can be named */
  int listed;     /* recorded in map.xml and archived: named, and not one of the runtime's own libraries */
  int64_t rel;    /* when it was mapped, relative to the run */
};

static int any_unlisted; /* a named mapping left out as the runtime's */

/* One of the libraries the runtime brought into the program and the
 * program does not need (GDBCOL_RUNTIME_OBJECTS, from the launcher). */
static int runtime_object(const char *path)
{
  const char *list = col_cfg.runtime_objects;
  size_t len = strlen(path);
  for (const char *p = list; len > 0 && *p != '\0';) {
    size_t item = strcspn(p, ":");
    if (item == len && strncmp(p, path, len) == 0)
      return 1;
    p += item + (p[item] == ':');
  }
  return 0;
}

static struct mapping current[MAX_MAPPINGS], previous[MAX_MAPPINGS];
static char names[MAX_MAPPINGS][256];
static size_t n_current, n_previous;
static struct er_recordfile map = {.fd = -1};
static int64_t run_tstamp;

static char maps_text[1 << 20];

static size_t read_maps(void)
{
  char path[64];
  col_target_path(path, sizeof path, "maps");
  long len = er_read_text(path, maps_text, sizeof maps_text);
  if (len < 0)
    maps_text[0] = '\0';
  return len < 0 ? 0 : (size_t)len;
}

/* A hot patcher (UCX's memory hooks, in every Open MPI or MPICH rank built
 * with UCX) makes a page of a library's code writable, writes a jump, and
 * makes it executable again: the kernel splits the code mapping around the
 * page, and its record, or /proc's lines, show the pieces.  They are still
 * that file's code at its place: one mapping for naming and unwinding
 * (taken as new, the page unmapped the whole library's code: every later
 * sample in the C library was <Unknown> in gprofng and every walk through
 * it <Stack-unwind-failed>). */
static int same_file_place(const struct mapping *m, const char *m_name, uint64_t start, uint64_t offset,
                           unsigned long inode, const char *name)
{
  return inode != 0 && m->inode == inode && (m->modes & 4) && offset - m->offset == start - m->start &&
         strcmp(m_name, name) == 0;
}

/* /proc's next line continues M's code: its piece just after it. */
static int continues_code(const struct mapping *m, const char *m_name, uint64_t start, uint64_t offset,
                          unsigned long inode, const char *name, int executable)
{
  return executable && m->end == start && same_file_place(m, m_name, start, offset, inode, name);
}

static const struct mapping *mapping_at(uint64_t addr);

/* A record of a piece of M's code (a change of its protection). */
static int piece_of_code(const struct mapping *m, uint64_t start, uint64_t end, uint64_t offset, unsigned modes,
                         unsigned long inode, const char *name)
{
  return m != NULL && (modes & 4) && end <= m->end && same_file_place(m, names[m - current], start, offset, inode, name);
}

static void parse_maps(void)
{
  n_current = 0;
  char *save = NULL;
  for (char *line = strtok_r(maps_text, "\n", &save); line && n_current < MAX_MAPPINGS;
       line = strtok_r(NULL, "\n", &save)) {
    unsigned long long start, end, offset;
    char perms[8];
    unsigned long inode;
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %*s %lu %n", &start, &end, perms, &offset, &inode, &path_at) < 5)
      continue;
    const char *path = path_at ? line + path_at : "";
    if (n_current > 0 && continues_code(&current[n_current - 1], names[n_current - 1], start, offset, inode, path,
                                        perms[2] == 'x')) {
      current[n_current - 1].end = end;
      current[n_current - 1].modes &= perms[1] == 'w' ? ~2u : ~0u;
      continue;
    }
    struct mapping *m = &current[n_current];
    m->start = start;
    m->end = end;
    m->offset = offset;
    m->inode = inode;
    m->modes = (perms[0] == 'r' ? 1u : 0) | (perms[1] == 'w' ? 2u : 0) | (perms[2] == 'x' ? 4u : 0) |
               (perms[3] == 's' ? 8u : 0);
    snprintf(names[n_current], sizeof names[n_current], "%s", path);
    m->named = path[0] == '/' || strcmp(path, "[vdso]") == 0;
    m->listed = m->named && !runtime_object(path);
    m->rel = 0;
    any_unlisted |= m->named && !m->listed;
    n_current++;
  }
}

static int same_mapping(const struct mapping *a, const struct mapping *b)
{
  return a->start == b->start && a->end == b->end && a->offset == b->offset && a->inode == b->inode &&
         a->modes == b->modes;
}

/* A mapping that could not be recorded would leave later samples in it
 * unattributed: profile data stops with it (the end warning says why). */
__attribute__((format(printf, 1, 2))) static void map_record(const char *fmt, ...)
{
  char line[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  int rc = n > 0 && (size_t)n < sizeof line ? er_recordfile_append(&map, line, (size_t)n, 0) : -EMSGSIZE;
  if (rc != 0)
    col_data_stop(-rc);
}

/* The load objects map.xml names, each once: what `collector archive`
 * archives at the end (the runtime does not read map.xml back). */
#define MAX_OBJECTS 2048
static char objects[MAX_OBJECTS][256];
static const char *object_list[MAX_OBJECTS];
static size_t n_objects;

static void note_object(const struct mapping *m, const char *name)
{
  if (m->modes != 5 || name[0] != '/' || n_objects == MAX_OBJECTS) /* what gprofng makes load objects of */
    return;
  for (size_t i = 0; i < n_objects; i++)
    if (strcmp(objects[i], name) == 0)
      return;
  snprintf(objects[n_objects], sizeof objects[n_objects], "%s", name);
  object_list[n_objects] = objects[n_objects];
  n_objects++;
}

const char *const *col_modules_objects(size_t *n)
{
  *n = n_objects;
  return object_list;
}

const char *col_modules_loaded(const char *prefix)
{
  size_t len = strlen(prefix);
  for (size_t i = 0; i < n_objects; i++) {
    const char *base = strrchr(object_list[i], '/') != NULL ? strrchr(object_list[i], '/') + 1 : object_list[i];
    if (strncmp(base, prefix, len) == 0)
      return base;
  }
  return NULL;
}

static void record_map(size_t i, int64_t rel)
{
  const struct mapping *m = &current[i];
  char ts[32], name[600];
  er_format_tstamp(ts, sizeof ts, rel);
  er_xml_escape(names[i], name, sizeof name);
  if (strcmp(names[i], "[vdso]") == 0) {
    /* A function record makes samples in the vDSO show as "[vdso]" (§4.4). */
    map_record("<event kind=\"map\" object=\"function\" tstamp=\"%s\" vaddr=\"0x%016llX\" size=\"%llu\" name=\"[vdso]\" />\n",
                   ts, (unsigned long long)m->start, (unsigned long long)(m->end - m->start));
    return;
  }
  note_object(m, names[i]);
  map_record(
                 "<event kind=\"map\" object=\"segment\" tstamp=\"%s\" vaddr=\"0x%016llX\" size=\"%llu\" pagesz=\"4096\" "
                 "foffset=\"+0x%08llX\" modes=\"0x%03x\" chksum=\"0x%s\" name=\"%s\"/>\n",
                 ts, (unsigned long long)m->start, (unsigned long long)(m->end - m->start),
                 (unsigned long long)m->offset, m->modes, (m->modes & 4) ? "FFFFFFFF" : "00000000", name);
}

/* Set by the sampler process: the kernel's MMAP2 records, in order with the
 * samples, say what is mapped; /proc/PID/maps may already show a later
 * image (the program exec'd again) or nothing (it exited). */
static int from_records;

void col_modules_use_records(void)
{
  from_records = 1;
}

static size_t n_held; /* dlclose's unloads held for the records before them (below) */

void col_modules_restart(void)
{
  from_records = 0;
  n_current = n_previous = 0;
  n_held = 0;
}

static void apply_held_until(int64_t until);

/* A fork child's writer (forked from the sampler at the fork): the
 * mappings known now are the child's; the next open records them. */
static int keep_known;

void col_modules_inherit(void)
{
  keep_known = from_records = 1;
}

static void remove_mapping(size_t i)
{
  memmove(&current[i], &current[i + 1], (n_current - i - 1) * sizeof *current);
  memmove(names[i], names[i + 1], (n_current - i - 1) * sizeof names[0]);
  n_current--;
}

int col_modules_add(uint64_t start, uint64_t end, uint64_t offset, unsigned modes, unsigned long inode,
                    const char *name, int64_t tstamp)
{
  apply_held_until(tstamp - 1); /* the unloads before this mapping */
  if (piece_of_code(mapping_at(start), start, end, offset, modes, inode, name))
    return 0;
  int replaced = 0;
  for (size_t i = 0; i < n_current;)
    if (current[i].start < end && start < current[i].end) {
      replaced = 1; /* a new mapping takes the place of what was there */
      if (current[i].listed && map.fd >= 0) {
        /* It was unmapped before (the kernel's records do not say when):
         * a library dlclose'd, another loaded at its address gets its own
         * names only if map.xml closes the first one's segment first. */
        char ts[32];
        er_format_tstamp(ts, sizeof ts, tstamp - run_tstamp - 1);
        map_record("<event kind=\"unmap\" tstamp=\"%s\" vaddr=\"0x%016llX\"/>\n", ts,
                   (unsigned long long)current[i].start);
      }
      remove_mapping(i);
    } else {
      i++;
    }
  if (n_current == MAX_MAPPINGS)
    return replaced;
  size_t at = 0;
  while (at < n_current && current[at].start < start)
    at++;
  memmove(&current[at + 1], &current[at], (n_current - at) * sizeof *current);
  memmove(names[at + 1], names[at], (n_current - at) * sizeof names[0]);
  n_current++;
  /* A file, or the vDSO; not the kernel's names for anonymous code
   * ("//anon": a JIT's page, named by the Collector API if at all) or a
   * memfd ("/memfd:NAME (deleted)"), which no reader can open. */
  int named = (name[0] == '/' && strcmp(name, "//anon") != 0 && strncmp(name, "/memfd:", 7) != 0) ||
              strcmp(name, "[vdso]") == 0;
  current[at] = (struct mapping){start, end, offset, modes, inode, named, 0, 0};
  current[at].listed = current[at].named && !runtime_object(name);
  current[at].rel = tstamp - run_tstamp;
  any_unlisted |= current[at].named && !current[at].listed;
  snprintf(names[at], sizeof names[at], "%s", name);
  if (current[at].listed && map.fd >= 0)
    record_map(at, tstamp - run_tstamp);
  return replaced;
}

/* Code the program generated and named (collector_func_load): a function
 * record names samples in it, in gprofng and our reader; its unload closes
 * it (gprofng's collector writes the same). */
void col_modules_function(uint64_t vaddr, uint64_t size, const char *name, int64_t tstamp)
{
  char ts[32], escaped[600];
  if (map.fd < 0)
    return;
  er_format_tstamp(ts, sizeof ts, tstamp - run_tstamp);
  er_xml_escape(name, escaped, sizeof escaped);
  map_record("<event kind=\"map\" object=\"function\" tstamp=\"%s\" vaddr=\"0x%016llX\" size=\"%llu\" "
             "name=\"%s\" />\n", ts, (unsigned long long)vaddr, (unsigned long long)size, escaped);
}

void col_modules_function_gone(uint64_t vaddr, int64_t tstamp)
{
  char ts[32];
  if (map.fd < 0)
    return;
  er_format_tstamp(ts, sizeof ts, tstamp - run_tstamp);
  map_record("<event kind=\"unmap\" tstamp=\"%s\" vaddr=\"0x%016llX\"/>\n", ts, (unsigned long long)vaddr);
}

/* A dlclose's unload, applied in time order with the kernel's mapping
 * records (col_modules_unloaded): before, a late word closed the library
 * mapped after it at the same address, or closed the one before late, so
 * that two libraries held one address for a while; over a load/unload
 * loop gprofng charged one library's function with the other's samples
 * (2.2 s of 2.4 s) and warned "loaded with same address". */
#define HELD_UNLOADS 512
static struct held_unload {
  uint64_t start;
  int64_t tstamp;
} held[HELD_UNLOADS];

/* Read from /proc, a new mapping is stamped at the earliest time it can
 * have been made: the previous reading, or a later unload at its address
 * (a dlclose's word), never a moment it was not yet there to be sampled.
 * Stamped when read, a library sampled and gone between two readings took
 * the next one's name at its address (a loop of two libraries dlopened and
 * dlclosed at one address, perf events refused). */
static int64_t last_scan_rel;
#define RECENT_UNLOADS 64
static struct recent_unload {
  uint64_t start;
  int64_t rel;
} recent_unloads[RECENT_UNLOADS];
static unsigned n_recent_unloads;

static void note_unload(uint64_t start, int64_t rel)
{
  recent_unloads[n_recent_unloads++ % RECENT_UNLOADS] = (struct recent_unload){start, rel};
}

static int64_t earliest_new_at(uint64_t start, int64_t now_rel)
{
  int64_t at = last_scan_rel;
  unsigned n = n_recent_unloads < RECENT_UNLOADS ? n_recent_unloads : RECENT_UNLOADS;
  for (unsigned k = 0; k < n; k++)
    if (recent_unloads[k].start == start && recent_unloads[k].rel + 1 > at)
      at = recent_unloads[k].rel + 1; /* (after it: at one time stamp gprofng may order the map first) */
  return at < now_rel ? at : now_rel;
}

/* The mapping at START made before TSTAMP is closed then; one made later
 * has already closed it (col_modules_add). */
static void apply_unload(uint64_t start, int64_t tstamp)
{
  for (size_t i = 0; i < n_current; i++)
    if (current[i].start == start && (current[i].modes & 4) && current[i].rel <= tstamp - run_tstamp) {
      if (current[i].listed && map.fd >= 0) {
        char ts[32];
        er_format_tstamp(ts, sizeof ts, tstamp - run_tstamp);
        map_record("<event kind=\"unmap\" tstamp=\"%s\" vaddr=\"0x%016llX\"/>\n", ts, (unsigned long long)start);
      }
      note_unload(start, tstamp - run_tstamp);
      remove_mapping(i);
      return;
    }
}

/* The held unloads up to UNTIL, oldest first (they come in time order). */
static void apply_held_until(int64_t until)
{
  size_t done = 0;
  while (done < n_held && held[done].tstamp <= until) {
    apply_unload(held[done].start, held[done].tstamp);
    done++;
  }
  memmove(held, held + done, (n_held - done) * sizeof held[0]);
  n_held -= done;
}

void col_modules_unloaded(uint64_t start, int64_t tstamp)
{
  if (!from_records) { /* mappings read from /proc, stamped when read: no record comes to wait for */
    apply_unload(start, tstamp);
    return;
  }
  if (n_held == HELD_UNLOADS)
    apply_held_until(held[0].tstamp); /* (a burst beyond the room: the oldest now) */
  held[n_held++] = (struct held_unload){start, tstamp};
}

void col_modules_settle(int64_t drained_to)
{
  apply_held_until(drained_to);
}

/* One of the runtime's libraries that a new stack runs in is the
 * program's too (it dlopened it, or the runtime's code ran there for it):
 * listed from now on, mapped since it was. */
void col_modules_note_stack(const uint64_t *pcs, size_t n)
{
  if (!any_unlisted || map.fd < 0)
    return;
  for (size_t k = 0; k < n; k++) {
    const struct mapping *m = mapping_at(pcs[k]);
    if (m == NULL || !m->named || m->listed)
      continue;
    size_t i = (size_t)(m - current);
    current[i].listed = 1;
    record_map(i, current[i].rel);
  }
}

int col_modules_rescan(void)
{
  int changed = 0;
  if (map.fd < 0 || from_records)
    return 0;
  /* A process that has ended (or is a zombie) shows no mappings: its last
   * ones stay, for the events still to be written (the sampler process
   * rescanning once a second where perf events are refused: its events
   * lost their libraries' names at the program's end). */
  if (read_maps() == 0)
    return 0;
  memcpy(previous, current, n_current * sizeof *current);
  n_previous = n_current;
  parse_maps();
  int64_t rel = col_hrtime() - run_tstamp;
  char ts[32];
  er_format_tstamp(ts, sizeof ts, rel);
  /* Both lists are sorted by address, as the kernel prints them. */
  size_t i = 0, j = 0;
  while (i < n_current || j < n_previous) {
    if (j == n_previous || (i < n_current && current[i].start < previous[j].start)) {
      current[i].rel = earliest_new_at(current[i].start, rel); /* (new at its address) */
      if (current[i].listed)
        record_map(i, current[i].rel);
      changed |= (current[i].modes & 4) != 0;
      i++;
    } else if (i == n_current || previous[j].start < current[i].start || !same_mapping(&current[i], &previous[j])) {
      if (previous[j].listed)
        map_record("<event kind=\"unmap\" tstamp=\"%s\" vaddr=\"0x%016llX\"/>\n", ts,
                       (unsigned long long)previous[j].start);
      note_unload(previous[j].start, rel);
      changed |= (previous[j].modes & 4) != 0;
      if (i < n_current && previous[j].start == current[i].start) {
        current[i].rel = rel; /* (after the one it replaced, whose end is now) */
        if (current[i].listed)
          record_map(i, rel);
        changed |= (current[i].modes & 4) != 0;
        i++;
      }
      j++;
    } else {
      current[i].rel = previous[j].rel;
      i++, j++;
    }
  }
  last_scan_rel = rel;
  return changed;
}

int col_modules_open(int expdir_fd, int64_t run)
{
  int rc = er_recordfile_create(&map, expdir_fd, "map.xml", 0);
  if (rc < 0)
    return rc;
  run_tstamp = run;
  n_objects = 0;
  last_scan_rel = 0;
  n_recent_unloads = 0;
  if (keep_known) {
    keep_known = 0;
    for (size_t i = 0; i < n_current; i++)
      if (current[i].listed)
        record_map(i, 0);
    return 0;
  }
  n_current = 0;
  col_modules_rescan();
  return 0;
}

/* The mapping containing ADDR in the last scan, or NULL. */
static const struct mapping *mapping_at(uint64_t addr)
{
  size_t lo = 0, hi = n_current;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (current[mid].end <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n_current && addr >= current[lo].start ? &current[lo] : NULL;
}

int col_modules_knows_pc(uint64_t pc)
{
  const struct mapping *m = mapping_at(pc);
  return m != NULL && (m->modes & 4);
}

int col_modules_range_at(uint64_t addr, uint64_t *start, uint64_t *end)
{
  const struct mapping *m = mapping_at(addr);
  if (m == NULL)
    return -1;
  *start = m->start;
  *end = m->end;
  return 0;
}

int col_modules_object_at(uint64_t pc, struct col_mapped_object *out)
{
  const struct mapping *m = mapping_at(pc);
  if (m == NULL || !(m->modes & 4) || !m->named)
    return -1;
  out->start = m->start;
  out->end = m->end;
  out->offset = m->offset;
  out->inode = m->inode;
  out->name = names[m - current];
  return 0;
}

unsigned long col_modules_inode_at(uint64_t addr)
{
  const struct mapping *m = mapping_at(addr);
  return m != NULL ? m->inode : 0;
}

void col_modules_close(void)
{
  er_recordfile_close(&map);
}
