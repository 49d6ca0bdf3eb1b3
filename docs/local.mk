# Reference pages (shipped in the tarball) and the man page (installed).
EXTRA_DIST += \
	docs/abi.md \
	docs/internals.md \
	docs/configuration.md \
	docs/emulator.md \
	docs/local.md \
	docs/docker.md \
	docs/remote.md \
	docs/protocol.md \
	docs/performance.md \
	docs/hardening.md \
	docs/provisiond.md \
	contrib/sbx-provisiond.service \
	contrib/provisiond.Dockerfile \
	contrib/provisiond.json

# sbx-provisiond's manual page (installed).
dist_man_MANS += docs/sbx-provisiond.8
