#!/usr/bin/env bash
# Installs the Debian packages Earshot needs when they are missing.
#   libpocketsphinx3 pocketsphinx-en-us  the embedded speech recognizer and its English model
#   ffmpeg                               decoding of mp4/m4a/mov/webm/mkv/aac/opus, mp3 encoding
#   flite sox pocketsphinx pocketsphinx-testdata   tests only: synthetic speech, audio tools,
#                                        the reference decoder and real read speech
#   postgresql                           tests only: the server scripts/services.sh runs
#   chromium (and nodejs npm when no node is on PATH)
#                                        tests only: the console's browser tests (playwright-core
#                                        from npm drives Debian's headless Chromium; Node.js 20+
#                                        is wanted, Debian 12's own nodejs is 18)
# Usage: scripts/setup.sh [server|test]   (default: test, which installs everything)
set -euo pipefail
mode=${1:-test}
pkgs=(libpocketsphinx3 pocketsphinx-en-us ffmpeg)
if [ "$mode" = test ]; then
  pkgs+=(flite sox pocketsphinx pocketsphinx-testdata postgresql chromium)
  command -v node >/dev/null 2>&1 || pkgs+=(nodejs npm)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v go >/dev/null 2>&1; then
  echo "setup: Go 1.26 or newer is required (https://go.dev/dl/); /usr/local/go/bin is checked too" >&2
  [ -x /usr/local/go/bin/go ] || exit 1
fi
