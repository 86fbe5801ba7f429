//go:build tools

// Package tools pins containerd (the daemon, ctr, and the runc shim) for the local node. A module
// of its own, so the versions built are the ones containerd's release go.mod asks for.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
