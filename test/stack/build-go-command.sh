#!/usr/bin/env bash
# Builds one command of a Go module from the Go module proxy, inside the downloaded module, so with the module's own
# go.mod and go.sum: exactly the dependency versions it was released with, nothing resolved anew. Caches the binary
# under $BIN and prints $BIN on its last line. Used by build-kueue.sh and build-dra-kwok-driver.sh.
#   build-go-command.sh MODULE@VERSION PACKAGE BINARY BIN_DIR LOG_TAG
# After a build, $GO_COMMAND_SRC (exported to a hook given as $6, if any) is the module's directory.
set -euo pipefail

MODULE="$1"; PACKAGE="$2"; BINARY="$3"; BIN="$4"; TAG="$5"; AFTER="${6:-}"
mkdir -p "$BIN"
# The module's go.mod may name a newer Go than the machine has; `auto` fetches that toolchain from the proxy.
# -mod=readonly: the module cache is read-only, and the module's go.sum is complete.
export CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false -p=${GO_BUILD_JOBS:-2}" GOTOOLCHAIN=auto

log() { printf '[%s] %s\n' "$TAG" "$*" >&2; }

start=$(date +%s)
if [ -x "$BIN/$BINARY" ]; then
  log "$MODULE: cached"
else
  src="$(go mod download -json "$MODULE" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
  log "$MODULE: building $PACKAGE from $src"
  (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$BIN/$BINARY.tmp" "$PACKAGE")
  if [ -n "$AFTER" ]; then GO_COMMAND_SRC="$src" bash -c "$AFTER"; fi
  mv "$BIN/$BINARY.tmp" "$BIN/$BINARY"
fi
log "done in $(( $(date +%s) - start ))s"
echo "$BIN"
