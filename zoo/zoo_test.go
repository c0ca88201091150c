package zoo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

const goodManifest = `name: demo
language: python
library: demo lock
version: "1.0"
upstream: https://example.invalid/demo
client: python3 client.py
nodes: 1
ttl: 500ms
claims: mutual exclusion while the TTL lasts
cells:
  - nemesis: client-pause
    expect: invalid
    checkers: [resource]
    clean: [lock]
    why: no fencing
  - nemesis: partition
    expect: valid
    why: the key has a TTL
`

func writeEntry(t *testing.T, root, name, manifest string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	storetest.Write(t, dir, ManifestFile, manifest)
	return dir
}

func TestLoadFillsDefaults(t *testing.T) {
	root := t.TempDir()
	writeEntry(t, root, "demo", goodManifest)
	os.MkdirAll(filepath.Join(root, "not-an-entry"), 0o755)
	es, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Fatalf("got %d entries, want 1", len(es))
	}
	e := es[0]
	if e.Clients != DefaultClients || e.Renewal != RenewalNone || e.TTLDuration().String() != "500ms" || e.Cells[0].Workload != "counter" {
		t.Errorf("defaults not filled: %+v", e.Manifest)
	}
	if e.Cells[0].Column() != "client-pause" {
		t.Errorf("column %q", e.Cells[0].Column())
	}
	// One entry's own folder is a --dir too.
	if es, err := Load(e.Dir); err != nil || len(es) != 1 {
		t.Errorf("Load(entry folder): %v, %d entries", err, len(es))
	}
}

func TestLoadRefusesBrokenManifests(t *testing.T) {
	cases := []struct{ edit, want string }{
		{strings.Replace(goodManifest, "nodes: 1", "nodez: 1", 1), "field nodez not found"},
		{strings.Replace(goodManifest, "ttl: 500ms", "ttl: soon", 1), "ttl must be"},
		{strings.Replace(goodManifest, "expect: valid", "expect: fine", 1), "expect must be valid or invalid"},
		{strings.Replace(goodManifest, "checkers: [resource]", "checkers: [resourse]", 1), `got "resourse"`},
		{strings.Replace(goodManifest, "nemesis: partition", "nemesis: meteor", 1), "nemesis must be"},
		{strings.Replace(goodManifest, "    checkers: [resource]\n", "", 1), "names the checkers that must flag it"},
		{strings.Replace(goodManifest, "    why: the key has a TTL\n", "", 1), "why is required"},
		{strings.Replace(goodManifest, "nemesis: partition", "nemesis: client-pause", 1), "a second cell for client-pause"},
		{strings.Replace(goodManifest, "nemesis: partition", "nemesis: partition\n    fencing: true", 1), "fencing: true needs an entry with fencing"},
		{strings.Replace(goodManifest, "renewal: none", "", 1) + "renewal: sometimes\n", "renewal must be none or watchdog"},
	}
	for _, tc := range cases {
		root := t.TempDir()
		writeEntry(t, root, "demo", tc.edit)
		_, err := Load(root)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ManifestFile) {
			t.Errorf("want an error naming %s with %q, got %v", ManifestFile, tc.want, err)
		}
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no zoo entry") {
		t.Errorf("empty folder: %v", err)
	}
}

func TestSelect(t *testing.T) {
	root := t.TempDir()
	writeEntry(t, root, "demo", goodManifest)
	writeEntry(t, root, "other", strings.Replace(goodManifest, "name: demo", "name: other", 1))
	es, _ := Load(root)
	got, err := Select(es, []string{"other", "demo/partition"})
	if err != nil || len(got) != 2 || got[0].Name != "other" || len(got[0].Cells) != 2 || len(got[1].Cells) != 1 || got[1].Cells[0].Nemesis != "partition" {
		t.Fatalf("Select: %v %+v", err, got)
	}
	for _, bad := range []string{"nope", "demo/meteor"} {
		if _, err := Select(es, []string{bad}); err == nil {
			t.Errorf("Select(%q) accepted", bad)
		}
	}
}

func result(valid checker.Validity, invalid ...string) checker.Result {
	r := checker.Result{Valid: valid}
	for _, n := range []string{"lock", "resource", "exclusion", "liveness"} {
		v := checker.Valid
		for _, i := range invalid {
			if i == n {
				v = checker.Invalid
			}
		}
		cr := checker.Result{Name: n, Valid: v}
		if v == checker.Invalid {
			cr.Anomalies = []checker.Anomaly{{Kind: "k", Text: "t", Ops: []int64{3, 9}, Fatal: true}}
		}
		r.Results = append(r.Results, cr)
	}
	return r
}

func TestJudgeRun(t *testing.T) {
	pause := Cell{Expect: ExpectInvalid, Checkers: []string{"resource"}, Clean: []string{"lock"}}
	valid := Cell{Expect: ExpectValid}
	cases := []struct {
		c    Cell
		r    checker.Result
		want Status
	}{
		{pause, result(checker.Invalid, "resource"), Agree},
		{pause, result(checker.Invalid, "resource", "exclusion"), Agree},
		{pause, result(checker.Invalid, "resource", "lock"), Finding},
		{pause, result(checker.Invalid, "exclusion"), Missed},
		{pause, result(checker.Valid), Missed},
		{pause, result(checker.Unknown), Unknown},
		{valid, result(checker.Valid), Agree},
		{valid, result(checker.Invalid, "lock"), Finding},
		{valid, result(checker.Unknown), Unknown},
	}
	for i, tc := range cases {
		got, flagged, first := judgeRun(tc.c, tc.r)
		if got != tc.want {
			t.Errorf("case %d: %s, want %s (flagged %v)", i, got, tc.want, flagged)
		}
		if len(flagged) > 0 && !strings.Contains(first, "[3 9]") {
			t.Errorf("case %d: first anomaly %q names no op indices", i, first)
		}
	}
}

func runs(ss ...Status) []RunOutcome {
	var out []RunOutcome
	for i, s := range ss {
		out = append(out, RunOutcome{Seed: int64(i + 1), Status: s})
	}
	return out
}

func TestJudgeCell(t *testing.T) {
	inv := Cell{Nemesis: "client-pause", Workload: "counter", Expect: ExpectInvalid, Checkers: []string{"resource"}}
	val := Cell{Nemesis: "partition", Workload: "counter", Expect: ExpectValid}
	cases := []struct {
		c    Cell
		rs   []RunOutcome
		want Status
		sum  string
	}{
		{inv, runs(Missed, Agree, Unknown), Agree, "1/3 detected"},
		{inv, runs(Missed, Missed), Missed, "0/2 detected"},
		{inv, runs(Missed, Unknown), Unknown, "0/2 detected"},
		{inv, runs(Agree, Finding), Finding, "1/2 detected"},
		{val, runs(Agree, Agree), Agree, "2/2 valid"},
		{val, runs(Agree, Unknown), Unknown, "1/2 valid"},
		{val, runs(Agree, Finding, Unknown), Finding, "1/3 valid"},
		{val, nil, Unknown, "0/0 valid"},
	}
	for i, tc := range cases {
		got := judgeCell(tc.c, tc.rs)
		if got.Status != tc.want || got.Summary != tc.sum {
			t.Errorf("case %d: %s %q, want %s %q", i, got.Status, got.Summary, tc.want, tc.sum)
		}
	}
	if got := judgeCell(inv, []RunOutcome{{Status: Finding, Detected: true}}); got.Summary != "1/1 detected" || got.Status != Finding {
		t.Errorf("a detected run that also flagged a clean checker: %s %q", got.Status, got.Summary)
	}
	d1, d2 := 2.0, 4.0
	got := judgeCell(inv, []RunOutcome{{Status: Agree, DetectedS: &d1}, {Status: Agree, DetectedS: &d2}})
	if got.MedianDetectS == nil || *got.MedianDetectS != 3 {
		t.Errorf("median detect %v, want 3", got.MedianDetectS)
	}
}

// The build runs once per content of the folder: a second Build of an
// unchanged folder is skipped, a changed file builds again.
func TestBuildIsCachedByFolderHash(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "src"), []byte("v1"), 0o644)
	e := Entry{Manifest: Manifest{Name: "demo", Build: "mkdir -p bin && cp src bin/out && echo x >> builds.log"}, Dir: dir}
	for i, want := range []bool{true, false} {
		built, err := Build(context.Background(), e)
		if err != nil || built != want {
			t.Fatalf("build %d: built %v, err %v; want built %v", i, built, err, want)
		}
	}
	os.WriteFile(filepath.Join(dir, "src"), []byte("v2"), 0o644)
	if built, err := Build(context.Background(), e); err != nil || !built {
		t.Fatalf("after a change: built %v, err %v", built, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "bin", "out")); string(b) != "v2" {
		t.Errorf("bin/out = %q", b)
	}
	e.Build = "echo compiling; echo 'syntax error in adapter' >&2; exit 3"
	os.WriteFile(filepath.Join(dir, "src"), []byte("v3"), 0o644)
	if _, err := Build(context.Background(), e); err == nil || !strings.Contains(err.Error(), "syntax error in adapter") {
		t.Errorf("failed build: %v", err)
	}
}

func TestSkipReason(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		m    Manifest
		want string
	}{
		{Manifest{Client: "sh client.sh"}, ""},
		{Manifest{Client: "no-such-runtime-xyz client.php"}, "no-such-runtime-xyz not found on PATH"},
		{Manifest{Client: "sh client.sh", Requires: "echo 'php: not found' >&2; exit 1"}, "php: not found"},
		{Manifest{Client: "no-such-runtime-xyz client.php", Requires: "true"}, ""},
	}
	for _, tc := range cases {
		got := SkipReason(context.Background(), Entry{Manifest: tc.m, Dir: dir})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: skip %q, want %q", tc.m, got, tc.want)
		}
	}
}

// A file linked from another folder (one adapter shared by a library's
// version entries) counts by its content: changing it changes the hash.
func TestHashFollowsLinkedFiles(t *testing.T) {
	shared, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(shared, "main.go"), []byte("v1"), 0o644)
	if err := os.Symlink(filepath.Join(shared, "main.go"), filepath.Join(dir, "main.go")); err != nil {
		t.Fatal(err)
	}
	h1, err := Hash(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(shared, "main.go"), []byte("v2"), 0o644)
	if h2, _ := Hash(dir); h2 == h1 {
		t.Error("the linked file changed and the folder's hash did not")
	}
}

// A Go entry built on lockstorm's own packages (go.mod replaces the
// module with a local folder) is built again when a source of that folder
// changes: a change to a shared adapter reaches the entries that link it.
// A test file, or a folder outside the module's build, does not count.
func TestBuildHashFollowsLocalReplaces(t *testing.T) {
	root := t.TempDir()
	entry := filepath.Join(root, "zoo", "demo")
	os.MkdirAll(entry, 0o755)
	os.MkdirAll(filepath.Join(root, "adapters"), 0o755)
	os.WriteFile(filepath.Join(entry, "go.mod"), []byte("module demo\n\nreplace example.com/root => ../..\n"), 0o644)
	os.WriteFile(filepath.Join(root, "adapters", "a.go"), []byte("package adapters // v1"), 0o644)
	h1, err := BuildHash(entry)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "adapters", "a_test.go"), []byte("package adapters"), 0o644)
	os.WriteFile(filepath.Join(root, "zoo", "other.go"), []byte("package zoo"), 0o644)
	if h, _ := BuildHash(entry); h != h1 {
		t.Error("a test file or a file under zoo/ changed the build hash")
	}
	os.WriteFile(filepath.Join(root, "adapters", "a.go"), []byte("package adapters // v2"), 0o644)
	if h, _ := BuildHash(entry); h == h1 {
		t.Error("the replaced module's source changed and the build hash did not")
	}
	if own, _ := Hash(entry); own == h1 {
		t.Error("the build hash of an entry with a local replace is its folder's hash alone")
	}
}
