/* `collector hwprofile counter` lists: every documented form, and a clear
 * refusal that names the bad part for each malformed one. */
#include <stdio.h>
#include <string.h>

#include "er/er_hwc_events.h"
#include "er/er_hwc_spec.h"
#include "test_util.h"

static void accepts(const char *text, int n, const char *canonical)
{
  struct er_hwc_spec spec;
  char err[512], out[1024];
  int rc = er_parse_hwc_spec(text, &spec, err, sizeof err);
  if (rc != 0)
    fprintf(stderr, "refused \"%s\": %s\n", text, err);
  CHECK(rc == 0);
  CHECK(spec.n == n);
  CHECK(er_format_hwc_spec(&spec, out, sizeof out) == 0);
  if (strcmp(out, canonical) != 0)
    fprintf(stderr, "\"%s\" -> \"%s\", want \"%s\"\n", text, out, canonical);
  CHECK(strcmp(out, canonical) == 0);
}

static void refuses(const char *text, const char *why)
{
  struct er_hwc_spec spec;
  char err[512] = "";
  CHECK(er_parse_hwc_spec(text, &spec, err, sizeof err) == -1);
  if (strstr(err, why) == NULL)
    fprintf(stderr, "\"%s\": message \"%s\" lacks \"%s\"\n", text, err, why);
  CHECK(strstr(err, why) != NULL);
  CHECK(strstr(err, "for example") != NULL); /* the accepted form is always shown */
}

/* A name GDB found through PAPI or libpfm4 resolves from the encodings it
 * passes; a table name from the table; anything else not at all. */
static void resolves_native(void)
{
  struct er_hwc_native cs = {1, 3, 0x10, 0x20, 100};
  char native[512], one[256], metric[64];
  CHECK(er_hwc_format_native("perf::PERF_COUNT_SW_CONTEXT_SWITCHES", &cs, one, sizeof one) == 0);
  snprintf(native, sizeof native, "x::Y=4:1a:0:0:3e8;%s", one);
  struct er_hwc_spec spec;
  char err[256];
  CHECK(er_parse_hwc_spec("perf::PERF_COUNT_SW_CONTEXT_SWITCHES,hi,page-faults,7,x::Y,on,x::Z", &spec, err,
                          sizeof err) == 0);
  struct er_hwc_resolved r;
  CHECK(er_hwc_resolve(&spec.counters[0], native, &r) == 0 && r.perf_type == 1 && r.perf_config == 3 &&
        r.perf_config1 == 0x10 && r.perf_config2 == 0x20 && r.interval == 10);
  CHECK(er_hwc_resolve(&spec.counters[1], native, &r) == 0 && r.perf_config == 2 && r.interval == 7);
  CHECK(er_hwc_resolve(&spec.counters[2], native, &r) == 0 && r.perf_type == 4 && r.perf_config == 0x1a &&
        r.interval == 1000 && strcmp(r.name, "x::Y") == 0);
  CHECK(er_hwc_resolve(&spec.counters[3], native, &r) == -1 && er_hwc_resolve(&spec.counters[3], NULL, &r) == -1);
  er_hwc_metric_name("perf::CYCLES:u", metric, sizeof metric);
  CHECK(strcmp(metric, "perf.CYCLES.u") == 0);
  er_hwc_metric_name("page-faults", metric, sizeof metric);
  CHECK(strcmp(metric, "page-faults") == 0);
}

int main(void)
{
  resolves_native();
  accepts("cycles", 1, "cycles,on");
  accepts("cycles,on,insts", 2, "cycles,on,insts,on");
  accepts("cycles hi", 1, "cycles,hi");
  accepts("cycles lo insts 1000003", 2, "cycles,lo,insts,1000003");
  accepts("+dcm,0x10000", 1, "+dcm,65536");
  accepts("cycles/0,on,insts/1", 2, "cycles/0,on,insts/1,on");
  accepts("r003c~umask=0x3~cmask=1/2,hi", 1, "r003c~umask=0x3~cmask=0x1/2,hi");
  accepts("PAPI_TOT_CYC,100003", 1, "PAPI_TOT_CYC,100003");
  accepts("L1-dcache-load-misses", 1, "L1-dcache-load-misses,on");

  refuses("", "no counter");
  refuses("on", "does not follow a counter");
  refuses("cycles,on,hi", "does not follow a counter");
  refuses("cycles,,insts", "empty item");
  refuses("cycles,", "empty item");
  refuses("cycles,0", "invalid interval");
  refuses("cycles,12x", "invalid interval");
  refuses("cycles/99", "invalid register");
  refuses("cycles/x", "invalid register");
  refuses("cycles~umask", "invalid attribute");
  refuses("cycles~umask=zz", "invalid value");
  refuses("cyc#les", "unexpected");
  refuses("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", "too many counters");
  return TEST_EXIT();
}
