// Command pause is the local node's sandbox image: it holds a Pod's namespaces open and exits on
// SIGTERM or SIGINT, which is all the upstream pause does. No registry is reachable here, so the
// node builds this instead of pulling the upstream pause image.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

// reap collects exited children: as PID 1 of the sandbox it may inherit orphans.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	children := make(chan os.Signal, 1)
	signal.Notify(children, syscall.SIGCHLD)
	for {
		select {
		case <-stop:
			return
		case <-children:
			reap()
		}
	}
}
