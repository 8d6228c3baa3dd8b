/* Experiment reader; see er/er_reader.h. */
#define _GNU_SOURCE
#include "er/er_reader.h"
#include "er_reader_parts.h"
#include "er/er_mpi_calls.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "er/er_fileutil.h"
#include "er_room.h"
#include "er/er_offcpu.h"
#include "er/er_format.h"
#include "er/er_omp.h"
#include "er/er_xml.h"

/* Data files are read whole; none of ours comes near this size. */
#define MAX_DATA_FILE (1ULL << 34)

static int slurp(const char *dir, const char *name, unsigned char **out, size_t *len)
{
  return er_read_file(dir, name, 0, 0, MAX_DATA_FILE, (char **)out, len);
}

/* "SECONDS.NANOSECONDS" (§2.2); anything this format cannot hold is 0. */
static int64_t parse_tstamp(const char *text)
{
  char *end;
  errno = 0;
  long long sec = strtoll(text, &end, 10);
  if (errno != 0 || end == text || sec > INT64_MAX / 1000000000LL - 1 || sec < INT64_MIN / 1000000000LL + 1)
    return 0;
  int64_t ns = 0, scale = 100000000;
  if (*end == '.')
    for (const char *d = end + 1; *d >= '0' && *d <= '9' && scale > 0; d++, scale /= 10)
      ns += (*d - '0') * scale;
  return sec * 1000000000LL + (text[0] == '-' ? -ns : ns);
}

static void push_string(char ***list, size_t *n, char *s)
{
  if (s == NULL || er_room_for(list, *n, sizeof **list) != 0) {
    free(s);
    return;
  }
  (*list)[(*n)++] = s;
}

static int64_t tstamp_of(xmlNode *el)
{
  char v[64];
  return er_xml_attr(el, "tstamp", v, sizeof v) ? parse_tstamp(v) : 0;
}

static void add_sample_event(struct er_experiment *exp, xmlNode *el)
{
  char v[4096];
  size_t n = exp->n_sample_events;
  char *label = strdup(er_xml_attr(el, "label", v, sizeof v) ? v : "");
  if (label == NULL || er_room_for(&exp->sample_tstamps, n, sizeof *exp->sample_tstamps) != 0 ||
      er_room_for(&exp->sample_labels, n, sizeof *exp->sample_labels) != 0) {
    free(label);
    exp->damaged_packets++; /* (out of memory: the numbers are not to be trusted) */
    return;
  }
  exp->sample_tstamps[n] = tstamp_of(el);
  exp->sample_labels[n] = label;
  exp->n_sample_events++;
}

static void add_warning(struct er_experiment *exp, xmlNode *el)
{
  /* "id N: text": the id says what the reader will print (§3.7) */
  char v[64], *text = er_xml_text(el), *item = NULL;
  if (asprintf(&item, "id %s: %s", er_xml_attr(el, "id", v, sizeof v) ? v : "?", text) < 0)
    item = NULL;
  free(text);
  push_string(&exp->warnings, &exp->n_warnings, item ? item : strdup(""));
}

static void parse_log_element(void *ctx, xmlNode *el)
{
  struct er_experiment *exp = ctx;
  char v[64];
  if (er_xml_is(el, "profile", NULL) && er_xml_attr(el, "name", v, sizeof v) && strcmp(v, ER_HWC_PROFILE_NAME) == 0) {
    char name[256];
    struct er_hwc_declared c = {0, 0, NULL};
    c.tag = er_xml_attr(el, "tag", v, sizeof v) ? (uint32_t)strtoul(v, NULL, 10) : 0;
    c.interval = er_xml_attr(el, "interval", v, sizeof v) ? strtoull(v, NULL, 10) : 0;
    c.name = strdup(er_xml_attr(el, "hwcname", name, sizeof name) ? name : "?");
    if (c.name == NULL || er_room_for(&exp->counters, exp->n_counters, sizeof *exp->counters) != 0) {
      free(c.name);
      exp->damaged_packets++; /* (out of memory) */
      return;
    }
    exp->counters[exp->n_counters++] = c;
    exp->declared[ER_KIND_HWC] = 1;
  } else if (er_xml_is(el, "profile", NULL)) {
    const struct er_kind_desc *kind = er_xml_attr(el, "name", v, sizeof v) ? er_kind_named(v) : NULL;
    if (kind == NULL)
      return;
    /* The kinds its packets are (a block may hold another kind's, written
     * in its shape: MPI calls in iotrace); a block with none, its own. */
    int packets = 0;
    for (xmlNode *child = el->children; child != NULL; child = child->next) {
      int k = er_xml_is(child, "profpckt", NULL) && er_xml_attr(child, "kind", v, sizeof v)
                  ? er_kind_of_packet_type((unsigned)strtoul(v, NULL, 10))
                  : -1;
      if (k >= 0)
        exp->declared[k] = packets = 1;
    }
    if (!packets)
      exp->declared[kind - er_kinds] = 1;
    if (kind == &er_kinds[ER_KIND_CLOCK]) {
      if (er_xml_attr(el, "ptimer", v, sizeof v))
        exp->ptimer_us = atol(v);
      if (er_xml_attr(el, "numstates", v, sizeof v))
        exp->numstates = atoi(v);
    } else if (kind == &er_kinds[ER_KIND_SYNC]) {
      exp->sync_threshold_us = er_xml_attr(el, "threshold", v, sizeof v) ? atol(v) : -1;
    }
  } else if (er_xml_is(el, "process", NULL) && xmlHasProp(el, (const xmlChar *)"cwd")) {
    char cwd[4096 * 4];
    free(exp->cwd);
    exp->cwd = strdup(er_xml_attr(el, "cwd", cwd, sizeof cwd) ? cwd : "");
  } else if (er_xml_is(el, "event", "run")) {
    exp->has_run = 1;
    exp->has_exit = 0; /* an exit must follow the last run */
    exp->run_tstamp = tstamp_of(el);
    const char *when = er_xml_attr(el, "time", v, sizeof v);
    exp->run_time = when != NULL ? strtoll(when, NULL, 10) : 0;
  } else if (er_xml_is(el, "event", "exit") || er_xml_is(el, "event", "exec_start")) {
    /* An exec ends the experiment as normally as an exit (§3). */
    exp->has_exit = 1;
    exp->ended_by_exec = er_xml_is(el, "event", "exec_start");
    const char *how = er_xml_attr(el, "how", v, sizeof v);
    exp->ended_killed = how != NULL && strcmp(how, "killed") == 0;
    exp->ended_sampler_died = how != NULL && strcmp(how, "sampler") == 0;
    free(exp->ended_early);
    char why[512];
    exp->ended_early = how != NULL && strcmp(how, "collector") == 0
                           ? strdup(er_xml_attr(el, "why", why, sizeof why) ? why : "")
                           : NULL;
    exp->exit_tstamp = tstamp_of(el);
  } else if (er_xml_is(el, "event", "exec_error")) {
    exp->has_exit = 0; /* the exec failed: the experiment went on */
    exp->ended_by_exec = 0;
  } else if (er_xml_is(el, "event", "sample")) {
    add_sample_event(exp, el);
  } else if (er_xml_is(el, "event", "pause")) {
    if (er_room_for(&exp->pauses, exp->n_pauses, sizeof *exp->pauses) != 0) {
      exp->damaged_packets++; /* (out of memory) */
      return;
    }
    exp->pauses[exp->n_pauses].start = tstamp_of(el);
    exp->pauses[exp->n_pauses++].end = -1;
  } else if (er_xml_is(el, "event", "resume")) {
    if (exp->n_pauses > 0 && exp->pauses[exp->n_pauses - 1].end < 0)
      exp->pauses[exp->n_pauses - 1].end = tstamp_of(el);
  } else if (er_xml_is(el, "event", "comment")) {
    push_string(&exp->comments, &exp->n_comments, er_xml_text(el));
  } else if (er_xml_is(el, "event", "cwarn") || er_xml_is(el, "event", "cerror")) {
    add_warning(exp, el);
  }
}

static void parse_map_element(void *ctx, xmlNode *el)
{
  struct er_experiment *exp = ctx;
  char v[4096];
  if (er_xml_is(el, "event", "map") && er_xml_attr(el, "object", v, sizeof v) && strcmp(v, "segment") == 0) {
    struct er_segment seg = {0};
    seg.unmap_tstamp = -1;
    if (er_xml_attr(el, "vaddr", v, sizeof v))
      seg.vaddr = strtoull(v, NULL, 0);
    if (er_xml_attr(el, "size", v, sizeof v))
      seg.size = strtoull(v, NULL, 0);
    if (er_xml_attr(el, "foffset", v, sizeof v))
      seg.foffset = (uint64_t)strtoll(v, NULL, 0);
    if (er_xml_attr(el, "modes", v, sizeof v))
      seg.modes = (unsigned)strtoul(v, NULL, 0);
    seg.tstamp = tstamp_of(el);
    seg.name = strdup(er_xml_attr(el, "name", v, sizeof v) ? v : "");
    if (seg.name == NULL || er_room_for(&exp->segments, exp->n_segments, sizeof *exp->segments) != 0) {
      free(seg.name);
      exp->damaged_packets++; /* (out of memory) */
      return;
    }
    exp->segments[exp->n_segments++] = seg;
  } else if (er_xml_is(el, "event", "map") && er_xml_attr(el, "object", v, sizeof v) && strcmp(v, "function") == 0) {
    struct er_code_region region = {0};
    if (er_xml_attr(el, "vaddr", v, sizeof v))
      region.vaddr = strtoull(v, NULL, 0);
    if (er_xml_attr(el, "size", v, sizeof v))
      region.size = strtoull(v, NULL, 0);
    region.name = strdup(er_xml_attr(el, "name", v, sizeof v) ? v : "");
    if (region.name == NULL || er_room_for(&exp->code_regions, exp->n_code_regions, sizeof *exp->code_regions) != 0) {
      free(region.name);
      return;
    }
    exp->code_regions[exp->n_code_regions++] = region;
  } else if (er_xml_is(el, "event", "unmap")) {
    if (!er_xml_attr(el, "vaddr", v, sizeof v))
      return;
    uint64_t vaddr = strtoull(v, NULL, 0);
    int64_t when = tstamp_of(el);
    for (size_t i = exp->n_segments; i-- > 0;)
      if (exp->segments[i].vaddr == vaddr && exp->segments[i].unmap_tstamp < 0) {
        exp->segments[i].unmap_tstamp = when;
        break;
      }
  }
}

size_t er_walk_packets(const unsigned char *data, size_t len,
                       void (*fn)(const unsigned char *packet, uint16_t type, uint16_t size, void *arg), void *arg)
{
  size_t off = 0, invalid = 0;
  while (off + 4 <= len) {
    struct er_packet_header h;
    memcpy(&h, data + off, sizeof h);
    if (h.tsize == 0) {
      off = (off / ER_READER_CHUNK + 1) * ER_READER_CHUNK;
      continue;
    }
    if (h.tsize % 4 != 0 || h.tsize < 4) {
      invalid++;
      off = (off / ER_READER_CHUNK + 1) * ER_READER_CHUNK;
      continue;
    }
    if (off + h.tsize > len && h.type != ER_PKT_EMPTY && h.type != ER_PKT_CLOSED)
      break; /* runs past the end: the reader stops quietly */
    if (h.type != ER_PKT_EMPTY && h.type != ER_PKT_CLOSED)
      fn(data + off, h.type, h.tsize, arg);
    off += h.tsize;
  }
  return invalid;
}

/* Every length inside the packet is checked against the packet before it
 * is used; a packet that contradicts itself is skipped and counted. */
static void collect_frame(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type == ER_PKT_UID)
    er_collect_user_stack(exp, p, size);
  if (type != ER_PKT_FRAME)
    return;
  struct er_frame_packet head;
  struct er_frame_info info;
  if (size < sizeof head) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&head, p, sizeof head);
  if (head.hsize < sizeof head || (uint64_t)head.hsize + sizeof info > size) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&info, p + head.hsize, sizeof info);
  if ((info.kind & ~ER_FRAME_INFO_COMPRESSED) != ER_FRAME_INFO_STACK || info.hsize < sizeof info ||
      (uint64_t)head.hsize + info.hsize > size || (info.hsize - sizeof info) % 8 != 0) {
    exp->damaged_packets++;
    return;
  }
  struct er_stack st = {head.uid, (info.hsize - sizeof info) / 8, NULL, 0, 0, NULL, 0};
  /* An OpenMP thread's sample: its state after the stack (§6.1a). */
  struct er_frame_omp2 omp;
  uint64_t after = (uint64_t)head.hsize + info.hsize;
  if (after + sizeof omp <= size) {
    memcpy(&omp, p + after, sizeof omp);
    if (omp.kind == ER_FRAME_INFO_OMP2 && omp.hsize == sizeof omp && omp.omp_state < ER_OMP_N_STATES) {
      st.omp_state = (int)omp.omp_state;
      st.user_uid = omp.uid;
    }
  }
  st.pcs = malloc(st.n * 8 + 8);
  if (st.pcs == NULL || er_room_for(&exp->stacks, exp->n_stacks, sizeof *exp->stacks) != 0) {
    free(st.pcs);
    exp->damaged_packets++; /* (out of memory) */
    return;
  }
  memcpy(st.pcs, p + head.hsize + sizeof info, st.n * 8);
  exp->stacks[exp->n_stacks++] = st;
}

static void collect_clock(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_CLOCK)
    return;
  if (size != sizeof(struct er_clock_packet)) {
    exp->damaged_packets++;
    return;
  }
  struct er_clock_packet pk;
  memcpy(&pk, p, sizeof pk);
  struct er_clock_sample s = {pk.lwpid, pk.thrid, pk.cpuid, pk.tstamp, pk.frinfo, pk.mstate, pk.ntick, pk.reason};
  if (!er_mstate_on_cpu(pk.mstate)) {
    /* Time off the CPU (collector profile offcpu): kept apart, so that
     * what reads CPU samples reads only those. */
    if (s.reason == ER_OFFCPU_NONE || s.reason >= ER_OFFCPU_REASONS)
      s.reason = ER_OFFCPU_BLOCKED;
    if (er_room_for(&exp->offcpu, exp->n_offcpu, sizeof *exp->offcpu) != 0)
      exp->damaged_packets++; /* (out of memory) */
    else
      exp->offcpu[exp->n_offcpu++] = s;
    return;
  }
  s.reason = ER_OFFCPU_NONE;
  if (er_room_for(&exp->clock, exp->n_clock, sizeof *exp->clock) != 0) {
    exp->damaged_packets++; /* (out of memory) */
    return;
  }
  exp->clock[exp->n_clock++] = s;
}

static void collect_sync(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_SYNC)
    return;
  struct er_sync_packet pk;
  if (size != sizeof pk) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&pk, p, sizeof pk);
  /* A wait that ended before it began, or began before the clock's zero:
   * hrtime is never negative, and so a wait's length END - START always
   * fits in an int64 (what er-dump sums). */
  if (pk.srqst > pk.tstamp || pk.srqst < 0) {
    exp->damaged_packets++;
    return;
  }
  struct er_sync_wait w = {pk.thrid, pk.srqst, pk.tstamp, pk.frinfo, pk.sobj};
  if (er_room_for(&exp->waits, exp->n_waits, sizeof *exp->waits) != 0) {
    exp->damaged_packets++; /* (out of memory) */
    return;
  }
  exp->waits[exp->n_waits++] = w;
}

static void collect_io(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_IOTRACE)
    return;
  struct er_io_packet pk;
  size_t name_at = offsetof(struct er_io_packet, iofname);
  /* the name is what lies between its offset and the packet's end, up to a NUL */
  if (size < sizeof pk || size % 8 != 0 || memchr(p + name_at, '\0', size - name_at) == NULL) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&pk, p, sizeof pk);
  /* as for a wait: START <= END and START >= 0, so END - START fits */
  if (pk.iorqst > pk.tstamp || pk.iorqst < 0 || pk.iotype < 0 || pk.iotype > 9 || pk.ionbyte < 0) {
    exp->damaged_packets++;
    return;
  }
  const char *name = (const char *)p + name_at;
  struct er_io_call c = {pk.thrid, pk.iorqst, pk.tstamp, pk.frinfo, pk.iotype, pk.iofd, pk.iofd_original,
                         pk.ionbyte, name[0] != '\0' ? strdup(name) : NULL};
  if (er_room_for(&exp->io_calls, exp->n_io_calls, sizeof *exp->io_calls) != 0) {
    free(c.name);
    exp->damaged_packets++; /* (out of memory) */
    return;
  }
  exp->io_calls[exp->n_io_calls++] = c;
}

static void collect_heap(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_HEAP)
    return;
  struct er_heap_packet pk;
  if (size != sizeof pk) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&pk, p, sizeof pk);
  if (pk.htype < ER_HEAP_MALLOC || pk.htype > ER_HEAP_MUNMAP) {
    exp->damaged_packets++;
    return;
  }
  struct er_heap_event h = {pk.thrid, pk.tstamp, pk.frinfo, pk.htype, pk.hsize, pk.hvaddr, pk.hovaddr};
  if (er_room_for(&exp->heap_events, exp->n_heap_events, sizeof *exp->heap_events) != 0) {
    exp->damaged_packets++; /* (out of memory) */
    return;
  }
  exp->heap_events[exp->n_heap_events++] = h;
}

static void collect_hwc(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_HW)
    return;
  struct er_hwc_packet pk;
  if (size != sizeof pk) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&pk, p, sizeof pk);
  struct er_hwc_sample s = {pk.thrid, pk.tstamp, pk.frinfo, pk.hwctag, pk.hwcint};
  if (er_room_for(&exp->hwc_samples, exp->n_hwc_samples, sizeof *exp->hwc_samples) != 0) {
    exp->damaged_packets++; /* (out of memory) */
    return;
  }
  exp->hwc_samples[exp->n_hwc_samples++] = s;
}

static void walk_file(const char *dir, const char *name, struct er_experiment *exp,
                      void (*fn)(const unsigned char *, uint16_t, uint16_t, void *))
{
  unsigned char *data;
  size_t len;
  if (slurp(dir, name, &data, &len) == 0) {
    exp->invalid_packets += er_walk_packets(data, len, fn, exp);
    free(data);
  }
}

/* Reads the XML file NAME of the experiment at PATH into EXP; 0, or -1
 * with a message in ERR (a missing file is an error when REQUIRED). */
static int read_xml(const char *path, struct er_experiment *exp, const char *name, void (*fn)(void *, xmlNode *),
                    int required, char *err, size_t err_len)
{
  char why[512];
  int rc = er_xml_each_element(path, name, fn, exp, why, sizeof why);
  if (rc == -EILSEQ) {
    snprintf(err, err_len, "%s: %s", path, why);
    return -1;
  }
  if (rc < 0 && (required || rc != -ENOENT)) {
    snprintf(err, err_len, "%s: cannot read %s: %s", path, name, strerror(-rc));
    return -1;
  }
  return 0;
}

static int begin_reading(const char *path, struct er_experiment *exp, const char *name,
                         void (*fn)(void *, xmlNode *), char *err, size_t err_len)
{
  memset(exp, 0, sizeof *exp);
  exp->path = strdup(path);
  if (read_xml(path, exp, name, fn, 1, err, err_len) != 0) {
    er_experiment_close(exp);
    return -1;
  }
  return 0;
}

int er_experiment_open_map(const char *path, struct er_experiment *exp, char *err, size_t err_len)
{
  return begin_reading(path, exp, "map.xml", parse_map_element, err, err_len);
}

static const struct er_kind_reading {
  void (*collect)(const unsigned char *packet, uint16_t type, uint16_t size, void *exp);
  void (*release)(struct er_experiment *exp);
} kind_readings[ER_N_KINDS];

int er_experiment_open(const char *path, struct er_experiment *exp, char *err, size_t err_len)
{
  if (begin_reading(path, exp, "log.xml", parse_log_element, err, err_len) != 0)
    return -1;
  if (read_xml(path, exp, "map.xml", parse_map_element, 0, err, err_len) != 0) {
    er_experiment_close(exp);
    return -1;
  }
  walk_file(path, "data.frameinfo", exp, collect_frame);
  if (exp->n_stacks > 0)
    qsort(exp->stacks, exp->n_stacks, sizeof *exp->stacks, er_stack_by_frame_uid);
  er_experiment_resolve_user_stacks(exp);
  /* Each kind's file (the clock's is read even when log.xml does not
   * declare it: er-dump reports what it holds). */
  for (int k = 0; k < ER_N_KINDS; k++)
    if (k == ER_KIND_CLOCK || exp->declared[k])
      walk_file(path, er_kinds[er_kind_file_owner((enum er_kind)k)].name, exp, kind_readings[k].collect);
  er_experiment_resolve_reused_ranges(exp);
  er_read_thread_names(path, exp);
  char ov[4096];
  struct stat st;
  snprintf(ov, sizeof ov, "%s/overview", path);
  if (stat(ov, &st) == 0)
    exp->overview_bytes = (size_t)st.st_size;
  return 0;
}

static void release_clock(struct er_experiment *exp)
{
  free(exp->clock);
  free(exp->offcpu);
}

static void release_sync(struct er_experiment *exp)
{
  free(exp->waits);
}

static void release_io(struct er_experiment *exp)
{
  for (size_t i = 0; i < exp->n_io_calls; i++)
    free(exp->io_calls[i].name);
  free(exp->io_calls);
}

static void release_heap(struct er_experiment *exp)
{
  free(exp->heap_events);
}

static void release_hwc(struct er_experiment *exp)
{
  for (size_t i = 0; i < exp->n_counters; i++) /* (declared in log.xml, read with it) */
    free(exp->counters[i].name);
  free(exp->counters);
  free(exp->hwc_samples);
}

static void release_lock_orders(struct er_experiment *exp)
{
  free(exp->lock_orders);
}

static void release_races(struct er_experiment *exp)
{
  free(exp->races);
}

/* What the reader does for each data kind (er_data_kinds.h's table): COLLECT
 * keeps a packet of its file into the experiment's arrays for it, RELEASE
 * frees them.  A new kind's reading is its two functions here and its
 * arrays in struct er_experiment. */
static const struct er_kind_reading kind_readings[ER_N_KINDS] = {
    [ER_KIND_CLOCK] = {collect_clock, release_clock},
    [ER_KIND_SYNC] = {collect_sync, release_sync},
    [ER_KIND_IO] = {collect_io, release_io},
    [ER_KIND_HEAP] = {collect_heap, release_heap},
    [ER_KIND_HWC] = {collect_hwc, release_hwc},
    [ER_KIND_MPI] = {er_collect_mpi, er_free_mpi_calls},
    [ER_KIND_LOCK_ORDER] = {er_collect_lock_order, release_lock_orders},
    [ER_KIND_RACE] = {er_collect_race, release_races},
};

void er_experiment_close(struct er_experiment *exp)
{
  free(exp->path);
  free(exp->cwd);
  free(exp->ended_early);
  for (size_t i = 0; i < exp->n_comments; i++)
    free(exp->comments[i]);
  for (size_t i = 0; i < exp->n_sample_events; i++)
    free(exp->sample_labels[i]);
  free(exp->sample_labels);
  free(exp->sample_tstamps);
  free(exp->pauses);
  for (size_t i = 0; i < exp->n_warnings; i++)
    free(exp->warnings[i]);
  for (size_t i = 0; i < exp->n_segments; i++)
    free(exp->segments[i].name);
  for (size_t i = 0; i < exp->n_stacks; i++)
    free(exp->stacks[i].pcs);
  free(exp->comments);
  free(exp->warnings);
  free(exp->segments);
  for (size_t i = 0; i < exp->n_code_regions; i++)
    free(exp->code_regions[i].name);
  free(exp->code_regions);
  free(exp->stacks);
  er_free_user_stacks(exp);
  for (int k = 0; k < ER_N_KINDS; k++)
    kind_readings[k].release(exp);
  er_free_thread_names(exp);
  memset(exp, 0, sizeof *exp);
}

