# Fuzzing (docs/hardening.md): libFuzzer targets for the configuration parser
# and every decoder of a provisioner or Docker Engine answer, built with
# clang by fuzz/run, never by `make` or `make check`.  `make fuzz` runs each
# target for FUZZ_SECONDS (default 60) after replaying the saved crashes in
# fuzz/regressions/; without a clang that supports -fsanitize=fuzzer it
# stops with a message naming the Debian packages.
FUZZ_SECONDS = 60
FUZZ_TARGETS =
EXTRA_DIST += fuzz/run fuzz/json.dict fuzz/fuzz_chunks.h fuzz/fuzz_config.c fuzz/fuzz_remote.c \
	fuzz/fuzz_json_scan.c fuzz/fuzz_remote_answers.c fuzz/fuzz_docker.c fuzz/corpus fuzz/regressions

fuzz:
	SBX_FUZZ_SRCDIR='$(abs_top_srcdir)' SBX_FUZZ_BUILDDIR='$(abs_top_builddir)' \
	FUZZ_CC='$(FUZZ_CC)' JSONC_CFLAGS='$(JSONC_CFLAGS)' JSONC_LIBS='$(JSONC_LIBS)' \
	CURL_CFLAGS='$(CURL_CFLAGS)' CURL_LIBS='$(CURL_LIBS)' \
		bash '$(abs_top_srcdir)/fuzz/run' -t '$(FUZZ_SECONDS)' $(FUZZ_TARGETS)
.PHONY: fuzz
