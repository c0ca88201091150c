// Package ctxtime holds the context-aware sleep every lockstorm package
// needs: wait a while, but not past the end of a context.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends or stop closes (stop may be nil). It
// reports whether the full time passed.
func Sleep(ctx context.Context, d time.Duration, stop <-chan struct{}) bool {
	if ctx.Err() != nil {
		return false
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	case <-t.C:
		return true
	}
}

// Until waits until the instant at, or until ctx ends. It reports whether
// the instant was reached.
func Until(ctx context.Context, at time.Time) bool {
	return Sleep(ctx, time.Until(at), nil)
}
