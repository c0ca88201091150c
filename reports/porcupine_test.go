package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/internal/store"
)

// porcupine.html and porcupine-counter.html come from the searches the
// checks kept; a verdict read back from results.json keeps none, and the
// pages searched again are the same.
func TestPorcupinePagesFromKeptSearch(t *testing.T) {
	res := pauseResult(t.TempDir())
	lock, counter := keptLinearizations(res.Verdict)
	if lock == nil || counter == nil {
		t.Fatalf("kept searches: lock %v, counter %v", lock, counter)
	}
	read := func() (string, string) {
		a, err := os.ReadFile(filepath.Join(res.Dir, store.PorcupineFile))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(res.Dir, store.PorcupineCounterFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(a), string(b)
	}
	if _, err := passOfResult(t, res).writePorcupine(res, Options{}.withDefaults(), nil); err != nil {
		t.Fatal(err)
	}
	keptLock, keptCounter := read()

	b, _ := json.Marshal(res.Verdict)
	res.Verdict.Results = nil
	if err := json.Unmarshal(b, &res.Verdict); err != nil {
		t.Fatal(err)
	}
	if lock, counter := keptLinearizations(res.Verdict); lock != nil || counter != nil {
		t.Fatal("a verdict read from JSON kept a search")
	}
	if _, err := passOfResult(t, res).writePorcupine(res, Options{}.withDefaults(), nil); err != nil {
		t.Fatal(err)
	}
	againLock, againCounter := read()
	if keptLock != againLock || len(keptLock) < 10_000 {
		t.Errorf("porcupine.html: %d bytes from the kept search, %d searched again", len(keptLock), len(againLock))
	}
	if len(keptCounter) < 10_000 || len(againCounter) < 10_000 {
		t.Errorf("porcupine-counter.html: %d and %d bytes", len(keptCounter), len(againCounter))
	}
}
