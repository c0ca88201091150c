package reports

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/internal/browsertest"
	"github.com/lockstorm/lockstorm/resource"
)

// Two writes of one value in flight at once (c3's paused from 0.85 s to
// 2.65 s, c2's at 1.88 s): each log entry goes to the earliest deadline.
func TestArrivalsEarliestDeadline(t *testing.T) {
	b := historytest.New()
	b.Append(history.Op{Time: 846 * ms, Type: history.Invoke, Process: 2, Client: "c3", F: history.FWrite, Key: "k", Value: 6})
	b.Append(history.Op{Time: 1877 * ms, Type: history.Invoke, Process: 1, Client: "c2", F: history.FWrite, Key: "k", Value: 6})
	b.Append(history.Op{Time: 1878 * ms, Type: history.OK, Process: 1, Client: "c2", F: history.FWrite, Key: "k", Value: 6})
	b.Append(history.Op{Time: 2654 * ms, Type: history.OK, Process: 2, Client: "c3", F: history.FWrite, Key: "k", Value: 6})
	b.Append(history.Op{Time: 2700 * ms, Type: history.Invoke, Process: 1, Client: "c2", F: history.FWrite, Key: "k", Value: 7})
	b.Append(history.Op{Time: 2800 * ms, Type: history.Info, Process: 1, Client: "c2", F: history.FWrite, Key: "k", Value: 7})
	writes := []resource.Write{
		{Time: 2653 * ms, Key: "k", Value: 6, Accepted: true},
		{Time: 1877*ms + 500_000, Key: "k", Value: 6, Accepted: true},
	}
	as := arrivals(b.History(), clientOps(b.History()), writes)
	if len(as) != 3 {
		t.Fatalf("%d arrivals, want 3", len(as))
	}
	if a := as[0]; a.Proc != 2 || !a.Known || a.Arrive != 2653*ms || a.Call != 846*ms {
		t.Errorf("c3's write: %+v", a)
	}
	if a := as[1]; a.Proc != 1 || !a.Known || a.Arrive != 1877*ms+500_000 {
		t.Errorf("c2's write: %+v", a)
	}
	if a := as[2]; a.Known || a.At() != 2700*ms {
		t.Errorf("the write that never arrived is drawn at its send, unknown: %+v", a)
	}
}

// The resource checker's lost-update anomaly naming two writes is one
// lost increment; its summary anomaly (naming one write) is not.
func TestLostPairs(t *testing.T) {
	res := pauseResult(t.TempDir())
	lost := lostPairs(historyOf(res), res.Verdict, nil)
	if len(lost) != 1 {
		t.Fatalf("lost increments %+v, want the one pair of writes of 1", lost)
	}
	for _, i := range []int64{lost[0].A, lost[0].B} {
		if r := historyOf(res)[i]; r.F != history.FWrite || r.Type != history.Invoke || r.Value != 1 {
			t.Errorf("op %d is %+v, not a write of 1", i, r)
		}
	}
	v := checker.Result{Name: "resource", Anomalies: []checker.Anomaly{{Kind: "lost-update", Ops: []int64{lost[0].A}}}}
	if got := lostPairs(historyOf(res), v, nil); len(got) != 0 {
		t.Errorf("a summary anomaly drawn as a lost increment: %+v", got)
	}
}

// A client pause is shaded on the paused client's row: the window's
// start record names c1, which is row 0 of two; a partition (no clients)
// covers every row. The chart renders with its arrivals and lost marks.
func TestClientFaultRows(t *testing.T) {
	h, writes := fencedPauseHistory()
	ws := checker.FaultWindows(h)
	rows := clientRows(h, ws, buildSlots(h, 2))
	if len(rows) != 1 || len(rows[0]) != 1 || rows[0][0] != 0 {
		t.Errorf("client-pause rows %v, want [[0]]", rows)
	}
	part := historytest.New().Append(h...).Nemesis(2100, history.Info, history.FStart, "partition").History()
	ws = checker.FaultWindows(part)
	if rows := clientRows(part, ws, buildSlots(part, 2)); len(rows) != 2 || rows[1] != nil {
		t.Errorf("partition rows %v, want none", rows)
	}
	png, err := holdersPNG(part, writes, []lostPair{{4, 7}}, ws, 2200*ms, 2)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("holders.png: %v", err)
	}
}

// holders.png draws c1's rejected write at its arrival (2.011 s, the
// axis's rightmost tenth), not its send (1.10 s, inside the lease).
func TestHoldersWriteAtArrival(t *testing.T) {
	h, writes := fencedPauseHistory()
	b := must[[]byte](t)(holdersPNG(h, writes, nil, checker.FaultWindows(h), 2014*ms, 2))
	img := must[image.Image](t)(png.Decode(bytes.NewReader(b)))
	bd := img.Bounds()
	red := color.RGBA{colFail.R, colFail.G, colFail.B, 0xff}
	n := 0
	for y := bd.Min.Y; y < bd.Max.Y-70; y++ { // above the legend strip
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if browsertest.Near(img.At(x, y), red, 6) {
				n++
				if x < bd.Max.X*9/10 {
					t.Fatalf("red pixel at x=%d of %d: a rejected write drawn before its arrival", x, bd.Dx())
				}
			}
		}
	}
	if n < 10 {
		t.Errorf("%d red pixels: no ✕ for the rejected write", n)
	}
}
