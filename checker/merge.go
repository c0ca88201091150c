package checker

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/anishathalye/porcupine"
)

// keyedSearch is a porcupine check partitioned by key: its verdict, the
// reason of an Unknown one, each illegal key's explanation, and the
// search kept for drawing (nil unless kept).
type keyedSearch struct {
	valid Validity
	err   string
	byKey map[string]Anomaly
	lin   *Linearization
}

// searchKeys runs porcupine on pops within timeout; explain explains each
// illegal key; what names the check in a timeout's reason.
func searchKeys(ctx context.Context, model porcupine.Model, pops []porcupine.Operation, timeout time.Duration, keep keepMode,
	notes []porcupine.Annotation, what string, explain func(part []porcupine.Operation, budget time.Duration) (Anomaly, bool)) keyedSearch {
	budget := searchTimeout(ctx, timeout)
	var verdict porcupine.CheckResult
	out := keyedSearch{valid: Valid}
	verdict, out.lin = search(model, pops, budget, notes, keep)
	switch verdict {
	case porcupine.Unknown:
		out.valid, out.err = Unknown, fmt.Sprintf("porcupine timed out after %s%s", budget, what)
	case porcupine.Illegal:
		out.valid, out.byKey = Invalid, map[string]Anomaly{}
		for _, part := range partitionByKey(pops) {
			if a, ok := explain(part, searchTimeout(ctx, timeout)); ok {
				out.byKey[inputKey(part[0].Input)] = a
			}
		}
	}
	return out
}

// piece is one segment's porcupine check and its ops per key.
type piece struct {
	keyedSearch
	ops       map[string]int
	d         LockDetails // the lock's counts
	ambiguous bool        // an Unknown lock piece whose seam resolveSeams settles
}

// mergePieces combines the segments' pieces: the verdict (with the first
// Unknown's reason if Unknown), how many keys they searched, and the
// illegal keys, whose earliest segment's anomalies it adds to al in key
// order, as the whole checks do.
func mergePieces(ps []piece, al *anomalyList) (valid Validity, err string, keys int, illegal []string) {
	valid = Valid
	seen, byKey := map[string]bool{}, map[string]Anomaly{}
	for _, p := range ps {
		for k := range p.ops {
			seen[k] = true
		}
		valid = Merge(valid, p.valid)
		if p.valid == Unknown && err == "" {
			err = p.err
		}
		for k, a := range p.byKey {
			if _, ok := byKey[k]; !ok {
				byKey[k] = a
			}
		}
	}
	illegal = sortedKeys(byKey)
	for _, k := range illegal {
		al.add(byKey[k])
	}
	if valid != Unknown {
		err = ""
	}
	return valid, err, len(seen), illegal
}

// drawn are the searches kept for drawing: a single piece's, else those of
// the earliest maxDrawnSegments pieces that failed.
func drawn(ps []piece) (whole *Linearization, failing []*Linearization) {
	if len(ps) == 1 {
		return ps[0].lin, nil
	}
	for _, p := range ps {
		if p.valid == Invalid && p.lin != nil && len(failing) < maxDrawnSegments {
			failing = append(failing, p.lin)
		}
	}
	return nil, failing
}

// merge combines the segments' lock checks (see CheckSource).
func (l *Lock) merge(ps []piece, start time.Time) (res Result) {
	res.Name = l.Name()
	var d LockDetails
	for _, p := range ps {
		d.Ops += p.d.Ops
		d.Acquire.add(p.d.Acquire.Outcomes)
		d.Acquire.InfoKept += p.d.Acquire.InfoKept
		d.BoundedInfo += p.d.BoundedInfo
	}
	d.Linearization, d.Failing = drawn(ps)
	defer func() { d.ElapsedMS = time.Since(start).Milliseconds(); res.Details = d }()
	var al anomalyList
	valid, err, keys, illegal := mergePieces(ps, &al)
	d.Keys = keys
	if d.Acquire.OK+d.Acquire.InfoKept == 0 {
		res.Valid, res.Error = Unknown, "no acquire succeeded: nothing to check"
		return res
	}
	d.IllegalKeys = illegal
	res.Valid, res.Error, res.Anomalies = valid, err, al.list
	return res
}

// checkSegment is the lock check of one segment.
func (l *Lock) checkSegment(ctx context.Context, in *segmentInput) segmentPart {
	p := l.pieceAt(ctx, in.os, in.seg.seam(), in.keep)
	p.lin.setRecords(in.seg.firstRecord(), in.seg.end-1)
	return p
}

// uncheckedSegment is the lock piece of a segment not checked, with the
// acquires counted in it when it was not buffered.
func (l *Lock) uncheckedSegment(v Validity, why string, ov *overflow) segmentPart {
	p := piece{keyedSearch: keyedSearch{valid: v, err: why}}
	if ov != nil {
		p.d = ov.acq
	}
	return p
}

// foldOverflow counts the acquires of a checked segment into ov.
func (l *Lock) foldOverflow(ov *overflow, part segmentPart) {
	ov.acq.Acquire.add(part.(piece).d.Acquire.Outcomes)
}

// mergeSegments merges the segments' lock pieces, ambiguous seams
// resolved on the joined segments, read again.
func (l *Lock) mergeSegments(st *stream, parts []segmentPart) Result {
	ps := make([]piece, len(parts))
	for i, p := range parts {
		ps[i] = p.(piece)
		if ps[i].ambiguous {
			st.ambiguous++
		}
	}
	size := func(k, j int) int {
		for _, s := range st.closed[k : j+1] {
			if s.over != nil {
				return math.MaxInt // not read again
			}
		}
		return int(st.closed[j].end - st.closed[k].start)
	}
	l.resolveSeams(ps, size, func(k, j int) piece {
		first, last := st.closed[k], st.closed[j]
		p := l.pieceAt(st.ctx, st.joinedOps(k, j), first.seam(), keepFailing)
		p.lin.setRecords(first.firstRecord(), last.end-1)
		return p
	})
	return l.merge(ps, st.start)
}
