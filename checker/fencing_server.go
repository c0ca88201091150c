package checker

import (
	"fmt"
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// ServerWrite is one write or fenced read as the resource itself logged
// it, in the order it handled them: the authoritative account of what it
// accepted. The history alone cannot always order a write delayed in
// flight (a paused client's) against others; the resource's log can.
type ServerWrite struct {
	Key      string `json:"key"`
	Value    int64  `json:"value"`
	Fence    int64  `json:"fence"`
	Accepted bool   `json:"accepted"`
	// Read marks a fenced read; accepted, it raised the key's highest
	// token like a write (Value is then the value read).
	Read bool `json:"read,omitempty"`
	// Time is when the resource handled it, ns since the run started.
	Time int64 `json:"time"`
}

// wkey names a write (or, with value 0, a fenced read) in the server log.
type wkey struct {
	key          string
	fence, value int64
}

// serverOps are the history's fenced writes and reads by key, token and
// value: each op's invoke index followed by its completion's.
type serverOps struct {
	writes map[wkey][]int64 // -> invoke indices, in order
	reads  map[wkey][]int64 // fenced reads by key and token (value 0)
}

func newServerOps() *serverOps {
	return &serverOps{writes: map[wkey][]int64{}, reads: map[wkey][]int64{}}
}

// keyOf is where invoke o goes; nil if it is neither a fenced read nor a
// fenced write.
func (m *serverOps) keyOf(o *history.Op) (map[wkey][]int64, wkey) {
	if o.Fence != 0 && o.F == history.FRead {
		return m.reads, wkey{o.Key, o.Fence, 0}
	}
	if o.Fence == 0 || (o.F != history.FWrite && o.F != history.FRun && o.F != history.FLead) {
		return nil, wkey{}
	}
	return m.writes, wkey{o.Key, o.Fence, o.Value}
}

func (m *serverOps) invoke(o *history.Op) {
	if mp, k := m.keyOf(o); mp != nil {
		mp[k] = append(mp[k], o.Index)
	}
}

// complete puts the completion at index c right after invoke inv.
func (m *serverOps) complete(inv *history.Op, c int64) {
	mp, k := m.keyOf(inv)
	if mp == nil {
		return
	}
	xs := mp[k]
	for i := len(xs) - 1; i >= 0; i-- {
		if xs[i] == inv.Index {
			mp[k] = slices.Insert(xs, i+1, c)
			return
		}
	}
}

// check adds what the server log shows (see checkServerLog) to v.
func (m *serverOps) check(v *FenceValidator, log []ServerWrite) {
	writes, reads := m.writes, m.reads
	known := map[string]bool{} // anomalies the history already showed
	for _, a := range v.anomalies.list {
		known[fmt.Sprint(a.Ops)] = true
	}
	max := map[string]int64{}
	byRead := map[string]bool{} // the key's highest token was set by a read
	for _, w := range log {
		if w.Fence == 0 {
			continue
		}
		v.Stats.Applicable = true
		prev, seen := max[w.Key]
		stale := seen && w.Fence < prev
		switch {
		case w.Read && stale && w.Accepted:
			v.Stats.ServerStaleReadsAccepted++
		case w.Read && stale:
			v.Stats.ServerStaleReadsRejected++
		case w.Read:
		case stale && w.Accepted:
			v.Stats.ServerStaleAccepted++
			ops := writes[wkey{w.Key, w.Fence, w.Value}]
			if known[fmt.Sprint(ops)] {
				break
			}
			by := ""
			if byRead[w.Key] {
				by = " on a fenced read"
				ops = append(slices.Clone(ops), reads[wkey{w.Key, prev, 0}]...)
				slices.Sort(ops)
			}
			v.anomalies.add(Anomaly{Kind: "stale-write-accepted", Fatal: true, Ops: ops,
				Text: fmt.Sprintf("key %q: the resource accepted token %d at %s after it had accepted token %d%s (its own log)",
					w.Key, w.Fence, fmtDur(w.Time), prev, by)})
		case stale:
			v.Stats.ServerStaleRejected++
		}
		if w.Accepted && (!seen || w.Fence > prev) {
			max[w.Key] = w.Fence
			byRead[w.Key] = w.Read
		}
	}
}
