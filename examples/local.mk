# The example host of docs/manager.md: a program a user reads to learn the
# manager API.  `make check` builds it, so that it cannot rot against the
# API, and tests/manager/check-example-host.sh runs it.
check_PROGRAMS += examples/host
examples_host_SOURCES = examples/host.c
examples_host_LDADD = host-api/libsbx-host.la
