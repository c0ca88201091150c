package checker

import (
	"fmt"
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// ServerWrite is one write or fenced read (Read; Value is then the value
// read) as the resource itself logged it, in the order it handled them, at
// Time (ns since the run started).
type ServerWrite struct {
	Key      string `json:"key"`
	Value    int64  `json:"value"`
	Fence    int64  `json:"fence"`
	Accepted bool   `json:"accepted"`
	Read     bool   `json:"read,omitempty"`
	Time     int64  `json:"time"`
}

// ServerLog is what the fencing checker keeps of the resource's own log,
// read in order: its counts of stale writes and reads, the stale writes it
// accepted, and the keys' highest tokens. The zero value is an empty log.
type ServerLog struct {
	entries int64 // Add calls: a log of none is no log
	stats   serverStats
	stale   []staleWrite
	max     map[string]int64 // key -> highest token accepted so far
	byRead  map[string]bool  // the key's highest token was set by a read
}

// serverStats are the counts the log shows (see FencingStats).
type serverStats struct {
	applicable                      bool
	staleAccepted, staleRejected    int64
	staleReadAccepted, staleReadRej int64
}

// staleWrite is a write the resource accepted with a token below prev
// (set by a fenced read if byRead).
type staleWrite struct {
	key                string
	fence, value, prev int64
	time               int64
	byRead             bool
}

// NewServerLog digests log (see ServerLog).
func NewServerLog(log []ServerWrite) *ServerLog {
	l := &ServerLog{}
	for i := range log {
		l.Add(&log[i])
	}
	return l
}

// Add takes the log's next entry.
func (l *ServerLog) Add(w *ServerWrite) {
	l.entries++
	if w.Fence == 0 {
		return
	}
	if l.max == nil {
		l.max, l.byRead = map[string]int64{}, map[string]bool{}
	}
	l.stats.applicable = true
	prev, seen := l.max[w.Key]
	stale := seen && w.Fence < prev
	switch {
	case w.Read && stale && w.Accepted:
		l.stats.staleReadAccepted++
	case w.Read && stale:
		l.stats.staleReadRej++
	case w.Read:
	case stale && w.Accepted:
		l.stats.staleAccepted++
		l.stale = append(l.stale, staleWrite{key: w.Key, fence: w.Fence, value: w.Value, prev: prev, time: w.Time, byRead: l.byRead[w.Key]})
	case stale:
		l.stats.staleRejected++
	}
	if w.Accepted && (!seen || w.Fence > prev) {
		l.max[w.Key] = w.Fence
		l.byRead[w.Key] = w.Read
	}
}

// wanted are the fenced writes and reads that name the stale writes
// accepted.
func (l *ServerLog) wanted() map[wkey]bool {
	want := map[wkey]bool{}
	for _, s := range l.stale {
		want[wkey{s.key, s.fence, s.value}] = true
		if s.byRead {
			want[wkey{s.key, s.prev, 0}] = true
		}
	}
	return want
}

// wkey names a write (or, with value 0, a fenced read) in the server log.
type wkey struct {
	key          string
	fence, value int64
}

// serverOps are the history's fenced writes and reads in want by key,
// token and value: each op's invoke index followed by its completion's.
type serverOps struct {
	writes map[wkey][]int64 // -> invoke indices, in order
	reads  map[wkey][]int64 // fenced reads by key and token (value 0)
	want   map[wkey]bool
}

// keyOf is where invoke o goes; nil if not a fenced op or not wanted.
func (m *serverOps) keyOf(o *history.Op) (map[wkey][]int64, wkey) {
	mp, k := m.writes, wkey{o.Key, o.Fence, o.Value}
	switch {
	case o.Fence != 0 && o.F == history.FRead:
		mp, k = m.reads, wkey{o.Key, o.Fence, 0}
	case o.Fence == 0 || (o.F != history.FWrite && o.F != history.FRun && o.F != history.FLead):
		return nil, wkey{}
	}
	if !m.want[k] {
		return nil, wkey{}
	}
	return mp, k
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

// check adds what the server log shows to v: its counts, and each stale
// write accepted that the history did not show, named by its ops (and
// those of the read that set the higher token).
func (m *serverOps) check(v *fenceValidator, l *ServerLog) {
	known := map[string]bool{} // anomalies the history already showed
	for _, a := range v.anomalies.list {
		known[fmt.Sprint(a.Ops)] = true
	}
	st := &v.Stats
	st.Applicable = st.Applicable || l.stats.applicable
	st.ServerStaleAccepted += l.stats.staleAccepted
	st.ServerStaleRejected += l.stats.staleRejected
	st.ServerStaleReadsAccepted += l.stats.staleReadAccepted
	st.ServerStaleReadsRejected += l.stats.staleReadRej
	for _, s := range l.stale {
		ops := m.writes[wkey{s.key, s.fence, s.value}]
		if known[fmt.Sprint(ops)] {
			continue
		}
		by := ""
		if s.byRead {
			by = " on a fenced read"
			ops = append(slices.Clone(ops), m.reads[wkey{s.key, s.prev, 0}]...)
			slices.Sort(ops)
		}
		v.anomalies.add(Anomaly{Kind: "stale-write-accepted", Fatal: true, Ops: ops,
			Text: fmt.Sprintf("key %q: the resource accepted token %d at %s after it had accepted token %d%s (its own log)",
				s.key, s.fence, fmtDur(s.time), s.prev, by)})
	}
}
