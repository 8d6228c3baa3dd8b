/* overview records; see er/er_overview.h. */
#include "er/er_overview.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "er/er_fileutil.h"
#include "er/er_recordfile.h"

static struct er_timespec_pair from_ns(int64_t ns)
{
  struct er_timespec_pair t = {(uint64_t)(ns / 1000000000), (uint64_t)(ns % 1000000000)};
  return t;
}

static struct er_timespec_pair from_timeval(struct timeval tv)
{
  struct er_timespec_pair t = {(uint64_t)tv.tv_sec, (uint64_t)tv.tv_usec * 1000u};
  return t;
}

void er_overview_fill(struct er_overview_record *rec, int64_t create_ns, int64_t now_ns)
{
  struct rusage ru;
  memset(rec, 0, sizeof *rec);
  memset(&ru, 0, sizeof ru);
  getrusage(RUSAGE_SELF, &ru);
  rec->lwpid = (int32_t)getpid();
  rec->count = 1;
  rec->tstamp = from_ns(now_ns);
  rec->create = from_ns(create_ns);
  rec->rtime = from_ns(now_ns - create_ns);
  rec->utime = from_timeval(ru.ru_utime);
  rec->stime = from_timeval(ru.ru_stime);
  rec->minf = (uint64_t)ru.ru_minflt;
  rec->majf = (uint64_t)ru.ru_majflt;
  rec->nswap = (uint64_t)ru.ru_nswap;
  rec->inblk = (uint64_t)ru.ru_inblock;
  rec->oublk = (uint64_t)ru.ru_oublock;
  rec->msnd = (uint64_t)ru.ru_msgsnd;
  rec->mrcv = (uint64_t)ru.ru_msgrcv;
  rec->sigs = (uint64_t)ru.ru_nsignals;
  rec->vctx = (uint64_t)ru.ru_nvcsw;
  rec->ictx = (uint64_t)ru.ru_nivcsw;
}

int er_overview_append(struct er_recordfile *file, const struct er_overview_record *rec, int final)
{
  return er_recordfile_append(file, rec, sizeof *rec, final);
}

static uint64_t status_value(const char *text, const char *key)
{
  const char *p = strstr(text, key);
  unsigned long long v = 0;
  if (p != NULL)
    sscanf(p + strlen(key), " %llu", &v);
  return (uint64_t)v;
}

void er_overview_fill_proc(struct er_overview_record *rec, int pid, int64_t create_ns, int64_t now_ns)
{
  char path[64], text[4096];
  memset(rec, 0, sizeof *rec);
  rec->lwpid = pid;
  rec->count = 1;
  rec->tstamp = from_ns(now_ns);
  rec->create = from_ns(create_ns);
  rec->rtime = from_ns(now_ns - create_ns);
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  const char *fields = er_proc_stat_fields(path, text, sizeof text);
  unsigned long long minflt = 0, majflt = 0, utime = 0, stime = 0;
  /* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
  if (fields != NULL && sscanf(fields, "%*c %*d %*d %*d %*d %*d %*u %llu %*u %llu %*u %llu %llu", &minflt, &majflt,
                          &utime, &stime) == 4) {
    long hz = sysconf(_SC_CLK_TCK);
    rec->minf = minflt;
    rec->majf = majflt;
    rec->utime = from_ns((int64_t)(utime * 1000000000ULL / (unsigned long long)hz));
    rec->stime = from_ns((int64_t)(stime * 1000000000ULL / (unsigned long long)hz));
  }
  snprintf(path, sizeof path, "/proc/%d/status", pid);
  if (er_read_text(path, text, sizeof text) > 0) {
    rec->vctx = status_value(text, "voluntary_ctxt_switches:");
    rec->ictx = status_value(text, "nonvoluntary_ctxt_switches:");
  }
}
