/*
 * sbx host library: error records and error-kind names, as a host fills
 * and names them (<sbx/host.h> includes this header).
 */
#ifndef SBX_ERROR_H
#define SBX_ERROR_H

#include <sbx/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The stable lower-case name of an error kind ("transport", "load", ...);
 * "ok" for SBX_OK.  Never NULL. */
const char *sbx_status_name(sbx_status status);

/* Reset an error record to "no error" (kind SBX_OK, contracts -1). */
void sbx_error_clear(sbx_error *err);

/* Fill an error record with a printf-style message (cut to fit, ending in
 * "...") and return `kind`, so that `return sbx_error_set(err, K, ...)`
 * reads well.
 * `err` may be NULL. */
sbx_status sbx_error_set(sbx_error *err, sbx_status kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* SBX_ERROR_H */
