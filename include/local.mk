# The public headers: the backend ABI, the module support helpers, the host
# library (with its error records), the sandbox manager and sessions.
# Everything else in the tree is internal.
sbxincludedir = $(includedir)/sbx
sbxinclude_HEADERS = include/sbx/backend.h include/sbx/backend_support.h \
	include/sbx/error.h include/sbx/host.h include/sbx/manager.h \
	include/sbx/session.h
