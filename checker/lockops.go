package checker

import (
	"cmp"
	"fmt"
	"html"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/lease"
)

// lockSearch is what porcupine gets for one history's lock check.
type lockSearch struct {
	ops     []porcupine.Operation
	tokens  []string // tokens[i] is the token of lease id i+1
	infoAcq []*op    // acquires with unknown outcome left out of the search
	d       LockDetails
	now     int64 // the model's initial `now` (see seam.go)
}

// lockBuild turns a history's ops into a lockSearch.
type lockBuild struct {
	l       *Lock
	os      []op
	used    map[int]bool  // acquires a later release or extend ok acted on
	leaseID map[int]int32 // acquire index in os -> lease id
	s       lockSearch
}

// lockOpsOf turns a history's ops (fillTokens applied) into porcupine
// operations.
func (l *Lock) lockOpsOf(os []op) lockSearch {
	b := &lockBuild{l: l, os: os, used: map[int]bool{}, leaseID: map[int]int32{}}
	for _, o := range os { // a release or extend ok proves its lease's acquire took effect
		if (o.F == history.FRelease || o.F == history.FExtend) && o.Type == history.OK && o.Lease >= 0 {
			b.used[o.Lease] = true
		}
	}
	for i := range os {
		o := &os[i]
		in := b.input(i)
		if in == nil {
			continue
		}
		md := fmt.Sprintf("ops %d,%d", o.Inv, o.Ret)
		if o.Ret < 0 {
			md = fmt.Sprintf("op %d (never completed)", o.Inv)
		}
		if short := page.ShortToken(o.Token); short != o.Token {
			// the box shows the short token, the tooltip the whole one
			md += MetadataSep + "token " + html.EscapeString(o.Token)
		}
		b.s.ops = append(b.s.ops, porcupine.Operation{
			ClientId: max(o.Process, 0), Input: in, Output: in.out, Call: o.Call, Return: o.Return, Metadata: md,
		})
	}
	b.s.d.Ops = len(b.s.ops) // (Keys: see Lock.merge)
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
// ops the search leaves out.
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
		in.ttl = cmp.Or(in.ttl, a.TTL)
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
	a.count(b.os[i].Type)
	switch {
	case out == outInfo && b.used[i]:
		a.InfoKept++
	case out == outInfo:
		b.s.infoAcq = append(b.s.infoAcq, &b.os[i])
		return false
	}
	return out != outFail
}

// bound sets the lease bounds of an acquire or extend input: the expiry
// the server promised and, for a lease granted by one node, its life.
func (l *Lock) bound(in *lockInput, o *op) {
	in.exp = l.expiry(o.Call, in.ttl)
	// a recorded validity (the promise seen from the final attempt)
	// tightens it, up to what the return allows
	if in.out == outOK && o.Validity > in.exp {
		in.exp = min(o.Validity, l.expiry(o.Return, in.ttl))
	}
	if in.single && in.ttl > 0 {
		in.life = max(l.expiry(0, in.ttl), 0)
	}
}

// boundInfo gives release and extend ops with unknown outcome (whose own
// acquire returned before their call) the Return of the earliest-returning
// acquire ok of another lease on the key invoked at or after their call:
// after it the op is a no-op, so no linearization is lost. It returns how
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

// expiry is the instant a lease invoked at call with ttl must last until.
func (l *Lock) expiry(call, ttl int64) int64 {
	if ttl <= 0 {
		return Inf
	}
	return satAdd(call, ttl-int64(lease.Allowance(time.Duration(ttl), l.Drift, l.DriftFactor)))
}
