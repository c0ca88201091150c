package compare

import (
	"context"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/resource"
	"github.com/lockstorm/lockstorm/sweep"
)

const ms = int64(time.Millisecond)

// handSide writes one side of a hand-built comparison into the store: c1
// (fence 55) is paused holding the lock, c2 (fence 56) takes it and
// writes 1, and c1's write of 1, sent during the pause, reaches the
// resource after it: accepted without fencing (an increment lost),
// rejected with it. The run's report (plots included) is written by
// reports.Write, as a real run's is.
func handSide(t *testing.T, st string, fencing bool) Side {
	t.Helper()
	k := "lockstorm"
	var h history.History
	add := func(op history.Op) { op.Index = int64(len(h)); h = append(h, op) }
	nem := func(at int64, f string) {
		for _, typ := range []history.Type{history.Invoke, history.OK} {
			add(history.Op{Time: at, Type: typ, Process: history.NemesisProcess, F: f, Fault: "client-pause", Clients: []string{"c1"}})
		}
	}
	op := func(at int64, typ history.Type, p int, f string, o history.Op) {
		o.Time, o.Type, o.Process, o.Client, o.F, o.Key = at, typ, p, []string{"c1", "c2"}[p], f, k
		add(o)
	}
	op(100*ms, history.Invoke, 0, history.FAcquire, history.Op{TTL: 450 * ms})
	op(101*ms, history.OK, 0, history.FAcquire, history.Op{Token: "a", Fence: 55, TTL: 450 * ms, Validity: 550 * ms})
	nem(200*ms, history.FStart)
	op(300*ms, history.Invoke, 0, history.FWrite, history.Op{Value: 1, Fence: 55})
	op(310*ms, history.Invoke, 1, history.FAcquire, history.Op{TTL: 450 * ms})
	op(600*ms, history.OK, 1, history.FAcquire, history.Op{Token: "b", Fence: 56, TTL: 450 * ms, Validity: 1050 * ms})
	op(610*ms, history.Invoke, 1, history.FWrite, history.Op{Value: 1, Fence: 56})
	op(611*ms, history.OK, 1, history.FWrite, history.Op{Value: 1, Fence: 56})
	op(620*ms, history.Invoke, 1, history.FRelease, history.Op{Token: "b"})
	op(621*ms, history.OK, 1, history.FRelease, history.Op{Token: "b"})
	nem(1200*ms, history.FStop)
	writes := []resource.Write{{Time: 610*ms + 500_000, Key: k, Value: 1, Fence: 56, Accepted: true},
		{Time: 1201 * ms, Key: k, Value: 1, Fence: 55, Stale: true, Accepted: !fencing}}
	if fencing {
		op(1202*ms, history.Fail, 0, history.FWrite, history.Op{Value: 1, Fence: 55, Error: "stale"})
	} else {
		op(1202*ms, history.OK, 0, history.FWrite, history.Op{Value: 1, Fence: 55})
	}
	op(1203*ms, history.Invoke, 0, history.FRelease, history.Op{Token: "a"})
	op(1204*ms, history.Fail, 0, history.FRelease, history.Op{Token: "a", Error: "not held"})
	spec, err := (Spec{Store: st}).WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	cfg := spec.Config(fencing)
	cfg.Plan = nil
	dir := filepath.Join(st, cfg.Name, "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	res := &analysis.Result{Dir: dir, Config: cfg, History: history.Slice(h), Writes: writes, Final: map[string]int64{k: 1}}
	res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
	if err := reports.Write(res); err != nil {
		t.Fatal(err)
	}
	return Side{Fencing: fencing, Dir: cfg.Name + "/run", Metrics: sweep.MetricsOf(res), Result: res}
}

// handComparison is a comparison of the two hand-built sides, with its
// page written; it returns the page's path.
func handComparison(t *testing.T) (*Comparison, string) {
	t.Helper()
	st := t.TempDir()
	spec, err := (Spec{Store: st}).WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	c := &Comparison{Spec: spec, Unfenced: handSide(t, st, false), Fenced: handSide(t, st, true), Seed: 1}
	b, err := comparePage(c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(st, "index.html")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return c, path
}

// The fenced side's caption says why its overlaps come with a valid
// verdict, with the numbers measured from the run.
func TestFencingWhy(t *testing.T) {
	c, _ := handComparison(t)
	if u, f := c.Unfenced.Metrics, c.Fenced.Metrics; u.StaleAccepted != 1 || f.StaleRejected != 1 || f.StaleAccepted != 0 {
		t.Fatalf("hand-built sides: unfenced %+v, fenced %+v", u, f)
	}
	want := "Fencing does not prevent the overlap (the red in the holders plot: 1 pair of leases believed held at once): it makes the overlap harmless, because the stale write is rejected. Here the resource rejected 1 stale write and accepted none."
	if got := fencingWhy(c.Fenced); got != want {
		t.Errorf("caption\n%q\nwant\n%q", got, want)
	}
	// the same run left in its history file (a stored or long run's
	// Result) gives the same caption, not one without overlaps
	h, _ := history.ReadAll(c.Fenced.Result.History)
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	fileRes := *c.Fenced.Result
	fileRes.History, fileRes.Writes = history.File(path), nil
	fileSide := c.Fenced
	fileSide.Result = &fileRes
	if got := fencingWhy(fileSide); got != want {
		t.Errorf("file-backed caption\n%q\nwant\n%q", got, want)
	}
	s := c.Fenced
	s.Metrics.StaleRejected, s.Result = 0, nil
	if got := fencingWhy(s); !strings.Contains(got, "no stale write reached the resource") || strings.Contains(got, "rejected 0") {
		t.Errorf("nothing rejected: %q", got)
	}
}

// The compare page in a real browser: the caption is in the DOM beside
// the fenced side's verdict, all four plots are embedded, and the
// screenshot shows them; the fenced side shows the rejected write's green
// (fencing.png's ✕ and label) and the unfenced side none of it.
func TestBrowserComparePage(t *testing.T) {
	browsertest.Require(t)
	_, page := handComparison(t)
	dom := browsertest.DOM(t, page)
	i := strings.Index(dom, "With fencing:")
	j := strings.Index(dom, `id="fencing-why"`)
	if i < 0 || j < i || !strings.Contains(dom[j:], "Fencing does not prevent the overlap") || !strings.Contains(dom[j:], "rejected 1 stale write") {
		t.Errorf("caption not after the fenced verdict (verdict at %d, caption at %d)", i, j)
	}
	if n := strings.Count(dom, `<img src="data:image/png;base64,`); n != 4 {
		t.Errorf("%d plots embedded, want 4", n)
	}
	img := browsertest.Screenshot(t, page, 1800)
	if n := browsertest.DistinctColours(img, 3); n < 150 {
		t.Errorf("only %d distinct colours: the plots did not render", n)
	}
	green := color.RGBA{0x1a, 0x7f, 0x37, 0xff} // fencing.png's rejected write
	left, right := half(img, 0), half(img, 1)
	if l, r := browsertest.CountNear(left, green, 10), browsertest.CountNear(right, green, 10); r < 20 || l > r/4 {
		t.Errorf("rejected-write green: %d pixels on the unfenced side, %d on the fenced", l, r)
	}
}

// half is the left (0) or right (1) half of img.
func half(img image.Image, i int) image.Image {
	b := img.Bounds()
	mid := b.Min.X + b.Dx()/2
	r := image.Rect(b.Min.X, b.Min.Y, mid, b.Max.Y)
	if i == 1 {
		r = image.Rect(mid, b.Min.Y, b.Max.X, b.Max.Y)
	}
	return img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(r)
}

// plotTops is a script that writes, once the page has laid out, the top
// (CSS px, from getBoundingClientRect) of every plot image of each side
// into the DOM as <pre id="plot-tops">side i: top top</pre>.
const plotTops = `<script>
window.addEventListener('load', () => {
  const out = document.createElement('pre');
  out.id = 'plot-tops';
  document.querySelectorAll('.side > div').forEach((side, i) => {
    const tops = [...side.querySelectorAll('img')].map(img => img.getBoundingClientRect().top.toFixed(1));
    out.textContent += 'side ' + i + ': ' + tops.join(' ') + '\n';
  });
  document.body.appendChild(out);
});
</script>`

// The two sides' plots line up although only the fenced side has a
// caption under its verdict: the first plot's top (and the second's) is
// at the same height on both sides, measured in Chromium.
func TestBrowserComparePlotsLineUp(t *testing.T) {
	browsertest.Require(t)
	_, page := handComparison(t)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(filepath.Dir(page), "probe.html")
	if err := os.WriteFile(probe, []byte(strings.Replace(string(b), "</body>", plotTops+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browsertest.DOM(t, probe)
	m := regexp.MustCompile(`side 0: (\S+) (\S+)\s+side 1: (\S+) (\S+)`).FindStringSubmatch(dom)
	t.Logf("%s", regexp.MustCompile(`(?s)<pre id="plot-tops">.*?</pre>`).FindString(dom))
	if m == nil {
		t.Fatalf("no plot tops written: %q", regexp.MustCompile(`(?s)<pre id="plot-tops">.*?</pre>`).FindString(dom))
	}
	var top [4]float64
	for i := range top {
		if top[i], err = strconv.ParseFloat(m[i+1], 64); err != nil {
			t.Fatal(err)
		}
	}
	if d := top[0] - top[2]; d < -1 || d > 1 || top[0] <= 0 {
		t.Errorf("first plots' tops: %.1f px without fencing, %.1f px with: they do not line up", top[0], top[2])
	}
	if d := top[1] - top[3]; d < -1 || d > 1 {
		t.Errorf("second plots' tops: %.1f px without fencing, %.1f px with: they do not line up", top[1], top[3])
	}
}
