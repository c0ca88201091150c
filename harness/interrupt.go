package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
)

// interrupt marks res as a run whose ctx ended, started at start, and
// logs why (res.Incomplete): "interrupted by SIGINT at 4.0s of 12s". The
// cause is context.Cause(ctx) (the CLI cancels with the signal's name); a
// plain cancel reads "interrupted (context canceled)".
func (r *run) interrupt(ctx context.Context, res *analysis.Result, start time.Time) {
	by := "(context canceled)"
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		by = "by " + cause.Error()
	}
	res.Interrupted = true
	res.Incomplete = fmt.Sprintf("interrupted %s at %.1fs of %v", by, time.Since(start).Seconds(), r.cfg.TimeLimit)
	r.logf("%s", res.Incomplete)
}
