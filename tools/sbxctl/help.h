/* sbxctl's --help text. */
#ifndef CTL_HELP_H
#define CTL_HELP_H

#include <stdio.h>

/* Write the usage summary to `stream`. */
void ctl_print_help(FILE *stream);

#endif
