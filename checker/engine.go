package checker

import (
	"context"

	"github.com/lockstorm/lockstorm/history"
)

// segmentChecker is a checker the engine runs on each segment in
// parallel (Lock, Resource, Exclusion): checkSegment checks one;
// uncheckedSegment is the part of one not checked (verdict v, reason why;
// ov what was counted of one not buffered, else nil); foldOverflow adds
// to ov a checked part joined to one not buffered; mergeSegments is the
// result from the parts (parts[i] is st.closed[i]'s).
type segmentChecker interface {
	Checker
	checkSegment(ctx context.Context, in *segmentInput) segmentPart
	uncheckedSegment(v Validity, why string, ov *overflow) segmentPart
	foldOverflow(ov *overflow, part segmentPart)
	mergeSegments(st *stream, parts []segmentPart) Result
}

// segmentPart is a segmentChecker's own result of one segment.
type segmentPart any

// segmentInput is one segment as its checks read it.
type segmentInput struct {
	seg  *streamSeg
	h    history.History // its records, the acquires still waiting at its end moved on
	os   []op            // h's ops (fillTokens applied; read only)
	secs []*sectionInput // its counter sections, those carried in first
	keep keepMode        // keepWhole for the whole history, else keepFailing
}

// recordChecker is a checker the engine's record-by-record summaries
// answer (Liveness, Fencing): startStream sets them up, streamResult
// reads the result.
type recordChecker interface {
	Checker
	startStream(st *stream)
	streamResult(st *stream) Result
}

// The sizes the check engine works with. Tests lower the variables.

// minSegment is the fewest records a segment has before it may be cut.
var minSegment = 2000

// oneSegment is the most records of a history checked as one segment,
// never cut: its searches are the whole history's.
var oneSegment = 20_000

// maxSegRecords is the most records the engine buffers for one segment;
// past it without a quiescent point the checks that need its records end
// Unknown, the streamed ones stay exact.
var maxSegRecords = 1_000_000

// reorderDepth is how late (in records) a record may arrive for the
// time-ordered summaries; later ones make them Unknown.
var reorderDepth = 1<<15 - 1

// maxSeamRecords bounds the records checked together to resolve an
// ambiguous seam.
var maxSeamRecords = 200_000

// maxBuf is the largest segment buffer (records) the engine reuses.
const maxBuf = 1 << 16

// maxDrawnSegments is how many failing segments, the earliest, keep their
// searches for drawing.
const maxDrawnSegments = 3

// VisualizeMaxOps is the most porcupine operations for which a check
// keeps its search (a Linearization) for drawing.
const VisualizeMaxOps = 20000
