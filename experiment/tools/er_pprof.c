/* An experiment as pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), the format pprof, Pyroscope, Parca, Grafana and
 * OpenTelemetry's profiles read.
 *
 * Each data kind the experiment holds becomes sample types: CPU samples
 * ("samples"/count, "cpu"/nanoseconds), off-CPU time by reason
 * (nanoseconds), each counter (its events), synchronization waits
 * (nanoseconds, count), I/O calls (count, bytes, nanoseconds), allocations
 * (count, bytes).  A sample is one call stack in one thread of one process
 * (its "tid" and "process" labels) with its value of every type (events
 * summed); a location is one code address of one process, its lines the
 * functions the debug info says are inlined there, innermost first, as
 * profile.proto orders them; a mapping is a load object's executable
 * segment in one process, with its build id, read from the file.  Every
 * process of a run (the founder and its descendants, an MPI job's ranks)
 * goes into one profile: their types are the union of theirs. */
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
  const struct er_experiment *const *exps;
  struct er_names *const *names;
  const char *const *labels; /* each process's "process" label (NULL: none) */
  size_t n_processes, process; /* (the process being collected) */
  struct er_strings strings;
  struct er_pair_table sample_ids; /* samples by (stack, process << 32 | thread) */
  struct er_pair_table locations;  /* by (process, address): location i + 1's */
  struct er_id_table functions;    /* by name: function i + 1's is key[i], a string index */
  uint64_t type[MAX_TYPES], unit[MAX_TYPES]; /* string indexes */
  size_t n_types;
  struct sample *samples;
  size_t n_samples, samples_room;
  uint64_t *mapping_base; /* by process: its first mapping's id */
};

static uint64_t string_index(struct pprof *p, const char *text)
{
  return er_strings_intern(&p->strings, text);
}

/* The sample type TYPE in UNIT: one for every process that has it. */
static int add_type(struct pprof *p, const char *type, const char *unit)
{
  uint64_t t = string_index(p, type), u = string_index(p, unit);
  for (size_t i = 0; i < p->n_types; i++)
    if (p->type[i] == t && p->unit[i] == u)
      return (int)i;
  if (p->n_types == MAX_TYPES)
    return -1;
  p->type[p->n_types] = t;
  p->unit[p->n_types] = u;
  return (int)p->n_types++;
}

/* The sample of stack FRINFO in thread THREAD (made on first use); NULL
 * when out of memory. */
static struct sample *sample_of(struct pprof *p, uint64_t frinfo, uint64_t thread)
{
  long id = er_pair_id(&p->sample_ids, frinfo, (uint64_t)p->process << 32 | (thread & 0xffffffffu));
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

static uint64_t location_id(struct pprof *p, size_t process, uint64_t pc)
{
  long id = er_pair_id(&p->locations, process, pc);
  return id < 0 ? 0 : (uint64_t)id + 1;
}

static uint64_t function_id(struct pprof *p, const char *name)
{
  long id = er_id_of(&p->functions, string_index(p, name)); /* a function per name */
  return id < 0 ? 0 : (uint64_t)id + 1;
}

/* Every metric process P->process holds, each event added to its stack's
 * sample. */
static void collect(struct pprof *p)
{
  const struct er_experiment *exp = p->exps[p->process];
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

/* Mapping ids: each process's segments after those of the ones before
 * (summed once: a location's lookup is on every location's path). */
static uint64_t first_mapping(const struct pprof *p, size_t process)
{
  return p->mapping_base != NULL ? p->mapping_base[process] : 1;
}

static uint64_t mapping_id(const struct pprof *p, size_t process, uint64_t pc)
{
  const struct er_experiment *exp = p->exps[process];
  const struct er_segment *seg = er_experiment_segment(exp, pc);
  return seg == NULL || !code_segment(seg) ? 0 : first_mapping(p, process) + (uint64_t)(seg - exp->segments);
}

/* The run's length: to its exit, else to its last sample point. */
static uint64_t run_duration_ns(const struct er_experiment *exp)
{
  int64_t end = exp->exit_tstamp;
  for (size_t i = 0; end <= 0 && i < exp->n_sample_events; i++)
    end = exp->sample_tstamps[i] > end ? exp->sample_tstamps[i] : end;
  return end > 0 ? (uint64_t)end : 0;
}

static void encode_mappings(struct pprof *p, size_t process, struct pb_buffer *m, struct pb_buffer *out);
static void encode_locations(struct pprof *p, struct pb_buffer *m, struct pb_buffer *line, struct pb_buffer *out);

/* The profile message: samples (locations made as their stacks need
 * them), then mappings, locations, functions and the strings. */
static void encode(struct pprof *p, struct pb_buffer *out)
{
  struct pb_buffer m = {0}, line = {0}, label = {0};
  uint64_t tid_key = string_index(p, "tid"), process_key = string_index(p, "process");
  for (size_t t = 0; t < p->n_types; t++) {
    pb_reset(&m);
    pb_varint_field_nonzero(&m, 1, p->type[t]);
    pb_varint_field_nonzero(&m, 2, p->unit[t]);
    pb_message_field(out, PROFILE_SAMPLE_TYPE, &m);
  }
  uint64_t ids[ER_MAX_STACK_DEPTH + 2];
  uint64_t values[MAX_TYPES];
  for (size_t i = 0; i < p->n_samples; i++) {
    size_t process = (size_t)(p->sample_ids.second[i] >> 32);
    const struct er_stack *st = er_experiment_stack(p->exps[process], p->sample_ids.first[i]);
    size_t n = 0;
    for (size_t k = 0; st != NULL && k < st->n && n < sizeof ids / sizeof ids[0]; k++)
      ids[n++] = location_id(p, process, st->pcs[k]);
    for (size_t t = 0; t < p->n_types; t++)
      values[t] = (uint64_t)p->samples[i].values[t];
    pb_reset(&m);
    pb_packed_field(&m, 1, ids, n);
    pb_packed_field(&m, 2, values, p->n_types);
    pb_reset(&label); /* its thread (pprof -tagfocus tid=N, Pyroscope's and Parca's thread filter) */
    pb_varint_field(&label, 1, tid_key);
    pb_varint_field(&label, 3, p->sample_ids.second[i] & 0xffffffffu);
    pb_message_field(&m, 3, &label);
    if (p->labels != NULL && p->labels[process] != NULL) { /* its process (pprof -tagfocus process=NAME) */
      pb_reset(&label);
      pb_varint_field(&label, 1, process_key);
      pb_varint_field(&label, 2, string_index(p, p->labels[process]));
      pb_message_field(&m, 3, &label);
    }
    pb_message_field(out, PROFILE_SAMPLE, &m);
  }
  for (size_t k = 0; k < p->n_processes; k++)
    encode_mappings(p, k, &m, out);
  encode_locations(p, &m, &line, out);
  /* When the run began (wall clock) and how long it ran: pprof's -top
   * header, Pyroscope's and Parca's time axis (the founder's run). */
  const struct er_experiment *founder = p->exps[0];
  pb_varint_field_nonzero(out, PROFILE_TIME, founder->run_time > 0 ? (uint64_t)founder->run_time * 1000000000ULL : 0);
  pb_varint_field_nonzero(out, PROFILE_DURATION, run_duration_ns(founder));
  if (founder->ptimer_us > 0) {
    pb_reset(&m);
    pb_varint_field(&m, 1, string_index(p, "cpu"));
    pb_varint_field(&m, 2, string_index(p, "nanoseconds"));
    pb_message_field(out, PROFILE_PERIOD_TYPE, &m);
    pb_varint_field(out, PROFILE_PERIOD, (uint64_t)founder->ptimer_us * 1000);
    pb_varint_field(out, PROFILE_DEFAULT_TYPE, string_index(p, "cpu"));
  }
  for (size_t i = 0; i < p->strings.n; i++)
    pb_string_field(out, PROFILE_STRING, p->strings.text[i]);
  pb_free(&m);
  pb_free(&line);
  pb_free(&label);
}

/* Process PROCESS's code segments as mappings. */
static void encode_mappings(struct pprof *p, size_t process, struct pb_buffer *m, struct pb_buffer *out)
{
  const struct er_experiment *exp = p->exps[process];
  uint64_t first = first_mapping(p, process);
  for (size_t s = 0; s < exp->n_segments; s++) {
    const struct er_segment *seg = &exp->segments[s];
    if (!code_segment(seg))
      continue;
    char id[130];
    build_id(seg->name, id, sizeof id);
    pb_reset(m);
    pb_varint_field(m, 1, first + s);
    pb_varint_field_nonzero(m, 2, seg->vaddr);
    pb_varint_field_nonzero(m, 3, seg->vaddr + seg->size);
    pb_varint_field_nonzero(m, 4, seg->foffset);
    pb_varint_field_nonzero(m, 5, string_index(p, seg->name));
    pb_varint_field_nonzero(m, 6, id[0] ? string_index(p, id) : 0);
    pb_varint_field(m, 7, 1);  /* has_functions */
    pb_varint_field(m, 10, 1); /* has_inline_frames */
    pb_message_field(out, PROFILE_MAPPING, m);
  }
}

/* The locations the samples used (each named by its own process's names),
 * then the functions. */
static void encode_locations(struct pprof *p, struct pb_buffer *m, struct pb_buffer *line, struct pb_buffer *out)
{
  /* Each function's source file: its first location's that has a line. */
  uint64_t *function_file = calloc(p->locations.n * MAX_INLINED + 1, sizeof *function_file);
  for (size_t i = 0; i < p->locations.n; i++) {
    const char *frames[MAX_INLINED], *file = NULL;
    size_t process = (size_t)p->locations.first[i];
    uint64_t pc = p->locations.second[i];
    size_t n = er_names_frames(p->names[process], pc, frames, MAX_INLINED);
    int at_line = 0;
    if (er_names_line(p->names[process], pc, &file, &at_line) != 0)
      at_line = 0;
    int pseudo = pc == ER_PC_TRUNCATED || pc == ER_PC_UNWIND_FAILED;
    pb_reset(m);
    pb_varint_field(m, 1, i + 1);
    pb_varint_field_nonzero(m, 2, pseudo ? 0 : mapping_id(p, process, pc));
    pb_varint_field_nonzero(m, 3, pseudo ? 0 : pc);
    for (size_t k = 0; k < n; k++) {
      uint64_t function = function_id(p, frames[k]);
      pb_reset(line);
      pb_varint_field(line, 1, function);
      /* (the PC's line is its innermost function's, listed first) */
      if (k == 0 && at_line > 0) {
        pb_varint_field(line, 2, (uint64_t)at_line);
        if (function_file != NULL && function > 0 && function <= p->locations.n * MAX_INLINED &&
            function_file[function] == 0)
          function_file[function] = string_index(p, file);
      }
      pb_message_field(m, 4, line);
    }
    pb_message_field(out, PROFILE_LOCATION, m);
  }
  for (size_t i = 0; i < p->functions.n; i++) {
    pb_reset(m);
    pb_varint_field(m, 1, i + 1);
    pb_varint_field_nonzero(m, 2, p->functions.key[i]);
    pb_varint_field_nonzero(m, 3, p->functions.key[i]);
    if (function_file != NULL && i + 1 <= p->locations.n * MAX_INLINED)
      pb_varint_field_nonzero(m, 4, function_file[i + 1]);
    pb_message_field(out, PROFILE_FUNCTION, m);
  }
  free(function_file);
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
  return er_pprof_write_all(out_file, &exp, &names, NULL, 1, err, err_len);
}

int er_pprof_write_all(FILE *out_file, const struct er_experiment *const *exps, struct er_names *const *names,
                       const char *const *labels, size_t n_processes, char *err, size_t err_len)
{
  struct pprof p;
  memset(&p, 0, sizeof p);
  p.exps = exps;
  p.names = names;
  p.labels = labels;
  p.n_processes = n_processes;
  string_index(&p, ""); /* string 0 is the empty string */
  for (p.process = 0; p.process < n_processes; p.process++)
    collect(&p);
  p.mapping_base = malloc(n_processes * sizeof *p.mapping_base);
  for (size_t k = 0; p.mapping_base != NULL && k < n_processes; k++)
    p.mapping_base[k] = k == 0 ? 1 : p.mapping_base[k - 1] + exps[k - 1]->n_segments;
  struct pb_buffer out = {0};
  encode(&p, &out);
  int rc = out.failed ? (snprintf(err, err_len, "out of memory"), -1) : write_gzip(out_file, &out, err, err_len);
  pb_free(&out);
  er_strings_free(&p.strings);
  free(p.samples);
  er_pair_table_free(&p.sample_ids);
  er_pair_table_free(&p.locations);
  er_id_table_free(&p.functions);
  free(p.mapping_base);
  return rc;
}
