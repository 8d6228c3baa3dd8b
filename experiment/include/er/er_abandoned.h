/* Marking the end of an experiment whose writer died (er_abandoned.c). */
#ifndef ER_ABANDONED_H
#define ER_ABANDONED_H

/* The experiment at PATH ended without its end records: a warning WHY and
 * an exit event (how="sampler") at the last time it recorded, which goes
 * into *ENDED_AT (seconds from the run's start) when not NULL.  1 when
 * marked, 0 when it had its end already, or -errno. */
int er_mark_abandoned(const char *path, const char *why, double *ended_at);

#endif
