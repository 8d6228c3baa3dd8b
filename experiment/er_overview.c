/* overview records; see er/er_overview.h. */
#include "er/er_overview.h"

#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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
