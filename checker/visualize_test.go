package checker

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// The page of each history, and the search's own verdict: the
// handover linearizes, the overlap does not.
func TestWritePorcupineHTML(t *testing.T) {
	want := map[string]Validity{"valid-handover.jsonl": Valid, "overlap.jsonl": Invalid}
	for _, f := range []string{"valid-handover.jsonl", "overlap.jsonl", "info-acquire.jsonl"} {
		h, _, err := history.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		v, err := WritePorcupineHTML(&buf, h, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if w, ok := want[f]; ok && v != w {
			t.Errorf("%s: search verdict %v, want %v", f, v, w)
		}
		out := buf.String()
		if !strings.Contains(out, "<html") || !strings.Contains(out, "acquire p0 a") {
			t.Errorf("%s: not a porcupine page with our ops (%d bytes)", f, len(out))
		}
		if f == "valid-handover.jsonl" && !strings.Contains(out, "partition[n1]") {
			t.Errorf("%s: fault window not annotated", f)
		}
		if f == "info-acquire.jsonl" && !strings.Contains(out, "acquire info lock") {
			t.Errorf("%s: info acquire not annotated", f)
		}
		buf.Reset()
		if _, err := WriteCounterHTML(&buf, h, 0); err != nil {
			t.Fatalf("%s counter: %v", f, err)
		}
	}
}

// A long token is shortened in its box (first 8 characters and "…") and
// given whole in the operation's metadata, the tooltip, after the ops.
func TestPorcupineBoxesShortenTokens(t *testing.T) {
	tok := "25211190e7ff8fdbf03f87e5a8acb5fd"
	h := history.History{
		{Index: 0, Time: 1, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k", TTL: 1e9},
		{Index: 1, Time: 2, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: tok, TTL: 1e9},
		{Index: 2, Time: 3, Type: history.Invoke, Process: 0, F: history.FRelease, Key: "k", Token: tok},
		{Index: 3, Time: 4, Type: history.OK, Process: 0, F: history.FRelease, Key: "k", Token: tok},
	}
	var buf bytes.Buffer
	if v, err := WritePorcupineHTML(&buf, h, nil); err != nil || v != Valid {
		t.Fatalf("%v, %v", v, err)
	}
	out := buf.String()
	for _, want := range []string{`"acquire p0 25211190…`, `"release p0 25211190… -\u003e ok"`, `"ops 0,1` + MetadataSep + `token ` + tok + `"`} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(out, `p0 `+tok) {
		t.Error("a box shows the whole token")
	}
}
