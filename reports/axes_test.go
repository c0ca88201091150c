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

// churnResult is a counter run of 3 client slots whose every turn is a
// new process (client c1 runs p0, p3, p6, …), so that holders.png's row
// labels ("c1 (p0, p3, p6, … +7)") are wider than any other plot's y
// labels, with a client pause in the middle. Its last record is at end.
func churnResult(t *testing.T) (res *analysis.Result, end int64) {
	t.Helper()
	b := historytest.New()
	const turns = 30
	for i := range turns {
		at := int64(i) * 37 * ms
		c, tok := fmt.Sprintf("c%d", i%3+1), fmt.Sprintf("t%d", i)
		op := func(dt int64, ty history.Type, f string, set func(*history.Op)) {
			o := history.Op{Time: at + dt*ms, Type: ty, Process: i, Client: c, F: f, Key: "k", Fence: int64(i + 1)}
			if set != nil {
				set(&o)
			}
			end = max(end, o.Time)
			b.Append(o)
		}
		op(0, history.Invoke, history.FAcquire, func(o *history.Op) { o.TTL, o.Fence = 300*ms, 0 })
		op(1, history.OK, history.FAcquire, func(o *history.Op) { o.Token, o.TTL, o.Validity = tok, 300*ms, at+250*ms })
		if i == 10 {
			b.Append(history.Op{Time: at + 2*ms, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStart, Fault: "client-pause", Detail: "client-pause clients=" + c})
			b.Append(history.Op{Time: at + 2*ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStart, Fault: "client-pause", Detail: "client-pause clients=" + c})
			b.Append(history.Op{Time: at + 9*ms, Type: history.Invoke, Process: history.NemesisProcess, F: history.FStop, Fault: "client-pause"})
			b.Append(history.Op{Time: at + 9*ms, Type: history.OK, Process: history.NemesisProcess, F: history.FStop, Fault: "client-pause"})
		}
		op(3+int64(i%5), history.Invoke, history.FRead, nil)
		op(10, history.OK, history.FRead, func(o *history.Op) { o.Value = int64(i) })
		op(11, history.Invoke, history.FWrite, func(o *history.Op) { o.Value = int64(i + 1) })
		op(12+int64(i%7), history.OK, history.FWrite, func(o *history.Op) { o.Value = int64(i + 1) })
		op(20, history.Invoke, history.FRelease, func(o *history.Op) { o.Token = tok })
		op(21, history.OK, history.FRelease, func(o *history.Op) { o.Token = tok })
	}
	cfg := config.Config{Name: "axes", Lock: "fenced", Workload: "counter", Clients: 3, Nodes: 1, TTL: 300 * time.Millisecond,
		Seed: 1, Nemesis: []string{"client-pause"}, Fencing: true}
	res = &analysis.Result{Dir: t.TempDir(), Config: cfg, History: history.Slice(b.History()), Final: map[string]int64{"k": turns}}
	if err := analysis.Check(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	return res, end
}

// timeAxis is what a PNG shows of its bottom time axis: the x axis
// line's first and last pixel and the x of each tick under it.
type timeAxis struct {
	x0, x1 int
	ticks  []int
}

// darkGrey reports whether the pixel is an axis's ink: grey, darker than
// the grid.
func darkGrey(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	r, g, b = r>>8, g>>8, b>>8
	return max(r, g, b)-min(r, g, b) < 0x20 && r < 0xb0
}

// bottomAxis finds the lowest horizontal dark line spanning at least
// half the image (the last panel's x axis) and the ticks hanging from it.
func bottomAxis(img image.Image) (timeAxis, bool) {
	bd := img.Bounds()
	for y := bd.Max.Y - 1; y >= bd.Min.Y; y-- {
		x0, run := -1, 0
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if darkGrey(img, x, y) {
				if run == 0 {
					x0 = x
				}
				run++
				if run >= bd.Dx()/2 {
					for x < bd.Max.X-1 && darkGrey(img, x+1, y) {
						x++
					}
					a := timeAxis{x0: x0, x1: x}
					for tx := x0; tx <= x; tx++ {
						if darkGrey(img, tx, y+3) && !darkGrey(img, tx-1, y+3) {
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

// Every time plot of a report puts its data area at the same place and
// spans the same time, run start to run end, whatever the width of its
// labels: measured in the PNGs (the bottom time axis line's ends and
// its ticks' x positions, equal to the pixel) of a run whose holders
// rows carry long labels (many processes per client).
func TestTimeAxesLineUpInEveryPNG(t *testing.T) {
	res, _ := churnResult(t)
	if err := Write(res); err != nil {
		t.Fatal(err)
	}
	files := []string{"holders.png", "latency-raw.png", "latency-quantiles.png", "rate.png", "fencing.png"}
	axes := map[string]timeAxis{}
	for _, f := range files {
		fh, err := os.Open(filepath.Join(res.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
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
	}
	ref := axes[files[0]]
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
