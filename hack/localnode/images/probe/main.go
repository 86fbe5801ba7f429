// Command probe is the smoke test's workload (hack/node/smoke.ts). It asks the API server for
// /version through the `kubernetes` Service with its ServiceAccount token, as any in-cluster
// client does, and serves on :8080:
//
//	/ready     200 once that call has succeeded (the Pod's readiness probe)
//	/apiserver {"via": "<service host:port>", "version": <the API server's answer>}, for the
//	           host to read through the Pod's IP
package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

const accountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

var (
	mu     sync.Mutex
	answer []byte
	last   error
)

func apiserverVersion() ([]byte, error) {
	token, err := os.ReadFile(accountDir + "/token")
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(accountDir + "/ca.crt")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("no certificate in %s/ca.crt", accountDir)
	}
	host := net.JoinHostPort(os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT"))
	req, err := http.NewRequest(http.MethodGet, "https://"+host+"/version", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+string(token))
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/version: %s: %s", host, res.Status, body)
	}
	return []byte(fmt.Sprintf(`{"via":%q,"version":%s}`, host, body)), nil
}

// poll retries until the API server answers once: the Service's rules may land after the start.
func poll() {
	for {
		body, err := apiserverVersion()
		mu.Lock()
		answer, last = body, err
		mu.Unlock()
		if err == nil {
			log.Printf("API server through the kubernetes Service: %s", body)
			return
		}
		log.Printf("API server not reached yet: %v", err)
		time.Sleep(time.Second)
	}
}

func main() {
	go poll()
	http.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if answer == nil {
			http.Error(w, fmt.Sprint(last), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	http.HandleFunc("/apiserver", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if answer == nil {
			http.Error(w, fmt.Sprint(last), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	})
	log.Fatal(http.ListenAndServe(":8080", nil))
}
