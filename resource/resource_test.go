package resource

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func start(t *testing.T, fencing bool) (*Server, *Client) {
	t.Helper()
	s, err := Start(Config{Fencing: fencing})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := NewClient(s.Addr())
	t.Cleanup(func() { c.Close() })
	return s, c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestFencingRejectsLowerAcceptsHigher(t *testing.T) {
	s, c := start(t, true)
	if err := c.Write(ctx(t), "x", 1, 5); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx(t), "x", 2, 4); !errors.Is(err, ErrStale) {
		t.Fatalf("lower token: want ErrStale, got %v", err)
	}
	if err := c.Write(ctx(t), "x", 3, 6); err != nil {
		t.Fatalf("higher token rejected: %v", err)
	}
	if v, _ := c.Read(ctx(t), "x"); v != 3 {
		t.Fatalf("value %d, want 3 (the rejected write must not apply)", v)
	}
	wantLog(t, s, "write accepted", "write rejected stale", "write accepted")
}

func TestNoFencingAcceptsStaleAndRecordsIt(t *testing.T) {
	s, c := start(t, false)
	if err := c.Write(ctx(t), "x", 1, 5); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx(t), "x", 2, 4); err != nil {
		t.Fatalf("without fencing a lower token must be accepted: %v", err)
	}
	if s.Value("x") != 2 {
		t.Fatalf("value %d, want 2", s.Value("x"))
	}
	wantLog(t, s, "write accepted", "write accepted stale")
}

func TestEnterCountsConcurrentCallers(t *testing.T) {
	s, _ := start(t, false)
	a, b := NewClient(s.Addr()), NewClient(s.Addr())
	defer a.Close()
	defer b.Close()
	if n, err := a.Enter(ctx(t), "api", 1); err != nil || n != 1 {
		t.Fatalf("first enter: %d %v", n, err)
	}
	if n, err := b.Enter(ctx(t), "api", 2); err != nil || n != 2 {
		t.Fatalf("overlapping enter must see 2 callers: %d %v", n, err)
	}
	for _, c := range []*Client{a, b} {
		if _, err := c.Leave(ctx(t), "api"); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := a.Enter(ctx(t), "api", 3); n != 1 {
		t.Fatalf("after both left, enter sees %d callers", n)
	}
}

func TestConcurrentClientsAndClose(t *testing.T) {
	s, _ := start(t, true)
	var wg sync.WaitGroup
	for i := 1; i <= 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewClient(s.Addr())
			defer c.Close()
			for j := 0; j < 50; j++ {
				err := c.Write(context.Background(), "k", int64(i), int64(i*100+j))
				if err != nil && !errors.Is(err, ErrStale) {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var last int64 = -1
	for _, w := range s.Writes() {
		if w.Accepted {
			if w.Fence <= last {
				t.Fatalf("accepted tokens not increasing: %d after %d", w.Fence, last)
			}
			last = w.Fence
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c := NewClient(s.Addr())
	if err := c.Ping(ctx(t)); err == nil {
		t.Fatal("closed server still answers")
	}
}

func TestTimeoutIsAnErrorAndClientRecovers(t *testing.T) {
	_, c := start(t, false)
	expired, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if err := c.Write(expired, "k", 1, 1); err == nil {
		t.Fatal("write with an ended context reported success")
	}
	if err := c.Ping(ctx(t)); err != nil {
		t.Fatalf("client did not recover: %v", err)
	}
	if err := c.Write(ctx(t), "bad key", 1, 1); !errors.Is(err, ErrBadKey) {
		t.Fatalf("want ErrBadKey, got %v", err)
	}
}
