# The example host of docs/manager.md: a program a user reads to learn the
# manager API.  `make check` builds it, so that it cannot rot against the
# API, and tests/manager/check-example-host.sh runs it.
check_PROGRAMS += examples/host
examples_host_SOURCES = examples/host.c
examples_host_LDADD = host-api/libsbx-host.la
# The example host of live processes (docs/sbxctl-processes.md): a dev server started
# in a sandbox, its port awaited, its log tailed.  Built by `make check`
# and run by tests/sbxctl/check-example-dev-server.sh.
check_PROGRAMS += examples/dev_server
examples_dev_server_SOURCES = examples/dev_server.c
examples_dev_server_LDADD = host-api/libsbx-host.la
