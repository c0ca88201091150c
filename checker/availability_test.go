package checker

import (
	"reflect"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// availabilityNaive is the quadratic definition availability must match.
func availabilityNaive(r *livenessRun) []WindowAvailability {
	var out []WindowAvailability
	for i, w := range r.windows {
		wa := WindowAvailability{Window: w, RecoveryNS: -1}
		next := r.end
		for _, w2 := range r.windows[i+1:] {
			if w2.Start > w.End {
				next = min(next, w2.Start)
			}
		}
		for _, o := range r.acq {
			if w.Contains(o.Call) {
				wa.Invoked++
			}
			if o.Type != history.OK {
				continue
			}
			if w.Contains(o.Return) {
				wa.OK++
			}
			if o.Return > w.End && o.Return <= next {
				wa.AfterOK++
			}
			if o.Return > w.End && (wa.RecoveryNS < 0 || o.Return-w.End < wa.RecoveryNS) {
				wa.RecoveryNS = o.Return - w.End
			}
		}
		out = append(out, wa)
	}
	return out
}

// TestAvailabilityMatchesNaive: the streamed availability equals the
// quadratic definition, with disjoint windows and with overlapping ones.
func TestAvailabilityMatchesNaive(t *testing.T) {
	h := historytest.NewGen(7, 8, 3).Run(20_000, true)
	// overlapping windows: one long fault across many short ones, and one
	// never healed
	h = historytest.Sorted(historytest.New().Append(h...).Append(
		history.Op{Time: h[100].Time, Type: history.Info, Process: history.NemesisProcess, F: history.FStart, Fault: "pause"},
		history.Op{Time: h[5000].Time, Type: history.Info, Process: history.NemesisProcess, F: history.FStop, Fault: "pause"},
		history.Op{Time: h[9000].Time, Type: history.Info, Process: history.NemesisProcess, F: history.FStart, Fault: "crash"}).History())
	r := wholeRun(&Liveness{}, h)
	if len(r.windows) < 20 {
		t.Fatalf("only %d windows", len(r.windows))
	}
	got := streamLiveness(&Liveness{}, h).Details.(LivenessDetails).Windows
	if want := availabilityNaive(r); !reflect.DeepEqual(got, want) {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("window %d: got %+v want %+v", i, got[i], want[i])
			}
		}
		t.Fatal("windows differ")
	}
}

// serverLeases is the server's side of each lease of os (fillTokens
// applied), by acquire index: the latest extend ok's return + TTL and the
// invoke of the first release ok, as liveStream keeps them.
func serverLeases(os []op) map[int]*liveLease {
	out := map[int]*liveLease{}
	for i := range os {
		o := &os[i]
		if o.Type != history.OK || o.Lease < 0 || o.F != history.FExtend && o.F != history.FRelease {
			continue
		}
		l := out[o.Lease]
		if l == nil {
			l = &liveLease{}
			out[o.Lease] = l
		}
		switch {
		case o.F == history.FExtend && o.TTL > 0:
			l.extendedTo = max(l.extendedTo, satAdd(o.Return, o.TTL))
		case o.F == history.FRelease && !l.released:
			l.releasedAt, l.released = o.Call, true
		}
	}
	return out
}
