#!/usr/bin/env bash
# Builds one command of a Go module from the Go module proxy, inside the downloaded module, so with the module's own
# go.mod and go.sum: exactly the dependency versions it was released with, nothing resolved anew. Caches the binary
# under $BIN and prints $BIN on its last line. Used by build-kueue.sh and build-dra-kwok-driver.sh.
#   build-go-command.sh MODULE@VERSION PACKAGE BINARY BIN_DIR LOG_TAG [AFTER [OVERLAY]]
# AFTER (optional) is a shell command run after the build with $GO_COMMAND_SRC set to the module's directory.
# OVERLAY (optional) is a directory whose files are laid over a copy of the module before the build: a fix the
# released module lacks, in files of its own, never an edit of the module's files.
set -euo pipefail

MODULE="$1"; PACKAGE="$2"; BINARY="$3"; BIN="$4"; TAG="$5"; AFTER="${6:-}"; OVERLAY="${7:-}"
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
  if [ -n "$OVERLAY" ]; then
    copy="$(mktemp -d)"
    cp -r "$src"/. "$copy"/ && chmod -R u+w "$copy" && cp -r "$OVERLAY"/. "$copy"/
    log "$MODULE: laid $(cd "$OVERLAY" && find . -type f | tr '\n' ' ')over a copy of the module"
    src="$copy"
  fi
  log "$MODULE: building $PACKAGE from $src"
  (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$BIN/$BINARY.tmp" "$PACKAGE")
  if [ -n "$AFTER" ]; then GO_COMMAND_SRC="$src" bash -c "$AFTER"; fi
  mv "$BIN/$BINARY.tmp" "$BIN/$BINARY"
  if [ -n "$OVERLAY" ]; then rm -rf "$copy"; fi
fi
log "done in $(( $(date +%s) - start ))s"
echo "$BIN"
