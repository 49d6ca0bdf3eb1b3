#!/bin/sh
# The docker backend's suites against a private podman engine (make check).
exec "$(dirname "$0")/docker-suite.sh" podman
