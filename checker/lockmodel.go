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
// Time: porcupine linearizes each op at some instant of [Call, Return]
// without telling the model which, so inputs carry their call and return
// and the state carries `now`, a lower bound on the last linearization
// point. An op steps only if now <= Return and, for an acquire displacing
// a holder, once the holder's lease must have expired; `now` then moves to
// that instant (the earliest admissible one is optimal). `now` is raised
// only by takeovers, never to a call time: porcupine already orders an op
// after those that returned before its call, and fewer states cache
// better.
//
// The server's promise: a lease taken by an acquire (or renewed by an
// extend ok) invoked at c with TTL ttl lives at least until exp = c + ttl
// − allowance(ttl) (Lock.Drift + Lock.DriftFactor·ttl, which also absorbs
// PX's ms rounding). TTL 0 means no expiry.
//
// One node: an acquire ok naming exactly one answering node writes its
// key after the previous holder's end (its expiry, or the call of the
// release that freed it), so its lease lasts at least until max(c, now) +
// ttl − allowance, which catches a second grant right after a long wait.
// With several nodes (Redlock) only c counts. See seam.go for segments cut
// while such an acquire waits.
//
// Leases, not tokens: a lease is named by its acquire op, never its token
// (a lock may hand two clients one token); releases and extends act on
// the lease fillTokens matched them to.
//
// Soundness: with each op linearized at the instant its effect happened,
// an acquire succeeds only on a released or expired key (expiry being at
// or after exp), and a release or extend is ok only while the key holds
// the caller's token, so the true order is accepted. Caught: an acquire ok
// while another lease must still have been alive, and a release or extend
// ok of a token no longer holding the lock.
//
// Outcomes: ok took effect within [Call, Return]; fail did not (failed
// acquires are left out, and failed releases and extends unless
// Lock.StrictNotHeld: then a fail by the holder is allowed only once its
// lease may have expired); info (or no completion) may take effect at any
// instant after Call, or never (Return Inf). An info release or extend
// acts only if its lease holds the lock then (boundInfo bounds its
// Return). An info acquire whose lease a later release or extend ok acts
// on is kept; any other is left out (placed last it always linearizes)
// and drawn as an annotation.
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

// lockInput is one operation as the model sees it.
type lockInput struct {
	kind lockKind
	out  outcome
	// lease is the id of the lease the op acts on, from 1: one per
	// acquire, a fresh one for a release or extend that matches none.
	lease int32
	call  int64
	ret   int64 // Inf for info
	exp   int64 // acquire/extend: call + ttl - allowance, Inf if no ttl
	// life is ttl − allowance on a one-node lock (else 0): the lease lasts
	// until at least `now` after the step + life.
	life     int64
	single   bool  // the lease was granted by one node
	leaseRet int64 // the Return of the lease's acquire (Inf if unknown), for boundInfo
	key      string
	tokStr   string
	process  int
	inv      int64 // record indices
	retIdx   int64
	ttl      int64
}

// lockState is the lease holding the lock (0 = free), the instant it must
// last until, and the lower bound on the current linearization instant.
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
// lock; on a one-node lock `now` rises to its call (the DEL or PEXPIRE
// came no earlier).
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

// satAdd is a + b saturated to [0, Inf] for b >= 0.
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
// is the token of lease id i+1; now is the initial `now` (ns, see seam.go).
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
// pages, its record indices ("ops 12,15") from the rest of its tooltip.
const MetadataSep = " · "

// describeMetadata is an operation's metadata for the visualisation.
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
