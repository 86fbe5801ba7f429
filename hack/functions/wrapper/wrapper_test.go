package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the function: `<test binary> function-helper <mode> [args]`.
const helperArg = "function-helper"

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h), which package syscall lacks.
const prSetChildSubreaper = 36

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		helper(os.Args[2], os.Args[3:])
		return
	}
	// Orphans are re-parented to PID 1 in a container; here to this process, so the reaper
	// meets them as it would there.
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	os.Exit(m.Run())
}

func helper(mode string, args []string) {
	switch mode {
	case "cat":
		io.Copy(os.Stdout, os.Stdin)
	case "env":
		for _, v := range os.Environ() {
			fmt.Println(v)
		}
		wd, _ := os.Getwd()
		fmt.Println("cwd=" + wd)
	case "exit3":
		fmt.Fprintln(os.Stderr, "something is wrong")
		os.Exit(3)
	case "flood":
		line := bytes.Repeat([]byte("x"), 4096)
		for {
			os.Stdout.Write(line)
		}
	case "stderr-flood":
		os.Stderr.Write(bytes.Repeat([]byte("e"), 1<<20))
		fmt.Print("ok")
	case "hang-with-child":
		// A child in the same process group, which must die with the run.
		child := exec.Command(os.Args[0], helperArg, "sleep")
		child.Start()
		fmt.Fprintf(os.Stderr, "child=%d\n", child.Process.Pid)
		select {}
	case "block":
		// The first run blocks; later ones (the file exists) end at once.
		if _, err := os.Stat(args[0]); err == nil {
			return
		}
		os.WriteFile(args[0], []byte("started"), 0o644)
		select {}
	case "sleep":
		select {}
	}
}

const token = "0123456789abcdef0123456789abcdef0123456789abcdef"

func testConfig(t *testing.T, mode string, args ...string) config {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseConfig(append([]string{"--timeout=20s"}, append([]string{"--", self, helperArg, mode}, args...)...), token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var testReaper = newReaper()

func serveTest(t *testing.T, c config) *httptest.Server {
	t.Helper()
	server := httptest.NewServer(newHandler(c, testReaper, "/usr/bin:/bin"))
	t.Cleanup(server.Close)
	return server
}

func post(t *testing.T, ctx context.Context, url, auth string, body []byte) (*http.Response, runResult) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/run", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var result runResult
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(res.Body).Decode(&result); err != nil {
			t.Fatal(err)
		}
	}
	return res, result
}

func run(t *testing.T, c config, input string) runResult {
	t.Helper()
	res, result := post(t, context.Background(), serveTest(t, c).URL, "Bearer "+token, []byte(input))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /run: %s", res.Status)
	}
	return result
}

func TestHealthzNeedsNoToken(t *testing.T) {
	res, err := http.Get(serveTest(t, testConfig(t, "cat")).URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Fatalf("GET /healthz: %s %q", res.Status, body)
	}
}

func TestRunNeedsTheToken(t *testing.T) {
	server := serveTest(t, testConfig(t, "cat"))
	for _, auth := range []string{"", "Bearer ", "Bearer " + token[:len(token)-1] + "0", token} {
		res, _ := post(t, context.Background(), server.URL, auth, []byte("kind: ResourceList\n"))
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %s, want 401", auth, res.Status)
		}
	}
	res, result := post(t, context.Background(), server.URL, "Bearer "+token, []byte("kind: ResourceList\n"))
	if res.StatusCode != http.StatusOK || string(result.Stdout) != "kind: ResourceList\n" {
		t.Fatalf("with the token: %s %+v", res.Status, result)
	}
}

func TestServeRefusesToStartWithoutAToken(t *testing.T) {
	for _, given := range []string{"", "short"} {
		if _, err := parseConfig([]string{"--", "/bin/true"}, given); err == nil || !strings.Contains(err.Error(), TokenEnv) {
			t.Errorf("token %q: %v, want an error naming %s", given, err, TokenEnv)
		}
	}
}

func TestTheTokenLeavesTheEnvironment(t *testing.T) {
	t.Setenv(TokenEnv, token)
	if got := takeToken(); got != token {
		t.Fatalf("takeToken() = %q", got)
	}
	if _, set := os.LookupEnv(TokenEnv); set {
		t.Fatalf("%s is still in the wrapper's environment", TokenEnv)
	}
}

func TestTheFunctionGetsOnlyPathAndHome(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
	t.Setenv(TokenEnv, token)
	result := run(t, testConfig(t, "env"), "")
	lines := strings.Split(strings.TrimSpace(string(result.Stdout)), "\n")
	cwd := lines[len(lines)-1]
	if got := strings.Join(lines[:len(lines)-1], " "); got != "PATH=/usr/bin:/bin HOME=/tmp" {
		t.Fatalf("environment %q", got)
	}
	if !strings.HasPrefix(cwd, "cwd="+filepath.Join(os.TempDir(), "run-")) {
		t.Fatalf("working directory %q, want a fresh one under %s", cwd, os.TempDir())
	}
	if _, err := os.Stat(strings.TrimPrefix(cwd, "cwd=")); !os.IsNotExist(err) {
		t.Fatalf("the run's working directory is left behind: %v", err)
	}
}

func TestTheResourceListGoesInAndOut(t *testing.T) {
	input := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n\x00\xff binary too"
	result := run(t, testConfig(t, "cat"), input)
	if result.ExitCode != 0 || result.Failure != nil || string(result.Stdout) != input {
		t.Fatalf("%+v", result)
	}
}

func TestAnExitCodeIsTheFunctionsOwn(t *testing.T) {
	result := run(t, testConfig(t, "exit3"), "")
	if result.ExitCode != 3 || result.Failure != nil || result.Stderr != "something is wrong\n" {
		t.Fatalf("%+v", result)
	}
}

func TestATimeoutKillsTheProcessGroup(t *testing.T) {
	c := testConfig(t, "hang-with-child")
	c.limits.timeout = 500 * time.Millisecond
	result := run(t, c, "")
	if result.Failure == nil || result.Failure.Reason != ReasonTimeout {
		t.Fatalf("failure %+v, want %s", result.Failure, ReasonTimeout)
	}
	if !strings.Contains(result.Failure.Message, "500ms") {
		t.Errorf("message %q does not say the limit", result.Failure.Message)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(result.Stderr), "child="))
	if err != nil {
		t.Fatalf("stderr %q: %v", result.Stderr, err)
	}
	// The child, re-parented to us, is killed with the group and reaped (not a zombie).
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			state, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Fatalf("the function's child %d outlived the run: %s", pid, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStdoutIsLimited(t *testing.T) {
	c := testConfig(t, "flood")
	c.limits.maxStdoutBytes = 100_000
	result := run(t, c, "")
	if result.Failure == nil || result.Failure.Reason != ReasonOutputTooLarge {
		t.Fatalf("failure %+v, want %s", result.Failure, ReasonOutputTooLarge)
	}
	if len(result.Stdout) != 100_000 {
		t.Fatalf("kept %d bytes of stdout, want the limit", len(result.Stdout))
	}
}

func TestStderrIsTruncatedNotFatal(t *testing.T) {
	c := testConfig(t, "stderr-flood")
	c.limits.maxStderrBytes = 1000
	result := run(t, c, "")
	if result.Failure != nil || result.ExitCode != 0 || string(result.Stdout) != "ok" {
		t.Fatalf("%+v", result)
	}
	if len(result.Stderr) != 1000 || !result.StderrTruncated {
		t.Fatalf("stderr %d bytes, truncated %v", len(result.Stderr), result.StderrTruncated)
	}
}

func TestAnEntrypointThatCannotStart(t *testing.T) {
	c := testConfig(t, "cat")
	c.entrypoint = []string{"/no/such/function"}
	result := run(t, c, "")
	if result.Failure == nil || result.Failure.Reason != ReasonStartFailed || !strings.Contains(result.Failure.Message, "/no/such/function") {
		t.Fatalf("%+v", result)
	}
}

func TestTheRequestSizeIsBounded(t *testing.T) {
	c := testConfig(t, "cat")
	c.maxRequestBytes = 1000
	res, _ := post(t, context.Background(), serveTest(t, c).URL, "Bearer "+token, bytes.Repeat([]byte("a"), 1001))
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("%s, want 413", res.Status)
	}
}

func TestRunsAtOnceAreBounded(t *testing.T) {
	started := filepath.Join(t.TempDir(), "started")
	c := testConfig(t, "block", started)
	c.maxRuns = 1
	server := serveTest(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{})
	go func() {
		defer close(first)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, server.URL+"/run", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run never started")
		}
	}
	res, _ := post(t, context.Background(), server.URL, "Bearer "+token, nil)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a second run while one is in flight: %s, want 429", res.Status)
	}
	cancel() // the client goes away: its run is killed and its slot freed
	<-first
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		res, _ := post(t, context.Background(), server.URL, "Bearer "+token, nil)
		if res.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot was never freed: %s", res.Status)
		}
	}
}

func TestInstallCopiesTheBinary(t *testing.T) {
	dir := t.TempDir()
	if err := install(dir); err != nil {
		t.Fatal(err)
	}
	self, _ := os.ReadFile("/proc/self/exe")
	copied, err := os.ReadFile(filepath.Join(dir, installedName))
	if err != nil || !bytes.Equal(self, copied) {
		t.Fatalf("the installed binary differs from this one (%v)", err)
	}
	info, _ := os.Stat(filepath.Join(dir, installedName))
	if info.Mode().Perm() != 0o555 {
		t.Fatalf("mode %v, want r-xr-xr-x", info.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d files in the directory, want the binary only", len(entries))
	}
}
