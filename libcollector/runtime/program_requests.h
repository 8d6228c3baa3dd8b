/* The program's and GDB's requests: pause, resume, sample points. */
#ifndef COL_RUNTIME_PROGRAM_REQUESTS_H
#define COL_RUNTIME_PROGRAM_REQUESTS_H

void col_pause(const char *reason);
void col_resume(void);
void col_sample(const char *name);
/* The same, for the data sources running in the program as well (the
 * Collector API, GDB's commands, MPI_Pcontrol). */
void col_pause_everything(const char *reason);
void col_resume_everything(void);
/* A new experiment: unpaused, GDB's stops counted from now. */
void col_requests_reset(void);
/* The runtime's thread: a sample when GDB stopped the process since the
 * last cycle. */
void col_control_note_stops(void);

#endif
