package main

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	modulePath = "github.com/lockstorm/lockstorm"
	// testVersion is the version the local module proxy serves this
	// checkout as.
	testVersion = "v0.0.0-installtest"
)

// gitFiles lists the files git tracks in the module (what a clone holds):
// an ignored or untracked file, generated or not, is left out, and so are
// symbolic links (module zips hold none) and folders with their own go.mod
// (other modules, left out of a module zip too).
func gitFiles(t *testing.T, root string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the files a clone holds are unknown", err)
	}
	var nested []string
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if filepath.Base(f) == "go.mod" && f != "go.mod" {
			nested = append(nested, filepath.Dir(f)+"/")
		}
		files = append(files, f)
	}
	var keep []string
	for _, f := range files {
		st, err := os.Lstat(filepath.Join(root, f))
		if err != nil || !st.Mode().IsRegular() || hasAnyPrefix(f, nested) {
			continue
		}
		keep = append(keep, f)
	}
	return keep
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// writeModuleProxy lays out a GOPROXY folder (file:// protocol) serving
// this checkout's tracked files as modulePath@testVersion.
func writeModuleProxy(t *testing.T, root, proxy string) {
	t.Helper()
	dir := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"list":                testVersion + "\n",
		testVersion + ".info": `{"Version":"` + testVersion + `","Time":"2026-01-01T00:00:00Z"}`,
		testVersion + ".mod":  string(gomod),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(dir, testVersion+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z := zip.NewWriter(f)
	for _, name := range gitFiles(t, root) {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		w, err := z.Create(modulePath + "@" + testVersion + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
}

// `go install github.com/lockstorm/lockstorm/cmd/lockstorm@VERSION` in a
// clean GOPATH and an empty module cache, with GOFLAGS=-mod=mod and no
// network: this checkout's tracked files are served as that version by a
// local module proxy, and the dependencies come from this machine's module
// download cache (itself a GOPROXY folder). Nothing generated and
// uncommitted is in the zip, so a build that needs it fails here. The
// installed binary then finds redis-server on PATH and runs a test.
func TestGoInstallFromModuleProxy(t *testing.T) {
	t.Parallel() // long, and shares no state with the package's other tests (issue 28)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	hostCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := filepath.Join(strings.TrimSpace(string(hostCache)), "cache", "download")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	proxy, gopath := filepath.Join(tmp, "proxy"), filepath.Join(tmp, "gopath")
	writeModuleProxy(t, root, proxy)

	cmd := exec.Command("go", "install", "-trimpath", modulePath+"/cmd/lockstorm@"+testVersion)
	cmd.Dir = tmp // outside any module
	cmd.Env = append(os.Environ(),
		"GOPATH="+gopath, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOBIN=",
		"GOFLAGS=-mod=mod -modcacherw", "GOPROXY=file://"+proxy+",file://"+deps,
		"GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GOTOOLCHAIN=local", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/lockstorm@%s: %v\n%s", modulePath, testVersion, err, out)
	}
	bin := filepath.Join(gopath, "bin", "lockstorm")

	redis, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed: run make deps")
	}
	path := t.TempDir() // PATH holds redis-server and nothing else
	if err := os.Symlink(redis, filepath.Join(path, "redis-server")); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(bin, "run", "--lock", "single", "--time-limit", "1s", "--seed", "1", "--store", filepath.Join(tmp, "store"))
	run.Env = []string{"PATH=" + path, "HOME=" + tmp, "TMPDIR=" + tmp}
	out, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "verdict: valid") {
		t.Errorf("the installed lockstorm with redis-server on PATH: %v\n%s", err, out)
	}
}

// Without redis-server on PATH, lockstorm says in one line how to install
// it and exits 2, with nothing left running.
func TestMissingRedisServerOneLine(t *testing.T) {
	bin := binary(t)
	empty := t.TempDir()
	cmd := exec.Command(bin, "run", "--lock", "single", "--time-limit", "1s", "--store", filepath.Join(empty, "store"))
	cmd.Env = []string{"PATH=" + empty, "HOME=" + empty, "TMPDIR=" + empty}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
	if code != exitUsage || len(lines) != 1 || !strings.Contains(lines[0], "apt-get install redis-server") {
		t.Errorf("without redis-server: exit %d (%v), stderr %q; want exit 2 and one line saying apt-get install redis-server", code, err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	if entries, _ := filepath.Glob(filepath.Join(empty, "lockstorm-*")); len(entries) != 0 {
		t.Errorf("left behind %v", entries)
	}
}
