# The in-process "local" backend, built into the host library (included by
# host-api/local.mk; the host registers it at sbx_host_new).
host_api_libsbx_host_la_SOURCES += \
	host-api/src/builtin/local/local_backend.c \
	host-api/src/builtin/local/local_backend.h \
	host-api/src/builtin/local/local_command.c \
	host-api/src/builtin/local/local_command.h \
	host-api/src/builtin/local/local_identity.c \
	host-api/src/builtin/local/local_identity.h \
	host-api/src/builtin/local/local_metadata.c \
	host-api/src/builtin/local/local_metadata.h \
	host-api/src/builtin/local/local_options.c \
	host-api/src/builtin/local/local_options.h \
	host-api/src/builtin/local/local_port.c \
	host-api/src/builtin/local/local_port.h \
	host-api/src/builtin/local/local_process.c \
	host-api/src/builtin/local/local_process.h \
	host-api/src/builtin/local/local_remove.c \
	host-api/src/builtin/local/local_remove.h \
	host-api/src/builtin/local/local_state.c \
	host-api/src/builtin/local/local_state.h \
	host-api/src/builtin/local/local_time.c \
	host-api/src/builtin/local/local_time.h

