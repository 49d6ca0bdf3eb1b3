# Reference pages (shipped in the tarball) and the man page (installed).
EXTRA_DIST += \
	docs/abi.md \
	docs/configuration.md \
	docs/emulator.md \
	docs/local.md \
	docs/docker.md \
	docs/remote.md \
	docs/protocol.md \
	docs/performance.md \
	docs/hardening.md
