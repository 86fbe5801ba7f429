// Command labeller is the KRM function image the deploy suite runs as a Pod
// (test/deploy/function-pods.test.ts), written against the KRM function SDK as a function
// author would. Its functionConfig is a ConfigMap:
//
//	data:
//	  key: <label key>        # required in mode "label"
//	  value: <label value>
//	  mode: label             # the default: adds key=value to every resource's labels
//
// Other modes make the failures the Pod runtime must name:
//
//	crash    writes "labeller: crashing as asked" to stderr and exits 1 (no output)
//	hang     never ends (the run's time limit must stop it)
//	garbage  writes text that is not YAML to stdout and exits 0
//	inspect  adds an info result per fact about where it runs: uid, environment variable
//	         names, whether /proc/1/environ (the wrapper's) can be read, whether the root
//	         file system can be written; the resources pass through unchanged
//
// The image's entrypoint is /usr/local/bin/function (kpt's convention).
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/kptdev/krm-functions-sdk/go/fn"
)

func main() {
	if err := fn.AsMain(fn.ResourceListProcessorFunc(process)); err != nil {
		os.Exit(1)
	}
}

func process(rl *fn.ResourceList) (bool, error) {
	data := map[string]string{}
	if rl.FunctionConfig != nil {
		if found, _, err := rl.FunctionConfig.NestedStringMap("data"); err == nil && found != nil {
			data = found
		}
	}
	mode := data["mode"]
	if mode == "" {
		mode = "label"
	}
	switch mode {
	case "label":
		return label(rl, data)
	case "crash":
		fmt.Fprintln(os.Stderr, "labeller: crashing as asked")
		os.Exit(1)
	case "hang":
		for {
			time.Sleep(time.Hour)
		}
	case "garbage":
		fmt.Print("}}} this is not YAML: [\n\t{{{\n")
		os.Exit(0)
	case "inspect":
		inspect(rl)
		return true, nil
	}
	return false, fmt.Errorf("unknown mode %q (label, crash, hang, garbage, inspect)", mode)
}

func label(rl *fn.ResourceList, data map[string]string) (bool, error) {
	key, value := data["key"], data["value"]
	if key == "" {
		rl.Results = append(rl.Results, fn.GeneralResult("functionConfig data.key is required", fn.Error))
		return false, nil
	}
	for _, item := range rl.Items {
		if err := item.SetLabel(key, value); err != nil {
			return false, err
		}
	}
	rl.Results = append(rl.Results, fn.GeneralResult(
		fmt.Sprintf("labelled %d resources %s=%s", len(rl.Items), key, value), fn.Info))
	return true, nil
}

func inspect(rl *fn.ResourceList) {
	var names []string
	for _, v := range os.Environ() {
		names = append(names, strings.SplitN(v, "=", 2)[0])
	}
	sort.Strings(names)
	_, environErr := os.ReadFile("/proc/1/environ")
	probe, writeErr := os.CreateTemp("/", "probe-")
	if writeErr == nil {
		probe.Close()
		os.Remove(probe.Name())
	}
	facts := []string{
		fmt.Sprintf("uid=%d", os.Getuid()),
		"env=" + strings.Join(names, ","),
		fmt.Sprintf("wrapper-environ-readable=%v", environErr == nil),
		fmt.Sprintf("root-writable=%v", writeErr == nil),
	}
	for _, fact := range facts {
		rl.Results = append(rl.Results, fn.GeneralResult(fact, fn.Info))
	}
}
