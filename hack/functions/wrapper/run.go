package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Reasons a run ended other than by the function's own exit.
const (
	ReasonTimeout        = "Timeout"
	ReasonOutputTooLarge = "OutputTooLarge"
	ReasonStartFailed    = "StartFailed"
	ReasonKilled         = "Killed"
)

type failure struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// runResult is the body of a 200 answer to POST /run. Stdout is base64 in JSON ([]byte): any
// bytes, and at most 4/3 of their size, whatever a function prints.
type runResult struct {
	ExitCode        int      `json:"exitCode"`
	Stdout          []byte   `json:"stdout"`
	Stderr          string   `json:"stderr"`
	StderrTruncated bool     `json:"stderrTruncated,omitempty"`
	Failure         *failure `json:"failure,omitempty"`
}

// limits bound one run.
type limits struct {
	timeout        time.Duration
	maxStdoutBytes int
	maxStderrBytes int
}

// outputGrace is how long a run waits, after its process exited, for its pipes to close (a
// process it started in another session may hold them): output ends there.
const outputGrace = 2 * time.Second

// functionEnv is the whole environment of a function: the image's PATH and HOME=/tmp. Nothing
// of the wrapper's (the token above all) and nothing of Kubernetes'.
func functionEnv(path string) []string {
	if path == "" {
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	return []string{"PATH=" + path, "HOME=/tmp"}
}

type runner struct {
	reaper     *reaper
	entrypoint []string
	env        []string
	workRoot   string
	limits     limits
}

// run runs the entrypoint once with input on stdin. It never returns an error: what went wrong
// is in the result's failure.
func (r *runner) run(ctx context.Context, input []byte) runResult {
	fail := func(reason, format string, args ...any) runResult {
		return runResult{ExitCode: 1, Failure: &failure{reason, fmt.Sprintf(format, args...)}}
	}
	argv0, err := exec.LookPath(r.entrypoint[0])
	if err != nil {
		return fail(ReasonStartFailed, "entrypoint %q: %v", r.entrypoint[0], err)
	}
	dir, err := os.MkdirTemp(r.workRoot, "run-")
	if err != nil {
		return fail(ReasonStartFailed, "working directory: %v", err)
	}
	defer os.RemoveAll(dir)
	p, err := newPipes()
	if err != nil {
		return fail(ReasonStartFailed, "pipes: %v", err)
	}
	defer p.closeParent()
	pid, done, err := r.reaper.start(argv0, r.entrypoint, &syscall.ProcAttr{
		Dir:   dir,
		Env:   r.env,
		Files: []uintptr{p.stdinR.Fd(), p.stdoutW.Fd(), p.stderrW.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	p.closeChild()
	if err != nil {
		return fail(ReasonStartFailed, "could not start %s: %v", argv0, err)
	}

	var end ending
	stop := func(reason, message string) {
		end.set(reason, message)
		r.reaper.kill(pid)
	}
	timer := time.AfterFunc(r.limits.timeout, func() {
		stop(ReasonTimeout, fmt.Sprintf("the function ran longer than %s and was killed", r.limits.timeout))
	})
	defer timer.Stop()
	go func() {
		p.stdinW.Write(input) // EPIPE when the function does not read it all: its exit tells
		p.stdinW.Close()
	}()
	var stdout, stderr capped
	var reading sync.WaitGroup
	reading.Add(2)
	go func() {
		defer reading.Done()
		if stdout.fill(p.stdoutR, r.limits.maxStdoutBytes, true) {
			stop(ReasonOutputTooLarge, fmt.Sprintf("the function wrote more than %d bytes to stdout and was killed", r.limits.maxStdoutBytes))
		}
	}()
	go func() {
		defer reading.Done()
		stderr.fill(p.stderrR, r.limits.maxStderrBytes, false)
	}()

	var status syscall.WaitStatus
	select {
	case status = <-done:
	case <-ctx.Done():
		stop(ReasonKilled, "the request was cancelled")
		status = <-done
	}
	timer.Stop()
	read := make(chan struct{})
	go func() { reading.Wait(); close(read) }()
	select {
	case <-read:
	case <-time.After(outputGrace):
		p.closeParent() // unblocks the readers: whatever holds the pipes is not the function
		<-read
	}

	stopped := end.get()
	result := runResult{
		ExitCode:        exitCode(status),
		Stdout:          stdout.buf,
		Stderr:          string(stderr.buf),
		StderrTruncated: stderr.overflow,
		Failure:         stopped,
	}
	if result.Stdout == nil {
		result.Stdout = []byte{}
	}
	if stopped == nil && status.Signaled() {
		result.Failure = &failure{ReasonKilled, fmt.Sprintf("the function was killed by signal %d (%s)", status.Signal(), status.Signal())}
	}
	return result
}

func exitCode(status syscall.WaitStatus) int {
	if status.Signaled() {
		return 128 + int(status.Signal())
	}
	return status.ExitStatus()
}

// ending is why a run was stopped: the first reason given wins.
type ending struct {
	mu      sync.Mutex
	failure *failure
}

func (e *ending) set(reason, message string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failure == nil {
		e.failure = &failure{reason, message}
	}
}

func (e *ending) get() *failure {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failure
}

// capped keeps up to max bytes of a stream.
type capped struct {
	buf      []byte
	overflow bool
}

// fill reads r to its end, keeping max bytes. Past max it returns true at once when
// stopAtLimit (stdout: the run is stopped), else it goes on reading and dropping (stderr: a
// function blocked on a full pipe would only run into its timeout).
func (c *capped) fill(r io.Reader, max int, stopAtLimit bool) bool {
	chunk := make([]byte, 32*1024)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			keep := min(n, max-len(c.buf))
			c.buf = append(c.buf, chunk[:keep]...)
			if keep < n {
				c.overflow = true
				if stopAtLimit {
					return true
				}
			}
		}
		if err != nil {
			return false
		}
	}
}

type pipes struct {
	stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW *os.File
	closeOnce                                          sync.Once
}

func newPipes() (*pipes, error) {
	p := &pipes{}
	var errs []error
	var err error
	p.stdinR, p.stdinW, err = os.Pipe()
	errs = append(errs, err)
	p.stdoutR, p.stdoutW, err = os.Pipe()
	errs = append(errs, err)
	p.stderrR, p.stderrW, err = os.Pipe()
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		for _, f := range []*os.File{p.stdinR, p.stdinW, p.stdoutR, p.stdoutW, p.stderrR, p.stderrW} {
			if f != nil {
				f.Close()
			}
		}
		return nil, err
	}
	return p, nil
}

// closeChild closes the ends the child got (it holds its own copies).
func (p *pipes) closeChild() {
	p.stdinR.Close()
	p.stdoutW.Close()
	p.stderrW.Close()
}

func (p *pipes) closeParent() {
	p.closeOnce.Do(func() {
		p.stdinW.Close()
		p.stdoutR.Close()
		p.stderrR.Close()
	})
}
