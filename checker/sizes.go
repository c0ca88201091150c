package checker

// The sizes the check engine works with, each with its reason. Tests
// lower the variables.

// minSegment is the fewest records a segment has before it may be cut
// (tiny segments cost more overhead than they save).
var minSegment = 2000

// oneSegment is the most records of a history checked as one segment,
// never cut: its searches are the whole history's, so the report can draw
// them (up to VisualizeMaxOps ops) and anomalies name the ops a whole
// search names.
var oneSegment = 20_000

// maxSegRecords is the most records the engine buffers for one segment.
// Past it without a quiescent point (see cutter) the engine stops
// buffering the segment: the checkers that need its records (the lock's
// and counter's searches, Exclusion) end Unknown, saying so; the streamed
// checks (Liveness, Fencing, tokens, the validator) and the op-level
// summaries (lost updates, cron) stay exact, and the segments after the
// next cut are checked as usual.
var maxSegRecords = 1_000_000

// reorderDepth is how many records the reorder buffer holds back before
// it gives the earliest to the time-ordered summaries (Liveness,
// Fencing, the token check): how late a record may arrive (a renewal is
// recorded at completion with its invoke time, lagging by its latency).
// Later records make those checks Unknown, never a verdict.
var reorderDepth = 1<<15 - 1

// maxSeamRecords bounds the records checked together to resolve an
// ambiguous seam.
var maxSeamRecords = 200_000

// maxBuf is the largest segment buffer (records) the engine reuses.
const maxBuf = 1 << 16

// maxDrawnSegments is how many failing segments, the earliest, keep their
// searches (the lock's, the counter's) for drawing; the others' are
// dropped as the check goes (see keeper).
const maxDrawnSegments = 3

// VisualizeMaxOps is the most porcupine operations for which a check
// keeps its search (a Linearization in its details) for drawing: the
// visualisation is built for thousands of operations, and the search
// feeding it costs more. Above it the check runs the plain search.
const VisualizeMaxOps = 20000
