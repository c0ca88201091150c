package checker

import (
	"context"

	"github.com/lockstorm/lockstorm/history"
)

// segmentChecker is a checker the engine (CheckSource) runs on each
// segment in parallel, merging the segments' parts into its result: Lock,
// Resource, Exclusion.
type segmentChecker interface {
	Checker
	// checkSegment checks one segment, on the segment's goroutine.
	checkSegment(ctx context.Context, in *segmentInput) segmentPart
	// uncheckedSegment is the part of a segment not checked: Valid (a
	// segment without records) or Unknown with reason why (its check
	// panicked, or it was not buffered: then ov says what was counted of
	// its records, else ov is nil).
	uncheckedSegment(v Validity, why string, ov *overflow) segmentPart
	// foldOverflow adds to ov what part counted of a checked segment that
	// is joined to a segment not buffered (see overflowFrom).
	foldOverflow(ov *overflow, part segmentPart)
	// mergeSegments is the checker's result from the parts of the
	// segments (parts[i] is st.closed[i]'s).
	mergeSegments(st *stream, parts []segmentPart) Result
}

// segmentPart is what a segmentChecker found in one segment, of its own
// type (a piece, a Result).
type segmentPart any

// segmentInput is one segment as its checks read it.
type segmentInput struct {
	seg  *streamSeg
	h    history.History // its records, the acquires still waiting at its end moved on
	os   []op            // h's ops (fillTokens applied; read only)
	secs []*sectionInput // its counter sections, those carried in first
	// whole says the segment is the whole history: its searches are kept
	// for drawing, else only those that fail (see keepMode).
	whole bool
}

// seam is the cut the segment starts at (see seam.go).
func (in *segmentInput) seam() seam { return seam{start: in.seg.start, at: in.seg.at} }

// keep is how the segment's searches are kept for drawing.
func (in *segmentInput) keep() keepMode {
	if in.whole {
		return keepWhole
	}
	return keepFailing
}

// recordChecker is a checker whose result the engine's record-by-record
// summaries give (Liveness, Fencing): startStream sets them up before the
// first record, streamResult reads the result after the last.
type recordChecker interface {
	Checker
	startStream(st *stream)
	streamResult(st *stream) Result
}
