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
	host-api/src/builtin/local/local_state.c \
	host-api/src/builtin/local/local_state.h

# Helpers every backend shares (id validation, sandbox records, logging,
# option values).  They belong to the common convenience library; listed
# here until common/local.mk takes them over.
common_libsbx_common_la_SOURCES += \
	common/backend_log.c common/backend_log.h \
	common/option_values.c common/option_values.h \
	common/sandbox_ids.c common/sandbox_ids.h \
	common/sandbox_records.c common/sandbox_records.h
