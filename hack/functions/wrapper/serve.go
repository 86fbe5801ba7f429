package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// TokenEnv names the variable that carries the Pod's bearer token to the wrapper.
const TokenEnv = "PORCH_PEPR_FN_TOKEN"

// minTokenLength refuses tokens a caller could guess; the operator sends 64 hex characters.
const minTokenLength = 32

type config struct {
	port            int
	token           string
	maxRequestBytes int64
	maxRuns         int
	limits          limits
	entrypoint      []string
}

func parseConfig(args []string, token string) (config, error) {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	c := config{token: token}
	flags.IntVar(&c.port, "port", 9446, "port to serve on")
	flags.DurationVar(&c.limits.timeout, "timeout", time.Minute, "one run's time limit")
	flags.IntVar(&c.limits.maxStdoutBytes, "max-stdout-bytes", 32<<20, "a run's stdout limit")
	flags.IntVar(&c.limits.maxStderrBytes, "max-stderr-bytes", 64<<10, "stderr kept per run")
	flags.Int64Var(&c.maxRequestBytes, "max-request-bytes", 32<<20, "largest ResourceList accepted")
	flags.IntVar(&c.maxRuns, "max-runs", 4, "runs at once; more are answered 429")
	if err := flags.Parse(args); err != nil {
		return c, err
	}
	c.entrypoint = flags.Args()
	switch {
	case len(c.entrypoint) == 0:
		return c, errors.New("no entrypoint: serve [flags] -- <entrypoint> [args...]")
	case len(c.token) < minTokenLength:
		return c, fmt.Errorf("%s must hold the bearer token (at least %d characters)", TokenEnv, minTokenLength)
	case c.limits.timeout <= 0, c.limits.maxStdoutBytes <= 0, c.limits.maxStderrBytes < 0,
		c.maxRequestBytes <= 0, c.maxRuns <= 0:
		return c, errors.New("limits must be positive")
	}
	return c, nil
}

// takeToken reads the token and removes it from this process's environment; the process is
// made non-dumpable too, so a function (same uid) cannot read it from /proc/1/environ, which
// still shows the environment the process started with.
func takeToken() string {
	token := os.Getenv(TokenEnv)
	os.Unsetenv(TokenEnv)
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
	return token
}

func serveMain(args []string) error {
	c, err := parseConfig(args, takeToken())
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	listener, err := net.Listen("tcp", fmt.Sprintf(":%d", c.port))
	if err != nil {
		return err
	}
	server := newHTTPServer(c, newHandler(c, newReaper(), os.Getenv("PATH")))
	server.BaseContext = func(net.Listener) context.Context { return ctx }
	log.Printf("serving %v on :%d (timeout %s, %d runs at once)", c.entrypoint, c.port, c.limits.timeout, c.maxRuns)
	go func() {
		<-ctx.Done()
		// Runs in flight are cancelled with the base context, so shutting down is quick.
		shutdown, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		server.Shutdown(shutdown)
	}()
	if err := server.Serve(listener); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHTTPServer bounds every phase of a request: headers, the body (ReadTimeout), the answer
// (a run's time limit and some room) and idle connections.
func newHTTPServer(c config, handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute + c.limits.timeout + outputGrace,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          log.New(os.Stderr, "http: ", log.LstdFlags),
	}
}

func newHandler(c config, r *reaper, path string) http.Handler {
	runs := make(chan struct{}, c.maxRuns)
	work := &runner{reaper: r, entrypoint: c.entrypoint, env: functionEnv(path), workRoot: os.TempDir(), limits: c.limits}
	want := []byte("Bearer " + c.token)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("POST /run", func(w http.ResponseWriter, req *http.Request) {
		if subtle.ConstantTimeCompare([]byte(req.Header.Get("Authorization")), want) != 1 {
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		select {
		case runs <- struct{}{}:
			defer func() { <-runs }()
		default:
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("%d runs in flight", c.maxRuns), http.StatusTooManyRequests)
			return
		}
		input, err := io.ReadAll(http.MaxBytesReader(w, req.Body, c.maxRequestBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, fmt.Sprintf("the ResourceList is larger than %d bytes", c.maxRequestBytes), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		result := work.run(req.Context(), input)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(result)
	})
	return mux
}
