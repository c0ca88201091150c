package reports

import (
	"context"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// porcupine.html and porcupine-counter.html are drawn from the searches
// the checks kept; a verdict read back from results.json keeps none, and
// porcupine.html then says so instead of searching again.
func TestPorcupinePagesFromKeptSearch(t *testing.T) {
	res := pauseResult(t.TempDir())
	lock, counter := keptSearches(res.Verdict)
	if len(lock) != 1 || len(counter) != 1 {
		t.Fatalf("kept searches: lock %v, counter %v", lock, counter)
	}
	read := func(f string) string { return storetest.Read(t, res.Dir, f) }
	if _, err := passOfResult(t, res).writePorcupine(res, nil); err != nil {
		t.Fatal(err)
	}
	if l, c := read(store.PorcupineFile), read(store.PorcupineCounterFile); len(l) < 10_000 || len(c) < 10_000 {
		t.Errorf("porcupine.html %d bytes, porcupine-counter.html %d", len(l), len(c))
	}
	b, _ := json.Marshal(res.Verdict)
	res.Verdict.Results = nil
	noErr(t, json.Unmarshal(b, &res.Verdict))
	if lock, counter := keptSearches(res.Verdict); lock != nil || counter != nil {
		t.Fatal("a verdict read from JSON kept a search")
	}
	note := must[string](t)(passOfResult(t, res).writePorcupine(res, nil))
	if !strings.Contains(note, "kept none to draw") || !strings.Contains(read(store.PorcupineFile), "kept none to draw") {
		t.Errorf("porcupine.html of a verdict read back does not say it has no search: %q", note)
	}
}

// Each porcupine page's title and heading give its own search's verdict
// (the INVALID pause run's lock check is VALID); long tokens are
// shortened in the boxes, whole in the tooltip.
func TestPorcupineTitledWithOwnVerdict(t *testing.T) {
	dir := t.TempDir()
	res := pauseResult(dir)
	long := "25211190e7ff8fdbf03f87e5a8acb5fd"
	h := historyOf(res)
	for i := range h {
		if h[i].Token == "tok-b" {
			h[i].Token = long
		}
	}
	res.History = history.Slice(h)
	res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
	if res.Verdict.Valid != checker.Invalid {
		t.Fatalf("run verdict %v, want INVALID", res.Verdict.Valid)
	}
	mustWrite(t, res)
	for file, want := range map[string]string{
		store.PorcupineFile:        "this check VALID (linearizable)",
		store.PorcupineCounterFile: "this check INVALID (not linearizable)",
	} {
		page := html.UnescapeString(storetest.Read(t, dir, file))
		title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(page)
		if title == nil || !strings.HasSuffix(title[1], want) || !strings.Contains(page, `<h1 id="lockstorm-title">`+title[1]+`</h1>`) {
			t.Errorf("%s: title %q, want it (and the heading) to end %q", file, title, want)
		}
		if file == store.PorcupineFile {
			if !strings.Contains(page, "25211190…") || strings.Contains(page, "p1 "+long) ||
				!strings.Contains(page, checker.MetadataSep+"token "+long) {
				t.Errorf("%s: the token is not shortened in its boxes with the whole one in the tooltip", file)
			}
		}
	}
}
