package harness

import (
	"context"
	"fmt"
	"time"
)

// interruptedReason is analysis.Result.Incomplete for a run whose ctx
// ended at elapsed of its time limit: "interrupted by SIGINT at 4.0s of
// 12s". The cause is context.Cause(ctx) (the CLI cancels with the signal's
// name); a plain cancel reads "interrupted (context canceled)".
func interruptedReason(ctx context.Context, elapsed, limit time.Duration) string {
	by := "(context canceled)"
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		by = "by " + cause.Error()
	}
	return fmt.Sprintf("interrupted %s at %.1fs of %v", by, elapsed.Seconds(), limit)
}
