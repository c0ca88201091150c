package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Runs started in the same millisecond get folders of their own; latest
// points at the one linked; the listing holds the runs only, newest first.
func TestRunDirsAndLatest(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for range 3 {
		d, err := NewRunDir(root, "t1")
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	if dirs[0] == dirs[1] || dirs[1] == dirs[2] {
		t.Fatalf("run folders reused: %v", dirs)
	}
	LinkLatest(dirs[1])
	if got, err := os.Readlink(filepath.Join(root, "t1", LatestLink)); err != nil || got != filepath.Base(dirs[1]) {
		t.Errorf("latest -> %q (%v), want %s", got, err, filepath.Base(dirs[1]))
	}
	if err := os.MkdirAll(SweepDir(root, "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	MarkSetupFailed(dirs[2], errors.New("no redis-server"))
	if !Exists(dirs[2], SetupFailedFile) {
		t.Errorf("%s not written", SetupFailedFile)
	}
	runs, err := RunDirs(root)
	if err != nil || len(runs) != 3 {
		t.Fatalf("RunDirs: %+v %v, want the 3 runs and nothing else", runs, err)
	}
	for i, r := range runs {
		if want := filepath.Join("t1", filepath.Base(dirs[2-i])); r.Test != "t1" || r.Dir != want {
			t.Errorf("run %d: %+v, want %s (newest first)", i, r, want)
		}
		if i > 0 && r.Started.After(runs[i-1].Started) {
			t.Errorf("run %d started after run %d", i, i-1)
		}
	}
	if _, err := time.ParseInLocation(RunDirLayout, filepath.Base(dirs[0]), time.Local); err != nil {
		t.Errorf("folder name %s is not in RunDirLayout: %v", dirs[0], err)
	}
}

// JSON files round-trip; a failed write leaves the old content whole and
// no temporary file; JSONL tolerates a missing file and names a bad line.
func TestJSONFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	if err := WriteJSON(path, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(path, func() {}); err == nil {
		t.Fatal("a value JSON cannot hold was written")
	}
	var m map[string]int
	if err := ReadJSON(path, &m); err != nil || m["a"] != 1 {
		t.Fatalf("ReadJSON: %v %v", m, err)
	}
	if Exists(dir, "x.json.tmp") {
		t.Error("temporary file left behind")
	}
	if err := ReadJSON(filepath.Join(dir, "none.json"), &m); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}

	type rec struct{ N int }
	lines := filepath.Join(dir, "x.jsonl")
	if err := WriteJSONL(lines, []rec{{1}, {2}}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(lines); err != nil || string(b) != "{\"N\":1}\n{\"N\":2}\n" {
		t.Fatalf("WriteJSONL wrote %q, %v", b, err)
	}
}

// Files lists each file once, with what it holds (index.html links them).
func TestFilesNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Files {
		if seen[f.Name] || f.About == "" {
			t.Errorf("%q listed twice or without what it holds", f.Name)
		}
		seen[f.Name] = true
	}
	for _, name := range []string{TestFile, HistoryFile, ResultsFile, JUnitFile, PorcupineFile, HoldersFile} {
		if !seen[name] {
			t.Errorf("%s missing from Files", name)
		}
	}
}
