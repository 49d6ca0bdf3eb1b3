/* sbxctl's own terminal: its size, and raw mode for `exec -it` and `attach`
 * (every key, Ctrl-C included, goes to the process's terminal). */
#ifndef CTL_TERMINAL_H
#define CTL_TERMINAL_H

#include <termios.h>

/* Rows and columns used when sbxctl is not on a terminal. */
#define CTL_TERMINAL_DEFAULT_ROWS 24u
#define CTL_TERMINAL_DEFAULT_COLS 80u

/* The size of the terminal on stdin, else on stdout, else the defaults. */
void ctl_terminal_size(unsigned *rows, unsigned *cols);

/* A terminal's settings before raw mode, to put back. */
typedef struct ctl_terminal_state {
    int raw;                 /* non-zero: raw mode is on and `saved` holds the old settings */
    struct termios saved;
} ctl_terminal_state;

/* Put the terminal on stdin into raw mode when stdin is one (else do
 * nothing: state->raw stays 0).  0, or -1 with errno when it is a terminal
 * that refused. */
int ctl_terminal_enter_raw(ctl_terminal_state *state);

/* Put back what ctl_terminal_enter_raw changed; harmless when it changed
 * nothing or was already restored. */
void ctl_terminal_restore(ctl_terminal_state *state);

#endif
