package pauseclock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWithTimeoutRunning(t *testing.T) {
	var c Clock
	start := time.Now()
	ctx, cancel := c.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Fatalf("fired after %v, before its 30ms", el)
	}
	if !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		t.Fatalf("cause %v, want deadline exceeded", context.Cause(ctx))
	}
}

// A pause in the middle of a timeout adds its length: 40 ms of timeout with
// a 100 ms pause after 10 ms ends no earlier than 140 ms.
func TestWithTimeoutExcludesPause(t *testing.T) {
	var c Clock
	start := time.Now()
	ctx, cancel := c.WithTimeout(context.Background(), 40*time.Millisecond)
	defer cancel()
	time.Sleep(10 * time.Millisecond)
	c.Pause()
	time.Sleep(100 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("timeout fired while paused")
	}
	c.Resume()
	<-ctx.Done()
	if el := time.Since(start); el < 140*time.Millisecond {
		t.Fatalf("fired after %v, want at least 140ms", el)
	}
	if p := c.Paused(); p < 100*time.Millisecond {
		t.Fatalf("Paused %v, want at least 100ms", p)
	}
}

func TestCancelAndNil(t *testing.T) {
	var c Clock
	ctx, cancel := c.WithTimeout(context.Background(), time.Hour)
	cancel()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("err %v, want canceled", ctx.Err())
	}
	var nc *Clock
	ctx, cancel = nc.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("nil clock: err %v", ctx.Err())
	}
}

func TestRemainingAndExpired(t *testing.T) {
	var c Clock
	ctx, cancel := c.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Pause()
	time.Sleep(20 * time.Millisecond)
	if d, ok := Remaining(ctx); !ok || d < 990*time.Millisecond || d > time.Second {
		t.Fatalf("Remaining while paused = %v %v, want about 1s", d, ok)
	}
	c.Resume()
	if _, ok := Remaining(context.Background()); ok {
		t.Fatal("Remaining of a context without timeout reported ok")
	}
	short, cancel2 := c.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	<-short.Done()
	if !Expired(short) {
		t.Fatal("expired timeout not reported Expired")
	}
	cancel()
	if Expired(ctx) {
		t.Fatal("cancelled context reported Expired")
	}
}
