/*
 * Table-driven parsing of a backend's open() options.  A backend declares
 * each option once (key, kind, bounds, default, where the value goes); the
 * table drives the parsing, the defaults and the list of known keys that
 * an unknown key's error shows, so that every backend words its errors
 * alike: "option 'KEY' of backend 'NAME': 'VALUE' RULE".
 */
#ifndef SBX_COMMON_OPTION_TABLE_H
#define SBX_COMMON_OPTION_TABLE_H

#include <stddef.h>
#include <sbx/backend.h>

/* What an option's value is, and the type of the field it goes to. */
typedef enum common_option_kind {
    COMMON_OPTION_STRING, /* char *: a copy of the value (the old one freed) */
    COMMON_OPTION_LONG,   /* long: a decimal integer in [min, max] */
    COMMON_OPTION_SIZE,   /* size_t: a decimal integer in [min, max] */
    COMMON_OPTION_WORD,   /* int: the index of the value among `words` */
    COMMON_OPTION_CUSTOM  /* `parse` applies the value to the whole target */
} common_option_kind;

/* Flags of an option (COMMON_OPTION_REQUIRED for any kind, the others for
 * COMMON_OPTION_STRING). */
enum {
    COMMON_OPTION_REQUIRED = 1u << 0,      /* not given: an error naming it */
    COMMON_OPTION_NOT_EMPTY = 1u << 1,     /* "" is refused */
    COMMON_OPTION_EMPTY_IS_NONE = 1u << 2, /* "" leaves the field NULL */
    /* Never quoted in a message, wiped before it is freed, and refused with
     * CR or LF (a secret travels in a request header). */
    COMMON_OPTION_SECRET = 1u << 3
};

/* A COMMON_OPTION_CUSTOM option: apply `value` to `target` (the whole
 * options struct; an earlier value of the key must be replaced).  Returns
 * SBX_OK; SBX_ERR_CONFIG with the rule the value breaks in rule[cap] (e.g.
 * "has no host"), which the caller quotes after the key and the value; or
 * another error set in *err (out of memory). */
typedef sbx_status (*common_option_parse_fn)(void *target, const char *value, char *rule,
                                             size_t cap, sbx_error *err);

/* One option.  Members a kind does not use stay zero. */
typedef struct common_option_spec {
    const char *key;
    common_option_kind kind;
    unsigned flags;
    size_t offset;              /* offsetof() the field in the target (not CUSTOM) */
    long min, max;              /* LONG, SIZE: the bounds, both included */
    long fallback;              /* LONG, SIZE: the value when not given; WORD: its index */
    const char *fallback_text;  /* STRING: the value when not given (NULL: none) */
    const char *const *words;   /* WORD: the accepted words, NULL-terminated */
    int (*valid)(const char *value); /* STRING: non-zero when acceptable; NULL: any */
    const char *rule;           /* STRING with `valid`: what it demands ("must be ...") */
    common_option_parse_fn parse; /* CUSTOM */
} common_option_spec;

/* Initializers of the common entries: `field` of struct `type`. */
#define COMMON_OPTION_STRING_IN(type, field)                                                  \
    .kind = COMMON_OPTION_STRING, .offset = offsetof(type, field)
#define COMMON_OPTION_LONG_IN(type, field, lo, hi, dflt)                                      \
    .kind = COMMON_OPTION_LONG, .offset = offsetof(type, field), .min = (lo), .max = (hi),   \
    .fallback = (dflt)

/* The options of backend `backend`, in the order the "known" list shows. */
typedef struct common_option_table {
    const char *backend;
    const common_option_spec *specs;
    size_t count; /* at most COMMON_OPTION_TABLE_MAX */
} common_option_table;

#define COMMON_OPTION_TABLE_MAX 64

/* Fill `target` from `options` (borrowed; the host hands over non-NULL keys
 * and values): first every default of the table, then each option in order
 * (a later key replaces an earlier one).  SBX_ERR_CONFIG for an unknown key
 * (the message lists the table's keys), a bad value (naming the key, the
 * value unless secret, and the rule or bounds) or a missing required
 * option; SBX_ERR_INTERNAL when out of memory.  `target` must be zeroed
 * first; on error it may hold strings, which the caller frees. */
sbx_status common_option_table_parse(const common_option_table *table,
                                     const sbx_option *options, size_t count, void *target,
                                     sbx_error *err);

#endif
