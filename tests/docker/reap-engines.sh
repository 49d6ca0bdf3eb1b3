#!/bin/sh
# reap-engines.sh: stop and remove the private test engines (podman-env.sh,
# dockerd-env.sh) that runs killed before their own cleanup left under
# /tmp, with what they hold: containers, NAT rules of published ports,
# mounts, bridges.  Every engine start does this too; CI runs it first so
# that no suite of the run meets a port such a rule still takes.
set -u
. "$(dirname "$0")/engine-lib.sh"
reap_stale_engines
