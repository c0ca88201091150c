package procclient_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/procclient"
)

// `lockstorm client --lock single` behind two Clients: acquire, exclusion
// (fail is ErrNotObtained), extend, release, and every validity within
// send + TTL − allowance.
func TestSingle(t *testing.T) {
	const ttl = 500 * time.Millisecond
	a, _ := start(t, lockstormConfig(t, "single", "c1", ttl))
	b, _ := start(t, lockstormConfig(t, "single", "c2", ttl))
	k := key(t)

	before := time.Now()
	l, err := a.Acquire(timeout(t, time.Second), k)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if l.Key != k || l.Token == "" || l.TTL != ttl || len(l.Nodes) != 1 {
		t.Fatalf("lease %+v", l)
	}
	if v := l.Validity(); !v.After(before) || v.After(after.Add(maxValid(ttl))) {
		t.Fatalf("validity %v after the acquire's start, want in (0, %v]", v.Sub(before), after.Sub(before)+maxValid(ttl))
	}

	_, err = b.Acquire(timeout(t, 200*time.Millisecond), k)
	if !errors.Is(err, lockimpl.ErrNotObtained) || errors.Is(err, procclient.ErrBroken) {
		t.Fatalf("second client's acquire of a held key: %v, want ErrNotObtained", err)
	}

	old := l.Validity()
	time.Sleep(20 * time.Millisecond)
	if err := a.Extend(timeout(t, time.Second), l); err != nil {
		t.Fatal(err)
	}
	if v := l.Validity(); !v.After(old) || v.After(time.Now().Add(maxValid(ttl))) {
		t.Fatalf("extend moved validity by %v; later than now + %v: %v", v.Sub(old), maxValid(ttl), v.After(time.Now().Add(maxValid(ttl))))
	}

	if err := a.Release(timeout(t, time.Second), l); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Done():
		if !errors.Is(l.Err(), lockimpl.ErrReleased) {
			t.Fatalf("lease Err after release: %v", l.Err())
		}
	default:
		t.Fatal("lease Done still open after its release")
	}
	if err := a.Release(timeout(t, time.Second), l); !errors.Is(err, lockimpl.ErrNotHeld) {
		t.Fatalf("second release: %v, want ErrNotHeld", err)
	}
	if err := a.Extend(timeout(t, time.Second), l); !errors.Is(err, lockimpl.ErrNotHeld) {
		t.Fatalf("extend after release: %v, want ErrNotHeld", err)
	}
	lb, err := b.Acquire(timeout(t, time.Second), k)
	if err != nil {
		t.Fatalf("acquire after the release: %v", err)
	}
	if err := b.Release(timeout(t, time.Second), lb); err != nil {
		t.Fatal(err)
	}
}

// renewal is one validity move of a lease, seen by its observer.
type renewal struct {
	at       time.Time
	old, new time.Time
}

// observe records every validity move of l.
func observe(l *lockimpl.Lease) func() []renewal {
	var mu sync.Mutex
	var got []renewal
	l.ObserveValidity(func(old, v time.Time) {
		mu.Lock()
		got = append(got, renewal{time.Now(), old, v})
		mu.Unlock()
	})
	return func() []renewal {
		mu.Lock()
		defer mu.Unlock()
		return append([]renewal(nil), got...)
	}
}

// `lockstorm client --lock renewable`: the watchdog's renewed events move
// the lease's validity forward, never past receipt + TTL − allowance.
func TestRenewableEvents(t *testing.T) {
	const ttl = 300 * time.Millisecond
	c, _ := start(t, lockstormConfig(t, "renewable", "c1", ttl, "LOCKSTORM_RENEW_MS=50"))
	l, err := c.Acquire(timeout(t, time.Second), key(t))
	if err != nil {
		t.Fatal(err)
	}
	renewals := observe(l)
	deadline := time.Now().Add(3 * time.Second)
	for len(renewals()) < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got := renewals()
	if len(got) < 3 {
		t.Fatalf("%d renewed events in 3s with renewals every 50ms", len(got))
	}
	for _, r := range got {
		if !r.new.After(r.old) || r.new.After(r.at.Add(maxValid(ttl))) {
			t.Errorf("renewal at %v moved validity %v -> %v: want later, and at most %v past the event", r.at, r.old, r.new, maxValid(ttl))
		}
	}
	if err := c.Release(timeout(t, time.Second), l); err != nil {
		t.Fatal(err)
	}
}

// A client claiming far more validity than the TTL allows (100 s for a
// 300 ms lease) gets no more than send (or receipt, for an event) + TTL −
// allowance.
func TestValidityCapped(t *testing.T) {
	const ttl = 300 * time.Millisecond
	c, _ := start(t, procclient.Config{Argv: script("answers.py", "liar"), TTL: ttl})
	l, err := c.Acquire(timeout(t, time.Second), key(t))
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if v := l.Validity(); v.After(after.Add(maxValid(ttl))) {
		t.Fatalf("acquire: validity %v ahead, want at most %v", time.Until(v), maxValid(ttl))
	}
	renewals := observe(l) // the liar sends a renewed event after its extend answer
	if err := c.Extend(timeout(t, time.Second), l); err != nil {
		t.Fatal(err)
	}
	if v := l.Validity(); v.After(time.Now().Add(maxValid(ttl))) {
		t.Fatalf("extend: validity %v ahead, want at most %v", time.Until(v), maxValid(ttl))
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(renewals()) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := renewals()
	if len(got) != 2 {
		t.Fatalf("%d validity moves, want 2 (extend, renewed event)", len(got))
	}
	if r := got[1]; r.new.After(r.at.Add(maxValid(ttl))) {
		t.Fatalf("renewed event: validity %v past the event, want at most %v", r.new.Sub(r.at), maxValid(ttl))
	}
}

// A validity is dated when the client measured it (mono_ns), not when the
// harness read the answer: a client that writes its answer 300 ms after
// measuring 1 s of validity gets a lease ending about 700 ms after the
// answer is read, not 1 s. A mono_ns of another clock is kept within the
// request's send and the receipt.
func TestValidityDatedAtItsMeasurement(t *testing.T) {
	const ttl = 5 * time.Second
	for _, c := range []struct {
		mode     string
		min, max time.Duration // the validity's bounds, from the send and from the receipt
	}{
		{"slow", 1000 * time.Millisecond, 800 * time.Millisecond},
		{"farclock", 1000 * time.Millisecond, 1000 * time.Millisecond}, // dated at the send
	} {
		cl, _ := start(t, procclient.Config{Argv: script("answers.py", c.mode), TTL: ttl})
		sent := time.Now()
		l, err := cl.Acquire(timeout(t, 2*time.Second), key(t))
		recv := time.Now()
		if err != nil {
			t.Fatal(err)
		}
		v := l.Validity()
		if v.Before(sent.Add(c.min)) || v.After(recv.Add(c.max)) {
			t.Errorf("%s: validity %v after the send, %v after the receipt; want at least %v and at most %v",
				c.mode, v.Sub(sent), v.Sub(recv), c.min, c.max)
		}
	}
}

// A cancelled acquire returns at once, unknown, and the client stays
// usable; when the client then takes the lock after all, its late lease
// is released (the renewable lock's watchdog would otherwise hold the key
// for good).
func TestCancelledAcquireReleasedLate(t *testing.T) {
	const ttl = 500 * time.Millisecond
	a, _ := start(t, lockstormConfig(t, "single", "c1", ttl))
	b, blog := start(t, lockstormConfig(t, "renewable", "c2", ttl))
	k := key(t)
	l, err := a.Acquire(timeout(t, time.Second), k)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	res := make(chan error, 1)
	go func() {
		_, err := b.Acquire(ctx, k)
		res <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	err = <-res
	if !errors.Is(err, context.Canceled) || !errors.Is(err, lockimpl.ErrOutcomeUnknown) || errors.Is(err, lockimpl.ErrNotObtained) || errors.Is(err, procclient.ErrBroken) {
		t.Fatalf("cancelled acquire: %v, want unknown (context.Canceled)", err)
	}
	if b.Err() != nil {
		t.Fatalf("client broken by a cancelled acquire: %v", b.Err())
	}
	if err := a.Release(timeout(t, time.Second), l); err != nil {
		t.Fatal(err)
	}
	// b's process now takes the lock and answers late; b releases it. (A
	// loaded CI machine once took more than 2 s: the wait ends at the answer.)
	deadline := time.Now().Add(10 * time.Second)
	for blog.find("late ok answer to acquire") == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no late answer logged 10s after the release; log:\n%s", blog)
		}
		time.Sleep(10 * time.Millisecond)
	}
	l2, err := a.Acquire(timeout(t, 2*time.Second), k)
	if err != nil {
		t.Fatalf("acquire after the late lease: %v", err)
	}
	if err := a.Release(timeout(t, time.Second), l2); err != nil {
		t.Fatal(err)
	}
}

// A lock that cannot extend (fair-naive) answers fail, which maps to
// lockimpl.ErrUnsupported, not ErrNotHeld (the lease is still held); an
// empty key is refused without a request.
func TestUnsupportedExtendAndEmptyKey(t *testing.T) {
	c, _ := start(t, lockstormConfig(t, "fair-naive", "c1", time.Second))
	l, err := c.Acquire(timeout(t, time.Second), key(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Extend(timeout(t, time.Second), l); !errors.Is(err, lockimpl.ErrUnsupported) || errors.Is(err, lockimpl.ErrNotHeld) {
		t.Fatalf("extend of fair-naive: %v, want ErrUnsupported", err)
	}
	if _, err := c.Acquire(timeout(t, time.Second), ""); err == nil || errors.Is(err, lockimpl.ErrNotObtained) {
		t.Fatalf("acquire of an empty key: %v, want an error, not ErrNotObtained", err)
	}
	if err := c.Release(timeout(t, time.Second), l); err != nil {
		t.Fatalf("release after both: %v (client: %v)", err, c.Err())
	}
}

// Requests in flight at once on one client each get their own answer.
func TestConcurrentRequests(t *testing.T) {
	c, _ := start(t, lockstormConfig(t, "single", "c1", time.Second))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		k := key(t)
		wg.Go(func() {
			for range 10 {
				l, err := c.Acquire(timeout(t, time.Second), k)
				if err == nil && l.Key != k {
					err = errors.New("lease of another key: " + l.Key)
				}
				if err == nil {
					err = c.Release(timeout(t, time.Second), l)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
