# Benchmarks of the remote and docker backends and of sbx-provisiond
# (bench/provisiond-run: wrk against it and against nginx) against baselines measured
# in the same run (docs/performance.md).  On demand only: `make bench` builds the
# programs and runs bench/run; `make` and `make check` never build or run
# them (EXTRA_PROGRAMS).  BENCH_FLAGS passes options to bench/run, e.g.
# `make bench BENCH_FLAGS=--quick`.
SBX_BENCH_BINS = bench/sbx-bench bench/raw-curl bench/raw-jsonc \
	bench/sbx-docker-bench bench/raw-engine bench/static-answer \
	bench/load-floor bench/sbx-manager-bench bench/sbx-ops-bench bench/sbx-line-bench \
	bench/sbx-proc-bench
EXTRA_PROGRAMS = $(SBX_BENCH_BINS)
EXTRA_DIST += bench/run bench/docker-run bench/provisiond-run bench/manager-run bench/ops-run bench/line-run bench/proc-run \
	bench/shell-run bench/search-run bench/lib.sh bench/py_baseline.py bench/seed_emulator.py \
	bench/list_answer.py
CLEANFILES += $(SBX_BENCH_BINS) bench/results.txt bench/results-docker.txt bench/results-ops.txt \
	bench/results-provisiond.txt bench/results-manager.txt bench/results-proc.txt \
	bench/results-search.txt bench/callgrind.*.out

SBX_BENCH_UTIL = bench/bench_util.c bench/bench_util.h

bench_sbx_bench_SOURCES = bench/sbx_bench.c $(SBX_BENCH_UTIL)
bench_sbx_bench_CFLAGS = $(AM_CFLAGS) -pthread
bench_sbx_bench_LDADD = host-api/libsbx-host.la -lpthread

bench_raw_curl_SOURCES = bench/raw_curl.c $(SBX_BENCH_UTIL) \
	bench/json_baseline.c bench/json_baseline.h
bench_raw_curl_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) -pthread
bench_raw_curl_LDADD = $(CURL_LIBS) $(JSONC_LIBS) -lpthread

# A server of one fixed answer on 127.0.0.1 (the 10k and 100k list answers).
bench_static_answer_SOURCES = bench/static_answer.c
bench_static_answer_CFLAGS = $(AM_CFLAGS) -pthread
bench_static_answer_LDADD = -lpthread

# dlopen + dlclose of libcurl alone: the loader's floor of a cold module load.
bench_load_floor_SOURCES = bench/load_floor.c $(SBX_BENCH_UTIL)
bench_load_floor_CFLAGS = $(AM_CFLAGS) -pthread
bench_load_floor_LDADD = -ldl -lpthread

bench_raw_jsonc_SOURCES = bench/raw_jsonc.c $(SBX_BENCH_UTIL) \
	bench/json_baseline.c bench/json_baseline.h
bench_raw_jsonc_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) -pthread
bench_raw_jsonc_LDADD = $(JSONC_LIBS) -lpthread

# The docker backend against its engines' CLIs and the raw engine API
# (bench/docker-run, which bench/run calls last).
bench_sbx_docker_bench_SOURCES = bench/sbx_docker_bench.c $(SBX_BENCH_UTIL)
bench_sbx_docker_bench_CFLAGS = $(AM_CFLAGS) -pthread
bench_sbx_docker_bench_LDADD = host-api/libsbx-host.la -lpthread

bench_raw_engine_SOURCES = bench/raw_engine.c $(SBX_BENCH_UTIL)
bench_raw_engine_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) -pthread
bench_raw_engine_LDADD = $(CURL_LIBS) $(JSONC_LIBS) -lpthread

# The sandbox manager and its lease stores (bench/manager-run, which
# bench/run calls); the stores are internal to libsbx-host, so their
# sources are linked in as the store tests link them.
bench_sbx_manager_bench_SOURCES = bench/sbx_manager_bench.c $(SBX_BENCH_UTIL) \
	host-api/src/manager/lease_store.c host-api/src/manager/lease_store.h \
	host-api/src/manager/lease_store_memory.c host-api/src/manager/lease_store_sqlite.c \
	host-api/src/manager/lease_store_redis.c \
	host-api/src/manager/strmap.c host-api/src/manager/strmap.h
bench_sbx_manager_bench_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(HIREDIS_CFLAGS) -pthread
bench_sbx_manager_bench_LDADD = host-api/libsbx-host.la common/libsbx-common.la $(SQLITE_LIBS) \
	$(HIREDIS_LIBS) -lpthread

BENCH_FLAGS =
bench: all $(SBX_BENCH_BINS)
	SBX_BENCH_BUILDDIR='$(abs_top_builddir)' SBX_BENCH_SRCDIR='$(abs_top_srcdir)' \
		bash '$(abs_top_srcdir)/bench/run' $(BENCH_FLAGS)
.PHONY: bench

# The sandbox operations and their baselines (bench/ops-run).
bench_sbx_ops_bench_SOURCES = bench/sbx_ops_bench.c $(SBX_BENCH_UTIL)
bench_sbx_ops_bench_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) -pthread
bench_sbx_ops_bench_LDADD = host-api/libsbx-host.la $(CURL_LIBS) -lpthread

# The latency of a process's line to the host, through the library and
# through plain libcurl polls of the same AIO routes (bench/line-run).
bench_sbx_line_bench_SOURCES = bench/sbx_line_bench.c $(SBX_BENCH_UTIL)
bench_sbx_line_bench_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) -pthread
bench_sbx_line_bench_LDADD = host-api/libsbx-host.la $(CURL_LIBS) $(JSONC_LIBS) -lpthread

# File calls through sbx-provisiond against local directly and an HTTP
# round trip (bench/files-run).
SBX_BENCH_BINS += bench/sbx-files-bench
EXTRA_DIST += bench/files-run
CLEANFILES += bench/results-files.txt
bench_sbx_files_bench_SOURCES = bench/sbx_files_bench.c $(SBX_BENCH_UTIL)
bench_sbx_files_bench_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) -pthread
bench_sbx_files_bench_LDADD = host-api/libsbx-host.la $(CURL_LIBS) -lpthread
# Streaming exec and session commands against their baselines, and the
# local line latency against a pipe (bench/proc-run).
bench_sbx_proc_bench_SOURCES = bench/sbx_proc_bench.c $(SBX_BENCH_UTIL)
bench_sbx_proc_bench_CFLAGS = $(AM_CFLAGS) -pthread
bench_sbx_proc_bench_LDADD = host-api/libsbx-host.la -lpthread

# The latency of a docker process's line to the host, through the library
# and through the Engine's own attach stream (run by hand: needs an engine;
# docs/performance.md, "Docker processes").
SBX_BENCH_BINS += bench/sbx-docker-line-bench
bench_sbx_docker_line_bench_SOURCES = bench/sbx_docker_line_bench.c
bench_sbx_docker_line_bench_CFLAGS = $(AM_CFLAGS) -pthread
bench_sbx_docker_line_bench_LDADD = host-api/libsbx-host.la -lpthread
