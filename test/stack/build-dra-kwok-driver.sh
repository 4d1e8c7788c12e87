#!/usr/bin/env bash
# Builds Karpenter's kwok DRA driver (dra-kwok-driver/ in the sigs.k8s.io/karpenter module) from the Go module
# proxy and caches it by version outside the repository, like build-kueue.sh. On the stack it plays the vendor's
# DRA driver for launched (kwok) nodes: it publishes their ResourceSlices from DRAConfig objects, as the NVIDIA
# driver would on a real GPU node, so the virtual node's slices are replaced by the real node's (issue 35).
# The build runs inside the downloaded module with its own go.mod and go.sum: nothing is resolved anew.
# Beside the binary: the DRAConfig CRD from the same module, which the stack installs before starting the driver.
# v1.15.0's driver cannot list its own DRAConfigs (its API package never registers meta/v1's types), so one file
# of ours, dra-kwok-driver-fix/, is laid over a copy of the module before the build (see that file).
# Prints the bin directory on its last line.
set -euo pipefail

KARPENTER_CORE_VERSION="${KARPENTER_CORE_VERSION:-v1.15.0}"
CACHE_ROOT="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FIX="$HERE/dra-kwok-driver-fix"
# The cache key carries the fix's hash, so a changed fix rebuilds.
FIX_HASH="$(cd "$FIX" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)"
BIN="$CACHE_ROOT/dra-kwok-driver-${KARPENTER_CORE_VERSION}-${FIX_HASH}/bin"
GO_BUILD_JOBS="${DRA_BUILD_JOBS:-2}" exec bash "$HERE/build-go-command.sh" \
  "sigs.k8s.io/karpenter@${KARPENTER_CORE_VERSION}" ./dra-kwok-driver dra-kwok-driver "$BIN" build-dra-kwok-driver \
  "cp \"\$GO_COMMAND_SRC/dra-kwok-driver/pkg/apis/crds/test.karpenter.sh_draconfigs.yaml\" \"$BIN/draconfigs-crd.yaml\"" "$FIX"
