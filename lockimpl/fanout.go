package lockimpl

import (
	"context"
	"time"
)

// nodeResult is one node's answer to a fanned-out command.
type nodeResult struct {
	node int
	val  int64 // command-specific: 1/0, or a fencing counter
	err  error
}

// fanout runs f on every node index in parallel, each under its own
// timeout, and returns the channel (buffered: never blocks a sender) on
// which the results arrive in completion order. Callers may stop reading
// early; the remaining goroutines end within the timeout.
func fanout(ctx context.Context, n int, timeout time.Duration, f func(ctx context.Context, i int) (int64, error)) <-chan nodeResult {
	ch := make(chan nodeResult, n)
	for i := range n {
		go func() {
			nctx, cancel := context.WithTimeout(ctx, timeout)
			v, err := f(nctx, i)
			cancel()
			ch <- nodeResult{node: i, val: v, err: err}
		}()
	}
	return ch
}
