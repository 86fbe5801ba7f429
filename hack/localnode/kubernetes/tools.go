//go:build tools

// Package tools pins the upstream main packages of a node: the same Kubernetes release as the
// control plane (hack/localcluster), in a module of its own so adding these packages does not
// change the control plane's go.sum (and so its cache key).
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
