/* gdbcol-report: where the time (or a counter's events) went in an
 * experiment, as a table, callers and callees, threads, processes, folded
 * stacks, a flame graph or an HTML page.  `collector report` in GDB runs
 * it; it reads the experiment with the project's reader and names
 * functions with libdwfl (separate debug info included), so stripped
 * libraries show names where gprofng 2.40 shows <static>@0x... */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er/er_flamegraph.h"
#include "er/er_naming.h"
#include "er/er_profile.h"
#include "er/er_reader.h"
#include "er_deadlock_report.h"
#include "er_mpi_report.h"
#include "er_omp_report.h"
#include "er_firefox.h"
#include "er_pprof.h"
#include "er_states_report.h"
#include "er_timeline.h"
#include "er/er_span.h"
#include "er_race_report.h"

#define DEFAULT_ROWS 25

/* How the hints name the options: as typed to gdbcol-report, or inside
 * GDB (--within-gdb: `collector report ... limit N`). */
static int within_gdb;

/* The views, in one table: the options here, and `collector report`'s
 * words in GDB (the plugin reads them with --list-views). */
static const struct report_view {
  const char *name;
  const char *value; /* what it takes after it (FUNC, FILE), or NULL */
  const char *help;  /* lines of its description */
} views[] = {
    {"functions", NULL, "the functions by exclusive value, with inclusive value (the default)"},
    {"callers", "FUNC", "the functions that call FUNC, and what those calls account for"},
    {"callees", "FUNC", "the functions FUNC calls"},
    {"threads", NULL, "each thread's share"},
    {"processes", NULL, "the experiment and its descendants' experiments (MPI ranks too)"},
    {"mpi", NULL, "MPI calls per rank (time, MPI %, messages, bytes), per function, and\n"
                  "who sent how much to whom: a job's experiment or one rank's"},
    {"races", NULL, "data races ThreadSanitizer found (collector tha race): each race's two\n"
                    "accesses, their threads and stacks, and the variable"},
    {"deadlocks", NULL, "potential deadlocks: each cycle of lock orders (collector tha\n"
                        "deadlock), with the threads, locks and stacks of its orders"},
    {"states", NULL, "where each thread's wall-clock time went (collector profile offcpu):\n"
                     "on a CPU, waiting for one, asleep, in I/O, on a lock; per function"},
    {"omp", NULL, "OpenMP: time per state (work, barriers, idle, waits), OpenMP Work,\n"
                  "Wait and Overhead per parallel region and per function"},
    {"folded", "FILE", "folded stacks (FlameGraph, speedscope, inferno) of every process; - for stdout"},
    {"flamegraph", "FILE", "an interactive SVG flame graph of every process"},
    {"html", "FILE", "an HTML page: the function table, the flame graph, the threads' timeline"},
    {"pprof", "FILE", "pprof's profile.proto, gzip-compressed: every metric as a sample type"},
    {"firefox", "FILE", "the Firefox Profiler's format: every process, a track per thread, CPU\n"
                        "and off-CPU samples, markers for sample points, pauses, waits, I/O, allocations"},
};
#define N_VIEWS (sizeof views / sizeof views[0])

static const struct report_view *view_named(const char *option)
{
  for (size_t v = 0; v < N_VIEWS; v++)
    if (strncmp(option, "--", 2) == 0 && strcmp(option + 2, views[v].name) == 0)
      return &views[v];
  return NULL;
}

static void usage(FILE *out)
{
  fputs("usage: gdbcol-report [--metric NAME] [--limit N] [--no-inline] [--mode user|machine]\n"
        "                     [--between N M | --since-stop N] [VIEW] EXPERIMENT.er\n"
        "views (one; the default is the function table):\n", out);
  for (size_t v = 0; v < N_VIEWS; v++) {
    char head[40];
    snprintf(head, sizeof head, "--%s%s%s", views[v].name, views[v].value ? " " : "", views[v].value ? views[v].value : "");
    fprintf(out, "  %-20s", head);
    for (const char *line = views[v].help; *line;) {
      size_t len = strcspn(line, "\n");
      fprintf(out, "%s%.*s\n", line == views[v].help ? "  " : "                        ", (int)len, line);
      line += len + (line[len] == '\n');
    }
  }
  fputs(
        "--metric: what the views sum (the experiment's own are listed where one is missing):\n"
        "        cpu (clock profiling, the default); wall, offcpu, offcpu.waitcpu, offcpu.sleep,\n"
        "        offcpu.io, offcpu.lock, offcpu.blocked, offcpu.stopped (collector profile offcpu);\n"
        "        sync (synctrace: wait time); io, io.bytes (iotrace: time, bytes); heap,\n"
        "        heap.allocations, heap.leaks (heaptrace: bytes, calls, bytes never freed); a\n"
        "        counter's name (hwprofile)\n"
        "--no-inline: no frames for inlined functions (gprofng shows none)\n"
        "--between N M: only what ran between sample points N and M (log.xml's ids: 0 is the\n"
        "        experiment's start; M may be end)\n"
        "--since-stop N: only what ran since the GDB stop before the N-th (the current one)\n"
        "--mode: an OpenMP program's stacks as its source shows them (user, the default: libgomp's\n"
        "        frames out, workers under the region's call, waits as <OMP-...> frames), or the\n"
        "        native ones (machine)\n",
        out);
}

static void print_value(const struct er_profile *p, double v)
{
  if (strcmp(p->unit, "sec.") == 0)
    printf("%10.3f", v);
  else
    printf("%10.0f", v);
}

static void print_row(const struct er_profile *p, double excl, double incl, const char *name, int with_incl)
{
  double total = p->total > 0 ? p->total : 1;
  print_value(p, excl);
  printf(" %6.2f", 100 * excl / total);
  if (with_incl) {
    printf("  ");
    print_value(p, incl);
    printf(" %6.2f", 100 * incl / total);
  }
  printf("   %s\n", name);
}

static void print_header(const struct er_profile *p, const char *first, const char *second)
{
  printf("%-17s  %-17s  Name\n", first, second != NULL ? second : "");
  printf("%10s %6s  %10s %6s\n", p->unit, "%", second != NULL ? p->unit : "", second != NULL ? "%" : "");
}

static void functions_view(const struct er_profile *p, size_t rows, const struct er_names *names)
{
  printf("Functions sorted by exclusive %s:\n", p->metric);
  print_header(p, "Excl.", "Incl.");
  print_row(p, p->total, p->total, "<Total>", 1);
  for (size_t i = 0; i < p->n_functions && i < rows; i++)
    print_row(p, p->functions[i].excl, p->functions[i].incl, p->functions[i].name, 1);
  if (p->n_functions > rows)
    printf("(%zu more function(s); %s shows more)\n", p->n_functions - rows,
           within_gdb ? "collector report limit N" : "--limit N");
  char **paths;
  size_t n = er_names_debug_info_found(names, &paths);
  for (size_t i = 0; i < n; i++) {
    const char *base = strrchr(paths[i], '/');
    printf("%s%s", i == 0 ? "Names from separate debug info: " : ", ", base != NULL ? base + 1 : paths[i]);
  }
  if (n > 0)
    printf("\n");
  free(paths);
}

struct ranked {
  size_t function;
  double value;
};

static int by_value(const void *a, const void *b)
{
  double x = ((const struct ranked *)a)->value, y = ((const struct ranked *)b)->value;
  return x < y ? 1 : x > y ? -1 : 0;
}

static int neighbours_view(const struct er_profile *p, const char *name, int callers, size_t rows)
{
  long f = er_profile_find(p, name);
  if (f < 0) {
    fprintf(stderr, "gdbcol-report: no function \"%s\" in this profile (the table lists them)\n", name);
    return 1;
  }
  double *values = calloc(p->n_functions + 1, sizeof *values);
  struct ranked *order = calloc(p->n_functions + 1, sizeof *order);
  if (values == NULL || order == NULL) {
    free(values), free(order);
    return 1;
  }
  er_profile_neighbours(p, (size_t)f, callers, values);
  size_t n = 0;
  for (size_t i = 0; i < p->n_functions; i++)
    if (values[i] > 0)
      order[n++] = (struct ranked){i, values[i]};
  qsort(order, n, sizeof *order, by_value);
  const struct er_profile_function *fn = &p->functions[f];
  printf("%s of %s (exclusive %s: ", callers ? "Callers" : "Callees", name, p->metric);
  print_value(p, fn->excl);
  printf("; inclusive: ");
  print_value(p, fn->incl);
  printf("), by attributed %s:\n", p->metric);
  print_header(p, "Attr.", NULL);
  for (size_t i = 0; i < n && i < rows; i++)
    print_row(p, order[i].value, 0, p->functions[order[i].function].name, 0);
  if (n == 0)
    printf("(none: %s)\n", callers ? "it is the root of its stacks" : "its time is all its own");
  free(values), free(order);
  return 0;
}

static int by_thread_value(const void *a, const void *b)
{
  double x = ((const struct er_profile_thread *)a)->value, y = ((const struct er_profile_thread *)b)->value;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void threads_view(struct er_profile *p, const struct er_experiment *exp)
{
  printf("Threads by %s (%zu thread(s)):\n", p->metric, p->n_threads);
  printf("%10s %6s  %8s  Thread\n", p->unit, "%", p->counted);
  qsort(p->threads, p->n_threads, sizeof *p->threads, by_thread_value);
  for (size_t k = 0; k < p->n_threads; k++) {
    print_value(p, p->threads[k].value);
    const char *name = er_experiment_thread_name(exp, p->threads[k].thrid); /* (its comm, where recorded) */
    printf(" %6.2f  %8.0f  %llu%s%s%s\n", 100 * p->threads[k].value / (p->total > 0 ? p->total : 1),
           p->threads[k].events, (unsigned long long)p->threads[k].thrid, name != NULL ? " (" : "",
           name != NULL ? name : "", name != NULL ? ")" : "");
  }
}

/* The experiment and each descendant's (NAME.er directories inside it,
 * as gprofng names them), with their totals. */
static void process_line(const char *path, const char *label, const char *metric)
{
  struct er_experiment exp;
  char err[512];
  if (er_experiment_open(path, &exp, err, sizeof err) != 0) {
    printf("%-24s  (unreadable: %s)\n", label, err);
    return;
  }
  struct er_names *names = er_names_open(&exp);
  struct er_profile p;
  if (names != NULL && er_profile_build(&exp, names, metric, 1, ER_VIEW_USER, &p, err, sizeof err) == 0) {
    print_value(&p, p.total);
    printf(" %s  %8.0f %s  %s\n", p.unit, p.samples, p.counted, label);
    er_profile_free(&p);
  } else {
    printf("%17s  %s\n", "(no such data)", label);
  }
  er_names_close(names);
  er_experiment_close(&exp);
}

/* The descendants' experiments directly inside PATH (NAME.er directories
 * as gprofng names them: _f1.er, _x1.er, M_r0.er), sorted; their count. */
static size_t descendants_of(const char *path, char ***out)
{
  *out = NULL;
  DIR *dir = opendir(path);
  if (dir == NULL)
    return 0;
  struct dirent *d;
  char **children = NULL;
  size_t n = 0;
  while ((d = readdir(dir)) != NULL) {
    size_t len = strlen(d->d_name);
    int descendant = d->d_name[0] == '_' || strncmp(d->d_name, ER_RANK_PREFIX, strlen(ER_RANK_PREFIX)) == 0;
    if (descendant && len > 3 && strcmp(d->d_name + len - 3, ".er") == 0) {
      char **more = realloc(children, (n + 1) * sizeof *more);
      char *name = strdup(d->d_name);
      if (more == NULL || name == NULL) {
        free(name);
        if (more != NULL)
          children = more;
        break;
      }
      children = more;
      children[n++] = name;
    }
  }
  closedir(dir);
  for (size_t a = 1; a < n; a++)
    for (size_t b = a; b > 0 && strcmp(children[b - 1], children[b]) > 0; b--) {
      char *x = children[b - 1];
      children[b - 1] = children[b];
      children[b] = x;
    }
  *out = children;
  return n;
}

static void processes_view(const char *path, const char *metric, const char *label, int depth)
{
  char indented[512];
  snprintf(indented, sizeof indented, "%*s%s", depth * 2, "", label);
  process_line(path, indented, metric);
  char **children;
  size_t n = descendants_of(path, &children);
  for (size_t i = 0; i < n; i++) {
    char child[4096];
    if (snprintf(child, sizeof child, "%s/%s", path, children[i]) < (int)sizeof child)
      processes_view(child, metric, children[i], depth + 1);
    free(children[i]);
  }
  free(children);
}

/* The experiment and its descendants', each opened with its names, for
 * the pictures and exports: every process of the run, each under a root
 * frame naming its experiment where there are several. */
#define MAX_PROCESSES 4096
struct process_set {
  struct er_experiment exps[MAX_PROCESSES];
  struct er_names *names[MAX_PROCESSES];
  char *labels[MAX_PROCESSES];
  struct er_profile_part parts[MAX_PROCESSES];
  size_t n;
  size_t left_out; /* descendants beyond MAX_PROCESSES */
};

static void add_descendants(struct process_set *set, const char *path)
{
  char **children;
  size_t n = descendants_of(path, &children);
  for (size_t i = 0; i < n; i++) {
    char child[4096];
    char err[256];
    set->left_out += set->n == MAX_PROCESSES;
    if (set->n < MAX_PROCESSES && snprintf(child, sizeof child, "%s/%s", path, children[i]) < (int)sizeof child &&
        er_experiment_open(child, &set->exps[set->n], err, sizeof err) == 0) {
      set->names[set->n] = er_names_open(&set->exps[set->n]);
      if (set->names[set->n] == NULL) { /* (out of memory: left out, as an unreadable one is) */
        er_experiment_close(&set->exps[set->n]);
        free(children[i]);
        continue;
      }
      set->labels[set->n] = children[i];
      children[i] = NULL;
      set->n++;
      add_descendants(set, child);
    }
    free(children[i]);
  }
  free(children);
}

/* EXP (PATH's, open with NAMES) and its descendants' experiments: NULL
 * out of memory. */
static struct process_set *open_process_set(const char *path, const struct er_experiment *exp, struct er_names *names)
{
  struct process_set *set = calloc(1, sizeof *set);
  if (set == NULL)
    return NULL;
  set->exps[0] = *exp, set->names[0] = names, set->n = 1;
  const char *base = strrchr(path, '/');
  set->labels[0] = (char *)(base != NULL && base[1] != '\0' ? base + 1 : path);
  add_descendants(set, path);
  if (set->left_out > 0)
    fprintf(stderr, "gdbcol-report: %zu or more descendant experiment(s) beyond the first %d left out of this picture\n",
            set->left_out, MAX_PROCESSES - 1);
  return set;
}

static void close_descendants(struct process_set *set)
{
  for (size_t i = 1; i < set->n; i++) { /* (the first is the caller's own) */
    er_names_close(set->names[i]);
    er_experiment_close(&set->exps[i]);
    free(set->labels[i]);
  }
  free(set);
}

/* PATH, created for a picture or an export ("-": stdout), never over an
 * existing file; NULL, said, when it cannot be. */
static FILE *create_output(const char *path)
{
  FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "wxe");
  if (out == NULL)
    fprintf(stderr, "gdbcol-report: cannot create %s: %s%s\n", path, strerror(errno),
            errno == EEXIST ? " (remove it or name another file)" : "");
  return out;
}

/* Writes one picture to PATH ("-": stdout). */
static int write_picture(const char *path, const char *kind, const struct er_profile *p, const char *title,
                         const struct er_experiment *exp, struct er_names *names)
{
  FILE *out = create_output(path);
  if (out == NULL)
    return 1;
  int rc = strcmp(kind, "folded") == 0       ? er_folded_write(out, p)
           : strcmp(kind, "flamegraph") == 0 ? er_flamegraph_svg(out, p, title)
                                             : er_report_html(out, p, title, 200);
  if (rc == 0 && strcmp(kind, "html") == 0) /* the page goes on: the threads over time */
    rc = er_timeline_html(out, exp, names) != 0 || er_report_html_end(out) != 0 ? -1 : 0;
  if (out != stdout && fclose(out) != 0)
    rc = -1;
  if (rc != 0) {
    fprintf(stderr, "gdbcol-report: writing %s failed: %s\n", path, strerror(errno));
    return 1;
  }
  if (out != stdout)
    printf("Wrote %s (%s of %s: %zu function(s), %zu distinct stack(s)).\n", path,
           strcmp(kind, "folded") == 0 ? "folded stacks" : strcmp(kind, "flamegraph") == 0 ? "flame graph"
                                                                                            : "function table and flame graph",
           p->metric, p->n_functions, p->n_stacks);
  return 0;
}

int main(int argc, char **argv)
{
  const char *metric = NULL, *view = "functions", *argument = NULL, *path = NULL;
  size_t rows = DEFAULT_ROWS;
  int with_inlined = 1;
  long span_from = -1, span_to = -1, since_stop = -1; /* (-1: not asked) */
  enum er_view_mode mode = ER_VIEW_USER;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const struct report_view *named = view_named(a);
    int takes = strcmp(a, "--metric") == 0 || strcmp(a, "--limit") == 0 || strcmp(a, "--mode") == 0 ||
                (named != NULL && named->value != NULL);
    if (takes && i + 1 >= argc) {
      fprintf(stderr, "gdbcol-report: %s needs a value\n", a);
      usage(stderr);
      return 2;
    }
    if (strcmp(a, "--between") == 0 || strcmp(a, "--since-stop") == 0) {
      int between = strcmp(a, "--between") == 0;
      if (i + (between ? 2 : 1) >= argc) {
        fprintf(stderr, "gdbcol-report: %s needs %s\n", a, between ? "two sample points" : "a stop's number");
        return 2;
      }
      char *end1, *end2 = "";
      long first = strtol(argv[++i], &end1, 10), second = -1;
      if (between && strcmp(argv[i + 1], "end") != 0)
        second = strtol(argv[i + 1], &end2, 10);
      if (between)
        i++;
      if (*end1 != '\0' || *end2 != '\0' || first < 0 || (between ? second < -1 : first < 1)) {
        fprintf(stderr, "gdbcol-report: %s takes %s\n", a, between ? "two sample point numbers (0 or more; the second "
                "may be end)" : "a stop's number (1 or more)");
        return 2;
      }
      if (between)
        span_from = first, span_to = second;
      else
        since_stop = first;
    } else if (strcmp(a, "--metric") == 0) {
      metric = argv[++i];
    } else if (strcmp(a, "--limit") == 0) {
      char *end;
      long n = strtol(argv[++i], &end, 10);
      if (*end != '\0' || n <= 0) {
        fprintf(stderr, "gdbcol-report: --limit takes a positive number, not \"%s\"\n", argv[i]);
        return 2;
      }
      rows = (size_t)n;
    } else if (strcmp(a, "--mode") == 0) {
      const char *m = argv[++i];
      if (strcmp(m, "user") != 0 && strcmp(m, "machine") != 0) {
        fprintf(stderr, "gdbcol-report: --mode takes user or machine, not \"%s\"\n", m);
        return 2;
      }
      mode = strcmp(m, "user") == 0 ? ER_VIEW_USER : ER_VIEW_MACHINE;
    } else if (takes) {
      view = a + 2;
      argument = argv[++i];
    } else if (strcmp(a, "--no-inline") == 0) {
      with_inlined = 0;
    } else if (strcmp(a, "--within-gdb") == 0) {
      within_gdb = 1;
    } else if (named != NULL) {
      view = named->name;
    } else if (strcmp(a, "--list-views") == 0) {
      /* for `collector report`: each view's name and what it takes */
      for (size_t v = 0; v < N_VIEWS; v++)
        printf("%s %s\n", views[v].name, views[v].value ? views[v].value : "-");
      return 0;
    } else if (strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "gdbcol-report: unknown option %s\n", a);
      usage(stderr);
      return 2;
    } else if (path == NULL) {
      path = a;
    } else {
      fprintf(stderr, "gdbcol-report: one experiment at a time (%s and %s given)\n", path, a);
      return 2;
    }
  }
  if (path == NULL) {
    usage(stderr);
    return 2;
  }
  if (strcmp(view, "processes") == 0) {
    processes_view(path, metric, path, 0);
    return 0;
  }
  if (strcmp(view, "mpi") == 0)
    return er_mpi_report(path, rows);
  struct er_experiment exp;
  char err[1024];
  if (er_experiment_open(path, &exp, err, sizeof err) != 0) {
    fprintf(stderr, "gdbcol-report: %s: %s\n", path, err);
    return 1;
  }
  struct er_span span = {0, 0, ""};
  if (span_from >= 0 || since_stop >= 0) {
    int got = since_stop >= 0 ? er_span_since_stop(&exp, (unsigned long)since_stop, &span, err, sizeof err)
                              : er_span_between(&exp, span_from, span_to, &span, err, sizeof err);
    if (got != 0) {
      fprintf(stderr, "gdbcol-report: %s: %s\n", path, err);
      er_experiment_close(&exp);
      return 1;
    }
    er_experiment_keep_span(&exp, &span);
    /* (said on stderr where the view itself goes to stdout: folded stacks
     * read by another tool) */
    fprintf(argument != NULL && strcmp(argument, "-") == 0 ? stderr : stdout, "Only what ran %s.\n", span.what);
  }
  struct er_names *names = er_names_open(&exp);
  if (strcmp(view, "races") == 0 && names != NULL) {
    int rc = er_race_report(path, &exp, names);
    er_names_close(names);
    er_experiment_close(&exp);
    return rc;
  }
  if (strcmp(view, "deadlocks") == 0 && names != NULL) {
    int rc = er_deadlock_report(path, &exp, names);
    er_names_close(names);
    er_experiment_close(&exp);
    return rc;
  }
  if ((strcmp(view, "pprof") == 0 || strcmp(view, "firefox") == 0) && names != NULL) {
    int pprof = strcmp(view, "pprof") == 0;
    FILE *out = create_output(argument);
    /* (every process of the run: the Firefox Profiler's processes with
     * their threads, pprof's "process" label; a span is the founder's) */
    struct process_set *set = out != NULL && span.what[0] == '\0' ? open_process_set(path, &exp, names) : NULL;
    const struct er_experiment *exps[MAX_PROCESSES];
    const char *labels[MAX_PROCESSES];
    for (size_t i = 0; set != NULL && i < set->n; i++)
      exps[i] = &set->exps[i], labels[i] = set->labels[i];
    int rc = out == NULL ? (err[0] = '\0', -1)
             : set == NULL ? (pprof ? er_pprof_write(out, &exp, names, err, sizeof err)
                                    : er_firefox_write(out, &exp, names, err, sizeof err))
             : pprof ? er_pprof_write_all(out, exps, set->names, labels, set->n, err, sizeof err)
                     : er_firefox_write_all(out, exps, set->names, set->n, err, sizeof err);
    if (set != NULL)
      close_descendants(set);
    if (out != NULL && out != stdout && fclose(out) != 0 && rc == 0)
      rc = -1, snprintf(err, sizeof err, "cannot write %s: %s", argument, strerror(errno));
    if (rc != 0 && out != NULL && out != stdout)
      unlink(argument); /* nothing half written stays */
    if (rc == 0 && pprof)
      printf("Wrote %s: pprof's profile.proto, gzip-compressed (pprof -top %s; Pyroscope, Parca, Grafana "
             "read it).\n", argument, argument);
    else if (rc == 0)
      printf("Wrote %s: the Firefox Profiler's format (open it at https://profiler.firefox.com: Load a profile "
             "from file).\n", argument);
    else if (err[0] != '\0')
      fprintf(stderr, "gdbcol-report: %s\n", err);
    er_names_close(names);
    er_experiment_close(&exp);
    return rc == 0 ? 0 : 1;
  }
  if (strcmp(view, "states") == 0 && names != NULL) {
    int rc = er_states_report(path, &exp, names, rows);
    er_names_close(names);
    er_experiment_close(&exp);
    return rc;
  }
  if (strcmp(view, "omp") == 0 && names != NULL) {
    int omp_rc = er_omp_report(path, &exp, names, rows);
    er_names_close(names);
    er_experiment_close(&exp);
    return omp_rc;
  }
  /* The pictures and folded stacks hold every process of the run; the
   * tables, the experiment's own (as gprofng reads it). */
  int picture = strcmp(view, "folded") == 0 || strcmp(view, "flamegraph") == 0 || strcmp(view, "html") == 0;
  struct process_set *set = picture && names != NULL && span.what[0] == '\0' ? open_process_set(path, &exp, names) : NULL;
  struct er_profile p;
  int built = -1;
  if (set != NULL) {
    for (size_t i = 0; i < set->n; i++)
      set->parts[i] = (struct er_profile_part){&set->exps[i], set->names[i], set->n > 1 ? set->labels[i] : NULL};
    built = er_profile_build_parts(set->parts, set->n, metric, with_inlined, mode, &p, err, sizeof err);
  } else if (names != NULL) {
    built = er_profile_build(&exp, names, metric, with_inlined, mode, &p, err, sizeof err);
  }
  if (set != NULL)
    close_descendants(set);
  if (built != 0) {
    fprintf(stderr, "gdbcol-report: %s: %s\n", path, names == NULL ? "out of memory" : err);
    er_names_close(names);
    er_experiment_close(&exp);
    return 1;
  }
  int rc = 0;
  if (strcmp(view, "functions") == 0) {
    printf("Experiment %s: ", path);
    print_value(&p, p.total);
    /* ("0.020 sec. of Total CPU Time", "300 Allocations") */
    printf(" %s%s%s in %.0f %s%s\n", strcmp(p.unit, "count") == 0 ? "" : p.unit,
           strcmp(p.unit, "count") == 0 ? "" : " of ", p.metric, p.samples, p.counted,
           exp.has_exit ? "" : " (still recording, or ended without its exit event: as recorded so far)");
    functions_view(&p, rows, names);
  } else if (strcmp(view, "callers") == 0 || strcmp(view, "callees") == 0) {
    rc = neighbours_view(&p, argument, strcmp(view, "callers") == 0, rows);
  } else if (strcmp(view, "threads") == 0) {
    threads_view(&p, &exp);
  } else {
    char title[4200];
    snprintf(title, sizeof title, "%s: %s", path, p.metric);
    rc = write_picture(argument, view, &p, title, &exp, names);
  }
  er_profile_free(&p);
  er_names_close(names);
  er_experiment_close(&exp);
  return rc;
}
