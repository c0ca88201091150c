package checker

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
