package checker

import (
	"fmt"

	"github.com/lockstorm/lockstorm/history"
)

// ServerWrite is one write as the resource itself logged it, in the order
// it handled them: the authoritative account of what it accepted. The
// history alone cannot always order a write delayed in flight (a paused
// client's) against others; the resource's log can.
type ServerWrite struct {
	Key      string `json:"key"`
	Value    int64  `json:"value"`
	Fence    int64  `json:"fence"`
	Accepted bool   `json:"accepted"`
	// Time is when the resource handled it, ns since the run started.
	Time int64 `json:"time"`
}

// checkServerLog adds what the resource's own log shows to v: every write
// it accepted with a token lower than one it had accepted before on the
// key is a stale write accepted, named by the history ops of that write
// (matched by key, value and token).
func checkServerLog(v *FenceValidator, log []ServerWrite, h history.History) {
	type wkey struct {
		key          string
		fence, value int64
	}
	writes := map[wkey][]int64{} // -> invoke indices, in order
	for _, p := range history.Pairs(h) {
		o := &h[p.Invoke]
		if o.Fence == 0 || (o.F != history.FWrite && o.F != history.FRun && o.F != history.FLead) {
			continue
		}
		k := wkey{o.Key, o.Fence, o.Value}
		writes[k] = append(writes[k], int64(p.Invoke))
		if p.Completion >= 0 {
			writes[k] = append(writes[k], int64(p.Completion))
		}
	}
	known := map[string]bool{} // anomalies the history already showed
	for _, a := range v.anomalies.list {
		known[fmt.Sprint(a.Ops)] = true
	}
	max := map[string]int64{}
	for _, w := range log {
		if w.Fence == 0 {
			continue
		}
		v.Stats.Applicable = true
		prev, seen := max[w.Key]
		stale := seen && w.Fence < prev
		switch {
		case stale && w.Accepted:
			v.Stats.ServerStaleAccepted++
			ops := writes[wkey{w.Key, w.Fence, w.Value}]
			if known[fmt.Sprint(ops)] {
				break
			}
			v.anomalies.add(Anomaly{Kind: "stale-write-accepted", Fatal: true, Ops: ops,
				Text: fmt.Sprintf("key %q: the resource accepted token %d at %s after it had accepted token %d (its own write log)",
					w.Key, w.Fence, fmtDur(w.Time), prev)})
		case stale:
			v.Stats.ServerStaleRejected++
		}
		if w.Accepted && w.Fence > prev {
			max[w.Key] = w.Fence
		}
	}
}
