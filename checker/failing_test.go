package checker

import (
	"context"
	"fmt"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A history cut into segments, failing the lock check in many of them,
// keeps the verbose searches of its maxDrawnSegments earliest failing
// segments only, whatever order their checks end in: each names its
// records, renumbers its rows and is Invalid on its own, and the
// earliest holds the lock's first anomaly.
func TestFailingSegmentsKeepTheirSearch(t *testing.T) {
	g := historytest.NewGen(7, 6, 2)
	g.Run(40_000, false)
	var n int
	for i := len(g.Leases) * 3 / 5; i < len(g.Leases); i += len(g.Leases) / 12 {
		l, p, tok := g.Leases[i], g.NewProcess(), fmt.Sprintf("intruder%d", i)
		c := l.OK + (l.RelInv-l.OK)/3
		g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FAcquire, Key: l.Key, TTL: g.TTL, Time: c})
		g.Rec(history.Op{Type: history.OK, Process: p, F: history.FAcquire, Key: l.Key, Token: tok, TTL: g.TTL, Validity: g.Validity(c), Time: c + historytest.US})
		g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: l.Key, Token: tok, Time: c + 2*historytest.US})
		g.Rec(history.Op{Type: history.OK, Process: p, F: history.FRelease, Key: l.Key, Token: tok, Time: c + 3*historytest.US})
		n++
	}
	h := g.History()
	res := Standard(Options{}).Check(context.Background(), h)
	var lock Result
	for _, r := range res.Results {
		if r.Name == "lock" {
			lock = r
		}
	}
	d := lock.Details.(LockDetails)
	if lock.Valid != Invalid || d.Linearization != nil || len(d.Failing) != maxDrawnSegments {
		t.Fatalf("lock %v, whole search %v, %d failing searches kept of %d injected; want Invalid, false, %d", lock.Valid, d.Linearization != nil, len(d.Failing), n, maxDrawnSegments)
	}
	for i, z := range d.Failing {
		if z.Valid() != Invalid || z.First <= 0 || z.Last < z.First || len(z.Processes) == 0 || i > 0 && z.Last <= d.Failing[i-1].Last {
			t.Errorf("failing search %d: %v, records %d..%d, rows %v", i, z.Valid(), z.First, z.Last, z.Processes)
		}
	}
	first := lock.Anomalies[0].Ops[0]
	for _, a := range lock.Anomalies {
		first = min(first, a.Ops[0])
	}
	if z := d.Failing[0]; first < z.First || first > z.Last {
		t.Errorf("the first anomaly's op %d is outside the earliest failing search's records %d..%d", first, z.First, z.Last)
	}
}
