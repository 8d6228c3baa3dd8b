/* Descendant processes that are not recorded (their writer could not
 * start; sampler_writers.c records the others): that they ran is recorded,
 * a desc_start event (follow="0", as gprofng writes a descendant it does
 * not follow) for each child of the program, their count, the programs
 * they ran and the CPU their samples stand for, in log.xml and the status
 * file, so an empty profile is never mistaken for an idle program
 * (measured before descendants were followed: `gcc -c` profiled as "0
 * samples" for 13 s of CPU in cc1, with no word about the children). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/experiment_lifecycle.h"
#include "core/experiment_log.h"
#include "core/target.h"
#include "sampler_descendants.h"
#include "sampler_state.h"

#define MAX_NAMES 6
#define BUCKETS 1024

struct descendant {
  struct descendant *next;
  pid_t pid;
};

static struct descendant *buckets[BUCKETS];
static unsigned direct_children;
static char names[MAX_NAMES][32];
static unsigned n_names;
static struct descendants_figures figures = {.children_cpu_ms = -1};

static int is_descendant(pid_t pid)
{
  for (struct descendant *d = buckets[(unsigned)pid % BUCKETS]; d != NULL; d = d->next)
    if (d->pid == pid)
      return 1;
  return 0;
}

void descendants_on_fork(pid_t pid, pid_t ppid, pid_t tid, int64_t tstamp)
{
  if (pid != tid || pid == ppid || is_descendant(pid))
    return; /* a thread, not a process */
  int direct = ppid == col_target_pid;
  if (!direct && !is_descendant(ppid))
    return;
  struct descendant *d = malloc(sizeof *d);
  if (d == NULL)
    return;
  d->pid = pid;
  d->next = buckets[(unsigned)pid % BUCKETS];
  buckets[(unsigned)pid % BUCKETS] = d;
  figures.seen++;
  if (direct) {
    char lineage[32], msg[48];
    snprintf(lineage, sizeof lineage, "_f%u", ++direct_children);
    snprintf(msg, sizeof msg, "pid=%d", (int)pid);
    col_experiment_descendant_event("desc_start", "fork", lineage, msg, tstamp, 0);
  }
}

static void add_name(const char *comm)
{
  for (unsigned i = 0; i < n_names; i++)
    if (strcmp(names[i], comm) == 0)
      return;
  if (n_names < MAX_NAMES)
    snprintf(names[n_names++], sizeof names[0], "%s", comm);
}

void descendants_unfollowed(const char *command)
{
  figures.seen++;
  size_t len = strcspn(command, " "); /* its first word's last part */
  const char *base = command;
  for (size_t i = 0; i < len; i++)
    if (command[i] == '/')
      base = command + i + 1;
  char program[32];
  snprintf(program, sizeof program, "%.*s", (int)(command + len - base), base);
  add_name(program);
}

void descendants_on_sample(pid_t pid, uint64_t periods)
{
  if (is_descendant(pid))
    figures.samples += periods;
}

void descendants_on_exec(pid_t pid, const char *comm)
{
  if (is_descendant(pid))
    add_name(comm);
}

void descendants_describe(struct descendants_figures *out)
{
  *out = figures;
}

void descendants_reset_figures(void)
{
  memset(&figures, 0, sizeof figures);
  figures.children_cpu_ms = -1;
}

void descendants_children_cpu(int64_t ms)
{
  figures.children_cpu_ms = ms;
}

int64_t descendants_kernel_cpu_over_samples(const struct descendants_figures *f)
{
  int64_t sampled_ms = (int64_t)(f->samples * (uint64_t)col_cfg.clock_interval_us / 1000);
  return f->children_cpu_ms > sampled_ms ? f->children_cpu_ms : -1;
}

void descendants_warn(void)
{
  if (figures.seen == 0)
    return;
  char programs[MAX_NAMES * 34] = "";
  for (unsigned i = 0; i < n_names; i++)
    snprintf(programs + strlen(programs), sizeof programs - strlen(programs), "%s%s", i ? ", " : "", names[i]);
  int off = col_cfg.descendants[0] != '\0' && strcmp(col_cfg.descendants, "off") == 0;
  if (sampler.clock_in_program) { /* their samples never reach this process: the kernel's sum, where waited for */
    char cpu[120] = "";
    if (figures.children_cpu_ms >= 0)
      snprintf(cpu, sizeof cpu, " and used %.2f s of CPU (as the kernel counts the children the program waited "
               "for)", (double)figures.children_cpu_ms / 1000.0);
    col_log_final_warning(COL_WARN_TEXT, "%llu or more descendant process(es) ran (%s)%s; they are not recorded: %s",
                          (unsigned long long)figures.seen, n_names ? programs : "no exec", cpu,
                          off ? "collector descendants off"
                              : "the kernel refused perf events, so a process is followed by the collector's runtime "
                                "in it, which a child that clears its environment or a raw clone() does not carry");
    return;
  }
  double sampled_s = (double)figures.samples * (double)col_cfg.clock_interval_us / 1e6;
  char cpu[160];
  int64_t kernel_ms = descendants_kernel_cpu_over_samples(&figures);
  if (kernel_ms >= 0)
    snprintf(cpu, sizeof cpu, "%.2f s of CPU as the kernel counts the children the program waited for (%llu "
             "sample(s) of theirs)",
             (double)kernel_ms / 1000.0, (unsigned long long)figures.samples);
  else
    snprintf(cpu, sizeof cpu, "about %.2f s of CPU (%llu sample(s))", sampled_s, (unsigned long long)figures.samples);
  col_log_final_warning(COL_WARN_TEXT, "%llu descendant process(es) ran (%s) and used %s; they are not recorded (%s)",
                        (unsigned long long)figures.seen, n_names ? programs : "no exec", cpu,
                        off ? "collector descendants off" : "their writer process could not start");
}
