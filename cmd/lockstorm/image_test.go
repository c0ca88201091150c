package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// image is the tag `make image` builds (docker/build-lockstorm-image.sh).
const image = "lockstorm/lockstorm"

// dockerRun runs `docker run --rm -v STORE:/store lockstorm/lockstorm
// ARGS...` (as the invoking user when not root, so the store stays
// removable) and returns the exit status and the combined output.
func dockerRun(t *testing.T, store string, args ...string) (int, string) {
	t.Helper()
	argv := []string{"run", "--rm", "-v", store + ":/store"}
	if uid := os.Getuid(); uid != 0 {
		argv = append(argv, "--user", strconv.Itoa(uid)+":"+strconv.Itoa(os.Getgid()))
	}
	cmd := exec.Command("docker", append(append(argv, image), args...)...)
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil {
		t.Fatalf("docker run: %v", err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// `make image` builds lockstorm/lockstorm with nothing pulled, and the
// issue's command runs a whole test inside it: lockstorm starts
// redis-server in the container, runs the single lock under client pauses
// and leaves the report in the mounted store. A Python lock (py-redispy)
// then runs in it too: python3 with redis-py is there. Skipped, saying so,
// when no Docker daemon answers.
func TestImageRunsATest(t *testing.T) {
	t.Parallel() // long, and shares no state with the package's other tests (issue 28)
	if err := exec.Command("docker", "info").Run(); err != nil {
		t.Skipf("no Docker daemon answers (docker info: %v): the image cannot be built here", err)
	}
	build := exec.Command("make", "image")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}
	store := t.TempDir()
	code, out := dockerRun(t, store, "run", "--lock", "single", "--nemesis", "client-pause", "--ttl", "500ms",
		"--store", "/store", "--time-limit", "3s")
	checkImageRun(t, store, "single-counter", code, out)

	code, out = dockerRun(t, store, "run", "--lock", "py-redispy", "--nemesis", "client-crash", "--ttl", "500ms",
		"--store", "/store", "--time-limit", "2s", "--seed", "1")
	checkImageRun(t, store, "py-redispy-counter", code, out)
}

// checkImageRun: the run gave a verdict (exit 0, 1 or 3, not 2: bad input
// or setup, e.g. no redis-server or no python3 in the image), its folder is
// in the host's store, where the output says (/store is the mount), and its
// clients acquired the lock (results.json, the lock checker's details).
func checkImageRun(t *testing.T, store, name string, code int, out string) {
	t.Helper()
	if code != exitValid && code != exitInvalid && code != exitUnknown {
		t.Fatalf("%s in the image: exit %d\n%s", name, code, out)
	}
	var report string
	for _, l := range strings.Split(out, "\n") {
		if r, ok := strings.CutPrefix(l, "report: /store/"); ok {
			report = filepath.Join(store, r)
		}
	}
	if report == "" || !strings.Contains(report, name) {
		t.Fatalf("%s in the image printed no report under /store/%s:\n%s", name, name, out)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(report), "results.json"))
	if err != nil {
		t.Fatalf("%s: the run folder is not in the mounted store: %v", name, err)
	}
	var res struct {
		Results []struct {
			Name    string `json:"name"`
			Details struct {
				Acquire struct{ OK int } `json:"acquire"`
			} `json:"details"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	acquired := -1
	for _, r := range res.Results {
		if r.Name == "lock" {
			acquired = r.Details.Acquire.OK
		}
	}
	if acquired <= 0 {
		t.Errorf("%s in the image: %d acquires succeeded, want some (the clients reached redis-server)", name, acquired)
	}
	t.Logf("%s in the image: exit %d, %d acquires, %s", name, code, acquired, report)
}
