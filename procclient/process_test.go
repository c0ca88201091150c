package procclient_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/procclient"
)

// A renewable holder (TTL 300 ms) stopped for 1 s: no renewal arrives
// during the stop; an acquire sent to it with a 100 ms timeout is still
// waiting, not broken, after 500 ms (the grace does not run while it is
// stopped) and gets its answer after Resume; then the watchdog's renewal
// fails and a lost event ends the lease.
func TestPause(t *testing.T) {
	const ttl = 300 * time.Millisecond
	cfg := lockstormConfig(t, "renewable", "c1", ttl, "LOCKSTORM_RENEW_MS=50")
	cfg.Grace = 300 * time.Millisecond // were it counted during the stop, the client would break at 400 ms
	c, _ := start(t, cfg)
	l, err := c.Acquire(timeout(t, time.Second), key(t))
	if err != nil {
		t.Fatal(err)
	}
	renewals := observe(l)
	if err := c.Pause(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	res := make(chan error, 1)
	go func() {
		l2, err := c.Acquire(timeout(t, 100*time.Millisecond), key(t))
		if err == nil {
			err = c.Release(timeout(t, time.Second), l2)
		}
		res <- err
	}()
	time.Sleep(1200 * time.Millisecond)
	select {
	case err := <-res:
		t.Fatalf("acquire sent to a stopped client returned during the stop: %v", err)
	case <-c.Broken():
		t.Fatalf("client broken during the stop: %v", c.Err())
	default:
	}
	time.Sleep(500 * time.Millisecond)
	// A renewal written just before the stop may still be read just after.
	settled := paused.Add(50 * time.Millisecond)
	for _, r := range renewals() {
		if r.at.After(settled) {
			t.Errorf("renewal read %v into the stop", r.at.Sub(paused))
		}
	}
	if err := c.Resume(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-res:
		if err != nil {
			t.Fatalf("acquire sent during the stop, after Resume: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no answer 3s after Resume")
	}
	select {
	case <-l.Done():
		if !errors.Is(l.Err(), lockimpl.ErrLost) {
			t.Fatalf("lease ended with %v, want ErrLost", l.Err())
		}
	case <-time.After(3 * time.Second):
		t.Fatal("lease expired during the stop not lost 3s after Resume")
	}
	if c.Err() != nil {
		t.Fatalf("client broken: %v", c.Err())
	}
}

// A request sent to a stopped client runs its timeout once the client
// runs again: an acquire of a held key (300 ms timeout) sent during a
// 1.2 s stop answers fail 300 ms after Resume, well past its ctx's
// deadline and a grace of 500 ms (timeout and grace end during the stop,
// so a clock that ran during it would break the client), and that is no
// reason to break. The grace leaves a loaded machine 500 ms to schedule
// the resumed process (100 ms failed under two busy loops).
func TestTimeoutRunsAfterResume(t *testing.T) {
	// The holder's lease outlives the test however slowly the second
	// client starts (with a 1 s TTL the key expired during a slow start on
	// CI, and the acquire got it).
	holder, _ := start(t, lockstormConfig(t, "single", "c2", 10*time.Second))
	k := key(t)
	if _, err := holder.Acquire(timeout(t, time.Second), k); err != nil {
		t.Fatal(err)
	}
	cfg := lockstormConfig(t, "single", "c1", time.Second)
	cfg.Grace = 500 * time.Millisecond
	c, _ := start(t, cfg)
	if err := c.Pause(); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		_, err := c.Acquire(timeout(t, 300*time.Millisecond), k)
		res <- err
	}()
	time.Sleep(500 * time.Millisecond)
	if err := c.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := <-res; !errors.Is(err, lockimpl.ErrNotObtained) {
		t.Fatalf("acquire of a held key sent during a stop: %v, want ErrNotObtained", err)
	}
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
}

// Kill ends the process group, a stopped one too; the acquire in flight
// (waiting for a held key) is unknown.
func TestKill(t *testing.T) {
	for _, stopped := range []bool{false, true} {
		name := map[bool]string{false: "running", true: "stopped"}[stopped]
		t.Run(name, func(t *testing.T) {
			holder, _ := start(t, lockstormConfig(t, "single", "c2", time.Second))
			k := key(t)
			if _, err := holder.Acquire(timeout(t, time.Second), k); err != nil {
				t.Fatal(err)
			}
			c, _ := start(t, procclient.Config{Argv: script("silent.sh"), Name: "c1"})
			if stopped {
				if err := c.Pause(); err != nil {
					t.Fatal(err)
				}
			}
			res := make(chan error, 1)
			go func() {
				_, err := c.Acquire(timeout(t, 5*time.Second), k)
				res <- err
			}()
			time.Sleep(100 * time.Millisecond)
			if err := c.Kill(); err != nil {
				t.Fatal(err)
			}
			err := <-res
			if !errors.Is(err, procclient.ErrBroken) || !errors.Is(err, lockimpl.ErrOutcomeUnknown) || errors.Is(err, lockimpl.ErrNotObtained) {
				t.Fatalf("acquire in flight at Kill: %v, want unknown wrapping ErrBroken", err)
			}
			if err := waitBroken(t, c); !strings.Contains(err.Error(), "killed by the harness") {
				t.Fatalf("Err() = %v", err)
			}
			gone(t, c.Pid())
			if err := c.Kill(); err != nil {
				t.Fatalf("second Kill: %v", err)
			}
		})
	}
}

// Kill (harness side) and real clients: `lockstorm client` holding a
// lease is killed; its lease is marked lost, as nothing renews it.
func TestKillHolder(t *testing.T) {
	c, _ := start(t, lockstormConfig(t, "renewable", "c1", time.Second))
	l, err := c.Acquire(timeout(t, time.Second), key(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	gone(t, c.Pid())
	select {
	case <-l.Done():
		if !errors.Is(l.Err(), lockimpl.ErrLost) || !errors.Is(l.Err(), procclient.ErrBroken) {
			t.Fatalf("lease Err %v, want ErrLost and ErrBroken", l.Err())
		}
	default:
		t.Fatal("lease of a killed client not marked lost")
	}
	if err := c.Release(timeout(t, time.Second), l); !errors.Is(err, procclient.ErrBroken) || errors.Is(err, lockimpl.ErrNotHeld) {
		t.Fatalf("release on a killed client: %v, want unknown wrapping ErrBroken", err)
	}
	if err := c.Pause(); !errors.Is(err, procclient.ErrBroken) {
		t.Fatalf("Pause of a killed client: %v, want ErrBroken", err)
	}
}

// Close of a real client, running or stopped: it exits by itself at the
// end of its stdin; Close is idempotent and leaves no process and no
// goroutine.
func TestClose(t *testing.T) {
	for _, stopped := range []bool{false, true} {
		name := map[bool]string{false: "running", true: "stopped"}[stopped]
		t.Run(name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			c, log := start(t, lockstormConfig(t, "single", "c1", time.Second))
			l, err := c.Acquire(timeout(t, time.Second), key(t))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Release(timeout(t, time.Second), l); err != nil {
				t.Fatal(err)
			}
			if stopped {
				if err := c.Pause(); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			if err := c.Err(); !strings.Contains(err.Error(), "closed by the harness: exited with status 0") {
				t.Fatalf("Err() = %v, want a clean exit", err)
			}
			if log.find("client c1") != "" {
				t.Errorf("error logged by a clean Close:\n%s", log)
			}
			gone(t, c.Pid())
			goroutinesBack(t, before)
		})
	}
}

// A client that ignores the end of its stdin is killed 2 s after Close.
func TestCloseKillsStubbornClient(t *testing.T) {
	before := runtime.NumGoroutine()
	c, log := start(t, procclient.Config{Argv: []string{"sleep", "100"}, Name: "c1"})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Err(); !strings.Contains(err.Error(), "did not exit within 2s of its stdin closing") {
		t.Fatalf("Err() = %v", err)
	}
	if log.find("did not exit within 2s") == "" {
		t.Errorf("no log line; log:\n%s", log)
	}
	gone(t, c.Pid())
	goroutinesBack(t, before)
}

// A request carries ttl_ms, and timeout_ms when ctx has a deadline (the
// time left, at least 1 ms); a ctx cancelled before the op sends nothing.
func TestRequestFields(t *testing.T) {
	c, _ := start(t, procclient.Config{Argv: script("answers.py", "echo"), TTL: 700 * time.Millisecond})
	_, err := c.Acquire(timeout(t, 300*time.Millisecond), "k")
	m := regexp.MustCompile(`"ttl_ms": 700, "timeout_ms": (\d+)`).FindStringSubmatch(fmt.Sprint(err))
	if !errors.Is(err, lockimpl.ErrNotObtained) || m == nil {
		t.Fatalf("acquire answered with the request: %v", err)
	}
	if ms, _ := strconv.Atoi(m[1]); ms < 1 || ms > 300 {
		t.Fatalf("timeout_ms %d for a ctx of 300ms", ms)
	}
	_, err = c.Acquire(context.Background(), "k")
	if !errors.Is(err, lockimpl.ErrNotObtained) || !strings.Contains(err.Error(), `"ttl_ms": 700`) || strings.Contains(err.Error(), "timeout_ms") {
		t.Fatalf("acquire without a deadline answered with the request: %v, want no timeout_ms", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l := lockimpl.NewLease("k", "t", 0, time.Second, time.Now())
	if err := c.Release(ctx, l); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "answered") {
		t.Fatalf("release with a cancelled ctx: %v, want unknown (context.Canceled), not sent", err)
	}
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
}
