#!/usr/bin/env bash
# Builds the real Kueue (sigs.k8s.io/kueue) manager, cmd/kueue, from the Go module proxy and caches it by
# version outside the repository, like build-karpenter.sh. Kueue is the batch user's tool: its
# ProvisioningRequest admission check asks nodesmith for capacity (issue 35).
# The build runs inside the downloaded module (build-go-command.sh), so it uses Kueue's own go.mod and go.sum,
# exactly the dependency versions Kueue v0.17.0 was released with; nothing is resolved anew.
# Prints the bin directory on its last line.
set -euo pipefail

KUEUE_VERSION="${KUEUE_VERSION:-v0.17.0}"
CACHE_ROOT="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}"
GO_BUILD_JOBS="${KUEUE_BUILD_JOBS:-2}" exec bash "$(dirname "${BASH_SOURCE[0]}")/build-go-command.sh" \
  "sigs.k8s.io/kueue@${KUEUE_VERSION}" ./cmd/kueue kueue "$CACHE_ROOT/kueue-${KUEUE_VERSION}/bin" build-kueue
