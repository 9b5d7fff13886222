#!/usr/bin/env bash
# Renders an HTML roster page (shiftctl export --file-format html) to a PNG with headless Chromium, to
# look at it without a browser window. Installs nothing: when no Chromium is found it says how to
# get one (Debian: apt-get install chromium) and exits 3.
#
# Usage: scripts/render-html.sh ROSTER.html [OUT.png] [WIDTHxHEIGHT]
#        (default OUT: ROSTER.png beside the page; default size 1600x1000)
#        PRINT=1 scripts/render-html.sh ROSTER.html OUT.pdf   prints to PDF instead (landscape, colours kept)
set -euo pipefail

if [ $# -lt 1 ] || [ ! -f "$1" ]; then
    echo "usage: $0 ROSTER.html [OUT.png] [WIDTHxHEIGHT]" >&2
    exit 2
fi
page="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
out="${2:-${page%.*}.png}"
size="${3:-1600x1000}"

browser=""
for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then browser="$candidate"; break; fi
done
if [ -z "$browser" ]; then
    echo "$0: no chromium found; install it (Debian/Ubuntu: apt-get install -y chromium) and run again" >&2
    exit 3
fi

flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-dev-shm-usage)
if [ "${PRINT:-}" = "1" ]; then
    "$browser" "${flags[@]}" --no-pdf-header-footer --print-to-pdf="$out" "file://$page" 2>/dev/null
else
    "$browser" "${flags[@]}" --window-size="${size/x/,}" --screenshot="$out" "file://$page" 2>/dev/null
fi
echo "$out"
