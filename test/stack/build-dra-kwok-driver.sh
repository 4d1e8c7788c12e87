#!/usr/bin/env bash
# Builds Karpenter's kwok DRA driver (dra-kwok-driver/ in the sigs.k8s.io/karpenter module) from the Go module
# proxy and caches it by version outside the repository, like build-kueue.sh. On the stack it plays the vendor's
# DRA driver for launched (kwok) nodes: it publishes their ResourceSlices from DRAConfig objects, as the NVIDIA
# driver would on a real GPU node, so the virtual node's slices are replaced by the real node's (issue 35).
# The build runs inside the downloaded module with its own go.mod and go.sum: nothing is resolved anew.
# Prints the bin directory on its last line.
set -euo pipefail

KARPENTER_CORE_VERSION="${KARPENTER_CORE_VERSION:-v1.15.0}"
CACHE_ROOT="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}"
BIN="$CACHE_ROOT/dra-kwok-driver-${KARPENTER_CORE_VERSION}/bin"
mkdir -p "$BIN"
# -mod=readonly: the module cache is read-only, and the module's go.sum is complete.
export CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false -p=${DRA_BUILD_JOBS:-2}" GOTOOLCHAIN=auto

log() { printf '[build-dra-kwok-driver] %s\n' "$*" >&2; }

start=$(date +%s)
if [ -x "$BIN/dra-kwok-driver" ]; then
  log "dra-kwok-driver ${KARPENTER_CORE_VERSION}: cached"
else
  src="$(go mod download -json "sigs.k8s.io/karpenter@${KARPENTER_CORE_VERSION}" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
  log "dra-kwok-driver ${KARPENTER_CORE_VERSION}: building from $src"
  (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$BIN/dra-kwok-driver.tmp" ./dra-kwok-driver)
  # The DRAConfig CRD ships beside the source; the stack installs it before starting the driver.
  cp "$src/dra-kwok-driver/pkg/apis/crds/test.karpenter.sh_draconfigs.yaml" "$BIN/draconfigs-crd.yaml"
  mv "$BIN/dra-kwok-driver.tmp" "$BIN/dra-kwok-driver"
fi
log "done in $(( $(date +%s) - start ))s"
echo "$BIN"
