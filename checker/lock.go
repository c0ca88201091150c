package checker

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// Lock checks the lock's own promise: porcupine linearizability of
// acquire / release / extend per lock key against the lease-aware mutex
// model of lockmodel.go. A client outliving its lease is not its matter.
type Lock struct {
	// Drift and DriftFactor are the clock-drift allowance the algorithm
	// assumes: a lease with TTL ttl invoked at c lasts at least until
	// c + ttl − (Drift + DriftFactor·ttl).
	Drift       time.Duration
	DriftFactor float64
	// Timeout bounds the porcupine search (Unknown when it runs out; 0:
	// DefaultTimeout; a sooner context deadline wins).
	Timeout time.Duration
	// StrictNotHeld makes a failed release or extend of the holder a claim
	// that the lock was not held (for locks whose fail means ErrNotHeld).
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
		Outcomes
		InfoKept int `json:"info_kept,omitempty"` // kept: a later release or extend ok acted on their lease
	} `json:"acquire"`
	BoundedInfo int      `json:"bounded_info"` // see boundInfo
	IllegalKeys []string `json:"illegal_keys,omitempty"`
	ElapsedMS   int64    `json:"elapsed_ms"`
	// Linearization is the search of a history checked as one segment,
	// Failing those of the earliest failing segments, kept for drawing.
	Linearization *Linearization   `json:"-"`
	Failing       []*Linearization `json:"-"`
}

// Outcomes counts ops by outcome (Info: unknown).
type Outcomes struct {
	OK   int `json:"ok"`
	Fail int `json:"fail"`
	Info int `json:"info"`
}

// count counts one op completed as t.
func (c *Outcomes) count(t history.Type) {
	switch t {
	case history.OK:
		c.OK++
	case history.Fail:
		c.Fail++
	default:
		c.Info++
	}
}

func (c *Outcomes) add(d Outcomes) { c.OK, c.Fail, c.Info = c.OK+d.OK, c.Fail+d.Fail, c.Info+d.Info }

// searchTimeout is the porcupine budget given ctx.
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

// Check runs porcupine over every lock key, keeping the search for
// drawing (LockDetails.Linearization).
func (l *Lock) Check(ctx context.Context, h history.History) Result {
	start := time.Now()
	os := ops(h)
	fillTokens(os)
	return l.merge([]piece{l.searchPiece(ctx, l.lockOpsOf(os), keepWhole)}, start)
}

// searchPiece is the lock check of s, a history's or a segment's.
func (l *Lock) searchPiece(ctx context.Context, s lockSearch, keep keepMode) piece {
	p := piece{keyedSearch: keyedSearch{valid: Valid}, ops: map[string]int{}, d: s.d}
	for _, o := range s.ops {
		p.ops[o.Input.(*lockInput).key]++
	}
	if s.d.Acquire.OK+s.d.Acquire.InfoKept == 0 {
		return p
	}
	model := lockModel(s.tokens, s.now)
	p.keyedSearch = searchKeys(ctx, model, s.ops, l.Timeout, keep, infoNotes(s.infoAcq), "",
		func(part []porcupine.Operation, budget time.Duration) (Anomaly, bool) {
			return explainLock(model, part, budget, s.tokens)
		})
	return p
}

// explainLock names the op of one key that could not be linearized, and
// the holder at that point.
func explainLock(model porcupine.Model, part []porcupine.Operation, timeout time.Duration, tokens []string) (Anomaly, bool) {
	holderAcq := map[int32]*lockInput{} // lease id -> its acquire
	state, c, illegal := unplaced(model, part, timeout, func(in any) {
		if li := in.(*lockInput); li.kind == lkAcquire {
			holderAcq[li.lease] = li
		}
	})
	if !illegal {
		return Anomaly{}, false
	}
	key := part[0].Input.(*lockInput).key
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
	slices.Sort(a.Ops)
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
