/* The option table every backend's open() parses its options with: each
 * kind fills its field, defaults hold when a key is not given, bounds are
 * exact at both edges, and every refusal is a config error naming the key,
 * the backend and the bound or rule (never a secret's value); an unknown
 * key's message lists the known keys from the table. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/option_table.h"

#include <sbx/backend_support.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct test_options {
    char *name;
    char *token;
    char *label;
    char *nick;
    long count;
    size_t bytes;
    int mode;
    int custom_calls;
    char *custom;
} test_options;

static int is_lower(const char *s)
{
    return s[strspn(s, "abcdefghijklmnopqrstuvwxyz")] == '\0';
}

/* Takes anything but "bad" (a rule) and "oom" (an error of its own). */
static sbx_status parse_custom(void *target, const char *value, char *rule, size_t cap,
                               sbx_error *err)
{
    test_options *o = target;
    o->custom_calls++;
    if (strcmp(value, "bad") == 0) {
        snprintf(rule, cap, "is not good (item %d)", 7);
        return SBX_ERR_CONFIG;
    }
    if (strcmp(value, "oom") == 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    free(o->custom);
    o->custom = strdup(value);
    return o->custom != NULL ? SBX_OK
                             : sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
}

static const char *const modes[] = { "auto", "true", "false", NULL };

static const common_option_spec specs[] = {
    { .key = "name", .kind = COMMON_OPTION_STRING, .offset = offsetof(test_options, name),
      .flags = COMMON_OPTION_REQUIRED | COMMON_OPTION_NOT_EMPTY },
    { .key = "token", .kind = COMMON_OPTION_STRING, .offset = offsetof(test_options, token),
      .flags = COMMON_OPTION_SECRET | COMMON_OPTION_EMPTY_IS_NONE },
    { .key = "label", .kind = COMMON_OPTION_STRING, .offset = offsetof(test_options, label),
      .fallback_text = "dflt", .valid = is_lower, .rule = "must be lower-case letters" },
    { .key = "nick", .kind = COMMON_OPTION_STRING, .offset = offsetof(test_options, nick) },
    { .key = "count", .kind = COMMON_OPTION_LONG, .offset = offsetof(test_options, count),
      .min = -5, .max = 600000, .fallback = 42 },
    { .key = "bytes", .kind = COMMON_OPTION_SIZE, .offset = offsetof(test_options, bytes),
      .min = 1, .max = 1L << 30, .fallback = 4096 },
    { .key = "mode", .kind = COMMON_OPTION_WORD, .offset = offsetof(test_options, mode),
      .words = modes, .fallback = 0 },
    { .key = "custom", .kind = COMMON_OPTION_CUSTOM, .parse = parse_custom },
};

static const common_option_table table = { "demo", specs, sizeof specs / sizeof specs[0] };

static void clear(test_options *o)
{
    free(o->name);
    free(o->token);
    free(o->label);
    free(o->nick);
    free(o->custom);
    memset(o, 0, sizeof *o);
}

/* Parse the NULL-terminated key, value list `kv` into a zeroed *o. */
static sbx_status parse(test_options *o, sbx_error *err, const char *const *kv)
{
    sbx_option options[16];
    size_t n = 0;
    while (kv[2 * n] != NULL) {
        options[n] = (sbx_option){ kv[2 * n], kv[2 * n + 1] };
        n++;
    }
    memset(o, 0, sizeof *o);
    sbx_backend_error_clear(err);
    return common_option_table_parse(&table, options, n, o, err);
}

/* `kv` is refused with a config error whose message is exactly `message`. */
static void expect_refusal(const char *const *kv, const char *message)
{
    test_options o;
    sbx_error err;
    CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_CONFIG);
    CU_ASSERT_STRING_EQUAL(err.message, message);
    clear(&o);
}

static void test_defaults_hold_for_keys_not_given(void)
{
    test_options o;
    sbx_error err;
    const char *kv[] = { "name", "n", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.name, "n");
    CU_ASSERT_PTR_NULL(o.token);
    CU_ASSERT_STRING_EQUAL(o.label, "dflt");
    CU_ASSERT_PTR_NULL(o.nick);
    CU_ASSERT_EQUAL(o.count, 42);
    CU_ASSERT_EQUAL(o.bytes, 4096u);
    CU_ASSERT_EQUAL(o.mode, 0);
    CU_ASSERT_EQUAL(o.custom_calls, 0);
    clear(&o);
}

static void test_every_kind_fills_its_field(void)
{
    test_options o;
    sbx_error err;
    const char *kv[] = { "name", "n", "token", "s3cret", "label", "abc", "nick", "",
                         "count", "-5", "bytes", "1073741824", "mode", "false",
                         "custom", "anything", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.token, "s3cret");
    CU_ASSERT_STRING_EQUAL(o.label, "abc");
    CU_ASSERT_STRING_EQUAL(o.nick, ""); /* a plain string keeps "" */
    CU_ASSERT_EQUAL(o.count, -5);
    CU_ASSERT_EQUAL(o.bytes, (size_t)1 << 30);
    CU_ASSERT_EQUAL(o.mode, 2);
    CU_ASSERT_STRING_EQUAL(o.custom, "anything");
    CU_ASSERT_EQUAL(o.custom_calls, 1);
    clear(&o);
}

/* Both bounds are included; one past either is refused naming both. */
static void test_integer_bounds_are_exact_at_both_edges(void)
{
    static const struct {
        const char *key, *value;
        int ok;
    } cases[] = {
        { "count", "-5", 1 },   { "count", "600000", 1 }, { "count", "-6", 0 },
        { "count", "600001", 0 }, { "bytes", "1", 1 },    { "bytes", "1073741824", 1 },
        { "bytes", "0", 0 },    { "bytes", "1073741825", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_options o;
        sbx_error err;
        const char *kv[] = { "name", "n", cases[i].key, cases[i].value, NULL };
        sbx_status st = parse(&o, &err, kv);
        CU_ASSERT_EQUAL(st, cases[i].ok ? SBX_OK : SBX_ERR_CONFIG);
        if (!cases[i].ok) {
            char want[160];
            snprintf(want, sizeof want,
                     "option '%s' of backend 'demo': '%s' is not an integer from %s", cases[i].key,
                     cases[i].value,
                     strcmp(cases[i].key, "count") == 0 ? "-5 to 600000" : "1 to 1073741824");
            CU_ASSERT_STRING_EQUAL(err.message, want);
        }
        clear(&o);
    }
}

/* Only the digits of a decimal integer: no blanks, no '+', no suffix, no
 * other base, nothing that overflows a long. */
static void test_an_integer_is_only_its_digits(void)
{
    static const char *const refused[] = { "", " 5", "5 ", "+5", "5s", "0x10", "1e3", "-",
                                           "--1", "99999999999999999999999" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        test_options o;
        sbx_error err;
        const char *kv[] = { "name", "n", "count", refused[i], NULL };
        CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "option 'count' of backend 'demo'"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "-5 to 600000"));
        clear(&o);
    }
}

static void test_an_unknown_key_lists_the_known_ones(void)
{
    const char *kv[] = { "name", "n", "colour", "red", NULL };
    expect_refusal(kv, "unknown option 'colour' for backend 'demo' (known: name, token, label, "
                       "nick, count, bytes, mode, custom)");
    /* A hostile key is shown printable and cut, never as it came. */
    const char *hostile[] = { "na\nme", "n", NULL };
    test_options o;
    sbx_error err;
    CU_ASSERT_EQUAL(parse(&o, &err, hostile), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "unknown option 'na?me'"));
    clear(&o);
}

/* A later value of a key replaces an earlier one (a configuration file's
 * value, then a --set), for every kind; the replaced strings are freed. */
static void test_a_repeated_key_takes_the_last_value(void)
{
    test_options o;
    sbx_error err;
    const char *kv[] = { "name", "first", "token", "old-secret", "count", "1", "bytes", "2",
                         "mode", "true", "custom", "a", "name", "second", "token", "",
                         "count", "3", "bytes", "4", "mode", "auto", "custom", "b", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.name, "second");
    CU_ASSERT_PTR_NULL(o.token);
    CU_ASSERT_EQUAL(o.count, 3);
    CU_ASSERT_EQUAL(o.bytes, 4u);
    CU_ASSERT_EQUAL(o.mode, 0);
    CU_ASSERT_STRING_EQUAL(o.custom, "b");
    CU_ASSERT_EQUAL(o.custom_calls, 2);
    clear(&o);
}

static void test_string_rules_name_the_key_and_the_rule(void)
{
    const char *empty[] = { "name", "", NULL };
    expect_refusal(empty, "option 'name' of backend 'demo': '' must not be empty");
    const char *upper[] = { "name", "n", "label", "ABC", NULL };
    expect_refusal(upper, "option 'label' of backend 'demo': 'ABC' must be lower-case letters");
    const char *missing[] = { "count", "1", NULL };
    expect_refusal(missing, "option 'name' of backend 'demo' is required");
}

static void test_a_word_must_be_one_of_the_list(void)
{
    const char *kv[] = { "name", "n", "mode", "TRUE", NULL };
    expect_refusal(kv, "option 'mode' of backend 'demo': 'TRUE' is not one of auto, true, false");
    const char *empty[] = { "name", "n", "mode", "", NULL };
    expect_refusal(empty, "option 'mode' of backend 'demo': '' is not one of auto, true, false");
}

static void test_a_custom_refusal_quotes_its_rule(void)
{
    const char *kv[] = { "name", "n", "custom", "bad", NULL };
    expect_refusal(kv, "option 'custom' of backend 'demo': 'bad' is not good (item 7)");
    test_options o;
    sbx_error err;
    const char *oom[] = { "name", "n", "custom", "oom", NULL };
    CU_ASSERT_EQUAL(parse(&o, &err, oom), SBX_ERR_INTERNAL);
    CU_ASSERT_STRING_EQUAL(err.message, "out of memory");
    clear(&o);
}

/* A secret is never quoted: not when refused, whatever else is wrong. */
static void test_a_secret_is_never_quoted(void)
{
    const char *kv[] = { "name", "n", "token", "top-secret\r\nX-Evil: 1", NULL };
    expect_refusal(kv, "option 'token' of backend 'demo' contains CR or LF");
}

/* Credentials in any quoted value stay out of the message. */
static void test_credentials_in_a_value_are_not_quoted(void)
{
    const char *kv[] = { "name", "n", "label", "http://user:Pw9xQz7K@h", NULL };
    test_options o;
    sbx_error err;
    CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "option 'label' of backend 'demo': 'http://h'"));
    CU_ASSERT_PTR_NULL(strstr(err.message, "Pw9xQz7K"));
    clear(&o);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "defaults hold for keys not given", test_defaults_hold_for_keys_not_given },
        { "every kind fills its field", test_every_kind_fills_its_field },
        { "integer bounds are exact at both edges", test_integer_bounds_are_exact_at_both_edges },
        { "an integer is only its digits", test_an_integer_is_only_its_digits },
        { "an unknown key lists the known ones", test_an_unknown_key_lists_the_known_ones },
        { "a repeated key takes the last value", test_a_repeated_key_takes_the_last_value },
        { "string rules name the key and the rule", test_string_rules_name_the_key_and_the_rule },
        { "a word must be one of the list", test_a_word_must_be_one_of_the_list },
        { "a custom refusal quotes its rule", test_a_custom_refusal_quotes_its_rule },
        { "a secret is never quoted", test_a_secret_is_never_quoted },
        { "credentials in a value are not quoted", test_credentials_in_a_value_are_not_quoted },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("option table", NULL, NULL, tests);
}
