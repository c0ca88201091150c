package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `make build` stamps the commit into --version even when the
// environment keeps Go from recording it (GOFLAGS=-buildvcs=false).
func TestMakeBuildStampsTheCommit(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	head, err := exec.Command("git", "-C", "..", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "lockstorm")
	mk := exec.Command("make", "-s", "-C", "..", "build", "BUILD_OUT="+bin)
	mk.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	if want := strings.TrimSpace(string(head)); !strings.Contains(string(out), want) {
		t.Fatalf("--version says %q, want the commit %s", out, want)
	}
}
