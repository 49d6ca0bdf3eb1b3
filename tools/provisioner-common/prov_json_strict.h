/* The check every request body passes before json-c reads it: json-c
 * accepts more than JSON (comments, single quotes, NaN, trailing commas)
 * and cuts a member name at an escaped NUL, so a body could mean one thing
 * to the provisioner and another to the client or a proxy that checked it
 * (docs/provisiond.md, "Request bodies"). */
#ifndef SBX_PROV_JSON_STRICT_H
#define SBX_PROV_JSON_STRICT_H

#include <stddef.h>

/* What sbx_prov_json_strict_check found. */
typedef enum sbx_prov_strict_result {
    SBX_PROV_STRICT_OK = 0,        /* strict JSON every reader reads alike */
    SBX_PROV_STRICT_REFUSED,       /* *offset and `why` say where and what */
    SBX_PROV_STRICT_OUT_OF_MEMORY
} sbx_prov_strict_result;

/* Whether the `len` bytes at `text` are one RFC 8259 JSON text (UTF-8,
 * whitespace around the value allowed) in which no object names a member
 * twice, no member name or string holds a NUL, and every number is one a
 * 64-bit integer (integers) or a double (the others) holds.  REFUSED sets
 * *offset to the byte at fault and writes the reason, naming the member
 * where there is one, into `why` (`why_len` bytes, printable). */
sbx_prov_strict_result sbx_prov_json_strict_check(const char *text, size_t len,
                                                  size_t *offset, char *why, size_t why_len);

#endif
