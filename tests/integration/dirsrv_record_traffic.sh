#!/bin/bash
# tests/integration/record_traffic.sh on the ctest fixture's 389 DS instance.
exec bash "$(dirname "${BASH_SOURCE[0]}")/record_traffic.sh" dirsrv
