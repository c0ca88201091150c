package reports

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStoreHandlerListsRunsNewestFirst(t *testing.T) {
	store := t.TempDir()
	for _, r := range []struct{ dir, results string }{
		{"a/20261201T100000.000", `{"name":"lockstorm","valid":true}`},
		{"b/20261202T100000.000", `{"name":"lockstorm","valid":false}`},
		{"b/20261202T110000.000", ""},
	} {
		d := filepath.Join(store, r.dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "test.json"), []byte(`{"config":{"lock":"single","workload":"counter","seed":9}}`), 0o644)
		if r.results != "" {
			os.WriteFile(filepath.Join(d, "results.json"), []byte(r.results), 0o644)
		}
		os.WriteFile(filepath.Join(d, "index.html"), []byte("report "+r.dir), 0o644)
	}
	os.MkdirAll(filepath.Join(store, "sweeps", "default"), 0o755)
	os.WriteFile(filepath.Join(store, "sweeps", "default", "index.html"), []byte("sweep"), 0o644)
	srv := httptest.NewServer(StoreHandler(store))
	defer srv.Close()
	body := get(t, srv.URL+"/")
	i1, i2, i3 := strings.Index(body, "20261202T110000"), strings.Index(body, "20261202T100000"), strings.Index(body, "20261201T100000")
	if i1 < 0 || i2 < 0 || i3 < 0 || !(i1 < i2 && i2 < i3) {
		t.Fatalf("runs missing or not newest first:\n%s", body)
	}
	for _, want := range []string{"not checked", "INVALID", ">valid<", `href="/runs/sweeps/default/index.html"`} {
		if !strings.Contains(body, want) {
			t.Errorf("listing lacks %q", want)
		}
	}
	if got := get(t, srv.URL+"/runs/a/20261201T100000.000/index.html"); got != "report a/20261201T100000.000" {
		t.Fatalf("run file: %q", got)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run folder whose setup failed is listed as such, without a report link.
func TestStoreHandlerShowsSetupFailed(t *testing.T) {
	store := t.TempDir()
	d := filepath.Join(store, "a", "20261201T100000.000")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d, "test.json"), []byte(`{"config":{"lock":"single","workload":"counter","seed":9}}`), 0o644)
	os.WriteFile(filepath.Join(d, "setup-failed.txt"), []byte("cluster: redis-server not found\n"), 0o644)
	srv := httptest.NewServer(StoreHandler(store))
	defer srv.Close()
	body := get(t, srv.URL+"/")
	if !strings.Contains(body, "setup failed") || strings.Contains(body, "20261201T100000.000/index.html") {
		t.Fatalf("setup-failed run not shown as such:\n%s", body)
	}
}
