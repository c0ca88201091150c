package checker

import (
	"context"
	"fmt"
	"slices"
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

// WriteOutcome is how the resource answered a write.
type WriteOutcome uint8

// Write outcomes for FenceValidator.CompleteWrite.
const (
	WriteAccepted WriteOutcome = iota // ok
	WriteStale                        // fail with StaleError
	WriteFailed                       // fail, other reason
	WriteUnknown                      // info
)

// FenceValidator is the streaming core of the Fencing checker, fed events
// in time order (a process's invokes and completions alternating), in
// O(keys + processes) memory. Not safe for concurrent use.
type FenceValidator struct {
	Stats     FencingStats
	anomalies anomalyList

	keyIDs    map[string]int32
	lastKey   string
	lastKeyID int32
	writes    []fenceMax            // by key id: accepted tokens (writes and fenced reads)
	issued    []fenceMax            // by key id: issued tokens
	seen      []*denseMap[int64]    // by key id: issued token -> its acquire's index
	pending   []fencePending        // by process, for processes below maxDenseProc
	far       map[int]*fencePending // the other processes
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

type fencePending struct {
	active bool
	read   bool // a fenced read, not a write
	key    int32
	fence  int64
	idx    int64
	prior  int64 // highest token completed on the key before the invoke
}

// NewFenceValidator returns an empty validator.
func NewFenceValidator() *FenceValidator {
	return &FenceValidator{keyIDs: map[string]int32{}, lastKeyID: -1}
}

func (v *FenceValidator) key(k string) int32 {
	if v.lastKeyID >= 0 && k == v.lastKey {
		return v.lastKeyID
	}
	id, ok := v.keyIDs[k]
	if !ok {
		id = int32(len(v.writes))
		v.keyIDs[k] = id
		v.writes = append(v.writes, fenceMax{curT: -1 << 62})
		v.issued = append(v.issued, fenceMax{curT: -1 << 62})
		v.seen = append(v.seen, nil)
	}
	v.lastKey, v.lastKeyID = k, id
	return id
}

// maxDenseProc bounds the processes whose pending op lives in a slice
// indexed by process: a history with huge process ids (pids, random ids)
// must not allocate a slot for every id below them.
const maxDenseProc = 1 << 20

// slot is process p's pending op, made on first use.
func (v *FenceValidator) slot(p int) *fencePending {
	if p >= maxDenseProc {
		if v.far == nil {
			v.far = map[int]*fencePending{}
		}
		w := v.far[p]
		if w == nil {
			w = &fencePending{}
			v.far[p] = w
		}
		return w
	}
	if p >= len(v.pending) {
		v.pending = append(v.pending, make([]fencePending, p+1-len(v.pending))...)
	}
	return &v.pending[p]
}

// pendingOf is process p's pending op, nil if it never had one.
func (v *FenceValidator) pendingOf(p int) *fencePending {
	switch {
	case p < 0:
		return nil
	case p < len(v.pending):
		return &v.pending[p]
	case p >= maxDenseProc:
		return v.far[p]
	}
	return nil
}

// InvokeWrite records a write's invoke: process p sends fence on key at t
// (record index idx).
func (v *FenceValidator) InvokeWrite(p int, key string, fence, t, idx int64) {
	v.invoke(p, key, fence, t, idx, false)
}

// invoke records a write's or (read) a fenced read's invoke (see
// InvokeWrite). Unfenced ops (fence 0) are not tracked.
func (v *FenceValidator) invoke(p int, key string, fence, t, idx int64, read bool) {
	if p < 0 {
		return
	}
	if fence == 0 {
		if !read {
			v.Stats.Unfenced++
		}
		*v.slot(p) = fencePending{}
		return
	}
	k := v.key(key)
	*v.slot(p) = fencePending{active: true, read: read, key: k, fence: fence, idx: idx, prior: v.writes[k].before(t)}
}

// CompleteWrite records the completion of p's write (or fenced read) at t
// (record index idx). WriteStale is an op the resource rejected; an
// accepted read raises the key's accepted token like a write.
func (v *FenceValidator) CompleteWrite(p int, out WriteOutcome, t, idx int64) {
	w := v.pendingOf(p)
	if w == nil || !w.active {
		return
	}
	w.active = false
	v.Stats.Applicable = true
	if w.read {
		v.completeRead(w, out, t, idx)
		return
	}
	switch out {
	case WriteAccepted:
		v.Stats.Accepted++
		if w.fence < w.prior {
			v.Stats.StaleAccepted++
			v.anomalies.add(Anomaly{Kind: "stale-write-accepted", Fatal: true, Ops: []int64{w.idx, idx},
				Text: fmt.Sprintf("key %q: the resource accepted a write with token %d after it had accepted token %d (by a write or a fenced read)", v.keyName(w.key), w.fence, w.prior)})
		}
		v.writes[w.key].add(t, w.fence)
	case WriteStale:
		v.Stats.Rejected++
	case WriteFailed:
		v.Stats.Failed++
	default:
		v.Stats.Unknown++
	}
}

func (v *FenceValidator) completeRead(w *fencePending, out WriteOutcome, t, idx int64) {
	switch out {
	case WriteAccepted:
		v.Stats.ReadsAccepted++
		if w.fence < w.prior {
			v.Stats.StaleReadsAccepted++
			v.anomalies.add(Anomaly{Kind: "stale-read-accepted", Ops: []int64{w.idx, idx},
				Text: fmt.Sprintf("key %q: the resource served a read with token %d after it had accepted token %d: it does not fence reads", v.keyName(w.key), w.fence, w.prior)})
		}
		v.writes[w.key].add(t, w.fence)
	case WriteStale:
		v.Stats.ReadsRejected++
	}
}

// InvokeAcquire records an acquire's invoke by p on key at t.
func (v *FenceValidator) InvokeAcquire(p int, key string, t, idx int64) {
	if p < 0 {
		return
	}
	k := v.key(key)
	*v.slot(p) = fencePending{key: k, idx: idx, prior: v.issued[k].before(t)}
}

// CompleteAcquire records an acquire ok by p that returned fence at t.
// Failed and info acquires need no call.
func (v *FenceValidator) CompleteAcquire(p int, fence, t, idx int64) {
	w := v.pendingOf(p)
	if w == nil || fence == 0 {
		return
	}
	v.Stats.Applicable = true
	v.Stats.Issued++
	k := w.key
	if v.seen[k] == nil {
		v.seen[k] = &denseMap[int64]{}
	}
	prev, dup := v.seen[k].get(fence)
	if dup {
		v.Stats.IssuedNotIncreasing++
		v.anomalies.add(Anomaly{Kind: "fence-duplicate", Fatal: true, Ops: []int64{prev, w.idx, idx},
			Text: fmt.Sprintf("key %q: token %d was issued to two acquires", v.keyName(k), fence)})
	} else if fence <= w.prior {
		v.Stats.IssuedNotIncreasing++
		v.anomalies.add(Anomaly{Kind: "fence-not-increasing", Fatal: true, Ops: []int64{w.idx, idx},
			Text: fmt.Sprintf("key %q: acquire got token %d although token %d had been issued before it was invoked", v.keyName(k), fence, w.prior)})
	}
	v.seen[k].set(fence, idx, dup)
	v.issued[k].add(t, fence)
}

func (v *FenceValidator) keyName(id int32) string {
	for k, i := range v.keyIDs {
		if i == id {
			return k
		}
	}
	return "?"
}

// Result is the verdict so far.
func (v *FenceValidator) Result() Result {
	res := Result{Name: "fencing", Valid: v.anomalies.verdict(Valid), Anomalies: v.anomalies.list, Details: v.Stats}
	if !v.Stats.Applicable {
		res.NotApplicable = "no fencing tokens: the lock issued none and no write or read carried one"
	}
	return res
}

// fencingRun feeds records, in time order, to a FenceValidator; with a
// server log it also gathers the fenced ops that name the stale writes
// the log shows (only those: see ServerLog.wanted).
type fencingRun struct {
	v      *FenceValidator
	ops    history.Pairer // the open invokes
	server *serverOps
	log    *ServerLog
}

// newFencingRun starts the fencing check; log is the server log, nil
// when there is none.
func newFencingRun(log *ServerLog) *fencingRun {
	r := &fencingRun{v: NewFenceValidator(), log: log}
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
	v := r.v
	if o.Type == history.Invoke {
		if r.server != nil {
			r.server.invoke(o)
		}
		switch o.F {
		case history.FWrite, history.FRead:
			v.invoke(o.Process, o.Key, o.Fence, o.Time, o.Index, o.F == history.FRead)
		case history.FAcquire:
			v.InvokeAcquire(o.Process, o.Key, o.Time, o.Index)
		}
		return
	}
	if !paired || p.Completion == nil {
		return
	}
	if r.server != nil {
		r.server.complete(p.Invoke, o.Index)
	}
	if p.Invoke.F != o.F {
		return
	}
	switch o.F {
	case history.FWrite, history.FRead:
		out := WriteUnknown
		switch {
		case o.Type == history.OK:
			out = WriteAccepted
		case o.Type == history.Fail && IsStale(o.Error):
			out = WriteStale
		case o.Type == history.Fail:
			out = WriteFailed
		}
		v.CompleteWrite(o.Process, out, o.Time, o.Index)
	case history.FAcquire:
		if o.Type == history.OK {
			v.CompleteAcquire(o.Process, o.Fence, o.Time, o.Index)
		}
	}
}

// end completes the writes the history never completed and adds what
// the server log shows.
func (r *fencingRun) end() {
	for p, w := range r.v.pending {
		if w.active { // never completed
			r.v.CompleteWrite(p, WriteUnknown, 0, -1)
		}
	}
	far := make([]int, 0, len(r.v.far))
	for p := range r.v.far {
		far = append(far, p)
	}
	slices.Sort(far) // in process order, as the slice
	for _, p := range far {
		if r.v.far[p].active {
			r.v.CompleteWrite(p, WriteUnknown, 0, -1)
		}
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
