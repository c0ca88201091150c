package checker

import (
	"context"
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"
)

// Seams: checking a segment whose first cut has one-node acquires waiting
// across it. Their leases last until max(c, now) + life (see lockmodel.go),
// `now` being carried from before the cut: unknown to the segment's check,
// but at a quiescent cut at T every lease the model may hold has exp <= T
// and now <= T. Steps are monotone in (exp, now), hence:
//
//   - strict: the segment checked from now = T valid => the whole is valid
//     at this cut;
//   - permissive: the segment checked from now = 0 invalid => the whole is
//     invalid.
//
// A segment without such an acquire is checked once (from now = 0,
// exact). With one, the strict check runs first, then the permissive; if
// they disagree the seam is ambiguous and resolved by checking the segment
// joined with those before it (see resolveSeams), up to maxSeamRecords
// records, else the lock's verdict is Unknown.

// seam is the cut a segment starts at: its first record's index and time.
type seam struct {
	start int64 // record index; 0 for the first segment
	at    int64 // ns
}

// waitsAcross reports whether an acquire ok of a one-node lease was
// invoked before the seam.
func waitsAcross(pops []porcupine.Operation, sm seam) bool {
	return sm.start > 0 && slices.ContainsFunc(pops, func(o porcupine.Operation) bool {
		in := o.Input.(*lockInput)
		return in.kind == lkAcquire && in.life > 0 && in.inv < sm.start
	})
}

// pieceAt checks one segment's ops (fillTokens applied) that start at seam
// sm; an ambiguous seam gives an Unknown piece marked ambiguous.
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
// again joined with the segments from k, going back while the joined check
// is ambiguous at k's seam; the joined piece replaces piece k, pieces
// k+1..j become empty. size(k, j) is the records of segments k..j,
// check(k, j) their joined lock check.
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
				// cannot happen; never let it turn a verdict into Valid
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
