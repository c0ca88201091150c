package reports_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/sweep"
)

// serve's listing gives sweeps and comparisons a verdict column: a
// sweep's count of invalid runs among its cells, a comparison's whether
// it shows what fencing changes (with both sides' verdicts).
func TestStoreHandlerPageVerdicts(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sweeps/ttl/index.html", "sweep")
	cells := "sweeps/ttl/" + sweep.CellsDir + "/"
	write(cells+"a.json", `{"verdict":false,"dir":"x"}`)
	write(cells+"b.json", `{"verdict":true,"dir":"y"}`)
	write(cells+"c.json", `{"verdict":"unknown","dir":"z"}`)
	write("sweeps/empty/index.html", "sweep")
	write("compare/20260101-100000/index.html", "cmp")
	write("compare/20260101-100000/"+reports.CompareVerdictFile, `{"shows":true,"unfenced":false,"fenced":true}`)
	write("compare/20260102-100000/index.html", "cmp")
	write("compare/20260102-100000/"+reports.CompareVerdictFile, `{"shows":false,"unfenced":true,"fenced":true}`)
	srv := httptest.NewServer(reports.StoreHandler(root))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	for _, want := range []string{
		`sweeps/ttl</a></td><td>sweep</td><td class="invalid">1/3 invalid, 1 unknown</td>`,
		`sweeps/empty</a></td><td>sweep</td><td class="unknown">no runs</td>`,
		`compare/20260101-100000</a></td><td>compare</td><td class="valid">shows it (without fencing INVALID, with fencing valid)</td>`,
		`compare/20260102-100000</a></td><td>compare</td><td class="invalid">does NOT show it`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("listing lacks %q:\n%s", want, body)
		}
	}
	if rows := regexp.MustCompile(`<th>verdict</th>`).FindAllString(body, -1); len(rows) != 2 {
		t.Errorf("want a verdict column in both tables, got %d", len(rows))
	}
}
