# The in-process "local" backend, built into the host library (included by
# host-api/local.mk; the host registers it at sbx_host_new).
host_api_libsbx_host_la_SOURCES += \
	plugin/local/local_backend.c \
	plugin/local/local_backend.h \
	plugin/local/local_cache.c \
	plugin/local/local_cache.h \
	plugin/local/local_command.c \
	plugin/local/local_command.h \
	plugin/local/local_create.c \
	plugin/local/local_create.h \
	plugin/local/local_file.c \
	plugin/local/local_file.h \
	plugin/local/local_identity.c \
	plugin/local/local_identity.h \
	plugin/local/local_instance.c \
	plugin/local/local_instance.h \
	plugin/local/local_metadata.c \
	plugin/local/local_metadata.h \
	plugin/local/local_ops.c \
	plugin/local/local_ops.h \
	plugin/local/local_options.c \
	plugin/local/local_options.h \
	plugin/local/local_port.c \
	plugin/local/local_port.h \
	plugin/local/local_process.c \
	plugin/local/local_process.h \
	plugin/local/local_records.c \
	plugin/local/local_records.h \
	plugin/local/local_remove.c \
	plugin/local/local_remove.h \
	plugin/local/local_state.c \
	plugin/local/local_state.h \
	plugin/local/local_time.c \
	plugin/local/local_time.h \
	plugin/local/local_tomb.c \
	plugin/local/local_tomb.h

