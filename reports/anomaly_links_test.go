package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// anomalyLinks are the anomaly links of the report in dir: each card's
// "open in" link, as page file and op.
func anomalyLinks(t *testing.T, dir string) (links [][2]string) {
	t.Helper()
	index := storetest.Read(t, dir, store.IndexFile)
	for _, m := range regexp.MustCompile(`<a href="([a-z0-9-]+\.html)#op=([0-9]+)">open in`).FindAllStringSubmatch(string(index), -1) {
		links = append(links, [2]string{m[1], m[2]})
	}
	return links
}

// timelineData is the data timeline.html embeds.
func timelineData(t *testing.T, dir string) (d struct {
	Boxes  [][]any `json:"boxes"`
	Faults []struct {
		StartOp int64 `json:"start_op"`
		StopOp  int64 `json:"stop_op"`
	} `json:"faults"`
}) {
	t.Helper()
	b := []byte(storetest.Read(t, dir, store.TimelineFile))
	m := regexp.MustCompile(`(?m)^const TL = (.*);$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("timeline.html embeds no data")
	}
	noErr(t, json.Unmarshal(m[1], &d))
	return d
}

// pageDraws says whether the page file of dir draws record op (a
// timeline box or fault band, a porcupine operation's metadata).
func pageDraws(t *testing.T, dir, file string, op int64) bool {
	t.Helper()
	if file == store.TimelineFile {
		d := timelineData(t, dir)
		for _, b := range d.Boxes {
			if int64(b[4].(float64)) == op || int64(b[8].(float64)) == op {
				return true
			}
		}
		for _, f := range d.Faults {
			if f.StartOp == op || f.StopOp == op {
				return true
			}
		}
		return false
	}
	b := []byte(storetest.Read(t, dir, file))
	n := strconv.FormatInt(op, 10)
	return regexp.MustCompile(`"Metadata":"ops? (?:[0-9]+,)*` + n + `(?:[^0-9]|$)`).Match(b)
}

// Every anomaly link opens a page drawing its op, on the pause run and a
// segmented big one: the pause run's exclusion anomaly (a write absent
// from porcupine.html) opens timeline.html, the others porcupine's pages.
func TestAnomalyLinksDrawTheirOp(t *testing.T) {
	small := t.TempDir()
	res := pauseResult(small)
	mustWrite(t, res)
	big, _, _ := segmentResult(t)
	for _, dir := range []string{small, big} {
		links := anomalyLinks(t, dir)
		if len(links) == 0 {
			t.Fatalf("%s: no anomaly links", dir)
		}
		for _, l := range links {
			op, _ := strconv.ParseInt(l[1], 10, 64)
			if !pageDraws(t, dir, l[0], op) {
				t.Errorf("%s: link %s#op=%d opens a page without op %d", filepath.Base(dir), l[0], op, op)
			}
		}
	}
	var excl checker.Anomaly
	for _, r := range res.Verdict.Results {
		if r.Name == "exclusion" && len(r.Anomalies) > 0 {
			excl = r.Anomalies[0]
		}
	}
	if excl.Kind == "" {
		t.Fatal("the hand-built pause run has no exclusion anomaly")
	}
	write := excl.Ops[len(excl.Ops)-1]
	if f := historyOf(res)[write].F; f != history.FWrite {
		t.Fatalf("exclusion anomaly ends at a %s, want the write", f)
	}
	if pageDraws(t, small, store.PorcupineFile, write) {
		t.Fatalf("porcupine.html draws write %d: the case this test is about is gone", write)
	}
	want := fmt.Sprintf(`<span class="kind">%s</span> · exclusion checker`, excl.Kind)
	index, _ := os.ReadFile(filepath.Join(small, store.IndexFile))
	i := strings.Index(string(index), want)
	if i < 0 {
		t.Fatalf("index.html has no card %q", want)
	}
	card := string(index[i:])
	card = card[:strings.Index(card, "open in")] // the card's link
	if !strings.HasSuffix(card, fmt.Sprintf(`<a href="timeline.html#op=%d">`, write)) {
		t.Errorf("the exclusion card does not link timeline.html#op=%d:\n%s", write, card)
	}
	got := map[string]bool{}
	for _, l := range anomalyLinks(t, small) {
		got[l[0]] = true
	}
	if !got[store.PorcupineCounterFile] || !got[store.TimelineFile] {
		t.Errorf("links open %v, want porcupine-counter.html (the counter check) and timeline.html", got)
	}
}

// An anomaly whose ops no page draws has no link: the card says so.
func TestAnomalyLinkWithoutPage(t *testing.T) {
	p := newOpPages(checker.Result{Anomalies: []checker.Anomaly{{Kind: "x", Ops: []int64{3, 5}}}})
	p.add(store.PorcupineFile, 4) // not an anomaly's op: not kept
	if l := p.link("lock", []int64{3, 5}); l != "" {
		t.Errorf("link %q, want none", l)
	}
	p.add(store.TimelineFile, 3)
	p.add(store.PorcupineFile, 5)
	if l := p.link("exclusion", []int64{3, 5}); l != "timeline.html#op=3" {
		t.Errorf("exclusion link %q, want the timeline at op 3", l)
	}
	if l := p.link("lock", []int64{3, 5}); l != "porcupine.html#op=5" {
		t.Errorf("lock link %q, want porcupine.html at op 5", l)
	}
}
