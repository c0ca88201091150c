package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve stops on Ctrl-C with a plain "stopped" and exit 0: it injects no
// faults, so it says nothing about healing them.
func TestServeStopsPlainly(t *testing.T) {
	bin := binary(t)
	cmd := exec.Command(bin, "serve", "--store", t.TempDir(), "--port", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed nothing: %v (stderr %s)", err, stderr.String())
	}
	url := regexp.MustCompile(`http://[0-9.:]+/`).FindString(line)
	if url == "" {
		t.Fatalf("no address in %q", line)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after SIGINT: %v, want exit 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10s of SIGINT")
	}
	if got := strings.TrimSpace(stderr.String()); got != "lockstorm: stopped" {
		t.Errorf("stderr %q, want \"lockstorm: stopped\"", got)
	}
}
