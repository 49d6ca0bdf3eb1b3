/*
 * sbx backend support: what a backend needs beside the ABI to fill an error
 * record, name a status and log through the host's callback.
 *
 * Header-only (every function is static inline) and dependent on nothing but
 * <sbx/backend.h> and the C library, so that a module built against these
 * headers alone (`pkg-config --cflags sbx-host`) links with no sbx library:
 * a module never calls into the host library, it only receives the host's
 * services in open() (docs/abi.md "Support helpers").  The host library's
 * sbx_error_set and sbx_status_name (<sbx/error.h>) are these same functions
 * for host programs.
 *
 * Argument rule (backend.h, "Arguments"): `err` is never NULL here.
 *
 * Thread safety: every function is safe from any thread; logging is as safe
 * as the host's callback, which backend.h requires to be callable
 * concurrently.
 */
#ifndef SBX_BACKEND_SUPPORT_H
#define SBX_BACKEND_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sbx/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SBX_SUPPORT_PRINTF(fmt_index, first_arg) \
    __attribute__((format(printf, fmt_index, first_arg)))
#else
#define SBX_SUPPORT_PRINTF(fmt_index, first_arg)
#endif

/* Bytes of the longest log line handed to the host's callback, with its NUL. */
#define SBX_LOG_LINE_MAX 1024

/* What ends a message or log line that was cut to fit its buffer. */
#define SBX_CUT_MARK "..."

/* The stable lower-case name of an error kind ("transport", "load", ...);
 * "ok" for SBX_OK, "internal" for a value outside the enum.  Static. */
static inline const char *sbx_backend_status_name(sbx_status status)
{
    switch (status) {
    case SBX_OK: return "ok";
    case SBX_ERR_USAGE: return "usage";
    case SBX_ERR_CONFIG: return "config";
    case SBX_ERR_TRANSPORT: return "transport";
    case SBX_ERR_PROTOCOL: return "protocol";
    case SBX_ERR_CONTRACT_CHANGED: return "contract_changed";
    case SBX_ERR_REFUSED: return "refused";
    case SBX_ERR_UNAUTHORIZED: return "unauthorized";
    case SBX_ERR_LOAD: return "load";
    case SBX_ERR_PROVISIONER: return "provisioner";
    case SBX_ERR_UNSUPPORTED: return "unsupported";
    case SBX_ERR_NOT_FOUND: return "not_found";
    case SBX_ERR_NO_SUCH_PATH: return "no_such_path";
    case SBX_ERR_NOT_A_DIRECTORY: return "not_a_directory";
    case SBX_ERR_IS_A_DIRECTORY: return "is_a_directory";
    case SBX_ERR_EXISTS: return "exists";
    case SBX_ERR_PERMISSION: return "permission";
    case SBX_ERR_NO_SUCH_PROCESS: return "no_such_process";
    case SBX_ERR_INTERNAL: return "internal";
    }
    return "internal";
}

/* Reset an error record to "no error": kind SBX_OK, no HTTP status,
 * contract versions SBX_CONTRACT_NONE, empty message. */
static inline void sbx_backend_error_clear(sbx_error *err)
{
    err->kind = SBX_OK;
    err->http_status = 0;
    err->expected_contract = SBX_CONTRACT_NONE;
    err->actual_contract = SBX_CONTRACT_NONE;
    err->message[0] = '\0';
}

/* Format into buf[cap] (cap > sizeof SBX_CUT_MARK); a text that does not fit
 * is cut at a UTF-8 character boundary and ends in SBX_CUT_MARK, so that a
 * reader sees it was cut.  Returns buf. */
SBX_SUPPORT_PRINTF(3, 0)
static inline char *sbx_backend_vformat(char *buf, size_t cap, const char *fmt, va_list ap)
{
    int n = vsnprintf(buf, cap, fmt, ap);
    if (n < 0) {
        buf[0] = '\0';
    } else if ((size_t)n >= cap) {
        size_t end = cap - sizeof SBX_CUT_MARK;
        while (end > 0 && ((unsigned char)buf[end] & 0xC0) == 0x80)
            end--;
        memcpy(buf + end, SBX_CUT_MARK, sizeof SBX_CUT_MARK);
    }
    return buf;
}

/* Format a message or a part of one into buf[cap] (cap > sizeof
 * SBX_CUT_MARK), cut and marked as sbx_backend_vformat does: for text
 * that only a reader sees, where a cut must show but must not fail the
 * call.  Data that must be whole (a path, a key, a URL) is checked
 * instead.  Returns buf. */
SBX_SUPPORT_PRINTF(3, 4)
static inline char *sbx_backend_format(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbx_backend_vformat(buf, cap, fmt, ap);
    va_end(ap);
    return buf;
}

/* sbx_backend_error_set with the arguments in a va_list. */
SBX_SUPPORT_PRINTF(3, 0)
static inline sbx_status sbx_backend_error_setv(sbx_error *err, sbx_status kind,
                                                const char *fmt, va_list ap)
{
    sbx_backend_error_clear(err);
    err->kind = kind;
    sbx_backend_vformat(err->message, sizeof err->message, fmt, ap);
    return kind;
}

/* Fill `err` anew: kind `kind`, a printf-style message (cut to fit, marked
 * as sbx_backend_vformat does), the other members cleared.  Returns `kind`,
 * so that `return sbx_backend_error_set(err, SBX_ERR_CONFIG, ...)` reads
 * well.  The arguments may point into err->message only through a copy. */
SBX_SUPPORT_PRINTF(3, 4)
static inline sbx_status sbx_backend_error_set(sbx_error *err, sbx_status kind,
                                               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbx_backend_error_setv(err, kind, fmt, ap);
    va_end(ap);
    return kind;
}

/* Put a printf-style prefix and ": " before the message of `err`, keeping
 * its kind and other members: how a caller names what failed around the
 * cause a lower layer set.  Cut and marked as sbx_backend_error_set does;
 * the arguments may point into err->message.  Returns err->kind. */
SBX_SUPPORT_PRINTF(2, 3)
static inline sbx_status sbx_backend_error_prefix(sbx_error *err, const char *fmt, ...)
{
    char prefix[SBX_ERROR_MESSAGE_MAX], cause[SBX_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    sbx_backend_vformat(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(cause, err->message, sizeof cause);
    cause[sizeof cause - 1] = '\0';
    sbx_backend_format(err->message, sizeof err->message, "%s: %s", prefix, cause);
    return err->kind;
}

/* 1 when `services` (may be NULL) has a log callback the backend may call:
 * the host's struct is large enough to hold log and log_ctx (a host built
 * against an older header passes a smaller one) and log is not NULL.  The
 * one place where a backend checks the struct's size. */
static inline int sbx_backend_can_log(const sbx_host_services *services)
{
    return services != NULL &&
           services->struct_size >= offsetof(sbx_host_services, log_ctx) +
                                        sizeof services->log_ctx &&
           services->log != NULL;
}

/* sbx_backend_log with the arguments in a va_list. */
SBX_SUPPORT_PRINTF(4, 0)
static inline void sbx_backend_vlog(const sbx_host_services *services, sbx_log_level level,
                                    const char *backend, const char *fmt, va_list ap)
{
    if (!sbx_backend_can_log(services))
        return;
    char line[SBX_LOG_LINE_MAX];
    services->log(services->log_ctx, level, backend,
                  sbx_backend_vformat(line, sizeof line, fmt, ap));
}

/* Format one line (at most SBX_LOG_LINE_MAX bytes, cut and marked as
 * sbx_backend_vformat does) and hand it to the host's log callback under
 * the name `backend`.  Nothing when the host gave no callback. */
SBX_SUPPORT_PRINTF(4, 5)
static inline void sbx_backend_log(const sbx_host_services *services, sbx_log_level level,
                                   const char *backend, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbx_backend_vlog(services, level, backend, fmt, ap);
    va_end(ap);
}

#ifdef __cplusplus
}
#endif

#endif /* SBX_BACKEND_SUPPORT_H */
