/* gdbcol-archive: archives an experiment after the fact, as gprofng's
 * gp-archive does: for one whose process was killed before it could
 * archive itself, or one recorded with `collector archive off|on` that is
 * to be moved to another machine.
 *
 *   gdbcol-archive [on|copy] EXPERIMENT.er */
#include <stdio.h>
#include <string.h>

#include "er/er_archive.h"

int main(int argc, char **argv)
{
  int mode = ER_ARCHIVE_COPY;
  if (argc == 3)
    mode = er_archive_parse_mode(argv[1]);
  if ((argc != 2 && argc != 3) || mode < ER_ARCHIVE_ON) {
    fprintf(stderr, "usage: gdbcol-archive [on|copy] EXPERIMENT.er   (default: copy)\n"
                    "  on    record each load object's size, time and build-id in archive.log\n"
                    "  copy  also copy each load object into the experiment's archives/\n");
    return 2;
  }
  const char *path = argv[argc - 1];
  struct er_archive_result r;
  char err[1024];
  if (er_archive_experiment(path, (enum er_archive_mode)mode, &r, err, sizeof err) != 0) {
    fprintf(stderr, "gdbcol-archive: %s\n", err);
    return 1;
  }
  printf("%s: %u load object(s); %u copied, %u already archived, %u missing, %u failed (see archive.log)\n", path,
         r.objects, r.copied, r.present, r.missing, r.failed);
  return r.failed ? 1 : 0;
}
