package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// reaper starts function processes and collects every child that exits. The wrapper is PID 1 of
// its container, so processes a function leaves behind are re-parented to it and must be
// reaped, or they stay zombies for the Pod's life. One goroutine waits for any child
// (wait4(-1)), so no run may wait for its own process on its own (it could lose the race and
// never see its exit status): a run registers its PID under the same lock that reaping takes,
// and the reaper hands each status to the run that owns the PID.
type reaper struct {
	mu      sync.Mutex
	waiting map[int]chan syscall.WaitStatus
}

func newReaper() *reaper {
	r := &reaper{waiting: map[int]chan syscall.WaitStatus{}}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGCHLD)
	go func() {
		for range signals {
			r.reap()
		}
	}()
	return r
}

// start forks and execs argv in a process group of its own; done receives its exit status.
func (r *reaper) start(argv0 string, argv []string, attr *syscall.ProcAttr) (int, <-chan syscall.WaitStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, err := syscall.ForkExec(argv0, argv, attr)
	if err != nil {
		return 0, nil, err
	}
	done := make(chan syscall.WaitStatus, 1)
	r.waiting[pid] = done
	return pid, done, nil
}

// kill sends SIGKILL to pid's process group while pid is still a running child of ours (once it
// is reaped its number may be reused).
func (r *reaper) kill(pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, running := r.waiting[pid]; running {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

func (r *reaper) reap() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
		done, ours := r.waiting[pid]
		if !ours {
			continue // an orphan a function left behind: reaped, nothing more to do
		}
		delete(r.waiting, pid)
		// What the run started in its group ends with it; the group cannot be reused while
		// members remain, and no new process can start before this lock is released.
		syscall.Kill(-pid, syscall.SIGKILL)
		done <- status
	}
}
