# sbx-provisioner-emu: the provisioner emulator tests and demos run against
# (docs/emulator.md).  One file per responsibility: CLI, HTTP server, /api
# routes, create validation, mount rules, path arithmetic, the emulated
# cluster (Pods, Services, Kubernetes failures), faults/holds/counters,
# request log, control API.
bin_PROGRAMS += tools/provisioner-emu/sbx-provisioner-emu
tools_provisioner_emu_sbx_provisioner_emu_SOURCES = \
	tools/provisioner-emu/main.c \
	tools/provisioner-emu/emu_alloc.c tools/provisioner-emu/emu_alloc.h \
	tools/provisioner-emu/emu_api.c tools/provisioner-emu/emu_api.h \
	tools/provisioner-emu/emu_context.h \
	tools/provisioner-emu/emu_contract.c tools/provisioner-emu/emu_contract.h \
	tools/provisioner-emu/emu_control.c tools/provisioner-emu/emu_control.h \
	tools/provisioner-emu/emu_create.c tools/provisioner-emu/emu_create.h \
	tools/provisioner-emu/emu_faults.c tools/provisioner-emu/emu_faults.h \
	tools/provisioner-emu/emu_json.c tools/provisioner-emu/emu_json.h \
	tools/provisioner-emu/emu_mounts.c tools/provisioner-emu/emu_mounts.h \
	tools/provisioner-emu/emu_paths.c tools/provisioner-emu/emu_paths.h \
	tools/provisioner-emu/emu_reply.c tools/provisioner-emu/emu_reply.h \
	tools/provisioner-emu/emu_request_log.c tools/provisioner-emu/emu_request_log.h \
	tools/provisioner-emu/emu_routes.c tools/provisioner-emu/emu_routes.h \
	tools/provisioner-emu/emu_server.c tools/provisioner-emu/emu_server.h \
	tools/provisioner-emu/emu_store.c tools/provisioner-emu/emu_store.h \
	tools/provisioner-emu/emu_uid.c tools/provisioner-emu/emu_uid.h
tools_provisioner_emu_sbx_provisioner_emu_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(JSONC_CFLAGS) -pthread
tools_provisioner_emu_sbx_provisioner_emu_LDADD = $(MHD_LIBS) $(JSONC_LIBS) -lpthread
