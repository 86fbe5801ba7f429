package main

import (
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"
)

func TestLabelsEveryResource(t *testing.T) {
	out, err := fn.Run(fn.ResourceListProcessorFunc(process), []byte(`apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: a}
- apiVersion: v1
  kind: Service
  metadata: {name: b, labels: {app: b}}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: config}
  data: {key: team, value: blue}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(out), "team: blue"); got != 2 {
		t.Fatalf("%d resources labelled, want 2:\n%s", got, out)
	}
}

func TestAKeyIsRequired(t *testing.T) {
	out, _ := fn.Run(fn.ResourceListProcessorFunc(process), []byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"))
	if !strings.Contains(string(out), "functionConfig data.key is required") {
		t.Fatalf("no error result:\n%s", out)
	}
}
