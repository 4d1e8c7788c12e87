#!/usr/bin/env bash
# Builds the real Kueue (sigs.k8s.io/kueue) manager, cmd/kueue, from the Go module proxy and caches it by
# version outside the repository, like build-karpenter.sh. Kueue is the batch user's tool: its
# ProvisioningRequest admission check asks nodesmith for capacity (issue 35).
# The build runs inside the downloaded module, so it uses Kueue's own go.mod and go.sum, exactly the
# dependency versions Kueue v0.17.0 was released with; nothing is resolved anew.
# Prints the bin directory on its last line.
set -euo pipefail

KUEUE_VERSION="${KUEUE_VERSION:-v0.17.0}"
CACHE_ROOT="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}"
BIN="$CACHE_ROOT/kueue-${KUEUE_VERSION}/bin"
mkdir -p "$BIN"
# Kueue's go.mod may name a newer Go than the machine has; `auto` fetches that toolchain from the proxy.
# -mod=readonly: the module cache is read-only, and Kueue's go.sum is complete.
export CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false -p=${KUEUE_BUILD_JOBS:-2}" GOTOOLCHAIN=auto

log() { printf '[build-kueue] %s\n' "$*" >&2; }

start=$(date +%s)
if [ -x "$BIN/kueue" ]; then
  log "kueue ${KUEUE_VERSION}: cached"
else
  src="$(go mod download -json "sigs.k8s.io/kueue@${KUEUE_VERSION}" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
  log "kueue ${KUEUE_VERSION}: building from $src"
  (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$BIN/kueue.tmp" ./cmd/kueue)
  mv "$BIN/kueue.tmp" "$BIN/kueue"
fi
log "done in $(( $(date +%s) - start ))s"
echo "$BIN"
