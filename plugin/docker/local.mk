# The docker backend module: a Docker Engine API client (podman's service
# too) over a unix socket, with libcurl (common/http_client), json-c and
# libarchive (the file operations' tar archives).
# All logic lives in a convenience library that unit tests link directly;
# the module adds the entry point and exports nothing else.
noinst_LTLIBRARIES += plugin/docker/libsbx-docker-core.la
plugin_docker_libsbx_docker_core_la_SOURCES = \
	plugin/docker/docker_archive.c plugin/docker/docker_archive.h \
	plugin/docker/docker_calls.c plugin/docker/docker_calls.h \
	plugin/docker/docker_conn.c plugin/docker/docker_conn.h \
	plugin/docker/docker_container.c plugin/docker/docker_container.h \
	plugin/docker/docker_create.c plugin/docker/docker_create.h \
	plugin/docker/docker_engine.c plugin/docker/docker_engine.h \
	plugin/docker/docker_exec.c plugin/docker/docker_exec.h \
	plugin/docker/docker_expiry.c plugin/docker/docker_expiry.h \
	plugin/docker/docker_files.c plugin/docker/docker_files.h \
	plugin/docker/docker_frames.c plugin/docker/docker_frames.h \
	plugin/docker/docker_instance.c plugin/docker/docker_instance.h \
	plugin/docker/docker_kept_reads.c plugin/docker/docker_kept_reads.h \
	plugin/docker/docker_list.c plugin/docker/docker_list.h \
	plugin/docker/docker_list_stream.c plugin/docker/docker_list_stream.h \
	plugin/docker/docker_listing.c plugin/docker/docker_listing.h \
	plugin/docker/docker_ops.c plugin/docker/docker_ops.h \
	plugin/docker/docker_options.c plugin/docker/docker_options.h \
	plugin/docker/docker_paths.c plugin/docker/docker_paths.h \
	plugin/docker/docker_proc_answers.c plugin/docker/docker_proc_answers.h \
	plugin/docker/docker_proc_script.c plugin/docker/docker_proc_script.h \
	plugin/docker/docker_proc_server.c plugin/docker/docker_proc_server.h \
	plugin/docker/docker_proc_links.h plugin/docker/docker_proc_wire.h \
	plugin/docker/docker_processes.c plugin/docker/docker_processes.h \
	plugin/docker/docker_pty_helper.c plugin/docker/docker_pty_helper.h \
	plugin/docker/docker_target.c plugin/docker/docker_target.h \
	plugin/docker/docker_text.c plugin/docker/docker_text.h \
	plugin/docker/docker_network.c plugin/docker/docker_network.h \
	plugin/docker/docker_oom.c plugin/docker/docker_oom.h
plugin_docker_libsbx_docker_core_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(CURL_CFLAGS) $(JSONC_CFLAGS) $(LIBARCHIVE_CFLAGS)
plugin_docker_libsbx_docker_core_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DSBX_DOCKER_PTY_HELPER='"$(pkglibexecdir)/sbx-docker-pty"'

pkglib_LTLIBRARIES += plugin/docker/sbx-docker.la
plugin_docker_sbx_docker_la_SOURCES = \
	plugin/docker/docker_backend.c plugin/docker/docker_backend.h
plugin_docker_sbx_docker_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(CURL_CFLAGS) $(JSONC_CFLAGS) $(LIBARCHIVE_CFLAGS)
plugin_docker_sbx_docker_la_LIBADD = plugin/docker/libsbx-docker-core.la \
	common/libsbx-http.la $(CURL_LIBS) $(JSONC_LIBS) $(LIBARCHIVE_LIBS)
plugin_docker_sbx_docker_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_MODULE_LINK_FLAGS)

# The owner of a docker process's terminal, copied into the container on
# its first terminal (sbx_docker_pty.c says why): static, so that it runs
# on any image of the host's architecture; never sanitized (a static
# binary cannot carry ASan's runtime).
pkglibexec_PROGRAMS = plugin/docker/sbx-docker-pty
plugin_docker_sbx_docker_pty_SOURCES = plugin/docker/sbx_docker_pty.c \
	plugin/docker/sbx_docker_serve.c plugin/docker/sbx_docker_serve.h \
	plugin/docker/sbx_docker_proc_native.c plugin/docker/sbx_docker_proc_native.h \
	plugin/docker/docker_proc_script.h plugin/docker/docker_proc_wire.h
plugin_docker_sbx_docker_pty_CFLAGS = -std=c11 $(SBX_WARN_CFLAGS)
plugin_docker_sbx_docker_pty_LDFLAGS = -all-static
