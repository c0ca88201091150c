package checker

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// Lock checks the lock's own promise: porcupine linearizability of
// acquire / release / extend per lock key against the lease-aware mutex
// model documented in lockmodel.go. It does not look at the resource: a
// client that outlives its lease (a pause) is not the lock's fault and
// does not make this checker invalid.
type Lock struct {
	// Drift and DriftFactor are the clock-drift allowance the algorithm
	// assumes: a lease with TTL ttl invoked at c lasts at least until
	// c + ttl − (Drift + DriftFactor·ttl). Larger is more permissive.
	Drift       time.Duration
	DriftFactor float64
	// Timeout bounds the porcupine search; when it runs out the verdict is
	// Unknown, never Valid. 0 means DefaultTimeout. A context deadline, if
	// sooner, wins.
	Timeout time.Duration
	// StrictNotHeld makes a failed release or extend of the holder's token
	// a claim that the lock was not held: allowed only once the lease may
	// have expired. Set it only for locks whose release/extend fail means
	// exactly "not held" (ErrNotHeld) and never a network problem.
	StrictNotHeld bool
}

// Defaults used by NewLock and for a zero Timeout.
const (
	DefaultDrift       = lease.FixedDrift
	DefaultDriftFactor = lease.DriftFactor
	DefaultTimeout     = 60 * time.Second
)

// NewLock returns a lock checker with Redlock's drift assumption (2 ms +
// 1% of the TTL) and the default timeout.
func NewLock() *Lock {
	return &Lock{Drift: DefaultDrift, DriftFactor: DefaultDriftFactor, Timeout: DefaultTimeout}
}

// Name is "lock".
func (l *Lock) Name() string { return "lock" }

// LockDetails summarises a lock check.
type LockDetails struct {
	Keys    int `json:"keys"`
	Ops     int `json:"ops"` // operations given to porcupine
	Acquire struct {
		OK   int `json:"ok"`
		Fail int `json:"fail"`
		Info int `json:"info"` // unknown outcome (see lockmodel.go)
		// InfoKept are info acquires kept in the search because a later
		// release or extend ok acted on their lease; the rest are left out.
		InfoKept int `json:"info_kept,omitempty"`
	} `json:"acquire"`
	// BoundedInfo counts releases and extends with unknown outcome whose
	// return time was bounded by a later acquire (see boundInfo).
	BoundedInfo int `json:"bounded_info"`
	// IllegalKeys are the keys whose history is not linearizable.
	IllegalKeys []string `json:"illegal_keys,omitempty"`
	ElapsedMS   int64    `json:"elapsed_ms"`
	// Linearization is the search, kept for drawing porcupine.html when
	// the check gave porcupine at most VisualizeMaxOps operations; nil
	// otherwise and in a result read back from results.json.
	Linearization *Linearization `json:"-"`
}

// lockSearch is what porcupine gets for one history's lock check.
type lockSearch struct {
	ops []porcupine.Operation
	// tokens[i] is the token of lease id i+1.
	tokens []string
	// infoAcq are the acquires with unknown outcome left out of the search.
	infoAcq []*op
	d       LockDetails
}

// lockBuild turns a history's ops into a lockSearch.
type lockBuild struct {
	l       *Lock
	os      []op
	used    map[int]bool    // acquires a later release or extend ok acted on
	leaseID map[int]int32   // acquire index in os -> lease id
	keys    map[string]bool // keys seen
	s       lockSearch
}

// lockOps turns the history into porcupine operations, with the token of
// each lease and the info acquires left out.
func (l *Lock) lockOps(h history.History) lockSearch {
	os := ops(h)
	fillTokens(os)
	b := &lockBuild{l: l, os: os, used: usedLater(os), leaseID: map[int]int32{}, keys: map[string]bool{}}
	for i := range os {
		o := &os[i]
		in := b.input(i)
		if in == nil {
			continue
		}
		b.keys[o.Key] = true
		md := fmt.Sprintf("ops %d,%d", o.Inv, o.Ret)
		if o.Ret < 0 {
			md = fmt.Sprintf("op %d (never completed)", o.Inv)
		}
		b.s.ops = append(b.s.ops, porcupine.Operation{
			ClientId: max(o.Process, 0), Input: in, Output: in.out, Call: o.Call, Return: o.Return, Metadata: md,
		})
	}
	b.s.d.Keys, b.s.d.Ops = len(b.keys), len(b.s.ops)
	b.s.d.BoundedInfo = boundInfo(b.s.ops)
	return b.s
}

// newID is a fresh lease id for a lease described by desc.
func (b *lockBuild) newID(desc string) int32 {
	b.s.tokens = append(b.s.tokens, desc)
	return int32(len(b.s.tokens))
}

// idOf is the lease id of the acquire at index i.
func (b *lockBuild) idOf(i int) int32 {
	if id, ok := b.leaseID[i]; ok {
		return id
	}
	id := b.newID(b.os[i].Token)
	b.leaseID[i] = id
	return id
}

// input is the model input of lock op i, counted in the details; nil for
// ops the search leaves out (not a lock op, a failed acquire, an info
// acquire nothing used, a failed release or extend unless StrictNotHeld).
func (b *lockBuild) input(i int) *lockInput {
	o := &b.os[i]
	var kind lockKind
	switch o.F {
	case history.FAcquire:
		kind = lkAcquire
	case history.FRelease:
		kind = lkRelease
	case history.FExtend:
		kind = lkExtend
	default:
		return nil
	}
	in := &lockInput{
		kind: kind, call: o.Call, ret: o.Return, key: o.Key, tokStr: o.Token,
		process: o.Process, inv: o.Inv, retIdx: o.Ret, ttl: o.TTL, leaseRet: Inf, out: outOf(o.Type),
	}
	if kind == lkAcquire && !b.countAcquire(i, in.out) || kind != lkAcquire && in.out == outFail && !b.l.StrictNotHeld {
		return nil
	}
	if o.Lease >= 0 {
		a := &b.os[o.Lease]
		in.lease, in.leaseRet = b.idOf(o.Lease), a.Return
		in.single = a.Nodes == 1
		if in.ttl == 0 {
			in.ttl = a.TTL
		}
	} else {
		in.lease = b.newID(o.Token)
	}
	if kind != lkRelease {
		b.l.bound(in, o)
	}
	return in
}

// outOf is the model outcome of a completion type.
func outOf(t history.Type) outcome {
	switch t {
	case history.OK:
		return outOK
	case history.Fail:
		return outFail
	}
	return outInfo
}

// countAcquire counts acquire i by outcome and says whether the search
// keeps it: oks, and info acquires a later release or extend ok used.
func (b *lockBuild) countAcquire(i int, out outcome) bool {
	a := &b.s.d.Acquire
	switch out {
	case outOK:
		a.OK++
	case outFail:
		a.Fail++
		return false
	case outInfo:
		a.Info++
		if !b.used[i] {
			b.s.infoAcq = append(b.s.infoAcq, &b.os[i])
			return false
		}
		a.InfoKept++
	}
	return true
}

// bound sets the lease bounds of an acquire or extend input: the expiry
// the server promised and, for a lease granted by one node, its life.
func (l *Lock) bound(in *lockInput, o *op) {
	in.exp = l.expiry(o.Call, in.ttl)
	// A validity the client recorded tightens the bound: a lock computes
	// it from the start of its final attempt (after the invoke, before
	// the server acted), so it is the same promise seen from a later
	// instant. It is capped by what the history alone allows (the server
	// acted before the return), so a lock that overstates its validity is
	// held to no more.
	if in.out == outOK && o.Validity > in.exp {
		in.exp = min(o.Validity, l.expiry(o.Return, in.ttl))
	}
	if in.single && in.ttl > 0 {
		in.life = max(l.expiry(0, in.ttl), 0)
	}
}

// boundInfo gives release and extend ops with unknown outcome a finite
// return time where it changes no verdict, so that porcupine need not try
// them at every later point: the Return of the earliest-returning acquire
// ok on the same key invoked at or after the op's call. That acquire is
// another lease (a lease is named by its acquire, and the op's own acquire
// returned before the op's call — ops whose lease acquire did not are left
// alone), and a lease never holds again once displaced, so once that
// acquire is linearized the op would be a no-op from then on; a no-op
// placed later can be moved to just after that acquire (its call precedes
// the acquire's, and `now` is no later than the acquire's return there),
// so the bound keeps every linearization the Inf return allowed. Repeated
// tokens do not matter: leases are compared, not tokens. It returns how
// many ops it bounded.
func boundInfo(ops []porcupine.Operation) int {
	type acq struct {
		call, ret int64 // ret: the least return from here on
		lease     int32 // the lease of the acquire with that return
	}
	byKey := map[string][]acq{}
	for _, o := range ops {
		in := o.Input.(*lockInput)
		if in.kind == lkAcquire && in.out == outOK {
			byKey[in.key] = append(byKey[in.key], acq{in.call, in.ret, in.lease})
		}
	}
	for k, as := range byKey {
		sort.Slice(as, func(i, j int) bool { return as[i].call < as[j].call })
		for i := len(as) - 2; i >= 0; i-- { // suffix minimum of returns
			if as[i+1].ret < as[i].ret {
				as[i].ret, as[i].lease = as[i+1].ret, as[i+1].lease
			}
		}
		byKey[k] = as
	}
	n := 0
	for i := range ops {
		in := ops[i].Input.(*lockInput)
		if in.kind == lkAcquire || in.out != outInfo || in.leaseRet > in.call {
			continue
		}
		as := byKey[in.key]
		j := sort.Search(len(as), func(j int) bool { return as[j].call >= in.call })
		if j < len(as) && as[j].ret < in.ret && as[j].lease != in.lease {
			in.ret = as[j].ret
			ops[i].Return = in.ret
			n++
		}
	}
	return n
}

// expiry is the instant a lease invoked at call with ttl must last until,
// saturated at Inf.
func (l *Lock) expiry(call, ttl int64) int64 {
	if ttl <= 0 {
		return Inf
	}
	return satAdd(call, ttl-int64(lease.Allowance(time.Duration(ttl), l.Drift, l.DriftFactor)))
}

// timeout is the porcupine budget given ctx.
func searchTimeout(ctx context.Context, t time.Duration) time.Duration {
	if t <= 0 {
		t = DefaultTimeout
	}
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < t {
			t = max(left, time.Millisecond)
		}
	}
	return t
}

// Check runs porcupine over every lock key in parallel. For a history of
// at most VisualizeMaxOps lock operations it keeps the search in the
// details (LockDetails.Linearization) for drawing.
func (l *Lock) Check(ctx context.Context, h history.History) (res Result) {
	start := time.Now()
	res.Name = l.Name()
	s := l.lockOps(h)
	d := &s.d
	defer func() { d.ElapsedMS = time.Since(start).Milliseconds(); res.Details = *d }()
	if d.Acquire.OK+d.Acquire.InfoKept == 0 {
		res.Valid, res.Error = Unknown, "no acquire succeeded: nothing to check"
		return res
	}
	timeout := searchTimeout(ctx, l.Timeout)
	model := lockModel(true, s.tokens)
	var r porcupine.CheckResult
	r, d.Linearization = search(model, s.ops, timeout, infoNotes(s.infoAcq))
	switch r {
	case porcupine.Ok:
		res.Valid = Valid
	case porcupine.Unknown:
		res.Valid, res.Error = Unknown, fmt.Sprintf("porcupine timed out after %s", timeout)
	case porcupine.Illegal:
		res.Valid = Invalid
		var al anomalyList
		for _, part := range partitionByKey(s.ops) {
			a, illegal := explainLock(model, part, searchTimeout(ctx, l.Timeout), s.tokens)
			if illegal {
				d.IllegalKeys = append(d.IllegalKeys, part[0].Input.(*lockInput).key)
				al.add(a)
			}
		}
		res.Anomalies = al.list
	}
	return res
}

// explainLock re-checks one key verbosely and names the op that could not
// be linearized (see unplaced). It also names the holder at that point.
func explainLock(model porcupine.Model, part []porcupine.Operation, timeout time.Duration, tokens []string) (Anomaly, bool) {
	longest, c, illegal := unplaced(model, part, timeout)
	if !illegal {
		return Anomaly{}, false
	}
	key := part[0].Input.(*lockInput).key
	state := model.Init()
	holderAcq := map[int32]*lockInput{} // lease id -> its acquire
	for _, o := range longest {
		li := o.Input.(*lockInput)
		_, state = model.Step(state, li, o.Output)
		if li.kind == lkAcquire {
			holderAcq[li.lease] = li
		}
	}
	a := Anomaly{Kind: "nonlinearizable", Fatal: true}
	if c == nil {
		a.Text = fmt.Sprintf("key %q: lock history is not linearizable", key)
		return a, true
	}
	culprit := c.Input.(*lockInput)
	s := state.(lockState)
	a.Ops = []int64{culprit.inv}
	if culprit.retIdx >= 0 {
		a.Ops = append(a.Ops, culprit.retIdx)
	}
	holder := "nobody"
	if s.holder != 0 {
		holder = tokens[s.holder-1]
		if ha := holderAcq[s.holder]; ha != nil {
			holder = fmt.Sprintf("%s (process %d, ops %d,%d)", holder, ha.process, ha.inv, ha.retIdx)
			a.Ops = append(a.Ops, ha.inv, ha.retIdx)
		}
	}
	sortInt64(a.Ops)
	switch {
	case culprit.ret < s.now:
		a.Text = fmt.Sprintf("key %q: %s %s by process %d returned at %s, but it must follow an acquire that could only take the lock at %s or later",
			key, culprit.kind, culprit.out, culprit.process, fmtTime(culprit.ret), fmtTime(s.now))
	case culprit.kind == lkAcquire:
		a.Text = fmt.Sprintf("key %q: acquire ok by process %d within [%s, %s] while the lock was held by %s whose lease the server promised until at least %s",
			key, culprit.process, fmtTime(culprit.call), fmtTime(culprit.ret), holder, fmtTime(s.exp))
	case culprit.out == outFail:
		a.Text = fmt.Sprintf("key %q: %s by process %d failed (not held) within [%s, %s] while its lease was promised until at least %s",
			key, culprit.kind, culprit.process, fmtTime(culprit.call), fmtTime(culprit.ret), fmtTime(s.exp))
	default:
		a.Text = fmt.Sprintf("key %q: %s ok by process %d with token %s, but the lock was held by %s",
			key, culprit.kind, culprit.process, culprit.tokStr, holder)
	}
	return a, true
}
