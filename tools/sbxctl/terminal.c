/* Terminal size and raw mode through termios. */
#include <config.h>

#include "tools/sbxctl/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

void ctl_terminal_size(unsigned *rows, unsigned *cols)
{
    struct winsize size;
    if ((ioctl(STDIN_FILENO, TIOCGWINSZ, &size) == 0 ||
         ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0) &&
        size.ws_row > 0 && size.ws_col > 0) {
        *rows = size.ws_row;
        *cols = size.ws_col;
        return;
    }
    *rows = CTL_TERMINAL_DEFAULT_ROWS;
    *cols = CTL_TERMINAL_DEFAULT_COLS;
}

int ctl_terminal_enter_raw(ctl_terminal_state *state)
{
    state->raw = 0;
    if (!isatty(STDIN_FILENO))
        return 0;
    if (tcgetattr(STDIN_FILENO, &state->saved) != 0)
        return -1;
    struct termios raw = state->saved;
    cfmakeraw(&raw);
    if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0)
        return -1;
    state->raw = 1;
    return 0;
}

void ctl_terminal_restore(ctl_terminal_state *state)
{
    if (!state->raw)
        return;
    /* TCSADRAIN: what the process printed last reaches the screen under the
     * settings it was written for. */
    tcsetattr(STDIN_FILENO, TCSADRAIN, &state->saved);
    state->raw = 0;
}
