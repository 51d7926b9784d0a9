#!/bin/bash
# tests/integration/audit_match.sh on the ctest fixture's 389 DS instance.
exec bash "$(dirname "${BASH_SOURCE[0]}")/audit_match.sh" dirsrv
