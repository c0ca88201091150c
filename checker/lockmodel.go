package checker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/internal/page"
)

// The lease-aware mutex model that the Lock checker gives porcupine.
//
// # Time in a model without a clock
//
// Porcupine linearizes each op at some instant of its [Call, Return] but
// does not tell the model which. So every input carries its call and
// return times and the state carries `now`, a lower bound on the instant
// of the last linearization point. An op may step only if it can take
// effect no earlier than `now` (now <= Return) and, for an acquire that
// displaces a holder, no earlier than the holder's lease must have
// expired; `now` then moves to that instant. The earliest admissible
// instant is optimal: every constraint is a lower bound on later points.
// `now` is raised only by expiry takeovers, never to a call time:
// porcupine already orders an op after every op that returned before its
// call, and fewer states cache better.
//
// # The server's promise
//
// A lease taken by an acquire invoked at c with TTL ttl lives at least
// until exp = c + ttl − allowance(ttl), the allowance being the drift the
// algorithm assumes (Lock.Drift + Lock.DriftFactor·ttl): the key is
// written at or after c, and the allowance absorbs bounded drift and PX's
// millisecond rounding. An extend ok invoked at c sets exp likewise. TTL 0
// means no expiry (exp = Inf).
//
// # One node
//
// An acquire ok naming exactly one answering node (history Op.Nodes)
// writes its key at one instant, after the previous holder's end: SET NX
// succeeds only on an absent key, so after the previous lease expired
// (`now` after a takeover bounds that) or after the release that freed it
// (whose DEL came no earlier than its call, so `now` rises to a freeing
// release's call). The lease so lasts at least until max(c, now) + ttl −
// allowance, which catches a second grant right after a long wait. With
// several nodes (Redlock) the quorum's keys are written at different
// instants, some maybe before the takeover, so only c counts. A segment
// cut while such an acquire waits is checked between two bounds of the
// `now` carried across the cut (see seam.go).
//
// # Leases, not tokens
//
// A lease is named by its acquire op, never its token: a lock that hands
// two clients one token (a host name) must not have the second acquire
// taken for the first holder. A release or extend acts on the lease
// fillTokens matched it to (see ops.go); the token check reports reuse.
//
// # Soundness: a correct lock is never called invalid
//
// Take each op's linearization point at the instant its effect happened
// (the SET NX or quorum of an acquire, the DEL of a release, the PEXPIRE
// of an extend). An acquire then succeeds only on an absent key: released
// (an earlier release ok/info in that order frees it in the model) or
// expired, which the promise puts at or after exp, so `exp <= instant`
// holds with `now` at most the true instant. A release or extend is ok
// only while the key holds the caller's token, as the model requires. So
// the true order is accepted.
//
// # Completeness: what is caught
//
// An acquire ok while another lease must still have been alive (its
// Return before the holder's exp, or before an earlier takeover's
// instant), and a release or extend ok of a token no longer holding the
// lock: the server breaking its promise (a crash without persistence, a
// clock jump, a failover that loses the key, a broken lock).
//
// # Outcomes
//
//   - ok: took effect, between Call and Return.
//   - fail: did not take effect. Failed acquires are left out, and so are
//     failed releases and extends unless Lock.StrictNotHeld: then a fail
//     by the holder is allowed only once its lease may have expired.
//   - info (or no completion): may take effect at any instant after Call,
//     or never; Return is Inf. A release or extend with info takes effect
//     if its lease holds the lock then, else does nothing; placing it last
//     stands for "never". boundInfo bounds its Return by the first acquire
//     that must displace its lease, changing no verdict. An info acquire
//     whose lease a later release or extend ok acts on took effect and is
//     kept (Return Inf); any other is left out, which changes no verdict
//     (placed last it always linearizes, and removing it only removes a
//     holder and a takeover), and is drawn as an annotation.
type lockKind uint8

const (
	lkAcquire lockKind = iota
	lkRelease
	lkExtend
)

func (k lockKind) String() string { return [...]string{"acquire", "release", "extend"}[k] }

type outcome uint8

const (
	outOK outcome = iota
	outInfo
	outFail
)

func (o outcome) String() string { return [...]string{"ok", "info", "fail"}[o] }

// lockInput is one operation as the model sees it (a pointer, so that
// porcupine copies a word).
type lockInput struct {
	kind lockKind
	out  outcome
	// lease is the id of the lease the op acts on, from 1, unique across
	// keys: one per acquire, and a fresh one that never holds for a release
	// or extend that matches no acquire.
	lease int32
	call  int64
	ret   int64 // Inf for info
	exp   int64 // acquire/extend: call + ttl - allowance, Inf if no ttl
	// life is ttl − allowance on a one-node lock (else 0): the lease lasts
	// at least until the model's `now` after the step + life (see "One
	// node" above).
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
			s.now = max(s.now, s.exp)
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
				s.now = max(s.now, s.exp)
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
	if in.single {
		s.now = max(s.now, in.call)
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
	keys := sortedKeys(by)
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
