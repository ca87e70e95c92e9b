#!/usr/bin/env bash
# Starts the Earshot reference server on its embedded defaults (SQLite and
# files in ./earshot-data, pocketsphinx), installing the system packages it
# needs first. Configuration: see README.md (EARSHOT_* variables).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
scripts/setup.sh server
export CGO_ENABLED=0
exec go run ./server/cmd/earshot-server "$@"
