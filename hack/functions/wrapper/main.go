// Command function-wrapper lets porch-pepr run any KRM function image as a warm Pod (README,
// "Functions as Pods"). A function image only promises an entrypoint that reads a ResourceList
// on stdin and writes one on stdout; it may have no shell, no cp and no libc. So the wrapper is
// a static Go binary (CGO_ENABLED=0, standard library only): it runs in any image, whatever
// libc it has or lacks. Two modes:
//
//	function-wrapper install <dir>
//	    The Pod's init container (the wrapper image, which has no shell and no cp either)
//	    copies this binary into <dir>, an emptyDir the function container mounts.
//
//	function-wrapper serve [flags] -- <entrypoint> [args...]
//	    The function container's process: an HTTP server on --port.
//	    GET  /healthz  200 "ok" (the readiness probe; no token).
//	    POST /run      body: a ResourceList (YAML), at most --max-request-bytes;
//	                   header: Authorization: Bearer <token>.
//	                   Runs the entrypoint once with the body on stdin and answers 200 with
//	                   JSON {"exitCode", "stdout" (base64), "stderr" (truncated),
//	                   "stderrTruncated", "failure": {"reason", "message"}}; reason is
//	                   Timeout, OutputTooLarge, StartFailed or Killed (omitted when the
//	                   function ran to its own exit). 401 without the token, 413 for a body
//	                   too large, 429 when --max-runs runs are in flight.
//
// The token is read from PORCH_PEPR_FN_TOKEN, which the wrapper then removes from its own
// environment; functions run with PATH (the image's) and HOME=/tmp only, in a fresh working
// directory under /tmp, in a process group of their own that is killed when the run ends.
package main

import (
	"fmt"
	"os"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: function-wrapper install <dir>")
	fmt.Fprintln(os.Stderr, "       function-wrapper serve [flags] -- <entrypoint> [args...]")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "install":
		if len(os.Args) != 3 {
			usage()
		}
		err = install(os.Args[2])
	case "serve":
		err = serveMain(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "function-wrapper %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
