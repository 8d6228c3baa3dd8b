/* An experiment in the Firefox Profiler's processed format
 * (profiler.firefox.com; what samply writes, through its crate
 * fxprof-processed-profile): version 66, whose stack, frame and function
 * tables and strings are shared by all threads, and which the profiler
 * upgrades to its own version on loading.
 *
 * Each thread is a track.  A CPU sample is a sample of its stack with its
 * CPU time as threadCPUDelta (microseconds) and its ticks as weight; time
 * off the CPU is written as samply writes it, samples of the stack where
 * the thread waited with no CPU time (one at the start of the time it
 * stands for, the rest weighted at its end), so the profiler's CPU graph
 * shows the thread idle there and its call tree counts the wait.  A
 * frame's inlined functions are frames of their own (inlineDepth).
 * Markers: sample points, pauses, synchronization waits, I/O calls and
 * allocations, each with a schema the marker chart and table show. */
#define _GNU_SOURCE
#include "er_firefox.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_format.h"
#include "er/er_offcpu.h"
#include "er_firefox_libs.h"
#include "er_intern.h"
#include "er_json.h"

#define MAX_INLINED 16
#define FORMAT_VERSION 66

/* A category per state a sample shows, the frames' own first. */
enum { CATEGORY_OTHER, CATEGORY_USER, CATEGORY_OFF_CPU };

struct sample {
  double time_ms;
  uint64_t stack; /* index in the stack table */
  int64_t weight, cpu_us;
};

struct marker {
  double start_ms, end_ms;
  int phase; /* 0 instant, 1 interval */
  uint64_t name;   /* string index */
  int kind;        /* enum marker_kind */
  uint64_t text;   /* a string field (string index) */
  int64_t number;  /* a number field */
};

enum marker_kind { MARK_SAMPLE_POINT, MARK_PAUSE, MARK_SYNC, MARK_IO, MARK_ALLOC };

struct thread {
  uint64_t tid;
  size_t process; /* its experiment's index among the run's */
  struct sample *samples;
  size_t n_samples, samples_room;
  struct marker *markers;
  size_t n_markers, markers_room;
};

struct firefox {
  const struct er_experiment *exp; /* the process being collected */
  struct er_names *names;
  size_t process;                  /* its index */
  int64_t base_tstamp;             /* the first process's run: time 0 of every track */
  struct er_strings strings;
  /* The shared tables: functions by name, frames by (function, inline
   * depth), stacks by (prefix, frame). */
  struct er_id_table funcs;  /* their names: string indexes */
  struct er_pair_table frames;  /* (function, inline depth) */
  struct er_pair_table stacks;  /* (prefix: stack index + 1, 0 for a root; frame) */
  struct er_id_table leaf_ids;  /* the experiment's stacks (frinfo) met, each with... */
  uint64_t *leaf;               /* ...its leaf's index in the stack table */
  size_t n_leaves, leaves_room;
  uint64_t offcpu_func[ER_OFFCPU_REASONS]; /* each reason's leaf function (index + 1; 0: not made) */
  struct thread *threads; /* by id in thread_ids */
  size_t n_threads, threads_room;
  struct er_id_table thread_ids;
  struct er_firefox_libs libs; /* each function's load object */
};

/* The row of (A, B) in T, made on first use (0 when out of memory). */
static uint64_t pair_index(struct er_pair_table *t, uint64_t a, uint64_t b)
{
  long id = er_pair_id(t, a, b);
  return id < 0 ? 0 : (uint64_t)id;
}

static uint64_t func_index(struct firefox *f, const char *name)
{
  long id = er_id_of(&f->funcs, er_strings_intern(&f->strings, name)); /* a function per name */
  return id < 0 ? 0 : (uint64_t)id;
}

static uint64_t frame_index(struct firefox *f, uint64_t func, uint64_t depth)
{
  return pair_index(&f->frames, func, depth);
}

static uint64_t stack_index(struct firefox *f, uint64_t prefix_plus_1, uint64_t frame)
{
  return pair_index(&f->stacks, prefix_plus_1, frame);
}

/* The stack table's index of the experiment's stack FRINFO (root first,
 * each PC's inlined functions outermost first). */
static uint64_t leaf_stack(struct firefox *f, uint64_t frinfo)
{
  long id = er_id_of(&f->leaf_ids, frinfo);
  if (id >= 0 && (size_t)id < f->n_leaves)
    return f->leaf[id];
  const struct er_stack *st = er_experiment_stack(f->exp, frinfo);
  uint64_t prefix = 0; /* + 1 */
  for (size_t i = st != NULL ? st->n : 0; i-- > 0;) {
    const char *frames[MAX_INLINED];
    uint64_t pc = st->pcs[i];
    size_t n = er_names_frames(f->names, pc, frames, MAX_INLINED);
    for (size_t k = n; k-- > 0;) { /* outermost (the function itself) first */
      uint64_t func = func_index(f, frames[k]);
      er_firefox_libs_note(&f->libs, &f->strings, f->exp, func, pc);
      prefix = stack_index(f, prefix, frame_index(f, func, n - 1 - k)) + 1;
    }
  }
  if (prefix == 0) /* no stack: one frame saying so */
    prefix = stack_index(f, 0, frame_index(f, func_index(f, "<no stack>"), 0)) + 1;
  uint64_t *more = (size_t)id == f->n_leaves ? er_grown(f->leaf, &f->leaves_room, f->n_leaves, sizeof *more) : NULL;
  if (more != NULL) { /* kept for the stack's next sample (out of memory: found again then) */
    f->leaf = more;
    f->leaf[f->n_leaves++] = prefix - 1;
  }
  return prefix - 1;
}

static struct thread *thread_of(struct firefox *f, uint64_t tid)
{
  long id = er_id_of(&f->thread_ids, tid);
  if (id < 0)
    return NULL;
  if ((size_t)id < f->n_threads)
    return &f->threads[id];
  struct thread *more = er_grown(f->threads, &f->threads_room, f->n_threads, sizeof *more); /* the next id */
  if (more == NULL)
    return NULL;
  f->threads = more;
  struct thread *t = &f->threads[f->n_threads++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->process = f->process;
  return t;
}

/* Process PROCESS's id: its lowest thread id (its first thread's, at
 * launch); 0 where none of its threads was seen. */
static uint64_t process_id(const struct firefox *f, size_t process)
{
  uint64_t pid = 0;
  for (size_t i = 0; i < f->n_threads; i++)
    if (f->threads[i].process == process && (pid == 0 || f->threads[i].tid < pid))
      pid = f->threads[i].tid;
  return pid;
}

static double ms(const struct firefox *f, int64_t tstamp)
{
  return (double)(tstamp - f->base_tstamp) / 1e6;
}

/* A time relative to the collected process's run, on the common axis. */
static double run_ms(const struct firefox *f, int64_t relative)
{
  return ms(f, f->exp->run_tstamp + relative);
}

/* Time off the CPU for REASON: its stack, then a leaf frame naming the
 * reason, in the Off-CPU category (the profiler showed a pipe reader 100 %
 * "running" in read()). */
static uint64_t offcpu_stack(struct firefox *f, uint64_t frinfo, uint32_t reason)
{
  uint64_t stack = leaf_stack(f, frinfo);
  if (reason == ER_OFFCPU_NONE || reason >= ER_OFFCPU_REASONS)
    return stack;
  if (f->offcpu_func[reason] == 0) {
    char name[80];
    snprintf(name, sizeof name, "<Off-CPU: %s>", er_offcpu_reason_title((enum er_offcpu_reason)reason));
    f->offcpu_func[reason] = func_index(f, name) + 1;
  }
  return stack_index(f, stack + 1, frame_index(f, f->offcpu_func[reason] - 1, 0));
}

static void add_sample(struct firefox *f, uint64_t tid, double time_ms, uint64_t frinfo, uint32_t reason,
                       int64_t weight, int64_t cpu_us)
{
  struct thread *t = thread_of(f, tid);
  struct sample *more = t != NULL ? er_grown(t->samples, &t->samples_room, t->n_samples, sizeof *more) : NULL;
  if (more == NULL)
    return;
  t->samples = more;
  t->samples[t->n_samples++] = (struct sample){time_ms < 0 ? 0 : time_ms, offcpu_stack(f, frinfo, reason), weight, cpu_us};
}

static void add_marker(struct firefox *f, uint64_t tid, struct marker m)
{
  struct thread *t = thread_of(f, tid);
  struct marker *more = t != NULL ? er_grown(t->markers, &t->markers_room, t->n_markers, sizeof *more) : NULL;
  if (more == NULL)
    return;
  t->markers = more;
  t->markers[t->n_markers++] = m;
}

static void collect(struct firefox *f)
{
  const struct er_experiment *exp = f->exp;
  double tick_ms = exp->ptimer_us / 1000.0;
  for (size_t i = 0; i < exp->n_clock; i++) {
    const struct er_clock_sample *s = &exp->clock[i];
    add_sample(f, s->thrid, ms(f, s->tstamp), s->frinfo, ER_OFFCPU_NONE, s->ntick, (int64_t)s->ntick * exp->ptimer_us);
  }
  for (size_t i = 0; i < exp->n_offcpu; i++) {
    /* samply's way: the time off CPU begins with a sample of weight 1, the
     * rest of its weight at its end; no CPU time in either. */
    const struct er_clock_sample *s = &exp->offcpu[i];
    double end = ms(f, s->tstamp);
    add_sample(f, s->thrid, end - s->ntick * tick_ms, s->frinfo, s->reason, 1, 0);
    if (s->ntick > 1)
      add_sample(f, s->thrid, end - tick_ms, s->frinfo, s->reason, s->ntick - 1, 0);
  }
  uint64_t first = process_id(f, f->process); /* the process's markers go on its first thread */
  for (size_t i = 0; first != 0 && i < exp->n_sample_events; i++)
    add_marker(f, first, (struct marker){run_ms(f, exp->sample_tstamps[i]), 0, 0, er_strings_intern(&f->strings, "Sample point"),
                                         MARK_SAMPLE_POINT,
                                         er_strings_intern(&f->strings, exp->sample_labels[i] ? exp->sample_labels[i] : ""), 0});
  for (size_t i = 0; first != 0 && i < exp->n_pauses; i++)
    add_marker(f, first, (struct marker){run_ms(f, exp->pauses[i].start),
                                         run_ms(f, exp->pauses[i].end < 0 ? exp->exit_tstamp : exp->pauses[i].end), 1,
                                         er_strings_intern(&f->strings, "Paused"), MARK_PAUSE, 0, 0});
  char text[64];
  for (size_t i = 0; i < exp->n_waits; i++) {
    snprintf(text, sizeof text, "0x%" PRIx64, exp->waits[i].object);
    add_marker(f, exp->waits[i].thrid, (struct marker){ms(f, exp->waits[i].start), ms(f, exp->waits[i].end), 1,
                                                       er_strings_intern(&f->strings, "Synchronization wait"),
                                                       MARK_SYNC, er_strings_intern(&f->strings, text), 0});
  }
  for (size_t i = 0; i < exp->n_io_calls; i++) {
    const struct er_io_call *c = &exp->io_calls[i];
    snprintf(text, sizeof text, "fd %d", c->fd);
    add_marker(f, c->thrid, (struct marker){ms(f, c->start), ms(f, c->end), 1, er_strings_intern(&f->strings, "I/O"),
                                            MARK_IO, er_strings_intern(&f->strings, c->name != NULL ? c->name : text),
                                            c->nbytes > 0 ? c->nbytes : 0});
  }
  for (size_t i = 0; i < exp->n_heap_events; i++) {
    const struct er_heap_event *e = &exp->heap_events[i];
    if (e->htype == ER_HEAP_MALLOC || e->htype == ER_HEAP_REALLOC || e->htype == ER_HEAP_MMAP)
      add_marker(f, e->thrid, (struct marker){ms(f, e->tstamp), 0, 0, er_strings_intern(&f->strings, "Allocation"),
                                              MARK_ALLOC, 0, (int64_t)e->size});
  }
}


static void write_meta(FILE *out, const struct firefox *f)
{
  fprintf(out,
          "\"meta\":{\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
          "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
          "{\"name\":\"Off-CPU\",\"color\":\"blue\",\"subcategories\":[\"Other\"]}],"
          "\"debug\":false,\"extensions\":{\"length\":0,\"baseURL\":[],\"id\":[],\"name\":[]},"
          "\"interval\":%.3f,\"preprocessedProfileVersion\":%d,\"processType\":0,\"product\":",
          f->exp->ptimer_us / 1000.0, FORMAT_VERSION);
  json_string(out, f->exp->path);
  /* (the run's wall-clock start, in ms since 1970: 0 showed the profile
   * as taken on 1 January 1970) */
  fprintf(out, ",\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\",\"threadCPUDelta\":\"\xc2\xb5s\"},"
        "\"startTime\":%.0f,", (double)f->exp->run_time * 1000.0);
  fputs("\"symbolicated\":true,\"pausedRanges\":[],\"version\":24,"
        "\"usesOnlyOneStackType\":true,\"sourceCodeIsNotOnSearchfox\":true,\"markerSchema\":["
        "{\"name\":\"Allocation\",\"display\":[\"marker-chart\",\"marker-table\"],"
        "\"tooltipLabel\":\"Allocation of {marker.data.bytes}\",\"tableLabel\":\"{marker.data.bytes}\","
        "\"fields\":[{\"key\":\"bytes\",\"label\":\"Size\",\"format\":\"bytes\"}]},"
        "{\"name\":\"I/O\",\"display\":[\"marker-chart\",\"marker-table\",\"timeline-fileio\"],"
        "\"tooltipLabel\":\"I/O on {marker.data.file}\",\"tableLabel\":\"{marker.data.file}: {marker.data.bytes}\","
        "\"fields\":[{\"key\":\"file\",\"label\":\"File\",\"format\":\"unique-string\"},"
        "{\"key\":\"bytes\",\"label\":\"Bytes\",\"format\":\"bytes\"}]},"
        "{\"name\":\"Paused\",\"display\":[\"marker-chart\",\"marker-table\",\"timeline-overview\"],"
        "\"tooltipLabel\":\"Collection paused\",\"fields\":[]},"
        "{\"name\":\"Sample point\",\"display\":[\"marker-chart\",\"marker-table\",\"timeline-overview\"],"
        "\"tooltipLabel\":\"Sample point {marker.data.label}\",\"tableLabel\":\"{marker.data.label}\","
        "\"fields\":[{\"key\":\"label\",\"label\":\"Label\",\"format\":\"unique-string\"}]},"
        "{\"name\":\"Synchronization wait\",\"display\":[\"marker-chart\",\"marker-table\"],"
        "\"tooltipLabel\":\"Waited on {marker.data.object}\",\"tableLabel\":\"{marker.data.object}\","
        "\"fields\":[{\"key\":\"object\",\"label\":\"Object\",\"format\":\"unique-string\"}]}]},",
        out);
}

static void write_shared(FILE *out, const struct firefox *f)
{
  fputs("\"shared\":{\"stackTable\":{", out);
  fprintf(out, "\"length\":%zu,\"prefixOffset\":[", f->stacks.n);
  for (size_t i = 0; i < f->stacks.n; i++) /* 0: a root; else how far back its prefix is */
    fprintf(out, "%s%" PRIu64, i ? "," : "", f->stacks.first[i] == 0 ? 0 : i - (f->stacks.first[i] - 1));
  fputs("],", out);
  json_u64_column(out, "frame", f->stacks.second, f->stacks.n, 1);
  fprintf(out, "},\"frameTable\":{\"length\":%zu,", f->frames.n);
  json_u64_column(out, "func", f->frames.first, f->frames.n, 0);
  fputs("\"category\":[", out); /* User, or Off-CPU for the reasons' leaf frames */
  for (size_t i = 0; i < f->frames.n; i++) {
    int off = 0;
    for (int r = 0; r < ER_OFFCPU_REASONS && !off; r++)
      off = f->offcpu_func[r] != 0 && f->frames.first[i] == f->offcpu_func[r] - 1;
    fprintf(out, "%s%d", i ? "," : "", off ? 2 : 1);
  }
  fputs("],", out);
  json_repeat_column(out, "subcategory", "0", f->frames.n, 0);
  json_repeat_column(out, "line", "null", f->frames.n, 0);
  json_repeat_column(out, "column", "null", f->frames.n, 0);
  json_repeat_column(out, "address", "-1", f->frames.n, 0);
  json_repeat_column(out, "nativeSymbol", "null", f->frames.n, 0);
  json_u64_column(out, "inlineDepth", f->frames.second, f->frames.n, 0);
  json_repeat_column(out, "innerWindowID", "0", f->frames.n, 0);
  json_repeat_column(out, "originalLocation", "null", f->frames.n, 1);
  size_t funcs = f->funcs.n;
  fprintf(out, "},\"funcTable\":{\"length\":%zu,", funcs);
  json_u64_column(out, "name", f->funcs.key, funcs, 0);
  json_repeat_column(out, "isJS", "false", funcs, 0);
  json_repeat_column(out, "relevantForJS", "false", funcs, 0);
  er_firefox_libs_write_func_resources(out, &f->libs, funcs);
  json_repeat_column(out, "source", "null", funcs, 0);
  json_repeat_column(out, "lineNumber", "null", funcs, 0);
  json_repeat_column(out, "columnNumber", "null", funcs, 0);
  json_repeat_column(out, "originalLocation", "null", funcs, 1);
  fputs("},\"nativeSymbols\":{\"length\":0,\"address\":[],\"functionSize\":[],\"libIndex\":[],\"name\":[]},", out);
  er_firefox_libs_write_resources(out, &f->libs);
  fputs("\"sources\":{\"length\":0,\"id\":[],\"filename\":[],\"startLine\":[],\"startColumn\":[],"
        "\"sourceMapURL\":[],\"content\":[]},"
        "\"sourceLocationTable\":{\"length\":0,\"source\":[],\"line\":[],\"column\":[]},\"stringArray\":[",
        out);
  for (size_t i = 0; i < f->strings.n; i++) {
    if (i)
      fputc(',', out);
    json_string(out, f->strings.text[i]);
  }
  fputs("]},", out);
}

static int by_time(const void *a, const void *b)
{
  double x = ((const struct sample *)a)->time_ms, y = ((const struct sample *)b)->time_ms;
  return (x > y) - (x < y);
}

static void write_markers(FILE *out, const struct thread *t)
{
  static const char *const types[] = {"Sample point", "Paused", "Synchronization wait", "I/O", "Allocation"};
  fprintf(out, "\"markers\":{\"length\":%zu,", t->n_markers);
  json_repeat_column(out, "category", "0", t->n_markers, 0);
  fputs("\"data\":[", out);
  for (size_t i = 0; i < t->n_markers; i++) {
    const struct marker *m = &t->markers[i];
    fprintf(out, "%s{\"type\":\"%s\"", i ? "," : "", types[m->kind]);
    if (m->kind == MARK_SAMPLE_POINT)
      fprintf(out, ",\"label\":%" PRIu64, m->text);
    else if (m->kind == MARK_SYNC)
      fprintf(out, ",\"object\":%" PRIu64, m->text);
    else if (m->kind == MARK_IO)
      fprintf(out, ",\"file\":%" PRIu64 ",\"bytes\":%" PRId64, m->text, m->number);
    else if (m->kind == MARK_ALLOC)
      fprintf(out, ",\"bytes\":%" PRId64, m->number);
    fputc('}', out);
  }
  fputs("],\"endTime\":[", out);
  for (size_t i = 0; i < t->n_markers; i++)
    fprintf(out, "%s%.6f", i ? "," : "", t->markers[i].phase == 1 ? t->markers[i].end_ms : 0.0);
  fputs("],\"name\":[", out);
  for (size_t i = 0; i < t->n_markers; i++)
    fprintf(out, "%s%" PRIu64, i ? "," : "", t->markers[i].name);
  fputs("],\"phase\":[", out);
  for (size_t i = 0; i < t->n_markers; i++)
    fprintf(out, "%s%d", i ? "," : "", t->markers[i].phase);
  fputs("],\"startTime\":[", out);
  for (size_t i = 0; i < t->n_markers; i++)
    fprintf(out, "%s%.6f", i ? "," : "", t->markers[i].start_ms);
  fputs("]}", out);
}

/* NAMED: the thread's own name (its comm), NULL where not recorded. */
static void write_thread(FILE *out, struct thread *t, int main_thread, uint64_t pid, const char *process,
                         const char *named)
{
  qsort(t->samples, t->n_samples, sizeof *t->samples, by_time);
  fputs("{\"name\":", out);
  char name[64];
  snprintf(name, sizeof name, "Thread %" PRIu64, t->tid);
  json_string(out, main_thread ? process : named != NULL ? named : name);
  fprintf(out, ",\"isMainThread\":%s,\"pausedRanges\":[],\"pid\":\"%" PRIu64 "\",\"processName\":",
          main_thread ? "true" : "false", pid);
  json_string(out, process);
  /* The profiler counts a sample's CPU delta from the sample before it,
   * and drops the first one's: a thread whose first sample carries CPU
   * time starts with a sample of no weight and no CPU time where that
   * time began (its 10 ms were missing from the profiler's thread CPU). */
  size_t lead = t->n_samples > 0 && t->samples[0].cpu_us > 0;
  double start_ms = t->n_samples ? t->samples[0].time_ms - (lead ? t->samples[0].cpu_us / 1000.0 : 0) : 0.0;
  fprintf(out, ",\"processShutdownTime\":null,\"processStartupTime\":0,\"processType\":\"default\",\"registerTime\":%.6f,"
               "\"tid\":\"%" PRIu64 "\",\"unregisterTime\":null,\"showMarkersInTimeline\":true,",
          start_ms, t->tid);
  fprintf(out, "\"samples\":{\"length\":%zu,\"weightType\":\"samples\",\"stack\":[", t->n_samples + lead);
  if (lead)
    fprintf(out, "%" PRIu64 ",", t->samples[0].stack);
  for (size_t i = 0; i < t->n_samples; i++)
    fprintf(out, "%s%" PRIu64, i ? "," : "", t->samples[i].stack);
  fputs("],\"timeDeltas\":[", out);
  if (lead)
    fprintf(out, "%.6f,", start_ms);
  for (size_t i = 0; i < t->n_samples; i++)
    fprintf(out, "%s%.6f", i ? "," : "", t->samples[i].time_ms - (i ? t->samples[i - 1].time_ms : lead ? start_ms : 0));
  fputs("],\"weight\":[", out);
  if (lead)
    fputs("0,", out);
  for (size_t i = 0; i < t->n_samples; i++)
    fprintf(out, "%s%" PRId64, i ? "," : "", t->samples[i].weight);
  fputs("],\"threadCPUDelta\":[", out);
  if (lead)
    fputs("0,", out);
  for (size_t i = 0; i < t->n_samples; i++)
    fprintf(out, "%s%" PRId64, i ? "," : "", t->samples[i].cpu_us);
  fputs("]},", out);
  write_markers(out, t);
  fputc('}', out);
}

/* The program a process ran: the first object it mapped, by its base name. */
static const char *program_of(const struct er_experiment *exp)
{
  const char *process = exp->n_segments > 0 && exp->segments[0].name != NULL ? exp->segments[0].name : "program";
  const char *base = strrchr(process, '/');
  return base != NULL ? base + 1 : process;
}

int er_firefox_write(FILE *out, const struct er_experiment *exp, struct er_names *names, char *err, size_t err_len)
{
  return er_firefox_write_all(out, &exp, &names, 1, err, err_len);
}

int er_firefox_write_all(FILE *out, const struct er_experiment *const *exps, struct er_names *const *names,
                         size_t n_processes, char *err, size_t err_len)
{
  struct firefox f;
  memset(&f, 0, sizeof f);
  f.base_tstamp = exps[0]->run_tstamp;
  for (size_t k = 0; k < n_processes; k++) {
    f.exp = exps[k], f.names = names[k], f.process = k;
    er_id_table_free(&f.leaf_ids); /* (stack ids are each experiment's own) */
    memset(&f.leaf_ids, 0, sizeof f.leaf_ids);
    f.n_leaves = 0;
    collect(&f);
  }
  f.exp = exps[0], f.names = names[0];
  int rc = 0;
  fputc('{', out);
  write_meta(out, &f);
  er_firefox_libs_write(out, &f.libs, &f.strings);
  /* Threads first (their tables may add strings), then what they share. */
  char *threads_json = NULL;
  size_t threads_len = 0;
  FILE *threads = open_memstream(&threads_json, &threads_len);
  for (size_t i = 0; threads != NULL && i < f.n_threads; i++) {
    /* Each process named after its program, its id its first thread's. */
    size_t k = f.threads[i].process;
    uint64_t pid = process_id(&f, k);
    if (i)
      fputc(',', threads);
    write_thread(threads, &f.threads[i], f.threads[i].tid == pid, pid, program_of(exps[k]),
                 er_experiment_thread_name(exps[k], f.threads[i].tid));
  }
  if (threads == NULL || fclose(threads) != 0) {
    snprintf(err, err_len, "out of memory");
    rc = -1;
  } else {
    write_shared(out, &f);
    fputs("\"threads\":[", out);
    fwrite(threads_json, 1, threads_len, out);
    fputs("],\"pages\":[],\"profilerOverhead\":[],\"counters\":[]}\n", out);
  }
  free(threads_json);
  if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
    snprintf(err, err_len, "cannot write: %s", strerror(errno));
    rc = -1;
  }
  for (size_t i = 0; i < f.n_threads; i++) {
    free(f.threads[i].samples);
    free(f.threads[i].markers);
  }
  free(f.threads);
  er_id_table_free(&f.thread_ids);
  er_id_table_free(&f.funcs);
  er_pair_table_free(&f.frames);
  er_pair_table_free(&f.stacks);
  er_id_table_free(&f.leaf_ids);
  free(f.leaf);
  er_firefox_libs_free(&f.libs);
  er_strings_free(&f.strings);
  return rc;
}
