/* The stop signals of the provisioners (sbx-provisiond and the emulator:
 * SIGTERM, SIGINT), taken by a thread
 * of their own from the start, so that they are honoured at every stage:
 * while the daemon starts (reading files, opening the backend, asking it
 * its contract) one ends the process at once; once it serves, the first
 * asks for the drain; a second one during the drain ends the process at
 * once.  Process-wide: signals are. */
#ifndef PROV_SIGNALS_H
#define PROV_SIGNALS_H

/* Block the stop signals in every thread (call it before any other thread
 * starts: they inherit the mask), ignore SIGPIPE (a client that goes away
 * mid-answer must not end the daemon) and start the thread that takes the
 * stop signals; `prog` names the daemon in its lines on stderr.  Returns
 * 1, or 0 after saying why on stderr. */
int prov_signals_start(const char *prog);

/* The daemon accepts requests: from now on a stop signal asks for the
 * drain (it no longer ends the process at once), so that a request taken
 * before the daemon reaches prov_signals_wait is finished, not cut. */
void prov_signals_serving(void);

/* The daemon serves: wait for a stop signal and return its number.  From
 * then on the daemon drains, and another stop signal ends it at once. */
int prov_signals_wait(void);

#endif
