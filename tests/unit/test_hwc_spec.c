/* `collector hwprofile counter` lists: every documented form, and a clear
 * refusal that names the bad part for each malformed one. */
#include <stdio.h>
#include <string.h>

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

int main(void)
{
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
