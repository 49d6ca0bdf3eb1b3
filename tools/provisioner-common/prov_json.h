/* The provisioner servers' one JSON reader and writer, so that every route parses
 * and prints JSON the same way. */
#ifndef PROV_JSON_H
#define PROV_JSON_H

#include <stddef.h>
#include <json-c/json.h>

/* The reason prov_json_parse gives when json-c could not make its
 * tokener (compare the pointer): the caller answers out of memory. */
extern const char prov_json_out_of_memory[];

/* Parse exactly one JSON value from `len` bytes (surrounding whitespace
 * allowed, as Python's json).  Returns a new reference, or NULL with
 * *offset at the first bad byte and *why a static reason
 * (prov_json_out_of_memory when memory ran out).  Note that the text
 * "null" also yields NULL, with *why NULL. */

json_object *prov_json_parse(const char *text, size_t len, size_t *offset,
                                 const char **why);

/* Compact text of `value` with '/' not escaped, as the reference's FastAPI
 * writes it.  The text is owned by `value`.  NULL when `value` is NULL or
 * memory ran out while writing it: json-c 0.16 skips a piece whose buffer
 * cannot grow and still returns the rest, so a text written while any
 * allocation failed (errno ENOMEM) is refused, never sent short. */
const char *prov_json_text(json_object *value);

/* The bytes `len` bytes of UTF-8 text take as a JSON string, quotes
 * included, escaped as prov_json_text escapes them; and the string
 * written at `out` (that many bytes), returning its end.  So that a large
 * text is written once into a buffer of its size, not grown by json-c. */
size_t prov_json_string_size(const char *text, size_t len);
char *prov_json_string_write(char *out, const char *text, size_t len);

/* Checked building of answers.  json-c returns NULL from json_object_new_*
 * and -1 from the adds when memory runs out, and NULL also means JSON
 * null, so every member goes through these: they take the new reference
 * `value` (a NULL value is the failure of its constructor), give it to the
 * container, and return 1; or put it and return 0.  Chain them with && so
 * that nothing is built after the first failure. */
int prov_json_add(json_object *obj, const char *key, json_object *value);

/* Member `key` a copy of `text`, or JSON null when `text` is NULL; 1, or 0
 * when memory ran out. */
int prov_json_add_string(json_object *obj, const char *key, const char *text);

/* Append `value` to `array`, as prov_json_add. */
int prov_json_append(json_object *array, json_object *value);

/* `value` when its building succeeded (`built`), else NULL after putting
 * it: what the answer builders hand to prov_reply_json, which answers
 * NULL with the out-of-memory answer. */
json_object *prov_json_built(json_object *value, int built);

/* The text of member `key` of `obj` when it is a JSON string (borrowed
 * from `obj`), else NULL: what a reader of the daemons' own files takes. */
const char *prov_json_string_member(json_object *obj, const char *key);

#endif
