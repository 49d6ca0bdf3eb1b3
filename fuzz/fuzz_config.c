/*
 * libFuzzer target: the configuration parser (sbx_config_parse) and the
 * accessors a host calls on what it returns.  The input is the file's text;
 * a NUL byte ends it, as it would for a C string.  Two variables are set so
 * that ${NAME} and ${NAME:-default} expansion runs on real values too.
 */
#include <config.h>

#include <sbx/host.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("SBX_FUZZ_SET", "http://127.0.0.1:8002", 1);
    setenv("SBX_FUZZ_EMPTY", "", 1);
    unsetenv("SBX_FUZZ_UNSET");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sbx_config *config = NULL;
    sbx_error err;
    if (sbx_config_parse(text, "fuzz.json", &config, &err) == SBX_OK) {
        const char *backend = sbx_config_backend(config);
        size_t n = 0;
        const char *const *dirs = sbx_config_module_path(config, &n);
        for (size_t i = 0; i < n; i++)
            (void)strlen(dirs[i]);
        const sbx_option *opts = sbx_config_backend_options(config,
                                                            backend ? backend : "remote", &n);
        for (size_t i = 0; i < n; i++)
            (void)(strlen(opts[i].key) + strlen(opts[i].value));
        /* Overrides on top of a parsed file, as sbxctl --set does. */
        sbx_config_set_option(config, "remote", "timeout_ms", "5", &err);
        sbx_config_set_backend(config, "remote", &err);
    } else if (memchr(err.message, '\0', sizeof err.message) == NULL) {
        abort(); /* the message must always be terminated */
    }
    sbx_config_free(config);
    free(text);
    return 0;
}
