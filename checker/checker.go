// Package checker decides whether a lockstorm history is valid. Each checker
// returns a Result with a three-valued verdict: Valid, Invalid (a definite
// violation, with the op indices that show it) or Unknown (nothing proved:
// a timeout, a malformed history, no lock ever taken).
//
// The checkers: Lock (porcupine over acquire/release/extend per key against
// a lease-aware mutex model), Resource (counter sections as atomic
// read-modify-writes, lost updates, cron exactly-once, api concurrency,
// leader overlap), Fencing (accepted and issued tokens increase per key),
// Exclusion (holders' own intervals overlap; writes after validity) and
// Liveness (success rate, latencies, availability, starvation, FIFO, a lock
// never freed).
//
// One engine decides every verdict: Composite.CheckSource reads a history
// once, validating it, cuts it at quiescent points into segments that the
// segment checkers check in parallel, feeds every record to the record
// checkers and merges the verdicts (see engine.go).
//
// # What the checkers expect of a history
//
// Beyond history/op.go's rules (and Validate's):
//
//   - acquire: the ok completion carries Key, Token, TTL (ns asked of the
//     server; 0 = no expiry), Fence (0 = none) and Validity (the client's
//     lease end, ns since start; 0 = unknown); the invoke may carry TTL
//     and Token instead. Nodes are the nodes that granted it (exactly one
//     tightens the lock checker's bound, see lockmodel.go). Every acquire
//     must get a fresh token; a lease is named by its acquire op.
//   - release / extend: carry Key and Token; without a Token a record is
//     matched to its process's current lease on the key. An extend ok
//     carries the new Validity. Ok only if it released/extended the
//     caller's own lease; otherwise fail (ErrNotHeld) or info.
//   - read / write (counter): the holder reads v (Value on the ok) then
//     writes v+1 (Value on the invoke and ok, Fence = its token). A
//     fencing rejection is a fail with Error StaleError. The write's
//     invoke is recorded before the final validity check.
//   - history.FLost: a holder learned its lease is lost; Key and Token
//     name the lease (or the process's current one if Token is empty).
//   - run (cron): Value = tick; enter/leave (api); lead (leader): Fence =
//     the leader's token, Key = the election.
//   - nemesis: see FaultWindows.
package checker

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/lockstorm/lockstorm/history"
)

// Validity is a three-valued verdict. Its JSON form is true, false or
// "unknown".
type Validity int8

// The three verdicts. The zero value is Unknown: a result nobody filled in
// proved nothing.
const (
	Unknown Validity = 0
	Valid   Validity = 1
	Invalid Validity = -1
)

// String is "valid", "invalid" or "unknown".
func (v Validity) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "unknown"
}

// MarshalJSON encodes Valid as true, Invalid as false, Unknown as "unknown".
func (v Validity) MarshalJSON() ([]byte, error) {
	if v != Valid && v != Invalid {
		return []byte(`"unknown"`), nil
	}
	return []byte(strconv.FormatBool(v == Valid)), nil
}

// UnmarshalJSON accepts true, false and "unknown".
func (v *Validity) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*v = Valid
	case "false":
		*v = Invalid
	case `"unknown"`:
		*v = Unknown
	default:
		return fmt.Errorf("checker: validity %s is not true, false or \"unknown\"", b)
	}
	return nil
}

// Merge combines two verdicts: Invalid if either is, else Unknown if either
// is, else Valid.
func Merge(a, b Validity) Validity { return min(a, b) }

// Anomaly is one thing a checker found: a short stable Kind, the indices
// of the records involved (ascending), a one or two sentence Text, the
// fault windows active at the first op, and whether it makes the result
// invalid.
type Anomaly struct {
	Kind   string   `json:"kind"`
	Ops    []int64  `json:"ops"`
	Text   string   `json:"text"`
	Faults []string `json:"faults,omitempty"`
	Fatal  bool     `json:"fatal"`
}

// Result is one checker's verdict on one history.
type Result struct {
	Name      string    `json:"name"` // the checker's, or the composition's
	Valid     Validity  `json:"valid"`
	Anomalies []Anomaly `json:"anomalies,omitempty"` // at most MaxAnomalies per kind
	Details   Details   `json:"details,omitempty"`   // the checker's own summary
	Error     string    `json:"error,omitempty"`     // why Unknown
	Results   []Result  `json:"results,omitempty"`   // a composed result's parts
	// NotApplicable says why the checker had nothing to check.
	NotApplicable string  `json:"not_applicable,omitempty"`
	Seconds       float64 `json:"seconds,omitempty"` // wall-clock time (0: not measured)
}

// MaxAnomalies is how many anomalies of one kind a checker keeps; the rest
// are only counted.
const MaxAnomalies = 20

// Checker checks a whole history. Implementations must be safe to call
// from several goroutines and should return promptly when ctx ends (with an
// Unknown result).
type Checker interface {
	Check(ctx context.Context, h history.History) Result
}

// Named is implemented by checkers that know their name.
type Named interface {
	Name() string
}

// Inf is the return time of an operation whose outcome is unknown.
const Inf int64 = math.MaxInt64

// String renders the result as indented JSON, for logs and test failures.
func (r Result) String() string {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Sprintf("%s: %v (%v)", r.Name, r.Valid, err)
	}
	return string(b)
}

// anomalyList collects anomalies, keeping at most MaxAnomalies per kind and
// counting all of them.
type anomalyList struct {
	list   []Anomaly
	counts map[string]int
}

func (l *anomalyList) add(a Anomaly) {
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	l.counts[a.Kind]++
	if l.counts[a.Kind] <= MaxAnomalies {
		l.list = append(l.list, a)
	}
}

// verdict is Invalid if any fatal anomaly was added, else def.
func (l *anomalyList) verdict(def Validity) Validity {
	for _, a := range l.list {
		if a.Fatal {
			return Invalid
		}
	}
	return def
}
