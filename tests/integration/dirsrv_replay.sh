#!/bin/bash
# tests/integration/replay_audit.sh on the ctest fixture's 389 DS instance.
exec bash "$(dirname "${BASH_SOURCE[0]}")/replay_audit.sh" dirsrv
