package checker

import (
	"context"
	"fmt"

	"github.com/anishathalye/porcupine"
)

// Seams: checking a segment whose first cut has one-node acquires waiting
// across it.
//
// A one-node acquire's lease lasts until max(c, now) + life (see "One
// node" in lockmodel.go), `now` being carried from before the cut, which
// a segment's check does not know but can bound. At a quiescent cut at T
// (see cutter) every lease the model may hold has exp <= T (the cutter's
// done + ttl + allowance is no earlier than c + ttl − allowance or
// now + life with now <= done), and `now` rose only to such an exp or a
// freeing release's or extend's call, <= T. So the whole check's state at
// the cut is (free, or exp <= T; now <= T), and every later op returns at
// or after T. Steps are monotone: a state with the same holder and no
// later exp and now allows every step a later one allows and leads to
// such a state again (the first acquire after the cut may take over an
// exp <= T <= its return). Hence:
//
//   - strict: the segment checked from now = T is valid => the whole is
//     valid at this cut (the segments before it being valid);
//   - permissive: the segment checked from now = 0 is invalid => the whole
//     is invalid (a whole linearization, restricted to the segment, is one
//     from a state at least as constrained as now = 0).
//
// They differ only through a one-node acquire invoked before T: a segment
// without one is checked once (from now = 0, exact). With one, the strict
// check runs first, and if invalid the permissive one; if they disagree
// the seam is ambiguous and resolved by checking the segment joined with
// those before it (see resolveSeams), up to maxSeamRecords records, else
// the lock's verdict is Unknown, naming the cut.

// seam is the cut a segment starts at: its first record's index and time.
type seam struct {
	start int64 // record index; 0 for the first segment
	at    int64 // ns
}

// waitsAcross reports whether an acquire ok of a one-node lease was
// invoked before the seam (the only ops the strict and permissive checks
// treat differently).
func waitsAcross(pops []porcupine.Operation, sm seam) bool {
	if sm.start == 0 {
		return false
	}
	for _, o := range pops {
		if in := o.Input.(*lockInput); in.kind == lkAcquire && in.life > 0 && in.inv < sm.start {
			return true
		}
	}
	return false
}

// pieceAt checks one segment's ops (fillTokens applied; read only) that
// start at seam sm, with the strict and permissive checks when one-node
// acquires wait across it. An ambiguous seam gives an Unknown piece marked
// ambiguous (see resolveSeams). The search that decides is kept for
// drawing as keep says.
func (l *Lock) pieceAt(ctx context.Context, os []op, sm seam, keep keepMode) piece {
	s := l.lockOpsOf(os)
	if !waitsAcross(s.ops, sm) {
		return l.searchPiece(ctx, s, keep)
	}
	strict := s
	strict.now = sm.at
	r := l.searchPiece(ctx, strict, keepNone)
	if r.valid == Valid {
		return r
	}
	p := l.searchPiece(ctx, s, keep)
	if p.valid == Invalid || r.valid == Unknown {
		if p.valid != Invalid {
			p.valid, p.err = Unknown, r.err // the strict check timed out
		}
		return p
	}
	if p.valid == Valid {
		p.valid, p.err = Unknown, fmt.Sprintf("the cut before record %d (at %s) is ambiguous: one-node acquires waited across it, and the segment after it is valid if the lock was taken from the earliest instant, invalid from the cut's", sm.start, fmtTime(sm.at))
		p.ambiguous = true
	}
	return p // else the permissive check timed out
}

// resolveSeams settles the ambiguous pieces of ps: piece j is checked
// again joined with the segments from k, the first of the piece before
// it, going back while the joined check is ambiguous at k's seam; the
// joined piece replaces piece k, pieces k+1..j become empty. size(k, j)
// is the records of segments k..j, check(k, j) their joined lock check.
// Beyond maxSeamRecords records piece j stays Unknown, naming its cut.
func (l *Lock) resolveSeams(ps []piece, size func(k, j int) int, check func(k, j int) piece) {
	first := make([]int, len(ps)) // the first segment of the piece covering each segment
	for i := range first {
		first[i] = i
	}
	for j := 1; j < len(ps); j++ {
		if !ps[j].ambiguous {
			continue
		}
		why := ps[j].err
		ps[j].ambiguous = false
		for k := first[j-1]; ; k = first[k-1] {
			if n := size(k, j); n > maxSeamRecords {
				ps[j].err = fmt.Sprintf("%s; the %d records around it are too many to check together (at most %d)", why, n, maxSeamRecords)
				break
			}
			p := check(k, j)
			if p.ambiguous && k > 0 {
				continue
			}
			if p.valid == Valid && ps[k].valid != Valid {
				// cannot happen (the joined check's restriction to segment
				// k is a valid check of it); never let it turn a verdict
				// into Valid
				break
			}
			ps[k] = p
			for m := k + 1; m <= j; m++ {
				ps[m], first[m] = piece{keyedSearch: keyedSearch{valid: Valid}}, k
			}
			break
		}
	}
}
