# Helpers shared by the host library and the backends (error records, and
# the HTTP/JSON client code the HTTP backends share).  A convenience library:
# each user links its own copy, and modules export none of it.
noinst_LTLIBRARIES += common/libsbx-common.la
common_libsbx_common_la_SOURCES = \
	common/error.c \
	common/http_client.c common/http_client.h \
	common/net_policy.c common/net_policy.h \
	common/json_fields.c common/json_fields.h
common_libsbx_common_la_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
common_libsbx_common_la_LIBADD = $(CURL_LIBS) $(JSONC_LIBS)
