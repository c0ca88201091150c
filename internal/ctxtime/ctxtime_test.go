package ctxtime

import (
	"context"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	ctx := context.Background()
	if !Sleep(ctx, time.Millisecond, nil) || !Sleep(ctx, -time.Second, nil) {
		t.Fatal("a plain sleep did not complete")
	}
	stop := make(chan struct{})
	close(stop)
	if Sleep(ctx, time.Hour, stop) {
		t.Fatal("a closed stop channel did not end the sleep")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if Sleep(done, 0, nil) || Until(done, time.Now().Add(time.Hour)) {
		t.Fatal("an ended context did not end the sleep")
	}
	if !Until(ctx, time.Now().Add(-time.Second)) {
		t.Fatal("a past instant was not reached")
	}
}
