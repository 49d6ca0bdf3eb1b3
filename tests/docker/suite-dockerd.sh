#!/bin/sh
# The docker backend's suites against a private Docker Engine (make check).
exec "$(dirname "$0")/docker-suite.sh" dockerd
