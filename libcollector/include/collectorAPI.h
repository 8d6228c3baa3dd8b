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

#ifdef __cplusplus
}
#endif

#endif
