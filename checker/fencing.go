package checker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// StaleError is the Error of a write or fenced read the resource rejected
// because its fencing token was lower than one it had accepted. A fail
// whose Error is StaleError or starts with StaleError+":" counts as such a
// rejection: the op certainly took no effect.
const StaleError = "stale"

// IsStale reports whether a write's error text is a fencing rejection.
func IsStale(err string) bool {
	return err == StaleError || strings.HasPrefix(err, StaleError+":")
}

// Fencing checks fencing tokens:
//
//   - accepted: the tokens the resource accepted on one key never go down;
//     a fenced read (a read carrying a token) accepts its token as a write
//     does. A write accepted (ok) with a token lower than a write's or
//     fenced read's accepted on the key before it was invoked is a stale
//     write accepted (fencing not enforced, or broken); a read so is a
//     stale read accepted, reported but not fatal (a read changes
//     nothing). Ops overlapping in time are not compared; equal tokens are
//     fine (one lease, several ops); reads of unknown outcome raise nothing.
//   - rejected: writes and reads failed with StaleError are counted:
//     fencing at work, a stale holder kept out, not a failure.
//   - issued: the tokens the lock issued on one key (acquire ok Fence)
//     strictly increase: an acquire invoked after another completed must get
//     a higher token, and no two acquires get the same one.
//
// Ops with Fence 0 carry no token and are skipped; a history with none is
// Valid with Applicable false.
//
// When Log holds the resource's own write log (digested as it was read,
// see ServerLog), the checker also reads the accepted order from it: that
// catches stale writes accepted whose order the history leaves open.
type Fencing struct {
	Log *ServerLog
}

// serverLog is the server log to check against, nil when there is none.
func (f Fencing) serverLog() *ServerLog {
	if f.Log.empty() {
		return nil
	}
	return f.Log
}

// Name is "fencing".
func (Fencing) Name() string { return "fencing" }

// FencingStats are the fencing checker's counts.
type FencingStats struct {
	Applicable bool `json:"applicable"`
	// Writes with a token, by outcome at the resource.
	Accepted int64 `json:"accepted"`
	Rejected int64 `json:"rejected"` // failed with StaleError
	Failed   int64 `json:"failed"`   // failed otherwise
	Unknown  int64 `json:"unknown"`  // info or never completed
	// StaleAccepted: accepted with a token lower than one accepted before.
	StaleAccepted int64 `json:"stale_accepted"`
	// Reads with a token (fenced reads), by outcome: accepted (ok),
	// rejected (failed with StaleError), and accepted although their
	// token was lower than one accepted before (no fencing).
	ReadsAccepted      int64 `json:"reads_accepted"`
	ReadsRejected      int64 `json:"reads_rejected"`
	StaleReadsAccepted int64 `json:"stale_reads_accepted"`
	// Issued is the number of acquires that returned a token;
	// IssuedNotIncreasing those whose token was not above every token
	// issued on that key before they were invoked, or repeated one.
	Issued              int64 `json:"issued"`
	IssuedNotIncreasing int64 `json:"issued_not_increasing"`
	Unfenced            int64 `json:"unfenced"` // writes without a token
	// From the resource's own log, when given: stale writes it accepted
	// and stale writes it rejected.
	ServerStaleAccepted int64 `json:"server_stale_accepted"`
	ServerStaleRejected int64 `json:"server_stale_rejected"`
	// The same for fenced reads in the resource's log.
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
	fk := v.keys[k]
	if fk == nil {
		fk = &fenceKey{name: k, writes: fenceMax{curT: -1 << 62}, issued: fenceMax{curT: -1 << 62}}
		v.keys[k] = fk
	}
	return fk
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

// complete takes the completion o of process o.Process's write or fenced
// read (o nil: never completed): a fail with StaleError is an op the
// resource rejected; an accepted read raises the key's token like a
// write.
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

// fencingRun feeds records, in time order, to a fenceValidator; with a
// server log it also gathers the fenced ops that name the stale writes
// the log shows (only those: see ServerLog.wanted).
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
		r.server = newServerOps(log.wanted())
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

// Check is the fencing check of h: the engine over the slice with this
// checker alone (see checkPart).
func (f Fencing) Check(ctx context.Context, h history.History) Result { return checkPart(ctx, f, h) }

// startStream gives the engine's fencing summary the server's log.
func (f Fencing) startStream(st *stream) { st.fence = newFencingRun(f.serverLog()) }

// streamResult is the fencing summary's verdict.
func (f Fencing) streamResult(st *stream) Result {
	st.fence.end()
	st.fence.v.Stats.ElapsedMS = time.Since(st.start).Milliseconds()
	return st.fence.v.Result()
}
