package reports

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// turnsResult is a checked counter run of turns turns (acquire, read v,
// write v+1, release) of 3 client slots, turn i by slot i%3 as process
// proc(i), a client pause hitting the holder of each turn pause picks;
// a fenced run's operations (but the acquire's invoke) carry token i+1.
func turnsResult(t *testing.T, cfg config.Config, turns int, proc func(i int) int, pause func(i int) bool) *analysis.Result {
	t.Helper()
	b := historytest.New()
	const kind = "client-pause"
	for i := range turns {
		p, at, slot, tok := proc(i), int64(i)*37, fmt.Sprintf("c%d", i%3+1), fmt.Sprintf("t%d", i)
		c, ttl := []historytest.Mod{historytest.Client(slot)}, historytest.TTL(300)
		if cfg.Fencing {
			c = append(c, historytest.Fence(int64(i+1)))
		}
		b.Add(at, history.Invoke, p, history.FAcquire, "k", "", historytest.Client(slot), ttl)
		b.Add(at+1, history.OK, p, history.FAcquire, "k", tok, append(c, ttl, historytest.Validity(at+250))...)
		if pause(i) {
			d := historytest.Detail("client-pause clients=" + slot)
			b.Nemesis(at+2, history.Invoke, history.FStart, kind, d).Nemesis(at+2, history.OK, history.FStart, kind, d)
			b.Nemesis(at+9, history.Invoke, history.FStop, kind).Nemesis(at+9, history.OK, history.FStop, kind)
		}
		b.Add(at+3+int64(i%5), history.Invoke, p, history.FRead, "k", "", c...)
		b.Add(at+10, history.OK, p, history.FRead, "k", "", append(c, historytest.Value(int64(i)))...)
		b.Op(at+11, at+12+int64(i%7), history.OK, p, history.FWrite, "k", "", append(c, historytest.Value(int64(i+1)))...)
		b.Op(at+20, at+21, history.OK, p, history.FRelease, "k", tok, c...)
	}
	cfg.Workload, cfg.Clients, cfg.Nodes, cfg.TTL, cfg.Seed, cfg.Nemesis = "counter", 3, 1, 300*time.Millisecond, 1, []string{kind}
	res := &analysis.Result{Dir: t.TempDir(), Config: cfg, History: history.Slice(b.History()), Final: map[string]int64{"k": int64(turns)}}
	noErr(t, analysis.Check(context.Background(), res))
	return res
}

// churnResult is a fenced run whose every turn is a new process (c1 runs
// p0, p3, p6, …), so that holders.png's row labels ("c1 (p0, p3, p6, …
// +7)") are wider than any other plot's y labels, paused in the middle.
func churnResult(t *testing.T) *analysis.Result {
	cfg := config.Config{Name: "axes", Lock: "fenced", Fencing: true}
	return turnsResult(t, cfg, 30, func(i int) int { return i }, func(i int) bool { return i == 10 })
}

// timeAxis is what a PNG shows of its bottom time axis: the x axis
// line's first and last pixel and the x of each tick under it.
type timeAxis struct {
	x0, x1 int
	ticks  []int
}

// darkGrey reports whether the pixel is an axis's ink: grey, darker than
// the grid (below limit).
func darkGrey(img image.Image, x, y int, limit uint32) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	r, g, b = r>>8, g>>8, b>>8
	return max(r, g, b)-min(r, g, b) < 0x20 && r < limit
}

// bottomAxis finds the lowest horizontal dark line spanning at least
// half the image (the last panel's x axis) and the ticks hanging from it.
func bottomAxis(img image.Image) (timeAxis, bool) {
	bd := img.Bounds()
	for y := bd.Max.Y - 1; y >= bd.Min.Y; y-- {
		x0, run := -1, 0
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if darkGrey(img, x, y, 0xb0) {
				if run == 0 {
					x0 = x
				}
				run++
				if run >= bd.Dx()/2 {
					for x < bd.Max.X-1 && darkGrey(img, x+1, y, 0xb0) {
						x++
					}
					a := timeAxis{x0: x0, x1: x}
					for tx := x0; tx <= x; tx++ {
						if darkGrey(img, tx, y+3, 0xb0) && !darkGrey(img, tx-1, y+3, 0xb0) {
							a.ticks = append(a.ticks, tx)
						}
					}
					return a, true
				}
				continue
			}
			run = 0
		}
	}
	return timeAxis{}, false
}

// Every time plot's bottom axis starts at axisLeft and has the same ends
// and ticks to the pixel, whatever its labels' width (churnResult's long
// row labels); latency-raw.png has a panel per operation type.
func TestTimeAxesLineUpInEveryPNG(t *testing.T) {
	res := churnResult(t)
	mustWrite(t, res)
	files := []string{"holders.png", "latency-raw.png", "latency-quantiles.png", "rate.png", "fencing.png"}
	axes := map[string]timeAxis{}
	for _, f := range files {
		fh := must[*os.File](t)(os.Open(filepath.Join(res.Dir, f)))
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		a, ok := bottomAxis(img)
		if !ok || len(a.ticks) < 5 {
			t.Fatalf("%s: no time axis found (%+v)", f, a)
		}
		axes[f] = a
		t.Logf("%s: axis x %d..%d, ticks %v", f, a.x0, a.x1, a.ticks)
		if h := img.Bounds().Dy(); f == "latency-raw.png" && h < 4*int(panelHeight.Dots(figDPI)) {
			t.Errorf("latency-raw.png is %d px high: not one panel per operation type (4 types)", h)
		}
	}
	ref := axes[files[0]]
	if d := ref.x0 - int(axisLeft.Dots(figDPI)); d < -1 || d > 1 {
		t.Errorf("holders.png's data area starts at x=%d px, want axisLeft = %d px", ref.x0, int(axisLeft.Dots(figDPI)))
	}
	for _, f := range files[1:] {
		a := axes[f]
		if a.x0 != ref.x0 || a.x1 != ref.x1 {
			t.Errorf("%s: time axis x %d..%d, holders.png's %d..%d", f, a.x0, a.x1, ref.x0, ref.x1)
		}
		if fmt.Sprint(a.ticks) != fmt.Sprint(ref.ticks) {
			t.Errorf("%s: ticks at %v, holders.png's at %v: the x ranges differ", f, a.ticks, ref.ticks)
		}
	}
}
