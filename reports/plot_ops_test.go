package reports

import (
	"bytes"
	"image"
	"image/png"
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// The per-operation panels follow the lock's operations first and list
// only the types the history has: the hand-built pause history has no
// extend.
func TestOpTypesOnlyPresentInOrder(t *testing.T) {
	h, _ := pauseHistory()
	got := logOf(h).present(false)
	want := []string{"acquire", "release", "read", "write"}
	if !slices.Equal(got, want) {
		t.Errorf("present = %v, want %v", got, want)
	}
	b := historytest.New()
	for i, f := range []string{"zz", "extend", "aa", "acquire"} {
		b.Append(history.Op{Time: int64(i), Type: history.Invoke, Process: i, F: f})
	}
	b.Append(history.Op{Time: 9, Type: history.OK, Process: 1, F: "extend"})
	if got := logOf(b.History()).present(false); !slices.Equal(got, []string{"acquire", "extend", "aa", "zz"}) {
		t.Errorf("present with unknown types = %v", got)
	}
	if got := logOf(b.History()).present(true); !slices.Equal(got, []string{"extend"}) {
		t.Errorf("present among completed = %v, want extend", got)
	}
}

// A millisecond log axis spanning less than a decade still carries at
// least three labels (2 and 5 times the powers of ten), each with its unit.
func TestMsLogTicksLabelNarrowRanges(t *testing.T) {
	var labels []string
	for _, tk := range (msLogTicks{}).Ticks(0.12, 0.9) {
		if tk.Label != "" && tk.Value >= 0.12 && tk.Value <= 0.9 {
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Equal(labels, []string{"0.2 ms", "0.5 ms"}) {
		t.Errorf("labels in [0.12, 0.9] = %v, want [0.2 ms 0.5 ms]", labels)
	}
	labels = nil
	for _, tk := range (msLogTicks{}).Ticks(0.05, 3000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"0.01 ms", "0.1 ms", "1 ms", "10 ms", "100 ms", "1000 ms", "10000 ms"}; !slices.Equal(labels, want) {
		t.Errorf("labels over [0.05, 3000] = %v, want the powers of ten only %v", labels, want)
	}
}

// axisColumn is the x (px) of the y axis line of the topmost plot in img:
// the first column, left to right, holding a vertical run of at least 60
// dark grey pixels (the axis line is thin, so antialiased to grey).
func axisColumn(img image.Image) int {
	b := img.Bounds()
	for x := b.Min.X; x < b.Min.X+400; x++ {
		run := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			grey := max(r, g, bl)-min(r, g, bl) < 0x20
			if grey && r < 0xa0 {
				if run++; run >= 60 {
					return x
				}
			} else {
				run = 0
			}
		}
	}
	return -1
}

// Every time-axis PNG of the report puts its y axis at the same column,
// whatever its y labels (holders' client names, latency's "1000 ms",
// rate's small counts), so the axes line up down the page; and the
// latency plots are split into one panel per operation type (the
// latency-raw PNG is taller than one plot).
func TestTimeAxesLineUp(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, pauseResult(dir))
	want := -1
	for _, f := range []string{store.HoldersFile, store.LatencyRawFile, store.LatencyQuantileFile, store.RateFile, store.FencingFile} {
		b := []byte(storetest.Read(t, dir, f))
		img := must[image.Image](t)(png.Decode(bytes.NewReader(b)))
		x := axisColumn(img)
		t.Logf("%s: y axis at x=%d px, %v", f, x, img.Bounds().Size())
		if x < 0 {
			t.Fatalf("%s: no y axis found", f)
		}
		if want < 0 {
			want = x
		} else if d := x - want; d < -1 || d > 1 {
			t.Errorf("%s: y axis at x=%d px, holders.png's at %d: the time axes do not line up", f, x, want)
		}
		if f == store.LatencyRawFile {
			if h := img.Bounds().Dy(); h < 4*int(panelHeight.Dots(figDPI)) {
				t.Errorf("latency-raw.png is %d px high: not one panel per operation type (4 types)", h)
			}
		}
	}
	// The axis line sits a few points left of the data area (the axis'
	// padding), which starts at axisLeft.
	if wantPx := int(axisLeft.Dots(figDPI)); want < wantPx-12 || want > wantPx {
		t.Errorf("y axis at x=%d px, want just left of axisLeft = %d px", want, wantPx)
	}
}

// A very narrow range (a constant latency) is labelled at every multiple
// inside it.
func TestMsLogTicksLabelVeryNarrowRanges(t *testing.T) {
	var labels []string
	for _, tk := range (msLogTicks{}).Ticks(0.25, 0.45) {
		if tk.Label != "" && tk.Value >= 0.25 && tk.Value <= 0.45 {
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Equal(labels, []string{"0.3 ms", "0.4 ms"}) {
		t.Errorf("labels in [0.25, 0.45] = %v, want [0.3 ms 0.4 ms]", labels)
	}
}
