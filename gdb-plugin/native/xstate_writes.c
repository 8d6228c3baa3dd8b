/* GDB's writes of a thread's extended register state, completed.
 *
 * GDB 13 (Debian 12) writes a stopped thread's AVX/AVX-512 registers with
 * PTRACE_SETREGSET NT_X86_XSTATE from a buffer of its own fixed size.  The
 * kernel takes that write only from a buffer of the whole state's size
 * (11008 bytes on CPUs with AMX tiles, Sapphire Rapids and later), and
 * refuses a shorter one with EFAULT.  GDB restores every register after an
 * inferior call, so on such a CPU each call fails ("Couldn't write
 * extended state status: Bad address"): `print f()` and every call of ours
 * (the runtime's load after `gdb -p`, pause, resume, sample points).
 * Newer GDBs size the buffer from the kernel and never meet the refusal.
 *
 * The plugin's library, loaded into GDB's process, points GDB's own GOT
 * slot of ptrace at a wrapper.  The wrapper passes every call through;
 * only a state write the kernel refused with EFAULT is made again, from
 * the thread's whole state (read now: the thread is stopped) with GDB's
 * bytes over its start, where every register GDB knows lies.  The state
 * GDB does not know (the tiles) is written back as it was read. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "interpose/elf_dynamic.h"
#include "xstate_writes.h"

typedef long (*ptrace_fn)(int request, ...);
static ptrace_fn real_ptrace;
static unsigned repairs;

/* Larger than any state the kernel has (11008 bytes with AMX). */
#define WHOLE_STATE_BYTES (64 * 1024)
static unsigned char whole_state[WHOLE_STATE_BYTES];
static pthread_mutex_t whole_state_lock = PTHREAD_MUTEX_INITIALIZER;

static long write_whole_state(pid_t tid, const struct iovec *gdbs)
{
  pthread_mutex_lock(&whole_state_lock);
  struct iovec whole = {whole_state, sizeof whole_state};
  long rc = -1;
  if (real_ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)NT_X86_XSTATE, &whole) == 0 &&
      gdbs->iov_len < whole.iov_len) {
    memcpy(whole_state, gdbs->iov_base, gdbs->iov_len);
    rc = real_ptrace(PTRACE_SETREGSET, tid, (void *)(uintptr_t)NT_X86_XSTATE, &whole);
    repairs += rc == 0;
  }
  pthread_mutex_unlock(&whole_state_lock);
  return rc;
}

/* glibc's ptrace is variadic; it reads three arguments after the request
 * whatever the request, as this does. */
static long completing_ptrace(int request, ...)
{
  va_list ap;
  va_start(ap, request);
  pid_t pid = va_arg(ap, pid_t);
  void *addr = va_arg(ap, void *);
  void *data = va_arg(ap, void *);
  va_end(ap);
  long rc = real_ptrace(request, pid, addr, data);
  if (rc == -1 && errno == EFAULT && request == PTRACE_SETREGSET && (uintptr_t)addr == NT_X86_XSTATE &&
      data != NULL) {
    int saved = errno;
    rc = write_whole_state(pid, data);
    if (rc != 0)
      errno = saved;
  }
  return rc;
}

static int point_slot(const struct dl_phdr_info *info, void **slot, void *value)
{
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), relro_start, relro_end;
  col_relro_pages(info, page, &relro_start, &relro_end);
  if ((uintptr_t)slot < relro_start || (uintptr_t)slot >= relro_end) { /* (writable, as it stays) */
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return 0;
  }
  void *start = (void *)((uintptr_t)slot & ~(page - 1));
  if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0)
    return -1;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  mprotect(start, page, PROT_READ);
  return 0;
}

static int patch_relocations(const struct dl_phdr_info *info, const struct col_dynamic_tables *dyn,
                             const ElfW(Rela) *rel, size_t bytes)
{
  int patched = 0;
  for (size_t i = 0; rel != NULL && i < bytes / sizeof *rel; i++) {
    unsigned type = ELF64_R_TYPE(rel[i].r_info);
    if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
        strcmp(dyn->strtab + dyn->symtab[ELF64_R_SYM(rel[i].r_info)].st_name, "ptrace") != 0)
      continue;
    void **slot = (void **)(info->dlpi_addr + rel[i].r_offset);
    void *now = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (now == (void *)completing_ptrace)
      continue;
    if (real_ptrace == NULL)
      real_ptrace = (ptrace_fn)ptrace; /* (the slot may still hold its lazy stub) */
    patched += point_slot(info, slot, (void *)completing_ptrace) == 0;
  }
  return patched;
}

/* The main program's slots only: GDB's native code is its executable. */
static int patch_program(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct col_dynamic_tables dyn;
  if (col_read_dynamic(info, &dyn) == 0)
    *(int *)arg = patch_relocations(info, &dyn, dyn.jmprel, dyn.jmprel_size) +
                  patch_relocations(info, &dyn, dyn.rela, dyn.rela_size);
  return 1; /* the first object is the program */
}

int gdbcol_complete_xstate_writes(void)
{
  int patched = 0;
  dl_iterate_phdr(patch_program, &patched);
  return patched;
}

unsigned gdbcol_xstate_writes_completed(void)
{
  return repairs;
}
