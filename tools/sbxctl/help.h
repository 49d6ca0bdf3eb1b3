/* sbxctl's --help text. */
#ifndef SBX_CTL_HELP_H
#define SBX_CTL_HELP_H

#include <stdio.h>

/* Write the usage summary to `stream`. */
void sbx_ctl_print_help(FILE *stream);

#endif
