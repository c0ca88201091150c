package checker

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/internal/page"
)

// The lease-aware mutex model that the Lock checker gives porcupine.
//
// # Time in a model without a clock
//
// Porcupine linearizes each operation at some instant of its [Call, Return]
// interval but tells the model nothing about that instant. The model
// therefore carries time itself: every input holds its op's call and return
// times, and the state holds `now`, a lower bound on the instant of the
// last linearization point. Stepping an op requires that the op can take
// effect no earlier than `now` (now <= Return) and, for an acquire that
// displaces a holder, no earlier than the instant the holder's lease must
// have expired; `now` then moves to that instant. Choosing the earliest
// admissible instant is optimal: every constraint in the model is a lower
// bound on later linearization points, so an earlier `now` never rules out
// anything a later one allows.
//
// `now` is raised only by expiry takeovers, never to an op's call time:
// porcupine already orders an op after every op that returned before it
// was called, so call times add no constraint — and leaving them out keeps
// the states few (better caching).
//
// # The server's promise
//
// A lease taken by an acquire invoked at time c with TTL ttl lives, by the
// server's promise, at least until exp = c + ttl − allowance(ttl), where
// the allowance is the clock drift the algorithm assumes (Lock.Drift +
// Lock.DriftFactor·ttl). The key is written at or after c, so it cannot
// expire before c + ttl on a server whose clock runs true; the allowance
// absorbs bounded drift and the millisecond rounding of PX. An extend ok
// invoked at c sets exp = c + ttl − allowance likewise. A TTL of 0 means no
// expiry (exp = Inf).
//
// # One node
//
// A lock whose acquire ok names exactly one answering node (history
// Op.Nodes) writes its key at one instant. That instant follows the
// previous holder's end: SET NX succeeds only on an absent key, so the
// key was written after the previous lease expired (the model's `now`
// after a takeover is a lower bound of that) or after the release that
// freed it (the release's DEL happened no earlier than its call, so on
// one node `now` rises to a freeing release's call). The lease therefore
// lasts at least until max(c, now) + ttl − allowance, which catches a
// second grant right after a long wait that the bound from c alone misses.
// With several nodes (Redlock) the quorum's keys are written at different
// instants, some possibly before the takeover, so only c counts there.
// A segment of a history cut while such an acquire waits does not know
// the `now` carried across the cut: it is checked between two bounds of
// it (see seam.go).
//
// # Leases, not tokens
//
// The model names a lease by its acquire op, never by its token: a lock
// that hands two clients the same token (a host name) must not have the
// second acquire taken for the first holder. A release or extend acts on
// the lease fillTokens matched it to (see ops.go). The reuse itself is
// reported by Validate's token check as a defect of the lock.
//
// # Soundness: a correct lock is never called invalid
//
// In a run of a lock that keeps its promise, take each op's linearization
// point to be the instant its effect happened (the SET NX / quorum that
// granted an acquire, the DEL of a release, the PEXPIRE of an extend). An
// acquire then only succeeds when the key is absent: released (an earlier
// release ok/info in that order frees it in the model) or expired, which
// the promise puts at or after exp, so the model's `exp <= instant`
// requirement holds with `now` at most the true instant. A release or
// extend ok is only answered ok when the key still holds the caller's token,
// as the model requires. So the true order is accepted and porcupine
// reports Ok.
//
// # Completeness: what is caught
//
// An acquire that returned ok while another token's lease must still have
// been alive (its Return is before the holder's exp, or before the instant
// an earlier takeover forced) cannot be linearized, nor can a release or
// extend ok of a token that no longer holds the lock. These are the
// violations of the server's promise: a crash without persistence, a clock
// jump, a failover that loses the key, a broken lock.
//
// # Outcomes
//
//   - ok: took effect, between Call and Return.
//   - fail: did not take effect. Failed acquires carry no constraint and are
//     left out. Failed releases and extends are left out too, unless
//     Lock.StrictNotHeld is set: then a fail by the holder is allowed only
//     once its lease may have expired (a "not held" answer while the lease
//     must be alive is the server losing the key).
//   - info (or no completion): may take effect at any instant after Call,
//     or never; Return is Inf. A release or extend with info takes effect if
//     its token holds the lock at the chosen instant, else does nothing;
//     linearizing it last stands for "never". Its Return is then bounded by
//     the first acquire that must displace its token (see boundInfo), which
//     keeps the search small and changes no verdict. An acquire with info
//     whose lease a later release or extend ok acts on took effect, so it
//     is kept (with Return Inf). Any other acquire with info is left
//     out of the check altogether, which changes no verdict: placed last,
//     it could always be linearized (its Return is Inf), and taking it out
//     of any linearization only removes a holder and a takeover, which
//     constrains nothing that follows. It is shown in the visualisation as
//     an annotation.
type lockKind uint8

const (
	lkAcquire lockKind = iota
	lkRelease
	lkExtend
)

func (k lockKind) String() string {
	switch k {
	case lkAcquire:
		return "acquire"
	case lkRelease:
		return "release"
	}
	return "extend"
}

type outcome uint8

const (
	outOK outcome = iota
	outInfo
	outFail
)

func (o outcome) String() string {
	switch o {
	case outOK:
		return "ok"
	case outInfo:
		return "info"
	}
	return "fail"
}

// lockInput is one operation as the model sees it. Inputs are pointers so
// that porcupine copies a word, not the struct.
type lockInput struct {
	kind lockKind
	out  outcome
	// lease is the id of the lease the op acts on, from 1, unique across
	// keys: one per acquire (never per token: a lock may reuse tokens), and
	// a fresh one that never holds for a release or extend that matches no
	// acquire.
	lease int32
	call  int64
	ret   int64 // Inf for info
	exp   int64 // acquire/extend: call + ttl - allowance, Inf if no ttl
	// life is ttl − allowance for ops on a one-node lock (0 otherwise): the
	// key is then written at a single instant no earlier than the model's
	// `now` after the step, so the lease lasts at least until now + life
	// (see "One node" above).
	life int64
	// single marks ops on a lease granted by one node.
	single bool
	// leaseRet is the Return of the lease's acquire (Inf if unknown), for
	// boundInfo.
	leaseRet int64
	key      string
	tokStr   string
	process  int
	inv      int64 // record indices
	retIdx   int64
	ttl      int64
}

// lockState is the model's state: the lease holding the lock (0 = free),
// the instant it must have lasted until, and the lower bound on the
// current linearization instant. A comparable value, so == is equality.
type lockState struct {
	holder int32
	exp    int64
	now    int64
}

func lockStep(state, input, _ any) (bool, any) {
	s := state.(lockState)
	in := input.(*lockInput)
	if in.ret < s.now {
		return false, s
	}
	switch in.kind {
	case lkAcquire:
		if s.holder != 0 && s.holder != in.lease {
			if s.exp > in.ret {
				return false, s
			}
			if s.exp > s.now {
				s.now = s.exp
			}
		}
		s.holder, s.exp = in.lease, in.exp
		if in.life > 0 {
			s.exp = max(s.exp, satAdd(s.now, in.life))
		}
	case lkRelease, lkExtend:
		switch in.out {
		case outOK:
			if s.holder != in.lease {
				return false, s
			}
			s = applyHeld(s, in)
		case outInfo:
			if s.holder == in.lease {
				s = applyHeld(s, in)
			}
		case outFail: // only with StrictNotHeld
			if s.holder == in.lease {
				if s.exp > in.ret {
					return false, s
				}
				if s.exp > s.now {
					s.now = s.exp
				}
			}
		}
	}
	return true, s
}

// applyHeld applies a release or extend that found its lease holding the
// lock. On a one-node lock the DEL or PEXPIRE happened no earlier than the
// op's call, so `now` may rise to it: the next acquire's key is written
// after the release, an extend's new TTL counts from after its call.
func applyHeld(s lockState, in *lockInput) lockState {
	if in.single && in.call > s.now {
		s.now = in.call
	}
	if in.kind == lkRelease {
		s.holder, s.exp = 0, 0
		return s
	}
	s.exp = in.exp
	if in.life > 0 {
		s.exp = max(s.exp, satAdd(s.now, in.life))
	}
	return s
}

// satAdd is a + b saturated to [0, Inf] for b >= 0 (times near the int64
// limit must not wrap around and accept a double grant).
func satAdd(a, b int64) int64 {
	if a > 0 && b > Inf-a {
		return Inf
	}
	return a + b
}

func lockHash(state any) uint64 {
	s := state.(lockState)
	h := uint64(s.holder)*0x9E3779B97F4A7C15 ^ uint64(s.exp)*0xC2B2AE3D27D4EB4F ^ uint64(s.now)*0x165667B19E3779F9
	return h ^ h>>29
}

// lockModel returns the porcupine model, partitioned by key. tokens[i]
// is the token of lease id i+1, for the state description. now is the
// initial state's `now` (ns): 0 for a history checked from its start, a
// cut's time for the strict check of a segment after it (see seam.go).
func lockModel(tokens []string, now int64) porcupine.Model {
	return porcupine.Model{
		Partition: partitionByKey,
		Init:      func() any { return lockState{now: now} },
		Step:      lockStep,
		Hash:      lockHash,
		DescribeOperation: func(input, output any) string {
			in := input.(*lockInput)
			var b strings.Builder
			fmt.Fprintf(&b, "%s p%d %s", in.kind, in.process, page.ShortToken(in.tokStr))
			if in.kind != lkRelease && in.ttl > 0 {
				fmt.Fprintf(&b, " ttl=%s lease≥%s", fmtDur(in.ttl), fmtTime(in.exp))
			}
			fmt.Fprintf(&b, " -> %s", in.out)
			return b.String()
		},
		DescribeOperationMetadata: describeMetadata,
		DescribeState: func(state any) string {
			s := state.(lockState)
			now := ""
			if s.now > 0 {
				now = ", now≥" + fmtTime(s.now)
			}
			if s.holder == 0 {
				return "free" + now
			}
			tok := "#" + strconv.Itoa(int(s.holder))
			if int(s.holder) >= 1 && int(s.holder) <= len(tokens) {
				tok = tokens[s.holder-1]
			}
			return fmt.Sprintf("held by %s until ≥%s%s", tok, fmtTime(s.exp), now)
		},
	}
}

// MetadataSep separates, in an operation's metadata on porcupine's
// pages, its record indices ("ops 12,15") from what else its tooltip
// says (the whole token, "token …").
const MetadataSep = " · "

// describeMetadata is an operation's metadata (its record indices, then
// after MetadataSep the whole token of a token the box shortens) for the
// visualisation.
func describeMetadata(md any) string {
	if md == nil {
		return ""
	}
	return md.(string)
}

// partitionByKey splits lock (or resource) operations by key, keys sorted.
func partitionByKey(hist []porcupine.Operation) [][]porcupine.Operation {
	by := map[string][]porcupine.Operation{}
	for _, o := range hist {
		k := inputKey(o.Input)
		by[k] = append(by[k], o)
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][]porcupine.Operation, len(keys))
	for i, k := range keys {
		out[i] = by[k]
	}
	return out
}

func inputKey(in any) string {
	switch v := in.(type) {
	case *lockInput:
		return v.key
	case *sectionInput:
		return v.key
	}
	return ""
}

// fmtTime renders ns since the run started as seconds with ms precision.
func fmtTime(t int64) string {
	if t == Inf {
		return "∞"
	}
	return strconv.FormatFloat(float64(t)/1e9, 'f', 3, 64) + "s"
}

// fmtDur renders a duration in ns compactly.
func fmtDur(d int64) string {
	if d%1_000_000 == 0 {
		return strconv.FormatInt(d/1_000_000, 10) + "ms"
	}
	return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) + "ms"
}
