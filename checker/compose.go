package checker

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// Composite runs several checkers on one history. Build it with Compose.
type Composite struct {
	// Label is the composed result's Name ("lockstorm" by default).
	Label    string
	Checkers []Checker
	// Also, when set, is handed every record the check reads, with its
	// position, in order (valid during the call only), so that other
	// passes ride on the check's read. It runs on a goroutine of its own
	// (relay); CheckSource returns once it has taken every record, and a
	// panic of it makes the result Unknown, as a checker's does.
	Also func(o *history.Op, at history.Pos)
}

// Compose returns a checker that validates a history as it reads it (an
// invalid one is Unknown with Validate's message), adds a "tokens" result
// when a token was handed to two acquires, runs every checker (a panic is
// Unknown), merges the verdicts (Invalid beats Unknown beats Valid), makes
// Valid Unknown when no acquire succeeded, and labels each anomaly with
// the fault windows active at its first op.
func Compose(checkers ...Checker) *Composite {
	return &Composite{Label: "lockstorm", Checkers: checkers}
}

// Check runs the composition over h: CheckSource over the slice.
func (c *Composite) Check(ctx context.Context, h history.History) Result {
	res, _, _ := c.CheckSource(ctx, history.Slice(h)) // a slice reads without error
	return res
}

// finishWith adds the token check's result tr, merges the verdicts and
// labels the anomalies (n records, timeOf(i) the time of record i).
func finishWith(res *Result, tr Result, anyOK bool, windows []Window, n int64, timeOf func(i int64) int64) {
	if tr.Valid != Valid {
		res.Results = append([]Result{tr}, res.Results...)
	}
	res.Valid = Valid
	for _, r := range res.Results {
		res.Valid = Merge(res.Valid, r.Valid)
	}
	if res.Valid == Valid && !anyOK {
		res.Valid, res.Error = Unknown, "no acquire succeeded in the whole history: the run proved nothing"
	}
	for i := range res.Results {
		for j := range res.Results[i].Anomalies {
			a := &res.Results[i].Anomalies[j]
			if len(a.Ops) > 0 && a.Faults == nil && a.Ops[0] >= 0 && a.Ops[0] < n {
				t := timeOf(a.Ops[0])
				for _, w := range windows {
					if w.Contains(t) {
						a.Faults = append(a.Faults, w.Label())
					}
				}
			}
		}
	}
}

func safeCheck(ctx context.Context, ch Checker, h history.History) (r Result) {
	start := time.Now()
	defer func() { r.Seconds = time.Since(start).Seconds() }()
	defer func() {
		if p := recover(); p != nil {
			r = panicked(nameOf(ch, fmt.Sprintf("%T", ch)), p, start)
		}
	}()
	return ch.Check(ctx, h)
}

// Options configure Standard.
type Options struct {
	Lock     *Lock     // nil: NewLock()
	Resource *Resource // nil: &Resource{}
	Liveness *Liveness // nil: &Liveness{}
	// Fencing adds the fencing checker (a history without tokens is Valid).
	Fencing bool
	// Fenced says the resource enforces fencing (the run's --fencing), for
	// the exclusion checker (LateWriteFatal).
	Fenced bool
	// Server is the resource's own write log, for fencing and exclusion.
	Server *ServerLog
}

// Standard is the composition a lockstorm run uses: lock, resource,
// exclusion, liveness, and fencing when asked for.
func Standard(o Options) *Composite {
	o.Lock, o.Resource, o.Liveness = cmp.Or(o.Lock, NewLock()), cmp.Or(o.Resource, &Resource{}), cmp.Or(o.Liveness, &Liveness{})
	log := Fencing{Log: o.Server}.serverLog()
	cs := []Checker{o.Lock, o.Resource, Exclusion{Drift: o.Lock.Drift, DriftFactor: o.Lock.DriftFactor, Fenced: o.Fenced, Log: log}, o.Liveness}
	if o.Fencing {
		cs = append(cs, Fencing{Log: log})
	}
	return Compose(cs...)
}

// checkPart is ch's Check of h: ch's part of the engine's result with ch
// alone (Unknown when h is refused).
func checkPart(ctx context.Context, ch Checker, h history.History) Result {
	res, _, _ := (&Composite{Label: "part", Checkers: []Checker{ch}}).CheckSource(ctx, history.Slice(h))
	name := nameOf(ch, res.Name)
	for _, r := range res.Results {
		if r.Name == name {
			return r
		}
	}
	return Result{Name: name, Valid: Unknown, Error: res.Error}
}

// nameOf is ch's name, def if it does not know it (see Named).
func nameOf(ch Checker, def string) string {
	if n, ok := ch.(Named); ok {
		return n.Name()
	}
	return def
}
