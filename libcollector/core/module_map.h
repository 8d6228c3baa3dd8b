/* map.xml: the load objects and functions the experiment's PCs refer to. */
#ifndef COL_CORE_MODULE_MAP_H
#define COL_CORE_MODULE_MAP_H

#include <stddef.h>
#include <stdint.h>

int col_modules_open(int expdir_fd, int64_t run_tstamp);
/* Rereads /proc/self/maps and records new mappings and unmaps in map.xml;
 * returns nonzero when executable mappings changed (what the unwinder's
 * caches depend on).  Only the recording thread (or the opener, before the
 * sampler starts) calls this. */
int col_modules_rescan(void);
/* PCS, a stack just recorded: a library of the runtime's it runs in is
 * listed from now on (the program uses it too). */
void col_modules_note_stack(const uint64_t *pcs, size_t n);
/* The sampler process: mappings come from the kernel's records
 * (col_modules_add), never from /proc.  */
void col_modules_use_records(void);
/* Another process's (a descendant writer's): nothing known; the next open
 * reads /proc/PID/maps. */
void col_modules_restart(void);
/* Or: what is known now is the descendant's too (a fork of the program). */
void col_modules_inherit(void);
/* A mapping the kernel reported at TSTAMP (absolute), recorded in map.xml;
 * returns nonzero when it replaced a mapping (cached unwind data is stale). */
int col_modules_add(uint64_t start, uint64_t end, uint64_t offset, unsigned modes, unsigned long inode,
                    const char *name, int64_t tstamp);
/* Nonzero when PC lies in an executable mapping seen by the last scan. */
int col_modules_knows_pc(uint64_t pc);
/* The bounds of the mapping (any kind) containing ADDR; 0 or -1. */
int col_modules_range_at(uint64_t addr, uint64_t *start, uint64_t *end);
/* The executable file mapping (or the vDSO) containing PC in the last scan:
 * 0, or -1.  NAME stays valid until the next rescan. */
struct col_mapped_object {
  uint64_t start, end, offset;
  unsigned long inode;
  const char *name;
};
int col_modules_object_at(uint64_t pc, struct col_mapped_object *out);
/* The inode of the file mapped at ADDR, 0 when unknown or anonymous. */
unsigned long col_modules_inode_at(uint64_t addr);
void col_modules_close(void);
/* The load objects map.xml names, each once (N of them). */
const char *const *col_modules_objects(size_t *n);
/* The file name of the first of those whose name starts with PREFIX
 * ("libgomp.so"), or NULL: whether the program loaded a library. */
const char *col_modules_loaded(const char *prefix);
/* module_map.c: the records themselves, at TSTAMP (the experiment clock). */
void col_modules_function(uint64_t vaddr, uint64_t size, const char *name, int64_t tstamp);
void col_modules_function_gone(uint64_t vaddr, int64_t tstamp);
/* An object's code mapped at START is gone (dlclose): its unmap record at
 * TSTAMP, in the sampler's records mode.  Where mappings come from the
 * kernel's records, held until those up to TSTAMP are in (col_modules_add with a later time, or
 * col_modules_settle): the sampler takes the program's word of a dlclose
 * before the records of the mappings made before it, now and then. */
void col_modules_unloaded(uint64_t start, int64_t tstamp);
/* The kernel's records up to DRAINED_TO are in: the unloads held up to
 * then are applied (INT64_MAX: all of them). */
void col_modules_settle(int64_t drained_to);

#endif
