/* Archiving load objects into an experiment; see er/er_archive.h. */
#define _GNU_SOURCE
#include "er/er_archive.h"
#include "er/er_naming.h"
#include "er/er_archive_symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "er/er_fileutil.h"
#include "er/er_recordfile.h"
#include "er/er_text.h"

#define MAX_PLAIN_BASENAME 243 /* longer ones gprofng shortens with a second hash */

int er_archive_parse_mode(const char *text)
{
  static const char *const names[] = {"off", "on", "copy"};
  for (int i = 0; i < 3; i++)
    if (text != NULL && strcmp(text, names[i]) == 0)
      return i;
  return -1;
}

const char *er_archive_mode_name(enum er_archive_mode mode)
{
  return mode == ER_ARCHIVE_COPY ? "copy" : mode == ER_ARCHIVE_ON ? "on" : "off";
}

/* gprofng's CRC-64: MSB first, initial value 0, polynomial low part 0x807. */
static uint64_t directory_crc(const char *bytes, size_t len)
{
  static uint64_t table[256];
  if (table[1] == 0)
    for (int i = 0; i < 256; i++) {
      uint64_t c = (uint64_t)i << 56;
      for (int bit = 0; bit < 8; bit++)
        c = (c & (1ULL << 63)) ? (c << 1) ^ 0x807 : c << 1;
      table[i] = c;
    }
  uint64_t crc = 0;
  for (size_t i = 0; i < len; i++)
    crc = (crc << 8) ^ table[(crc >> 56) ^ (unsigned char)bytes[i]];
  return crc;
}

int er_archive_file_name(const char *raw_path, char *out, size_t out_len)
{
  static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";
  /* gprofng computes the name from map.xml's text, where bytes that are not
   * UTF-8 are private-use characters (er_xml_visible): so do we. */
  char path[4096 * 3];
  er_xml_visible(raw_path, path, sizeof path);
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  if (strlen(base) > MAX_PLAIN_BASENAME)
    return -1;
  uint64_t crc = slash ? directory_crc(path, (size_t)(slash - path) + 1) : directory_crc("./", 2);
  char hash[12];
  for (int i = 0; i < 11; i++, crc >>= 6)
    hash[i] = alphabet[crc & 63];
  hash[11] = '\0';
  return snprintf(out, out_len, "%s_%s", base, hash) < (int)out_len ? 0 : -1;
}

/* The GNU build-id of the ELF file open on FD, as hex; "" when it has none.
 * Returns -1 when FD is not an ELF file. */
int er_build_id_of_fd(int fd, char *hex, size_t hex_len)
{
  hex[0] = '\0';
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
    elf_end(elf);
    return -1;
  }
  Elf_Scn *scn = NULL;
  while (hex[0] == '\0' && (scn = elf_nextscn(elf, scn)) != NULL) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    GElf_Nhdr note;
    size_t offset = 0, name_at, desc_at;
    while (data != NULL && (offset = gelf_getnote(data, offset, &note, &name_at, &desc_at)) > 0) {
      if (note.n_type != NT_GNU_BUILD_ID || note.n_namesz != 4 ||
          memcmp((char *)data->d_buf + name_at, "GNU", 4) != 0)
        continue;
      const unsigned char *id = (const unsigned char *)data->d_buf + desc_at;
      for (size_t i = 0; i < note.n_descsz && 2 * i + 2 < hex_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
      break;
    }
  }
  elf_end(elf);
  return 0;
}

static int copy_contents(int from, int to)
{
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(from, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -errno;
    if (n == 0)
      return 0;
    int rc = er_write_all(to, buf, (size_t)n);
    if (rc < 0)
      return rc;
  }
}

/* Copies the object open on FROM into ARCHIVES as NAME, with its mtime (as
 * gp-archive does), and the symbols of the debug file open on DEBUG_FD
 * (-1: none) folded in.  1 copied, 0 there already, negative errno. */
static int copy_object(int from, const struct stat *st, int archives, const char *name, int debug_fd)
{
  int to = er_create_exclusive(archives, name, O_RDWR);
  if (to == -EEXIST)
    return 0;
  if (to < 0)
    return to;
  int rc = copy_contents(from, to);
  if (rc == 0 && debug_fd >= 0) {
    int folded = er_fold_symbols(from, debug_fd, to);
    rc = folded < -1 ? folded : 0; /* -1: not foldable, the plain copy stands */
  }
  if (rc == 0) {
    struct timespec times[2] = {st->st_atim, st->st_mtim};
    futimens(to, times);
  }
  close(to);
  if (rc < 0)
    unlinkat(archives, name, 0); /* never leave a truncated copy */
  return rc < 0 ? rc : 1;
}

/* The archive directory of an experiment: a descendant (x.er/_f1.er, an
 * MPI rank's x.er/M_r2.er) uses its founder's, the path up to the first
 * ".er/_" or ".er/M_r". */
static void archive_dir_path(const char *experiment_path, char *out, size_t out_len)
{
  const char *desc = strstr(experiment_path, ".er/_"), *rank = strstr(experiment_path, ".er/" ER_RANK_PREFIX);
  if (rank != NULL && (desc == NULL || rank < desc))
    desc = rank;
  int len = desc ? (int)(desc - experiment_path) + 3 : (int)strlen(experiment_path);
  snprintf(out, out_len, "%.*s/archives", len, experiment_path);
}

int er_archive_open_copy(const char *experiment_path, const char *path)
{
  char dir[4096], name[512], full[4608];
  if (er_archive_file_name(path, name, sizeof name) != 0)
    return -1;
  archive_dir_path(experiment_path, dir, sizeof dir);
  snprintf(full, sizeof full, "%s/%s", dir, name);
  return er_open_regular_file(full);
}

/* archives/, opened when a copy is first made (in "on" mode, only for an
 * object with separate debug info). */
struct archive_dir {
  const char *experiment_path;
  int fd; /* -1: not opened yet; negative errno: cannot be */
};

static int open_archive_dir(const char *experiment_path);

static int archive_dir_fd(struct archive_dir *dir)
{
  if (dir->fd == -1)
    dir->fd = open_archive_dir(dir->experiment_path);
  return dir->fd;
}

/* An object the system installed (its package manager's directories):
 * the same file, by build id, on the machines of the same distribution,
 * so "on" records it and does not copy it.  Anything else (the program in
 * a build tree, /opt, /usr/local, a home) may be rebuilt, moved or
 * deleted: "on" copies it, so the experiment reads elsewhere. */
static int system_object(const char *path)
{
  static const char *const dirs[] = {"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/usr/bin/",
                                     "/usr/sbin/", "/usr/lib/", "/usr/lib32/", "/usr/lib64/", "/usr/libx32/",
                                     "/usr/libexec/"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
      return 1;
  return 0;
}

/* One object: a line in archive.log, and its copy where the mode asks for
 * one (copy: every object; on: objects not the system's, and stripped
 * system ones with separate debug info). */
static void archive_object(const char *path, enum er_archive_mode mode, struct archive_dir *archives,
                           struct er_recordfile *log, struct er_archive_result *r)
{
  char name[512], build_id[130], what[96];
  r->objects++;
  int fd = er_open_regular_file(path);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || er_build_id_of_fd(fd, build_id, sizeof build_id) != 0) {
    r->missing++;
    if (er_recordfile_printf(log, 0, "missing  %s (%s)\n", path, fd < 0 ? strerror(errno) : "not an ELF file") != 0)
      r->unlogged++;
    if (fd >= 0)
      close(fd);
    return;
  }
  snprintf(what, sizeof what, "recorded");
  /* A stripped object with separate debug info: a copy with its symbols,
   * even in "on" mode, so gprofng names its static functions. */
  char debug_path[4096] = "";
  int debug_fd = -1;
  if (!er_has_symtab(fd) && er_find_debug_file(path, build_id, debug_path, sizeof debug_path) == 0)
    debug_fd = er_open_regular_file(debug_path);
  if (debug_fd < 0 && !er_has_symtab(fd) && !er_has_dynsym(fd) && r->unnamed++ == 0)
    snprintf(r->first_unnamed, sizeof r->first_unnamed, "%s", path);
  if (mode == ER_ARCHIVE_COPY || debug_fd >= 0 || !system_object(path)) {
    int dirfd = archive_dir_fd(archives);
    int rc = dirfd < 0                                              ? dirfd
             : er_archive_file_name(path, name, sizeof name) == 0 ? copy_object(fd, &st, dirfd, name, debug_fd)
                                                                    : -ENAMETOOLONG;
    unsigned *tally = rc > 0 ? &r->copied : rc == 0 ? &r->present : &r->failed;
    ++*tally;
    r->with_debug_symbols += rc > 0 && debug_fd >= 0;
    snprintf(what, sizeof what, "%s", rc > 0 ? "copied" : rc == 0 ? "present" : "failed");
    if (rc < 0)
      er_recordfile_printf(log, 0, "# cannot copy %s: %s\n", path, strerror(-rc));
  }
  if (debug_fd >= 0) {
    if (er_recordfile_printf(log, 0, "# debug info of %s: %s (its symbols are in the copy)\n", path, debug_path) != 0)
      r->unlogged++;
    close(debug_fd);
  }
  if (er_recordfile_printf(log, 0, "%-8s build-id=%s size=%lld mtime=%lld path=%s\n", what,
                           build_id[0] ? build_id : "none", (long long)st.st_size, (long long)st.st_mtime, path) != 0)
    r->unlogged++;
  close(fd);
}

/* archive.log is appended to (an experiment archived again keeps both);
 * each line is written whole or not at all. */
static int open_log(int expdir, struct er_recordfile *log)
{
  int rc = er_recordfile_open_existing(log, expdir, "archive.log");
  if (rc == -ENOENT)
    rc = er_recordfile_create(log, expdir, "archive.log", 0);
  return rc;
}

/* The experiment's archives/ directory, created when missing: a
 * descriptor or a negative errno (never through a symlink). */
static int open_archive_dir(const char *experiment_path)
{
  char dir[4096];
  archive_dir_path(experiment_path, dir, sizeof dir);
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return -errno;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

/* One "STATE build-id=X size=N mtime=T path=P" line of archive.log: 0 and
 * its fields, or -1 for comments and "missing" lines. */
static int parse_log_line(char *line, char **build_id, long long *size, long long *mtime, char **path)
{
  if (line[0] == '#' || strncmp(line, "missing", 7) == 0)
    return -1;
  char *id = strstr(line, " build-id="), *sz = strstr(line, " size="), *mt = strstr(line, " mtime="),
       *p = strstr(line, " path=");
  if (id == NULL || sz == NULL || mt == NULL || p == NULL)
    return -1;
  *build_id = id + 10;
  char *id_end = strchr(*build_id, ' ');
  if (id_end == NULL)
    return -1;
  *id_end = '\0';
  *size = atoll(sz + 6);
  *mtime = atoll(mt + 7);
  *path = p + 6;
  return 0;
}

int er_archive_check(const char *experiment_path, void (*report)(const char *path, const char *why, void *arg),
                     void *arg)
{
  char log_path[4200], line[4600];
  snprintf(log_path, sizeof log_path, "%s/archive.log", experiment_path);
  FILE *log = fopen(log_path, "re");
  if (log == NULL)
    return -1;
  int reported = 0;
  while (fgets(line, sizeof line, log) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    char *recorded_id, *path, now_id[130];
    long long size, mtime;
    if (parse_log_line(line, &recorded_id, &size, &mtime, &path) != 0)
      continue;
    int fd = er_open_regular_file(path);
    struct stat st;
    const char *why = NULL;
    if (fd < 0 || fstat(fd, &st) != 0)
      why = "gone since the run";
    else if (er_build_id_of_fd(fd, now_id, sizeof now_id) != 0)
      why = "no longer an ELF file";
    else if (strcmp(recorded_id, "none") != 0 ? strcmp(recorded_id, now_id) != 0
                                              : (st.st_size != size || st.st_mtime != mtime))
      why = "changed since the run (build-id or size and time differ)";
    if (fd >= 0)
      close(fd);
    if (why != NULL) {
      report(path, why, arg);
      reported++;
    }
  }
  fclose(log);
  return reported;
}

int er_archive_objects(const char *experiment_path, enum er_archive_mode mode, const char *const *paths, size_t n,
                       struct er_archive_result *result, char *err, size_t err_len)
{
  memset(result, 0, sizeof *result);
  if (mode == ER_ARCHIVE_OFF)
    return 0;
  struct er_recordfile log = {.fd = -1};
  int expdir = open(experiment_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int log_rc = expdir < 0 ? -errno : open_log(expdir, &log);
  struct archive_dir archives = {experiment_path, -1};
  if (log_rc >= 0 && mode == ER_ARCHIVE_COPY)
    archive_dir_fd(&archives);
  int failure = log_rc < 0 ? log_rc : mode == ER_ARCHIVE_COPY && archives.fd < 0 ? archives.fd : 0;
  if (failure < 0) {
    snprintf(err, err_len, "cannot archive %s: %s", experiment_path, strerror(-failure));
    er_recordfile_close(&log);
    if (expdir >= 0)
      close(expdir);
    if (archives.fd >= 0)
      close(archives.fd);
    return -1;
  }
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
  er_recordfile_printf(&log, 0, "# archive %s, %s\n", er_archive_mode_name(mode), when);
  for (size_t i = 0; i < n; i++)
    archive_object(paths[i], mode, &archives, &log, result);
  result->log_errno = log.error;
  er_recordfile_close(&log);
  if (archives.fd >= 0)
    close(archives.fd);
  close(expdir);
  return 0;
}
