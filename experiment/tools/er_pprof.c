/* An experiment as pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), the format pprof, Pyroscope, Parca, Grafana and
 * OpenTelemetry's profiles read.
 *
 * Each data kind the experiment holds becomes sample types: CPU samples
 * ("samples"/count, "cpu"/nanoseconds), off-CPU time by reason
 * (nanoseconds), each counter (its events), synchronization waits
 * (nanoseconds, count), I/O calls (count, bytes, nanoseconds), allocations
 * (count, bytes).  A sample is one call stack in one thread (its "tid"
 * label) with its value of every type (events summed); a location is one code address, its
 * lines the functions the debug info says are inlined there, innermost
 * first, as profile.proto orders them; a mapping is a load object's
 * executable segment with its build id, read from the file. */
#define _GNU_SOURCE
#include "er_pprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "er/er_archive.h"
#include "er/er_format.h"
#include "er/er_heap_book.h"
#include "er/er_hwc_events.h"
#include "er/er_offcpu.h"
#include "er_intern.h"
#include "er_protobuf.h"

#define MAX_TYPES (12 + ER_HWC_MAX_COUNTERS)
#define MAX_INLINED 16

/* profile.proto's field numbers. */
enum { PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
       PROFILE_STRING = 6, PROFILE_TIME = 9, PROFILE_DURATION = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
       PROFILE_DEFAULT_TYPE = 14 };

struct sample {
  int64_t values[MAX_TYPES]; /* its stack and thread: sample_ids' pair of its id */
};

struct pprof {
  const struct er_experiment *exp;
  struct er_names *names;
  struct er_strings strings;
  struct er_pair_table sample_ids; /* samples by (stack, thread: a "tid" label) */
  struct er_id_table locations;    /* by address: location i + 1's is key[i] */
  struct er_id_table functions;    /* by name: function i + 1's is key[i], a string index */
  uint64_t type[MAX_TYPES], unit[MAX_TYPES]; /* string indexes */
  size_t n_types;
  struct sample *samples;
  size_t n_samples, samples_room;
};

static uint64_t string_index(struct pprof *p, const char *text)
{
  return er_strings_intern(&p->strings, text);
}

static int add_type(struct pprof *p, const char *type, const char *unit)
{
  if (p->n_types == MAX_TYPES)
    return -1;
  p->type[p->n_types] = string_index(p, type);
  p->unit[p->n_types] = string_index(p, unit);
  return (int)p->n_types++;
}

/* The sample of stack FRINFO in thread THREAD (made on first use); NULL
 * when out of memory. */
static struct sample *sample_of(struct pprof *p, uint64_t frinfo, uint64_t thread)
{
  long id = er_pair_id(&p->sample_ids, frinfo, thread);
  if (id < 0)
    return NULL;
  if ((size_t)id < p->n_samples)
    return &p->samples[id];
  struct sample *more = er_grown(p->samples, &p->samples_room, p->n_samples, sizeof *more); /* the next id */
  if (more == NULL)
    return NULL;
  p->samples = more;
  struct sample *s = &p->samples[p->n_samples++];
  memset(s, 0, sizeof *s);
  return s;
}

static void add(struct pprof *p, uint64_t frinfo, uint64_t thread, int type, int64_t value)
{
  struct sample *s = type >= 0 ? sample_of(p, frinfo, thread) : NULL;
  if (s != NULL)
    s->values[type] += value;
}

static uint64_t location_id(struct pprof *p, uint64_t pc)
{
  long id = er_id_of(&p->locations, pc);
  return id < 0 ? 0 : (uint64_t)id + 1;
}

static uint64_t function_id(struct pprof *p, const char *name)
{
  long id = er_id_of(&p->functions, string_index(p, name)); /* a function per name */
  return id < 0 ? 0 : (uint64_t)id + 1;
}

/* Every metric EXP holds, each event added to its stack's sample. */
static void collect(struct pprof *p)
{
  const struct er_experiment *exp = p->exp;
  int64_t tick_ns = exp->ptimer_us * 1000;
  if (exp->ptimer_us > 0) {
    int samples = add_type(p, "samples", "count"), cpu = add_type(p, "cpu", "nanoseconds");
    for (size_t i = 0; i < exp->n_clock; i++) {
      add(p, exp->clock[i].frinfo, exp->clock[i].thrid, samples, exp->clock[i].ntick);
      add(p, exp->clock[i].frinfo, exp->clock[i].thrid, cpu, exp->clock[i].ntick * tick_ns);
    }
  }
  if (exp->numstates >= ER_NUMSTATES) {
    static const char *const names[ER_OFFCPU_REASONS] = {
        NULL, "wait-cpu", "sleep", "io-wait", "lock-wait", "blocked", "stopped", "text-fault", "data-fault"};
    /* The usual reasons always; a stop or page faults where there were. */
    int off[ER_OFFCPU_REASONS], present[ER_OFFCPU_REASONS] = {0};
    for (size_t i = 0; i < exp->n_offcpu; i++)
      present[exp->offcpu[i].reason] = 1;
    for (int r = ER_OFFCPU_RUNNABLE; r < ER_OFFCPU_REASONS; r++)
      off[r] = r <= ER_OFFCPU_BLOCKED || present[r] ? add_type(p, names[r], "nanoseconds") : -1;
    for (size_t i = 0; i < exp->n_offcpu; i++)
      add(p, exp->offcpu[i].frinfo, exp->offcpu[i].thrid, off[exp->offcpu[i].reason], exp->offcpu[i].ntick * tick_ns);
  }
  for (size_t c = 0; c < exp->n_counters; c++) {
    int t = add_type(p, exp->counters[c].name, "events");
    for (size_t i = 0; i < exp->n_hwc_samples; i++)
      if (exp->hwc_samples[i].tag == exp->counters[c].tag)
        add(p, exp->hwc_samples[i].frinfo, exp->hwc_samples[i].thrid, t, (int64_t)exp->hwc_samples[i].interval);
  }
  if (exp->declared[ER_KIND_SYNC]) {
    int wait = add_type(p, "sync-wait", "nanoseconds"), count = add_type(p, "sync-waits", "count");
    for (size_t i = 0; i < exp->n_waits; i++) {
      add(p, exp->waits[i].frinfo, exp->waits[i].thrid, wait, exp->waits[i].end - exp->waits[i].start);
      add(p, exp->waits[i].frinfo, exp->waits[i].thrid, count, 1);
    }
  }
  if (exp->declared[ER_KIND_IO]) {
    int calls = add_type(p, "io-calls", "count"), bytes = add_type(p, "io-bytes", "bytes");
    int time = add_type(p, "io-time", "nanoseconds");
    for (size_t i = 0; i < exp->n_io_calls; i++) {
      add(p, exp->io_calls[i].frinfo, exp->io_calls[i].thrid, calls, 1);
      add(p, exp->io_calls[i].frinfo, exp->io_calls[i].thrid, bytes, exp->io_calls[i].nbytes > 0 ? exp->io_calls[i].nbytes : 0);
      add(p, exp->io_calls[i].frinfo, exp->io_calls[i].thrid, time, exp->io_calls[i].end - exp->io_calls[i].start);
    }
  }
  if (exp->declared[ER_KIND_HEAP]) {
    int objects = add_type(p, "alloc-objects", "count"), space = add_type(p, "alloc-space", "bytes");
    for (size_t i = 0; i < exp->n_heap_events; i++) {
      const struct er_heap_event *e = &exp->heap_events[i];
      if (!er_heap_allocates(e)) /* (a failed one allocated nothing: gprofng's count, the report's) */
        continue;
      add(p, e->frinfo, e->thrid, objects, 1);
      add(p, e->frinfo, e->thrid, space, (int64_t)e->size);
    }
  }
}

/* The GNU build id of the ELF file PATH, in hex, into OUT ("" when none). */
static void build_id(const char *path, char *out, size_t len)
{
  out[0] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && er_build_id_of_fd(fd, out, len) != 0)
    out[0] = '\0';
  if (fd >= 0)
    close(fd);
}

/* pprof's mappings are the code's: a load object's segments without
 * code (map.xml lists them where the maps came from /proc: perf events
 * refused) are not written. */
static int code_segment(const struct er_segment *seg)
{
  return (seg->modes & 4) != 0;
}

static uint64_t mapping_id(const struct pprof *p, uint64_t pc)
{
  const struct er_segment *seg = er_experiment_segment(p->exp, pc);
  return seg == NULL || !code_segment(seg) ? 0 : (uint64_t)(seg - p->exp->segments) + 1;
}

/* The run's length: to its exit, else to its last sample point. */
static uint64_t run_duration_ns(const struct er_experiment *exp)
{
  int64_t end = exp->exit_tstamp;
  for (size_t i = 0; end <= 0 && i < exp->n_sample_events; i++)
    end = exp->sample_tstamps[i] > end ? exp->sample_tstamps[i] : end;
  return end > 0 ? (uint64_t)end : 0;
}

/* The profile message: samples (locations made as their stacks need
 * them), then mappings, locations, functions and the strings. */
static void encode(struct pprof *p, struct pb_buffer *out)
{
  struct pb_buffer m = {0}, line = {0}, label = {0};
  uint64_t tid_key = string_index(p, "tid");
  for (size_t t = 0; t < p->n_types; t++) {
    pb_reset(&m);
    pb_varint_field_nonzero(&m, 1, p->type[t]);
    pb_varint_field_nonzero(&m, 2, p->unit[t]);
    pb_message_field(out, PROFILE_SAMPLE_TYPE, &m);
  }
  uint64_t ids[ER_MAX_STACK_DEPTH + 2];
  uint64_t values[MAX_TYPES];
  for (size_t i = 0; i < p->n_samples; i++) {
    const struct er_stack *st = er_experiment_stack(p->exp, p->sample_ids.first[i]);
    size_t n = 0;
    for (size_t k = 0; st != NULL && k < st->n && n < sizeof ids / sizeof ids[0]; k++)
      ids[n++] = location_id(p, st->pcs[k]);
    for (size_t t = 0; t < p->n_types; t++)
      values[t] = (uint64_t)p->samples[i].values[t];
    pb_reset(&m);
    pb_packed_field(&m, 1, ids, n);
    pb_packed_field(&m, 2, values, p->n_types);
    pb_reset(&label); /* its thread (pprof -tagfocus tid=N, Pyroscope's and Parca's thread filter) */
    pb_varint_field(&label, 1, tid_key);
    pb_varint_field(&label, 3, p->sample_ids.second[i]);
    pb_message_field(&m, 3, &label);
    pb_message_field(out, PROFILE_SAMPLE, &m);
  }
  for (size_t s = 0; s < p->exp->n_segments; s++) {
    const struct er_segment *seg = &p->exp->segments[s];
    if (!code_segment(seg))
      continue;
    char id[130];
    build_id(seg->name, id, sizeof id);
    pb_reset(&m);
    pb_varint_field(&m, 1, s + 1);
    pb_varint_field_nonzero(&m, 2, seg->vaddr);
    pb_varint_field_nonzero(&m, 3, seg->vaddr + seg->size);
    pb_varint_field_nonzero(&m, 4, seg->foffset);
    pb_varint_field_nonzero(&m, 5, string_index(p, seg->name));
    pb_varint_field_nonzero(&m, 6, id[0] ? string_index(p, id) : 0);
    pb_varint_field(&m, 7, 1);  /* has_functions */
    pb_varint_field(&m, 10, 1); /* has_inline_frames */
    pb_message_field(out, PROFILE_MAPPING, &m);
  }
  /* Each function's source file: its first location's that has a line. */
  uint64_t *function_file = calloc(p->locations.n * MAX_INLINED + 1, sizeof *function_file);
  for (size_t i = 0; i < p->locations.n; i++) {
    const char *frames[MAX_INLINED], *file = NULL;
    uint64_t pc = p->locations.key[i];
    size_t n = er_names_frames(p->names, pc, frames, MAX_INLINED);
    int at_line = 0;
    if (er_names_line(p->names, pc, &file, &at_line) != 0)
      at_line = 0;
    pb_reset(&m);
    pb_varint_field(&m, 1, i + 1);
    pb_varint_field_nonzero(&m, 2, pc == ER_PC_TRUNCATED || pc == ER_PC_UNWIND_FAILED ? 0 : mapping_id(p, pc));
    pb_varint_field_nonzero(&m, 3, pc == ER_PC_TRUNCATED || pc == ER_PC_UNWIND_FAILED ? 0 : pc);
    for (size_t k = 0; k < n; k++) {
      uint64_t function = function_id(p, frames[k]);
      pb_reset(&line);
      pb_varint_field(&line, 1, function);
      /* (the PC's line is its innermost function's, listed first) */
      if (k == 0 && at_line > 0) {
        pb_varint_field(&line, 2, (uint64_t)at_line);
        if (function_file != NULL && function > 0 && function <= p->locations.n * MAX_INLINED &&
            function_file[function] == 0)
          function_file[function] = string_index(p, file);
      }
      pb_message_field(&m, 4, &line);
    }
    pb_message_field(out, PROFILE_LOCATION, &m);
  }
  for (size_t i = 0; i < p->functions.n; i++) {
    pb_reset(&m);
    pb_varint_field(&m, 1, i + 1);
    pb_varint_field_nonzero(&m, 2, p->functions.key[i]);
    pb_varint_field_nonzero(&m, 3, p->functions.key[i]);
    if (function_file != NULL && i + 1 <= p->locations.n * MAX_INLINED)
      pb_varint_field_nonzero(&m, 4, function_file[i + 1]);
    pb_message_field(out, PROFILE_FUNCTION, &m);
  }
  free(function_file);
  /* When the run began (wall clock) and how long it ran: pprof's -top
   * header, Pyroscope's and Parca's time axis. */
  pb_varint_field_nonzero(out, PROFILE_TIME, p->exp->run_time > 0 ? (uint64_t)p->exp->run_time * 1000000000ULL : 0);
  pb_varint_field_nonzero(out, PROFILE_DURATION, run_duration_ns(p->exp));
  if (p->exp->ptimer_us > 0) {
    pb_reset(&m);
    pb_varint_field(&m, 1, string_index(p, "cpu"));
    pb_varint_field(&m, 2, string_index(p, "nanoseconds"));
    pb_message_field(out, PROFILE_PERIOD_TYPE, &m);
    pb_varint_field(out, PROFILE_PERIOD, (uint64_t)p->exp->ptimer_us * 1000);
    pb_varint_field(out, PROFILE_DEFAULT_TYPE, string_index(p, "cpu"));
  }
  for (size_t i = 0; i < p->strings.n; i++)
    pb_string_field(out, PROFILE_STRING, p->strings.text[i]);
  pb_free(&m);
  pb_free(&line);
  pb_free(&label);
}

/* B, gzip-compressed, into OUT (through a descriptor of its own: closing
 * the compressor closes that one, not OUT's). */
static int write_gzip(FILE *out, const struct pb_buffer *b, char *err, size_t err_len)
{
  int fd = fflush(out) == 0 ? dup(fileno(out)) : -1;
  gzFile gz = fd >= 0 ? gzdopen(fd, "wb9") : NULL;
  if (gz == NULL) {
    if (fd >= 0)
      close(fd);
    snprintf(err, err_len, "cannot compress: %s", strerror(errno));
    return -1;
  }
  int written = b->len == 0 ? 0 : gzwrite(gz, b->data, (unsigned)b->len);
  if (gzclose(gz) != Z_OK || (size_t)written != b->len) {
    snprintf(err, err_len, "cannot write the compressed profile");
    return -1;
  }
  return 0;
}

int er_pprof_write(FILE *out_file, const struct er_experiment *exp, struct er_names *names, char *err,
                   size_t err_len)
{
  struct pprof p;
  memset(&p, 0, sizeof p);
  p.exp = exp;
  p.names = names;
  string_index(&p, ""); /* string 0 is the empty string */
  collect(&p);
  struct pb_buffer out = {0};
  encode(&p, &out);
  int rc = out.failed ? (snprintf(err, err_len, "out of memory"), -1) : write_gzip(out_file, &out, err, err_len);
  pb_free(&out);
  er_strings_free(&p.strings);
  free(p.samples);
  er_pair_table_free(&p.sample_ids);
  er_id_table_free(&p.locations);
  er_id_table_free(&p.functions);
  return rc;
}
