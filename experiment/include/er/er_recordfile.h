/* Append-only files of whole records: log.xml and map.xml lines, overview
 * records, archive.log lines.
 *
 * A record is written whole or not at all.  A short or failed write is cut
 * back off the file (ftruncate to the last whole record), so a full disk
 * never leaves half a line (an XML parse error in gprofng) or a partial
 * 504-byte overview record (the experiment fails to load).
 *
 * Disk space is reserved ahead with fallocate(FALLOC_FL_KEEP_SIZE), which
 * changes no byte of the file: ordinary records stop once the reserve
 * cannot grow, leaving the file's closing reserve for the records that
 * close the experiment (the warning that says why data stopped, the last
 * sample, the exit event).  Where the file system cannot reserve, writes go ahead and
 * failures are still cut back.
 *
 * Not thread-safe: the runtime writes these from its own thread only. */
#ifndef ER_RECORDFILE_H
#define ER_RECORDFILE_H

#include <stddef.h>
#include <stdint.h>

struct er_recordfile {
  int fd;
  uint64_t end;      /* bytes of whole records in the file */
  uint64_t reserved; /* disk space reserved from offset 0 */
  uint64_t closing_reserve; /* bytes kept for FINAL records */
  int can_reserve;   /* the file system supports fallocate */
  int error;         /* errno that stopped ordinary records; 0 while none did */
  uint64_t written, dropped; /* records */
};

/* Creates NAME in DIRFD (never following a symlink, never replacing a
 * file), keeping CLOSING_RESERVE bytes of disk for its FINAL records.
 * Returns 0 or a negative errno; F is then closed (fd -1). */
int er_recordfile_create(struct er_recordfile *f, int dirfd, const char *name, size_t closing_reserve);
/* Opens an existing NAME for appending (archive.log written afterwards). */
int er_recordfile_open_existing(struct er_recordfile *f, int dirfd, const char *name);
/* Nonzero when a record of LEN bytes can be appended now (space reserved
 * for it).  FINAL records may use the closing reserve. */
int er_recordfile_room(struct er_recordfile *f, size_t len, int final);
/* Appends one whole record.  Returns 0 or a negative errno (nothing
 * written). */
int er_recordfile_append(struct er_recordfile *f, const void *rec, size_t len, int final);
/* printf into one record (at most 8 KiB; longer is refused whole). */
int er_recordfile_printf(struct er_recordfile *f, int final, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Gives back the unused reserve and closes. */
void er_recordfile_close(struct er_recordfile *f);

#endif
