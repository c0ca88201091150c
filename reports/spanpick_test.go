package reports

import (
	"bytes"
	"image"
	"image/png"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// Spans around anomalies: each covers its anomaly's records padded
// either side, overlapping ones merge, fatal anomalies are picked first
// when there are more than the cap, the rest are counted, and a summary
// anomaly spread over the whole run gets a span around its last record.
func TestAnomalySpans(t *testing.T) {
	times := make([]int64, 100000) // record i at i ms: 100 s
	for i := range times {
		times[i] = int64(i)
	}
	h := historytest.At(times...)
	pad := int64(200 * ms)
	as := []checker.Anomaly{
		{Kind: "a", Ops: []int64{1000, 1100}},                  // 1.0–1.1 s
		{Kind: "b", Ops: []int64{1250}, Fatal: true},           // overlaps a's span once padded
		{Kind: "c", Ops: []int64{50000}},                       // 50 s
		{Kind: "d", Ops: []int64{70000}, Fatal: true},          // 70 s
		{Kind: "e", Ops: []int64{90000, 90010}},                // 90 s
		{Kind: "summary", Ops: []int64{5, 99000}},              // spread: span at 99 s
		{Kind: "nowhere", Ops: []int64{-1, int64(len(h)) + 5}}, // no span
	}
	ws, left := anomalySpans(timeIn(h), as, pad, endTime(h), 3)
	if len(ws) != 3 || left != 2 {
		t.Fatalf("%d spans, %d left, want 3 and 2 (5 after merging a and b)", len(ws), left)
	}
	// fatal first: a+b (fatal b) and d; then the earliest other: c.
	want := []struct {
		from, to  int64
		anomalies int
	}{{800 * ms, 1450 * ms, 2}, {49800 * ms, 50200 * ms, 1}, {69800 * ms, 70200 * ms, 1}}
	for i, w := range want {
		got := ws[i]
		if got.From != w.from || got.To != w.to || got.Anomalies != w.anomalies {
			t.Errorf("span %d: %v–%v holding %d, want %v–%v holding %d", i, got.From, got.To, got.Anomalies, w.from, w.to, w.anomalies)
		}
		for _, o := range got.Ops {
			if tm := h[o].Time; tm < got.From || tm > got.To {
				t.Errorf("span %d: op %d at %d outside it", i, o, tm)
			}
		}
	}
	if ws[0].Label() == "" || ws[0].Fatal != 1 {
		t.Errorf("merged span: %+v", ws[0])
	}
	all, left := anomalySpans(timeIn(h), as, pad, endTime(h), 10)
	if left != 0 || len(all) != 5 {
		t.Fatalf("uncapped: %d spans, %d left", len(all), left)
	}
	last := all[len(all)-1]
	if last.Kinds[0] != "summary" || last.From > 99000*ms || last.To < 99000*ms || last.To-last.From > 4*pad {
		t.Errorf("summary anomaly's span %+v, want a short one around 99 s", last)
	}
	if none, left := anomalySpans(timeIn(h), nil, pad, endTime(h), 3); len(none) != 0 || left != 0 {
		t.Errorf("no anomalies: %v, %d", none, left)
	}
}

// holders.png of a small run is one chart of fixed height; past
// maxDetailLeases the overview and a chart per span of the leases in it.
func TestHoldersBigRun(t *testing.T) {
	small, writes := pauseHistory()
	b, err := drawHolders(holdersArgs{d: historyDetail(small, writes, nil, 3), end: endTime(small), pad: spanPad(0),
		anomalies: []checker.Anomaly{{Kind: "x", Ops: []int64{3}}}})
	if err != nil {
		t.Fatal(err)
	}
	if hgt := pngHeight(t, b); hgt != int(figHeight.Dots(figDPI)) {
		t.Errorf("small run: holders.png %d px tall, want the fixed %v px", hgt, figHeight.Dots(figDPI))
	}
	h := bigHistory(30000, 8, 2)
	hs := holds(h, runLeases)
	if len(hs) <= maxDetailLeases {
		t.Fatalf("only %d leases: not a big run", len(hs))
	}
	end := endTime(h)
	mid := int64(len(h) / 2)
	as := []checker.Anomaly{{Kind: "overlap", Ops: []int64{mid, mid + 3}, Fatal: true}, {Kind: "lost-update", Ops: []int64{mid / 4}}}
	args := holdersArgs{d: detailOf(h, buildSlots(h, 8), nil, nil, nil, runLeases), end: end, pad: spanPad(300 * time.Millisecond), anomalies: as, overview: passOf(t, h, nil, 8).overview}
	b = must[[]byte](t)(drawHolders(args))
	none := must[[]byte](t)(drawHolders(holdersArgs{d: args.d, end: end, pad: args.pad, overview: args.overview}))
	if hb, hn := pngHeight(t, b), pngHeight(t, none); hb <= hn+300 {
		t.Errorf("big run: %d px with two anomaly spans, %d px with none: want the spans' charts below the overview", hb, hn)
	}
	from, to := h[mid].Time-args.pad, h[mid].Time+args.pad
	w := args.d.between(from, to)
	if len(w.hs) == 0 || len(w.hs) > len(hs)/10 {
		t.Fatalf("the span kept %d of %d leases", len(w.hs), len(hs))
	}
	for _, ho := range w.hs {
		if ho.Start > to || max(ho.End, ho.Validity) < from {
			t.Errorf("lease %v..%v kept outside %v..%v", ho.Start, ho.End, from, to)
		}
	}
}

func pngHeight(t *testing.T, b []byte) int {
	t.Helper()
	return must[image.Config](t)(png.DecodeConfig(bytes.NewReader(b))).Height
}
