/* The check every request body passes before json-c reads it: json-c
 * accepts more than JSON (comments, single quotes, NaN, trailing commas)
 * and cuts a member name at an escaped NUL, so a body could mean one thing
 * to the provisioner and another to the client or a proxy that checked it
 * (docs/provisiond.md, "Request bodies"). */
#ifndef PROV_JSON_STRICT_H
#define PROV_JSON_STRICT_H

#include <stddef.h>

/* What prov_json_strict_check found. */
typedef enum prov_strict_result {
    PROV_STRICT_OK = 0,        /* strict JSON every reader reads alike */
    PROV_STRICT_REFUSED,       /* *offset and `why` say where and what */
    PROV_STRICT_OUT_OF_MEMORY
} prov_strict_result;

/* Whether the `len` bytes at `text` are one RFC 8259 JSON text (UTF-8,
 * whitespace around the value allowed) in which no object names a member
 * twice, no member name or string holds a NUL, and every number is one a
 * 64-bit integer (integers) or a double (the others) holds.  REFUSED sets
 * *offset to the byte at fault and writes the reason, naming the member
 * where there is one, into `why` (`why_len` bytes, printable). */
prov_strict_result prov_json_strict_check(const char *text, size_t len,
                                                  size_t *offset, char *why, size_t why_len);

#endif
