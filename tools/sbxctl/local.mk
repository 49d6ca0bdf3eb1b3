# sbxctl: the command-line tool (sbxctl(1)).
bin_PROGRAMS += tools/sbxctl/sbxctl
tools_sbxctl_sbxctl_SOURCES = \
	tools/sbxctl/main.c \
	tools/sbxctl/args.c tools/sbxctl/args.h \
	tools/sbxctl/commands.c tools/sbxctl/commands.h \
	tools/sbxctl/copy_fd.c tools/sbxctl/copy_fd.h \
	tools/sbxctl/duration_args.c tools/sbxctl/duration_args.h \
	tools/sbxctl/exit_code.c tools/sbxctl/exit_code.h \
	tools/sbxctl/follow.c tools/sbxctl/follow.h \
	tools/sbxctl/help.c tools/sbxctl/help.h \
	tools/sbxctl/log_sink.c tools/sbxctl/log_sink.h \
	tools/sbxctl/manager_commands.c \
	tools/sbxctl/operation_commands.c \
	tools/sbxctl/process_commands.c \
	tools/sbxctl/option_hints.c tools/sbxctl/option_hints.h \
	tools/sbxctl/output.c tools/sbxctl/output.h \
	tools/sbxctl/redact.c tools/sbxctl/redact.h \
	tools/sbxctl/resource_args.c tools/sbxctl/resource_args.h \
	tools/sbxctl/sandbox_id.c tools/sbxctl/sandbox_id.h \
	tools/sbxctl/session.c tools/sbxctl/session.h \
	tools/sbxctl/shell_command.c \
	tools/sbxctl/signal_names.c tools/sbxctl/signal_names.h \
	tools/sbxctl/terminal.c tools/sbxctl/terminal.h \
	tools/sbxctl/write_all.c tools/sbxctl/write_all.h
tools_sbxctl_sbxctl_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) -pthread
# The backends' option tables (option_hints.c) come from their convenience
# libraries: only the options objects are linked in.
tools_sbxctl_sbxctl_LDADD = host-api/libsbx-host.la plugin/remote/libsbx-remote-core.la \
	plugin/docker/libsbx-docker-core.la common/libsbx-common.la $(JSONC_LIBS) -lpthread

# Its manual page.
dist_man_MANS += docs/sbxctl.1
# sbxctl's page on live processes (with the example host's walk-through).
EXTRA_DIST += docs/sbxctl-processes.md
