package checker

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

func TestWritePorcupineHTML(t *testing.T) {
	for _, f := range []string{"valid-handover.jsonl", "overlap.jsonl", "info-acquire.jsonl"} {
		h, _, err := history.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WritePorcupineHTML(&buf, h, nil); err != nil {
			t.Fatalf("%s: %v", f, err)
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
		if err := WriteCounterHTML(&buf, h, 0); err != nil {
			t.Fatalf("%s counter: %v", f, err)
		}
	}
}
