package checker

import (
	"context"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// The test oracle: every checker run on the whole history held in memory,
// as the composition ran before the streamed engine became the only
// check. The equivalence tests (checkBoth) hold the engine to it.

// checkWhole runs the composition's checkers on the whole history, in
// parallel: for a history the streamed check cannot cut (see CheckFile).
// The composed result's Seconds is the whole check's time, each part's
// its own checker's.
func (c *Composite) checkWhole(ctx context.Context, h history.History) (res Result) {
	start := time.Now()
	res = Result{Name: c.Label}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	if refused(&res, h, start) {
		return res
	}
	res.Results = make([]Result, len(c.Checkers))
	var wg sync.WaitGroup
	for i, ch := range c.Checkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res.Results[i] = safeCheck(ctx, ch, h)
		}()
	}
	wg.Wait()
	c.finish(&res, h)
	return res
}

// refused validates h; when Validate refuses it, res becomes Unknown with
// Validate's message (as an Invalid "validate" part) and no checker runs.
func refused(res *Result, h history.History, start time.Time) bool {
	err := Validate(h)
	if err == nil {
		return false
	}
	res.Valid, res.Error = Unknown, err.Error()
	res.Results = []Result{{Name: "validate", Valid: Invalid, Error: err.Error(), Seconds: time.Since(start).Seconds()}}
	return true
}

// finish adds the token check to res's parts, merges their verdicts,
// demotes a run in which no acquire succeeded, and labels the anomalies
// with the fault windows (steps 2, 4, 5 and 6 of Compose).
func (c *Composite) finish(res *Result, h history.History) {
	t0 := time.Now()
	tr := Tokens(h)
	tr.Seconds = time.Since(t0).Seconds()
	finishWith(res, tr, anyAcquireOK(h), FaultWindows(h), int64(len(h)), func(i int64) int64 { return h[i].Time })
}

// anyAcquireOK reports whether some acquire in h completed ok.
func anyAcquireOK(h history.History) bool {
	for i := range h {
		if h[i].F == history.FAcquire && h[i].Type == history.OK {
			return true
		}
	}
	return false
}
