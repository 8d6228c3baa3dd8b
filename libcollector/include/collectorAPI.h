/* The Collector API: calls a program makes to control the experiment that
 * records it (the names of Oracle's collectorAPI.h).  Link with
 * -lcollectorAPI.  Every call is a harmless no-op when the program is not
 * being recorded (the runtime is not in the process, or no experiment is
 * open), so the calls can stay in production code.  Thread-safe; not for
 * signal handlers. */
#ifndef COLLECTOR_API_H
#define COLLECTOR_API_H

#ifdef __cplusplus
extern "C" {
#endif

/* Stop recording profile data; the experiment stays open. */
void collector_pause(void);
/* Record again after collector_pause(). */
void collector_resume(void);
/* Record a sample point labelled NAME (NULL: "manual"). */
void collector_sample(const char *name);
/* End the experiment now; the program goes on unrecorded. */
void collector_terminate_expt(void);

/* Code generated at run time (a JIT, a trampoline): the SIZE bytes at
 * VADDR are the function NAME (NULL: named by its address), from source
 * file SOURCENAME (or NULL) with LNTSIZE entries of LNTABLE mapping code
 * offsets to its lines (or 0 and NULL), until collector_func_unload(VADDR).
 * Its samples are then named, in gprofng and collector report; gprofng
 * can disassemble it (the experiment keeps the bytes).  ALIAS is unused, as
 * in Oracle's API.  Names longer than about 90 bytes are cut. */
typedef struct {
  unsigned int offset;
  unsigned int lineno;
} Lineno;
void collector_func_load(const char *name, const char *alias, const char *sourcename, void *vaddr, int size,
                         int lntsize, Lineno *lntable);
void collector_func_unload(void *vaddr);

#ifdef __cplusplus
}
#endif

#endif
