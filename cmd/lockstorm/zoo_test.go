package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/clients/python"
	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/zoo"
)

// A user's zoo folder outside the repository: the protocol document's
// example client as an entry (built by its own build step, run by
// --dir), beside an entry whose runtime is missing. No Go code changes.
func TestZooRunsAnEntryOutsideTheRepository(t *testing.T) {
	t.Parallel() // long, and shares no state with the package's other tests (issue 28)
	argv, err := python.Command("py-seed-single")
	if err != nil {
		t.Skipf("no python3 with redis-py (make deps installs python3-redis): %v", err)
	}
	example, err := os.ReadFile("../../clients/python/example_client.py")
	if err != nil {
		t.Fatal(err)
	}
	bin := binary(t)
	root, dir := writeTwoEntries(t, example, argv[0])
	store, junit := t.TempDir(), filepath.Join(t.TempDir(), "zoo.xml")
	// 10 s: about three crashes, so that one touches a holder or a waiter
	// (else the verdict is unknown: no fault exercised the lock).
	code, stdout, stderr := exec1(t, bin, "zoo", "--dir", root, "--seeds", "1", "--time-limit", "10s", "--store", store, "--junit", junit)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (the cell agrees, the other entry is skipped)\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"build:    mkdir -p bin && cp client.py bin/client.py", "client:   " + argv[0], "skipped: no-such-runtime-zz not found on PATH", "1/1 valid, agrees"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var board zoo.Board
	b, err := os.ReadFile(filepath.Join(store, "zoo", "latest", zoo.JSONFile))
	if err != nil || json.Unmarshal(b, &board) != nil {
		t.Fatalf("zoo.json: %v", err)
	}
	if len(board.Entries) != 2 || board.Entries[0].Cells[0].Status != zoo.Agree || board.Entries[1].Cells[0].Status != zoo.Skipped {
		t.Fatalf("board: %s", b)
	}
	run := board.Entries[0].Cells[0].Runs[0]
	if !strings.Contains(run.Replay, "--client-dir "+dir) || !strings.Contains(run.Replay, "--nemesis client-crash") {
		t.Errorf("replay %q lacks the client's folder or the fault", run.Replay)
	}
	for _, f := range []string{zoo.MarkdownFile, zoo.PageFile} {
		if !strings.Contains(readFile(t, filepath.Join(store, "zoo", "latest", f)), "example-client") {
			t.Errorf("%s lacks the entry", f)
		}
	}
	var doc reports.JUnitSuites
	if err := xml.Unmarshal([]byte(readFile(t, junit)), &doc); err != nil {
		t.Fatal(err)
	}
	// The campaign's JUnit: the skipped entry's run skipped, the cell's
	// claim over its runs (expected valid) passing.
	if s := doc.Suites[0]; s.Tests != 2 || s.Skipped != 1 || s.Failures != 0 || s.Errors != 0 || s.Cases[0].Skipped == nil ||
		s.Cases[1].Name != "example-client/client-crash: expected valid" {
		t.Errorf("junit: %+v", s)
	}
	// Unchanged, the entry is not built again (the short run's verdict
	// does not matter here).
	code, stdout, _ = exec1(t, bin, "zoo", "--dir", root, "--only", "example-client", "--seeds", "1", "--time-limit", "3s", "--store", store)
	if code == 2 || !strings.Contains(stdout, "built already") {
		t.Errorf("second run: exit %d, want it to run without building:\n%s", code, stdout)
	}
}

// writeTwoEntries writes a zoo of two entries in a fresh folder, root: the
// example client (client.py, run by interpreter, in dir), and one whose runtime
// no machine has (needs-a-runtime).
func writeTwoEntries(t *testing.T, example []byte, interpreter string) (root, dir string) {
	root = t.TempDir()
	dir = filepath.Join(root, "example-client")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "client.py"), example, 0o644)
	os.WriteFile(filepath.Join(dir, zoo.ManifestFile), []byte(`name: example-client
language: python
library: docs/client-protocol.md's example client
version: "1"
upstream: https://github.com/lockstorm/lockstorm/blob/main/docs/client-protocol.md
build: mkdir -p bin && cp client.py bin/client.py
client: `+interpreter+` -B bin/client.py
nodes: 1
ttl: 500ms
renewal: none
fencing: false
claims: SET NX PX with a compare-and-delete release
cells:
  - nemesis: client-crash
    expect: valid
    why: a crashed holder's key expires after its TTL
`), 0o644)
	php := filepath.Join(root, "needs-a-runtime")
	os.MkdirAll(php, 0o755)
	os.WriteFile(filepath.Join(php, zoo.ManifestFile), []byte(`name: needs-a-runtime
language: cobol
library: none
version: "0"
upstream: https://example.invalid
client: no-such-runtime-zz adapter.cbl
nodes: 1
ttl: 500ms
claims: nothing
cells:
  - nemesis: partition
    expect: valid
    why: nothing runs
`), 0o644)
	return root, dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestZooBadInput(t *testing.T) {
	bin := binary(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "x"), 0o755)
	os.WriteFile(filepath.Join(root, "x", zoo.ManifestFile), []byte("name: x\nlanguag: go\n"), 0o644)
	wantUsageErrors(t, bin, t.TempDir(), []usageCase{
		{[]string{"zoo", "--dir", "/nonexistent"}, "is not a folder of zoo entries"},
		{[]string{"zoo", "--dir", t.TempDir()}, "holds no zoo entry"},
		{[]string{"zoo", "--dir", root}, "unknown key languag"},
		{[]string{"zoo", "--dir", "../../zoo", "--only", "nope"}, `no zoo entry "nope"`},
		{[]string{"zoo", "--dir", "../../zoo", "--seeds", "-1"}, "--seeds must be at least 1"},
		{[]string{"zoo", "--dir", "../../zoo", "--junit", "/proc/nope/zoo.xml"}, "--junit /proc/nope/zoo.xml"},
		{[]string{"zoo", "--dir", "../../zoo", "--only", "seed-single", "--known"}, "--known: no cell of the selected entries carries known: or fixed:"},
	})
}
