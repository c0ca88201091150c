package reports

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/internal/store"
)

// serve lists a store's runs newest first with their verdicts (a run
// whose setup failed as such, without a report link), its sweeps, and
// serves each run's files.
func TestStoreHandlerListsRunsNewestFirst(t *testing.T) {
	store := t.TempDir()
	const cfg = `{"config":{"lock":"single","workload":"counter","seed":9}}`
	for rel, body := range map[string]string{
		"a/20261201T100000.000/results.json":     `{"name":"lockstorm","valid":true}`,
		"b/20261202T100000.000/results.json":     `{"name":"lockstorm","valid":false}`,
		"b/20261202T110000.000/index.html":       "report b/20261202T110000.000",
		"a/20261201T100000.000/index.html":       "report a/20261201T100000.000",
		"b/20261202T100000.000/index.html":       "report b/20261202T100000.000",
		"c/20261130T100000.000/setup-failed.txt": "cluster: redis-server not found\n",
		"sweeps/default/index.html":              "sweep",
	} {
		p := filepath.Join(store, rel)
		noErr(t, os.MkdirAll(filepath.Dir(p), 0o755))
		noErr(t, os.WriteFile(p, []byte(body), 0o644))
		if filepath.Dir(filepath.Dir(rel)) != "sweeps" {
			noErr(t, os.WriteFile(filepath.Join(filepath.Dir(p), "test.json"), []byte(cfg), 0o644))
		}
	}
	srv := httptest.NewServer(StoreHandler(store))
	defer srv.Close()
	body := get(t, srv.URL+"/")
	i1, i2, i3 := strings.Index(body, "20261202T110000"), strings.Index(body, "20261202T100000"), strings.Index(body, "20261201T100000")
	if i1 < 0 || i2 < 0 || i3 < 0 || !(i1 < i2 && i2 < i3) {
		t.Fatalf("runs missing or not newest first:\n%s", body)
	}
	for _, want := range []string{"not checked", "INVALID", ">valid<", `href="/runs/sweeps/default/index.html"`, "setup failed"} {
		if !strings.Contains(body, want) {
			t.Errorf("listing lacks %q", want)
		}
	}
	if strings.Contains(body, "20261130T100000.000/index.html") {
		t.Error("the run whose setup failed has a report link")
	}
	if got := get(t, srv.URL+"/runs/a/20261201T100000.000/index.html"); got != "report a/20261201T100000.000" {
		t.Fatalf("run file: %q", got)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp := must[*http.Response](t)(http.Get(url))
	defer resp.Body.Close()
	b := must[[]byte](t)(io.ReadAll(resp.Body))
	return string(b)
}

// serve lists an interrupted run and one short of the coverage bar as
// "unknown — interrupted" and "unknown — coverage shortfall", the full
// reason as the tooltip; a valid run as "valid".
func TestStoreHandlerTellsUnknownsApart(t *testing.T) {
	root := t.TempDir()
	b := historytest.New()
	b.Append(history.Op{Time: 1 * ms, Type: history.Invoke, Process: 0, F: history.FAcquire, Key: "k", TTL: 300 * ms})
	b.Append(history.Op{Time: 2 * ms, Type: history.OK, Process: 0, F: history.FAcquire, Key: "k", Token: "a", TTL: 300 * ms, Validity: 290 * ms})
	b.Append(history.Op{Time: 3 * ms, Type: history.Invoke, Process: 0, F: history.FRelease, Key: "k", Token: "a"})
	b.Append(history.Op{Time: 4 * ms, Type: history.OK, Process: 0, F: history.FRelease, Key: "k", Token: "a"})
	for _, r := range []struct {
		dir         string
		nemesis     []string
		interrupted bool
		want        checker.Validity
	}{
		{"stopped/20261201T100000.000", nil, true, checker.Unknown},
		{"short/20261201T110000.000", []string{"client-pause"}, false, checker.Unknown},
		{"fine/20261201T120000.000", nil, false, checker.Valid},
	} {
		dir := filepath.Join(root, r.dir)
		noErr(t, os.MkdirAll(dir, 0o755))
		res := &analysis.Result{Dir: dir, History: history.Slice(append(history.History(nil), b.History()...)), Config: config.Config{
			Name: filepath.Dir(r.dir), Lock: "single", Workload: "api", Nodes: 1, Clients: 1, TTL: 300 * time.Millisecond,
			TimeLimit: time.Second, Nemesis: r.nemesis, Seed: 1}}
		if r.interrupted {
			res.Interrupted, res.Incomplete = true, "interrupted by SIGINT at 0.4s of 1s"
		}
		noErr(t, store.WriteJSON(filepath.Join(dir, store.TestFile), analysis.TestFile{Config: res.Config, Completed: true, Records: b.Len()}))
		noErr(t, analysis.Check(context.Background(), res))
		if res.Verdict.Valid != r.want {
			t.Fatalf("%s: verdict %v (%s), want %v", r.dir, res.Verdict.Valid, res.Verdict.Error, r.want)
		}
	}
	srv := httptest.NewServer(StoreHandler(root))
	defer srv.Close()
	body := get(t, srv.URL+"/")
	for _, want := range []string{
		`title="incomplete run: interrupted by SIGINT at 0.4s of 1s">unknown — interrupted</td>`,
		`title="faults did not exercise the lock: `,
		`">unknown — coverage shortfall</td>`,
		`<td class="valid">valid</td>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("listing lacks %q:\n%s", want, body)
		}
	}
}
