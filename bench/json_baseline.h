/*
 * The baselines the decoders are measured against (docs/performance.md):
 * plain json-c parses that look at what the answer must hold without
 * copying anything.
 */
#ifndef SBX_BENCH_JSON_BASELINE_H
#define SBX_BENCH_JSON_BASELINE_H

#include <stddef.h>

/* Parse `body` (len bytes) and count the entries of "sandboxes" that have
 * string sandbox_id and sandbox_url.  Returns that count, or -1 when the
 * body is not a JSON object with a "sandboxes" array. */
long sbx_bench_parse_list(const char *body, size_t len);

/* Parse a sandbox answer (`body`, len bytes): 1 when its "status" is the
 * string "Running", 0 for another status, -1 when it is not such an object
 * (what an is_alive needs to learn from the answer, and no more). */
int sbx_bench_parse_alive(const char *body, size_t len);

#endif /* SBX_BENCH_JSON_BASELINE_H */
