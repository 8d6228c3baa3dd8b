/* archives/ (experiment-format.md §9): what `collector archive on|off|copy`
 * leaves in an experiment when it ends, and where a reader finds a copied
 * load object.
 *
 *   off   nothing.
 *   on    archive.log names every load object the experiment maps, with
 *         its size, mtime and GNU build-id, so a reader on this machine can
 *         tell when a file changed or vanished since the run.
 *   copy  the same, and a copy of each object in archives/ under the name
 *         gprofng looks up (basename_HASH), so the experiment reads after
 *         the program is deleted or the experiment moved elsewhere.
 * In both "on" and "copy", a stripped object whose separate debug info is
 * installed is copied with the debug info's symbols folded in (and
 * archive.log says where that was found), so gprofng names its static
 * functions. */
#ifndef ER_ARCHIVE_H
#define ER_ARCHIVE_H

#include <stddef.h>

enum er_archive_mode { ER_ARCHIVE_OFF, ER_ARCHIVE_ON, ER_ARCHIVE_COPY };

/* "off", "on" or "copy"; -1 for anything else. */
int er_archive_parse_mode(const char *text);
const char *er_archive_mode_name(enum er_archive_mode mode);

/* The name under archives/ that gprofng computes for a load object recorded
 * as PATH: its basename, '_', and 11 characters of a CRC-64 of the directory
 * part.  Returns 0, or -1 when the basename is too long for gprofng's plain
 * scheme (more than 243 bytes). */
int er_archive_file_name(const char *path, char *out, size_t out_len);
/* The GNU build-id of the ELF file open on FD, as hex, into HEX ("" when
 * it has none); -1 when FD is not an ELF file. */
int er_build_id_of_fd(int fd, char *hex, size_t hex_len);

struct er_archive_result {
  unsigned objects; /* load objects named in map.xml */
  unsigned copied;  /* copies made now */
  unsigned present; /* copies that were there already */
  unsigned missing; /* files gone or unreadable: readers will lack symbols */
  unsigned failed;  /* copies that could not be made */
  unsigned with_debug_symbols; /* copies made with separate debug info's symbols folded in */
  unsigned unlogged; /* objects archive.log could not record (disk full) */
  unsigned unnamed;  /* objects with no symbols at all, nor separate debug info: functions without names */
  char first_unnamed[256]; /* the first of them */
  int log_errno;     /* why archive.log stopped; 0 when it did not */
};

/* Archives the load objects PATHS[0..N) (those the experiment's map.xml
 * names, each once) of the experiment at EXPERIMENT_PATH in MODE.  Never
 * replaces a file and never follows a symlink in the experiment.  Returns
 * 0, or -1 with a message in ERR. */
int er_archive_objects(const char *experiment_path, enum er_archive_mode mode, const char *const *paths, size_t n,
                       struct er_archive_result *result, char *err, size_t err_len);

/* Archives the experiment at EXPERIMENT_PATH (a .er directory) in MODE,
 * the objects its map.xml names (er_archive_map.c).
 * Never replaces a file and never follows a symlink in the experiment; an
 * experiment archived twice keeps its first copies.  Returns 0, or -1 with
 * a message in ERR (the experiment itself is left readable either way). */
int er_archive_experiment(const char *experiment_path, enum er_archive_mode mode, struct er_archive_result *result,
                          char *err, size_t err_len);

/* Compares the load objects archive.log records with the files now at
 * their paths: calls REPORT for each one that is gone or whose build-id
 * (or, without one, size and mtime) differs, with a short reason.  Returns
 * the number reported, or -1 when the experiment has no archive.log. */
int er_archive_check(const char *experiment_path, void (*report)(const char *path, const char *why, void *arg),
                     void *arg);

/* Opens the archived copy of the load object recorded as PATH in the
 * experiment at EXPERIMENT_PATH (a descendant uses its founder's
 * archives/).  Returns a descriptor or -1. */
int er_archive_open_copy(const char *experiment_path, const char *path);

#endif
