# The docker backend module: a Docker Engine API client (podman's service
# too) over a unix socket, with libcurl (common/http_client) and json-c.
# It exports its entry point and nothing else.
pkglib_LTLIBRARIES += plugin/docker/sbx-docker.la
plugin_docker_sbx_docker_la_SOURCES = \
	plugin/docker/docker_backend.c plugin/docker/docker_backend.h \
	plugin/docker/docker_container.c plugin/docker/docker_container.h \
	plugin/docker/docker_engine.c plugin/docker/docker_engine.h \
	plugin/docker/docker_options.c plugin/docker/docker_options.h \
	plugin/docker/docker_text.c plugin/docker/docker_text.h
plugin_docker_sbx_docker_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(CURL_CFLAGS) $(JSONC_CFLAGS)
plugin_docker_sbx_docker_la_LIBADD = common/libsbx-http.la $(CURL_LIBS) $(JSONC_LIBS)
plugin_docker_sbx_docker_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_MODULE_LINK_FLAGS)
