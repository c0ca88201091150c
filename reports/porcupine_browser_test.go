package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// opener writes a page into dir that opens target (a file of dir, with a
// fragment) as a link from the report would, and returns its path:
// browsertest takes a file, not a URL with a fragment.
func opener(t *testing.T, dir, target string) string {
	t.Helper()
	p := filepath.Join(dir, "open-"+strings.NewReplacer("#", "_", "=", "_").Replace(target)+".html")
	page := `<!DOCTYPE html><meta charset="utf-8"><script>location.replace(` + "'" + target + "'" + `)</script>`
	noErr(t, os.WriteFile(p, []byte(page), 0o644))
	return p
}

// In Chromium, a porcupine page opened through an anomaly link
// ("porcupine.html#op=N") carries the run's title and its own search's
// verdict, with the operation holding op N selected and outlined.
func TestBrowserPorcupineOpensAtFailingOp(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	res := pauseResult(dir)
	mustWrite(t, res)
	index := storetest.Read(t, dir, store.IndexFile)
	links := regexp.MustCompile(`href="(porcupine(?:-counter)?\.html#op=([0-9]+))"`).FindAllStringSubmatch(string(index), -1)
	if len(links) == 0 {
		t.Fatal("index.html has no anomaly link with #op=N into a porcupine page")
	}
	// And the lock check's page, at the second client's acquire.
	for _, op := range historyOf(res) {
		if op.F == "acquire" && op.Type == "ok" && op.Process == 1 {
			links = append(links, []string{"", fmt.Sprintf("%s#op=%d", store.PorcupineFile, op.Index), fmt.Sprint(op.Index)})
			break
		}
	}
	seen := map[string]bool{}
	for _, l := range links {
		if seen[l[1]] {
			continue
		}
		seen[l[1]] = true
		dom := browsertest.DOM(t, opener(t, dir, l[1]))
		title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(dom)
		want := "this check VALID (linearizable)"
		if strings.HasPrefix(l[1], store.PorcupineCounterFile) {
			want = "this check INVALID (not linearizable)"
		}
		if title == nil || title[1] == "Porcupine" || !strings.Contains(title[1], "hand-built-pause") ||
			!strings.Contains(title[1], "lock single") || !strings.HasSuffix(title[1], want) {
			t.Errorf("%s: title %q does not name the run, lock and its check's verdict %q", l[1], title, want)
		}
		if h1 := regexp.MustCompile(`<h1 id="lockstorm-title">([^<]*)</h1>`).FindStringSubmatch(dom); h1 == nil || h1[1] != title[1] {
			t.Errorf("%s: heading %q, want the title", l[1], h1)
		}
		if !strings.Contains(dom, `data-lockstorm-op="`+l[2]+`"`) {
			t.Errorf("%s: the script did not select op %s", l[1], l[2])
		}
		if !regexp.MustCompile(`class="history-rect[^"]*\bselected\b[^"]*\blockstorm-target\b`).MatchString(dom) {
			t.Errorf("%s: no history rect is selected and outlined", l[1])
		}
		note := regexp.MustCompile(`<p id="lockstorm-target-note">([^<]*)</p>`).FindStringSubmatch(dom)
		if note == nil || !strings.Contains(note[1], "Op "+l[2]) {
			t.Errorf("%s: note %q does not name op %s", l[1], note, l[2])
		}
		t.Logf("%s: %s", l[1], note)
	}
}
