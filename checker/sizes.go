package checker

// The sizes the check engine works with, in one place, each with its
// reason. Tests lower the variables.

// minSegment is the fewest records a streamed segment has before it may
// be cut (tiny segments cost more in overhead than they save); tests
// lower it.
var minSegment = 2000

// oneSegment is the most records of a history checked as one segment,
// never cut: its porcupine searches are the whole history's, so the
// report can draw them (porcupine.html, up to VisualizeMaxOps ops) and
// an anomaly names the ops a search of the whole history names. Past it
// the history is cut as it is read. Tests lower it.
var oneSegment = 20_000

// maxSegRecords is the most records the engine buffers for one segment.
// A segment that grows past it without a quiescent point (see cutter) is
// not checkable in bounded memory: the engine stops buffering it, and the
// checkers that need its records (the lock's and the counter's searches,
// Exclusion) end Unknown, saying so; the checks streamed record by record
// (Liveness, Fencing, the token check, the validator) and the op-level
// counter summaries (lost updates, cron, fed op by op) stay exact. The
// segments after the next cut are checked as usual, so a violation there
// still makes the verdict Invalid. Tests lower it.
var maxSegRecords = 1_000_000

// reorderDepth is how many records the reorder buffer holds back
// before it gives the earliest to the summaries that read records in
// time order (Liveness, Fencing, the token check). A record may arrive
// that many records late: a renewal is recorded when it completes, at
// its computed invoke time, so it lags by its own latency (about 2k
// records at 20k records/s and 100 ms; 32k records cover 1.6 s at that
// rate, 6 s at a default run's 5k records/s). Later records make those
// checks Unknown, never a verdict. Its memory is a ring of 32k records,
// about 7 MB (65k records cost 29 MB of a 10M-record check). Tests lower
// it.
var reorderDepth = 1<<15 - 1

// maxSeamRecords bounds the records checked together to resolve an
// ambiguous seam; tests lower it.
var maxSeamRecords = 200_000

// maxBuf is the largest segment buffer (records) the engine reuses.
const maxBuf = 1 << 16

// maxDrawnSegments is the most failing segments of a history checked in
// several whose searches a check keeps for drawing, per search (the
// lock's, the counter's): the earliest ones. The other failing segments'
// verbose searches are dropped as the check goes (see keeper), so a
// history failing everywhere keeps a few.
const maxDrawnSegments = 3

// VisualizeMaxOps is the most porcupine operations for which a check
// keeps its search (a Linearization in its details) for drawing:
// porcupine's visualisation is built for thousands of operations, not
// millions, and the search that feeds it costs more (it waits for every
// key and records the longest partial linearizations). Above it the
// check runs the plain search.
const VisualizeMaxOps = 20000
