//go:build tools

// Package tools pins runc, the OCI runtime containerd's shim calls, for the local node.
package tools

import (
	_ "github.com/opencontainers/runc"
)
