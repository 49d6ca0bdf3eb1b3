/* A request as log lines name it (the --verbose lines, the drain's report
 * of a request cut off): its method and path with every capability token
 * masked (common/redact.h), so that neither a sandbox API path nor a near
 * miss of one ("//s/TOKEN", "/S/TOKEN", ...) puts a token in a log. */
#ifndef SBX_PROV_SHOWN_H
#define SBX_PROV_SHOWN_H

#include <stddef.h>

/* Room for the request lines the server prints; a longer one is cut. */
#define PROV_REQUEST_SHOWN_MAX 1024

/* "METHOD PATH", tokens masked, into out[cap] (NUL-terminated, cut to
 * fit after masking, so that a cut never leaves part of a token). */
void prov_shown_request(const char *method, const char *path, char *out, size_t cap);

#endif
