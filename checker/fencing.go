package checker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// StaleError is the Error (alone or before ":") of a write or fenced read
// the resource rejected for a token lower than one it had accepted.
const StaleError = "stale"

// IsStale reports whether a write's error text is a fencing rejection.
func IsStale(err string) bool {
	return err == StaleError || strings.HasPrefix(err, StaleError+":")
}

// Fencing checks fencing tokens (Fence 0: none):
//
//   - accepted: a write accepted with a token lower than one a write or
//     fenced read had accepted on the key before it was invoked is a stale
//     write accepted; a read so is a stale read accepted (not fatal). Ops
//     overlapping in time are not compared; equal tokens are fine.
//   - rejected: ops failed with StaleError are counted (fencing at work).
//   - issued: an acquire invoked after another completed gets a higher
//     token, and no two acquires get the same one.
//
// Log, the resource's own write log, orders what the history leaves open.
type Fencing struct {
	Log *ServerLog
}

// serverLog is the server log to check against, nil when there is none.
func (f Fencing) serverLog() *ServerLog {
	if f.Log == nil || f.Log.entries == 0 {
		return nil
	}
	return f.Log
}

// Name is "fencing".
func (Fencing) Name() string { return "fencing" }

// FencingStats are the fencing checker's counts: writes with a token by
// outcome (rejected: failed with StaleError; unknown: info or never
// completed) and those stale accepted; fenced reads likewise; acquires
// that returned a token and those not above every token issued on the key
// before they were invoked (or repeating one); writes without a token;
// and the stale writes and reads the resource's own log shows.
type FencingStats struct {
	Applicable               bool  `json:"applicable"`
	Accepted                 int64 `json:"accepted"`
	Rejected                 int64 `json:"rejected"`
	Failed                   int64 `json:"failed"`
	Unknown                  int64 `json:"unknown"`
	StaleAccepted            int64 `json:"stale_accepted"`
	ReadsAccepted            int64 `json:"reads_accepted"`
	ReadsRejected            int64 `json:"reads_rejected"`
	StaleReadsAccepted       int64 `json:"stale_reads_accepted"`
	Issued                   int64 `json:"issued"`
	IssuedNotIncreasing      int64 `json:"issued_not_increasing"`
	Unfenced                 int64 `json:"unfenced"`
	ServerStaleAccepted      int64 `json:"server_stale_accepted"`
	ServerStaleRejected      int64 `json:"server_stale_rejected"`
	ServerStaleReadsAccepted int64 `json:"server_stale_reads_accepted"`
	ServerStaleReadsRejected int64 `json:"server_stale_reads_rejected"`
	ElapsedMS                int64 `json:"elapsed_ms"`
}

// fenceValidator is the streaming core of the Fencing checker, fed
// records in time order, in O(keys + processes) memory.
type fenceValidator struct {
	Stats     FencingStats
	anomalies anomalyList
	keys      map[string]*fenceKey
	pending   map[int]fencePending // process -> its fenced op or acquire in flight
}

// fenceKey is one key's accepted tokens (writes and fenced reads), issued
// tokens, and each issued token's acquire index.
type fenceKey struct {
	name           string
	writes, issued fenceMax
	seen           denseMap[int64]
}

// fenceMax tracks the highest token among events strictly before a time:
// max covers times < curT, curMax the events at curT.
type fenceMax struct {
	max, curMax, curT int64
}

func (f *fenceMax) before(t int64) int64 {
	if t > f.curT {
		return max(f.max, f.curMax)
	}
	return f.max
}

func (f *fenceMax) add(t, fence int64) {
	if t > f.curT {
		f.max = max(f.max, f.curMax)
		f.curMax, f.curT = fence, t
	} else {
		f.curMax = max(f.curMax, fence)
	}
}

// fencePending is an op in flight: prior is the highest token completed
// on its key before its invoke (accepted for a write or read, issued for
// an acquire).
type fencePending struct {
	acquire, read     bool
	key               *fenceKey
	fence, idx, prior int64
}

func (v *fenceValidator) key(k string) *fenceKey {
	return entry(v.keys, k, func() *fenceKey {
		return &fenceKey{name: k, writes: fenceMax{curT: -1 << 62}, issued: fenceMax{curT: -1 << 62}}
	})
}

// invoke takes a client invoke: a write's or fenced read's (fence 0 is
// not tracked), or an acquire's.
func (v *fenceValidator) invoke(o *history.Op) {
	p := o.Process
	switch {
	case p < 0 || o.F != history.FWrite && o.F != history.FRead && o.F != history.FAcquire:
	case o.F == history.FAcquire:
		k := v.key(o.Key)
		v.pending[p] = fencePending{acquire: true, key: k, idx: o.Index, prior: k.issued.before(o.Time)}
	case o.Fence == 0:
		if o.F == history.FWrite {
			v.Stats.Unfenced++
		}
		delete(v.pending, p)
	default:
		k := v.key(o.Key)
		v.pending[p] = fencePending{read: o.F == history.FRead, key: k, fence: o.Fence, idx: o.Index, prior: k.writes.before(o.Time)}
	}
}

// complete takes the completion o of process p's write or fenced read
// (nil: never completed); an accepted read raises the key's token too.
func (v *fenceValidator) complete(p int, o *history.Op) {
	w, ok := v.pending[p]
	if !ok || w.acquire {
		return
	}
	delete(v.pending, p)
	v.Stats.Applicable = true
	typ, idx, t := history.Info, int64(-1), int64(0)
	if o != nil {
		typ, idx, t = o.Type, o.Index, o.Time
	}
	st := &v.Stats
	stale := typ == history.Fail && IsStale(o.Error)
	switch {
	case typ == history.OK && w.fence < w.prior && w.read:
		st.StaleReadsAccepted++
		v.anomalies.add(Anomaly{Kind: "stale-read-accepted", Ops: []int64{w.idx, idx},
			Text: fmt.Sprintf("key %q: the resource served a read with token %d after it had accepted token %d: it does not fence reads", w.key.name, w.fence, w.prior)})
	case typ == history.OK && w.fence < w.prior:
		st.StaleAccepted++
		v.anomalies.add(Anomaly{Kind: "stale-write-accepted", Fatal: true, Ops: []int64{w.idx, idx},
			Text: fmt.Sprintf("key %q: the resource accepted a write with token %d after it had accepted token %d (by a write or a fenced read)", w.key.name, w.fence, w.prior)})
	}
	switch {
	case typ == history.OK:
		w.key.writes.add(t, w.fence)
		if w.read {
			st.ReadsAccepted++
		} else {
			st.Accepted++
		}
	case stale && w.read:
		st.ReadsRejected++
	case w.read:
	case stale:
		st.Rejected++
	case typ == history.Fail:
		st.Failed++
	default:
		st.Unknown++
	}
}

// completeAcquire takes acquire ok o of process p.
func (v *fenceValidator) completeAcquire(p int, o *history.Op) {
	w, ok := v.pending[p]
	if !ok || !w.acquire || o.Fence == 0 {
		return
	}
	delete(v.pending, p)
	v.Stats.Applicable = true
	v.Stats.Issued++
	k, fence := w.key, o.Fence
	prev, dup := k.seen.get(fence)
	if dup {
		v.Stats.IssuedNotIncreasing++
		v.anomalies.add(Anomaly{Kind: "fence-duplicate", Fatal: true, Ops: []int64{prev, w.idx, o.Index},
			Text: fmt.Sprintf("key %q: token %d was issued to two acquires", k.name, fence)})
	} else if fence <= w.prior {
		v.Stats.IssuedNotIncreasing++
		v.anomalies.add(Anomaly{Kind: "fence-not-increasing", Fatal: true, Ops: []int64{w.idx, o.Index},
			Text: fmt.Sprintf("key %q: acquire got token %d although token %d had been issued before it was invoked", k.name, fence, w.prior)})
	}
	k.seen.set(fence, o.Index, dup)
	k.issued.add(o.Time, fence)
}

// Result is the verdict so far.
func (v *fenceValidator) Result() Result {
	res := Result{Name: "fencing", Valid: v.anomalies.verdict(Valid), Anomalies: v.anomalies.list, Details: v.Stats}
	if !v.Stats.Applicable {
		res.NotApplicable = "no fencing tokens: the lock issued none and no write or read carried one"
	}
	return res
}

// fencingRun feeds records, in time order, to a fenceValidator and
// gathers the ops that name the stale writes the server log shows.
type fencingRun struct {
	v      *fenceValidator
	ops    history.Pairer // the open invokes
	server *serverOps
	log    *ServerLog
}

// newFencingRun starts the fencing check; log is the server log, nil
// when there is none.
func newFencingRun(log *ServerLog) *fencingRun {
	r := &fencingRun{v: &fenceValidator{keys: map[string]*fenceKey{}, pending: map[int]fencePending{}}, log: log}
	if log != nil {
		r.server = &serverOps{writes: map[wkey][]int64{}, reads: map[wkey][]int64{}, want: log.wanted()}
	}
	return r
}

// feed takes one record.
func (r *fencingRun) feed(o *history.Op) {
	if o.IsNemesis() {
		return
	}
	p, paired := r.ops.Add(o)
	if o.Type == history.Invoke {
		if r.server != nil {
			r.server.invoke(o)
		}
		r.v.invoke(o)
		return
	}
	if !paired || p.Completion == nil {
		return
	}
	if r.server != nil {
		r.server.complete(p.Invoke, o.Index)
	}
	switch {
	case p.Invoke.F != o.F:
	case o.F == history.FWrite || o.F == history.FRead:
		r.v.complete(o.Process, o)
	case o.F == history.FAcquire && o.Type == history.OK:
		r.v.completeAcquire(o.Process, o)
	}
}

// end completes the writes the history never completed and adds what
// the server log shows.
func (r *fencingRun) end() {
	for p := range r.v.pending {
		r.v.complete(p, nil)
	}
	if r.server != nil {
		r.server.check(r.v, r.log)
	}
}

// Check is the fencing check of h (see checkPart).
func (f Fencing) Check(ctx context.Context, h history.History) Result { return checkPart(ctx, f, h) }

// startStream gives the engine's fencing summary the server's log.
func (f Fencing) startStream(st *stream) { st.fence = newFencingRun(f.serverLog()) }

// streamResult is the fencing summary's verdict.
func (f Fencing) streamResult(st *stream) Result {
	st.fence.end()
	st.fence.v.Stats.ElapsedMS = time.Since(st.start).Milliseconds()
	return st.fence.v.Result()
}
