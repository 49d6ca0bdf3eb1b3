# The host library (its public headers are include/sbx/).
lib_LTLIBRARIES += host-api/libsbx-host.la
host_api_libsbx_host_la_SOURCES =
host_api_libsbx_host_la_CPPFLAGS = $(AM_CPPFLAGS) -DSBX_MODULE_DIR='"$(pkglibdir)"'
host_api_libsbx_host_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(SECCOMP_CFLAGS)
# libsbx-http (with libsbx-common) for the manager's readiness wait (rule 6).
host_api_libsbx_host_la_LIBADD = common/libsbx-http.la $(CURL_LIBS) $(JSONC_LIBS) $(SECCOMP_LIBS)
host_api_libsbx_host_la_LDFLAGS = $(AM_LDFLAGS) -no-undefined -Wl,-z,defs -version-info 1:0:1 \
	-export-symbols $(srcdir)/host-api/libsbx-host.sym
EXTRA_DIST += host-api/libsbx-host.sym
# The host's guide to sessions.
EXTRA_DIST += docs/sessions.md

pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = host-api/sbx-host.pc

host_api_libsbx_host_la_SOURCES += \
	host-api/src/host_internal.h \
	host-api/src/host.c \
	host-api/src/error.c \
	host-api/src/module_loader.c host-api/src/module_loader.h \
	host-api/src/backend_listing.c \
	host-api/src/backend_call.c \
	host-api/src/backend_create_fields.c \
	host-api/src/backend_labels.c \
	host-api/src/backend_expiry.c \
	host-api/src/backend_open_file.c \
	host-api/src/backend_operations.c \
	host-api/src/backend_processes.c \
	host-api/src/session_internal.h \
	host-api/src/session.c \
	host-api/src/session_marker.c host-api/src/session_marker.h \
	host-api/src/env_expand.h \
	host-api/src/env_expand.c \
	host-api/src/config.c \
	host-api/src/config_manager.h \
	host-api/src/config_manager.c

include $(srcdir)/plugin/local/local.mk
include $(srcdir)/host-api/src/manager/local.mk
