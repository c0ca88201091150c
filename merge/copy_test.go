package merge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/internal/shard"
)

// Two shards' runs of one test started in the same millisecond keep
// both: the second gets the next millisecond's name.
func TestCopyRunsRenamesClashes(t *testing.T) {
	a, b, out := t.TempDir(), t.TempDir(), t.TempDir()
	rel := filepath.Join("single-counter", "20261203T112503.767")
	for i, root := range []string{a, b} {
		os.MkdirAll(filepath.Join(root, rel), 0o755)
		os.WriteFile(filepath.Join(root, rel, "history.jsonl"), []byte{byte('0' + i)}, 0o644)
	}
	w := &shard.Work{Items: []shard.Item{{Index: 0, Dir: filepath.ToSlash(rel)}, {Index: 1, Dir: filepath.ToSlash(rel)}}, Roots: []string{a, b}}
	dirs, err := copyRuns(w, out)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("single-counter", "20261203T112503.768"); dirs[0] != rel || dirs[1] != want {
		t.Fatalf("copied to %v, want %s and %s", dirs, rel, want)
	}
	for i, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(out, d, "history.jsonl")); err != nil || string(b) != string(rune('0'+i)) {
			t.Errorf("%s: %q, %v", d, b, err)
		}
	}
	w.Roots[1] = filepath.Join(b, "gone")
	if _, err := copyRuns(w, t.TempDir()); err == nil {
		t.Error("a missing run folder was not refused")
	}
}
