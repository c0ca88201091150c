package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/internal/store"
)

// `lockstorm analyze` of a run folder whose test.json has an empty
// config (analysis.Analyze, then the report and the summary, as the
// command does) prints no replay line full of ”: it says the replay is
// unknown, in the summary, in junit.xml and on the report page.
func TestAnalyzeEmptyConfigHasNoReplayLine(t *testing.T) {
	dir := t.TempDir()
	h, _ := pauseHistory()
	var hist bytes.Buffer
	for _, op := range h {
		b, _ := json.Marshal(op)
		hist.Write(append(b, '\n'))
	}
	noErr(t, os.WriteFile(filepath.Join(dir, store.HistoryFile), hist.Bytes(), 0o644))
	noErr(t, os.WriteFile(filepath.Join(dir, store.TestFile), []byte(`{"config": {}, "completed": true, "records": `+strconv.Itoa(len(h))+`}`), 0o644))
	res, _, err := analysis.Analyze(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, res)
	var sum bytes.Buffer
	Summary(&sum, res)
	if !strings.Contains(sum.String(), "replay: unknown, the stored configuration is empty\n") || strings.Contains(sum.String(), "''") || strings.Contains(sum.String(), "lockstorm run") {
		t.Errorf("summary:\n%s", sum.String())
	}
	index, _ := os.ReadFile(filepath.Join(dir, store.IndexFile))
	if strings.Contains(string(index), `<pre class="replay">`) || !strings.Contains(string(index), "Replay: unknown, the stored configuration is empty") {
		t.Errorf("index.html shows a replay line or lacks the note")
	}
	junit, _ := os.ReadFile(filepath.Join(dir, store.JUnitFile))
	if !strings.Contains(string(junit), "replay: unknown, the stored configuration is empty") || strings.Contains(string(junit), "lockstorm run") {
		t.Errorf("junit.xml's replay:\n%s", junit)
	}
}
