/* Runs of a secret in a text (see secret_runs.h). */
#include <config.h>

#include "tests/support/secret_runs.h"

#include <string.h>

int sbx_test_holds_run_of(const char *text, const char *secret)
{
    size_t n = strlen(secret), run = n < 4 ? n : 4;
    for (size_t i = 0; i + run <= n; i++) {
        char piece[5];
        memcpy(piece, secret + i, run);
        piece[run] = '\0';
        if (strstr(text, piece) != NULL)
            return 1;
    }
    return 0;
}
